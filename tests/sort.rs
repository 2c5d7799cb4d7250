//! GPU radix sort against the CPU reference: every strategy, key type and direction, awkward
//! sizes, adversarial distributions, pairs (stability), bit ranges, the workgroup-memory
//! (no-subgroup) flavour, OneSweep's decoupled fallback forced on, bad input, and a proof that
//! the checker catches a perturbed output. Each output is checked to be ordered, a permutation
//! of the input, and (pairs, bit ranges) stable. `run_check` sorts with
//! `SortPolicy::poison_between_passes`, so a key or value a later pass fails to write cannot hide
//! behind the copy an earlier pass left in the same scratch buffer; the CLI tests and the bench
//! run the shipped plans without it.

mod common;

use std::fmt::Debug;

use rand::Rng;
use wgsimd::reference::sort::{check_keys, check_pairs, sort_keys as ref_sort, Order};
use wgsimd::sort::{self, SortKey, SortOptions, SortPolicy, Strategy};
use wgsimd::{Caps, Error, Executor, GpuExecutor};

/// Issue 3's sizes up to 65537, plus the strategy's tiles (`tiles`, read from the kernels) and
/// their neighbours.
fn small(strategy: Strategy) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 31, 33, 255, 257, 4097, 65537];
    v.extend(tiles(strategy).into_iter().flat_map(|t| [t - 1, t, t + 1]));
    v.sort_unstable();
    v.dedup();
    v
}

/// The tiles of `strategy` (`sort::tile_keys`, and `sort::tile_keys_for` a small sort: OneSweep's
/// small stage), for keys alone and for pairs, each once.
fn tiles(strategy: Strategy) -> Vec<usize> {
    let p = SortPolicy::default();
    let mut v: Vec<usize> = [false, true]
        .into_iter()
        .flat_map(|pairs| {
            [
                sort::tile_keys(strategy, pairs).unwrap(),
                sort::tile_keys_for(strategy, pairs, 1, &p).unwrap(),
            ]
        })
        .map(|t| t as usize)
        .collect();
    // reduce-then-scan's histogram (the hybrid's LSD passes are segmented) counts HIST_GROUP
    // tiles per workgroup: a last group exactly full, one key short, one key over
    if strategy == Strategy::ReduceThenScan {
        let k = wgsimd::kernel::load("sort/histogram", wgsimd::kernel::Flavor::Subgroup).unwrap();
        let group = k.const_u32("HIST_GROUP").unwrap() as usize;
        for pairs in [false, true] {
            v.push(group * sort::tile_keys(strategy, pairs).unwrap() as usize);
        }
    }
    // OneSweep's global histogram counts in tiles of its own (its full ones load vec4s)
    if strategy == Strategy::OneSweep {
        let k = wgsimd::kernel::load("sort/onesweep_histogram", wgsimd::kernel::Flavor::Subgroup)
            .unwrap();
        v.push(k.const_u32("TILE").unwrap() as usize);
    }
    v.sort_unstable();
    v.dedup();
    v
}
const LARGE: &[usize] = &[2_684_354, (1 << 22) + 7];
const STRATEGIES: &[Strategy] = &[
    Strategy::ReduceThenScan,
    Strategy::OneSweep,
    Strategy::Hybrid,
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Dist {
    Uniform,
    AllEqual,
    Sorted,
    Reversed,
    Distinct16,
    HighByte,
    LowByte,
    Extremes,
}

const DISTS: &[Dist] = &[
    Dist::Uniform,
    Dist::AllEqual,
    Dist::Sorted,
    Dist::Reversed,
    Dist::Distinct16,
    Dist::HighByte,
    Dist::LowByte,
    Dist::Extremes,
];

trait Key: SortKey + Debug {
    /// Bit patterns of the type's awkward values.
    fn extremes() -> Vec<u32>;
}

impl Key for u32 {
    fn extremes() -> Vec<u32> {
        vec![0, 1, u32::MAX, u32::MAX - 1, 0x8000_0000, 0x7fff_ffff]
    }
}

impl Key for i32 {
    fn extremes() -> Vec<u32> {
        // 0, 1, -1, -2, i32::MIN, i32::MAX
        vec![0, 1, u32::MAX, u32::MAX - 1, 0x8000_0000, 0x7fff_ffff]
    }
}

impl Key for f32 {
    fn extremes() -> Vec<u32> {
        vec![
            0x0000_0000, // +0
            0x8000_0000, // -0
            0x7f80_0000, // +inf
            0xff80_0000, // -inf
            0x7fc0_0000, // NaN
            0xffc0_0000, // -NaN
            0x7f80_0001, // signalling NaN, payload 1
            0xff80_0001, // negative signalling NaN
            0x0000_0001, // smallest subnormal
            0x8000_0001, // its negative
            0x007f_ffff, // largest subnormal
            0x807f_ffff,
            0x0080_0000, // smallest normal
            0x7f7f_ffff, // f32::MAX
            0xff7f_ffff, // f32::MIN
            0x3f80_0000, // 1.0
            0xbf80_0000, // -1.0
        ]
    }
}

/// `n` keys of distribution `dist`, from `seed`.
fn keys<T: Key>(dist: Dist, n: usize, seed: u64) -> Vec<T> {
    let mut r = common::rng(seed);
    let ext = T::extremes();
    let palette: Vec<u32> = (0..16).map(|_| r.random()).collect();
    let c: u32 = r.random();
    let bits: Vec<u32> = (0..n)
        .map(|_| match dist {
            Dist::Uniform | Dist::Sorted | Dist::Reversed => r.random(),
            Dist::AllEqual => c,
            Dist::Distinct16 => palette[r.random_range(0..16)],
            Dist::HighByte => (r.random::<u32>() & 0xff00_0000) | (c & 0x00ff_ffff),
            Dist::LowByte => (r.random::<u32>() & 0xff) | (c & 0xffff_ff00),
            Dist::Extremes => ext[r.random_range(0..ext.len())],
        })
        .collect();
    let mut v: Vec<T> = bits.iter().map(|&b| bytemuck::cast(b)).collect();
    match dist {
        Dist::Sorted => v = ref_sort(&v, Order::default()),
        Dist::Reversed => {
            v = ref_sort(&v, Order::default());
            v.reverse();
        }
        _ => {}
    }
    v
}

fn order(opts: &SortOptions) -> Order {
    Order {
        descending: opts.descending,
        begin_bit: opts.begin_bit,
        end_bit: opts.end_bit,
    }
}

/// Sorts `k` (and `v`) on `g` as if its caps were `caps` (e.g. without subgroups), and checks.
fn run_check<T: Key>(
    g: &GpuExecutor,
    caps: &Caps,
    k: &[T],
    v: Option<&[u32]>,
    opts: &SortOptions,
    policy: &SortPolicy,
    what: &str,
) {
    let policy = SortPolicy {
        poison_between_passes: true,
        ..*policy
    };
    let p = sort::plan(caps, k, v, opts, &policy).unwrap_or_else(|e| panic!("{what}: {e}"));
    let out = g.run(&p.plan).unwrap_or_else(|e| panic!("{what}: {e}"));
    let ko: Vec<T> = p.keys(&out);
    let r = match v {
        Some(v) => check_pairs(k, v, &ko, &p.values(&out), order(opts)),
        None => check_keys(k, &ko, order(opts)),
    };
    if let Err(e) = r {
        panic!("{what}: {e}");
    }
}

/// Every size of `sizes` with every distribution, both directions (the hybrid: every
/// distribution up to 65537 keys, uniform beyond: its bucket passes cost lavapipe more), under
/// `policy`.
fn keys_matrix<T: Key>(g: &GpuExecutor, strategy: Strategy, sizes: &[usize], policy: &SortPolicy) {
    let caps = g.caps().clone();
    let mut runs: Vec<(usize, Dist)> = Vec::new();
    for &n in sizes {
        for &dist in DISTS {
            if strategy != Strategy::Hybrid || n <= 65537 || dist == Dist::Uniform {
                runs.push((n, dist));
            }
        }
    }
    for &descending in &[false, true] {
        for &(n, dist) in &runs {
            let k: Vec<T> = keys(dist, n, n as u64 * 31 + dist as u64);
            let opts = SortOptions {
                descending,
                strategy: Some(strategy),
                ..Default::default()
            };
            let what = format!(
                "{strategy} {} n={n} {dist:?} descending={descending}",
                std::any::type_name::<T>()
            );
            run_check(g, &caps, &k, None, &opts, policy, &what);
        }
    }
}

fn all_types(strategy: Strategy) {
    let Some(g) = common::gpu() else { return };
    let sizes = small(strategy);
    let p = SortPolicy::default();
    keys_matrix::<u32>(g, strategy, &sizes, &p);
    keys_matrix::<i32>(g, strategy, &sizes, &p);
    keys_matrix::<f32>(g, strategy, &sizes, &p);
    if strategy == Strategy::OneSweep {
        // these sizes take the small stage by default: its 8192-key tiles (sort/onesweep,
        // sort/onesweep_pairs; keys from 2^20 up) at their own edges too
        let large = onesweep_small_up_to(&p, 0);
        let t = sort::tile_keys_for(strategy, false, 1, &large).unwrap() as usize;
        let sizes = [1, t - 1, t, t + 1, 3 * t + 7];
        keys_matrix::<u32>(g, strategy, &sizes, &large);
        keys_matrix::<i32>(g, strategy, &sizes, &large);
        keys_matrix::<f32>(g, strategy, &sizes, &large);
    }
    // every distribution over several tiles, u32 ascending
    let caps = g.caps().clone();
    let opts = SortOptions {
        strategy: Some(strategy),
        ..Default::default()
    };
    for &dist in DISTS {
        let k: Vec<u32> = keys(dist, 65537, 77 + dist as u64);
        let what = format!("{strategy} u32 n=65537 {dist:?}");
        run_check(g, &caps, &k, None, &opts, &SortPolicy::default(), &what);
    }
}

#[test]
fn reduce_then_scan_keys() {
    all_types(Strategy::ReduceThenScan);
}

#[test]
fn onesweep_keys() {
    all_types(Strategy::OneSweep);
}

#[test]
fn hybrid_keys() {
    all_types(Strategy::Hybrid);
}

#[test]
fn pairs_stable() {
    let Some(g) = common::gpu() else { return };
    let caps = g.caps().clone();
    for (strategy, policy) in every_stage() {
        for &descending in &[false, true] {
            for &n in &[0usize, 1, 2, 31, 33, 255, 257, 4097, 65537] {
                for &dist in DISTS {
                    let opts = SortOptions {
                        descending,
                        strategy: Some(strategy),
                        ..Default::default()
                    };
                    let vals = common::values(n);
                    let what = format!(
                        "pairs {strategy} n={n} {dist:?} desc={descending} small stage up to {}",
                        policy.onesweep_small_pairs_max
                    );
                    let k: Vec<u32> = keys(dist, n, 7 + n as u64);
                    run_check(g, &caps, &k, Some(&vals), &opts, &policy, &what);
                    let k: Vec<i32> = keys(dist, n, 8 + n as u64);
                    run_check(g, &caps, &k, Some(&vals), &opts, &policy, &what);
                    // f32: Extremes holds every special value, both zeros, NaNs
                    let k: Vec<f32> = keys(dist, n, 9 + n as u64);
                    run_check(g, &caps, &k, Some(&vals), &opts, &policy, &what);
                }
            }
        }
    }
}

/// The seed's size and 2^22 + 7: every strategy, key type, direction and size, keys alone, the
/// distribution turning with each run so that every strategy meets all eight (not their full
/// product: lavapipe needs ~0.5 s per pass at these sizes), f32's special values
/// (`Dist::Extremes`) among them; then pairs, every strategy and key type once.
#[test]
fn large_sizes() {
    let Some(g) = common::gpu() else { return };
    for (s, &strategy) in STRATEGIES.iter().enumerate() {
        // a strategy's 12 runs take distributions 2, 3, ..., 7, 0, ..., 5: all eight, and its
        // f32 runs (every third) take 4, 7 (Extremes), 2 and 5
        let mut run = 0usize;
        let mut seen = Vec::new();
        let mut next = || {
            run += 1;
            let dist = DISTS[(run + 1) % DISTS.len()];
            seen.push(dist);
            (dist, (s * 100 + run) as u64)
        };
        let mut f32_dists = Vec::new();
        for &n in LARGE {
            for descending in [false, true] {
                let (dist, seed) = next();
                large::<u32>(g, strategy, dist, n, seed, false, descending);
                let (dist, seed) = next();
                large::<i32>(g, strategy, dist, n, seed, false, descending);
                let (dist, seed) = next();
                large::<f32>(g, strategy, dist, n, seed, false, descending);
                f32_dists.push(dist);
            }
        }
        assert!(
            DISTS.iter().all(|d| seen.contains(d)),
            "{strategy}: {seen:?}"
        );
        assert!(
            f32_dists.contains(&Dist::Extremes),
            "{strategy}: {f32_dists:?}"
        );
    }
    use Strategy::{Hybrid, OneSweep, ReduceThenScan};
    let (a, b) = (LARGE[0], LARGE[1]);
    // u32 pairs, every strategy, at the seed's size
    for &strategy in STRATEGIES {
        large::<u32>(g, strategy, Dist::Uniform, a, 6, true, false);
    }
    large::<i32>(g, OneSweep, Dist::Distinct16, a, 3, true, true);
    large::<f32>(g, ReduceThenScan, Dist::Extremes, b, 2, true, true);
    large::<i32>(g, Hybrid, Dist::Reversed, b, 9, true, false);
    // OneSweep's 8192-key pairs stage (above `onesweep_small_pairs_max`)
    large::<f32>(g, OneSweep, Dist::AllEqual, b, 10, true, true);
}

/// One sort of `large_sizes`: `n` keys of `dist` (seed `seed`), with values (`common::values`)
/// if `pairs`.
fn large<T: Key>(
    g: &GpuExecutor,
    strategy: Strategy,
    dist: Dist,
    n: usize,
    seed: u64,
    pairs: bool,
    descending: bool,
) {
    let k: Vec<T> = keys(dist, n, seed);
    let vals: Option<Vec<u32>> = pairs.then(|| common::values(n));
    let opts = SortOptions {
        descending,
        strategy: Some(strategy),
        ..Default::default()
    };
    let what = format!(
        "{strategy} {} {dist:?} n={n} pairs={pairs} descending={descending}",
        std::any::type_name::<T>()
    );
    run_check(
        g,
        g.caps(),
        &k,
        vals.as_deref(),
        &opts,
        &SortPolicy::default(),
        &what,
    );
}

#[test]
fn bit_ranges() {
    let Some(g) = common::gpu() else { return };
    let caps = g.caps().clone();
    for &strategy in STRATEGIES {
        for &(begin_bit, end_bit) in &[
            (0, 8),
            (8, 24),
            (4, 12),
            (16, 16),
            (0, 31),
            (24, 32),
            (3, 30),
        ] {
            for &descending in &[false, true] {
                let opts = SortOptions {
                    descending,
                    begin_bit,
                    end_bit,
                    strategy: Some(strategy),
                };
                let what = format!("{strategy} bits {begin_bit}..{end_bit} desc={descending}");
                let k: Vec<u32> = keys(Dist::Uniform, 9000, 5);
                let vals: Vec<u32> = (0..k.len() as u32).collect();
                run_check(
                    g,
                    &caps,
                    &k,
                    Some(&vals),
                    &opts,
                    &SortPolicy::default(),
                    &what,
                );
                let k: Vec<f32> = keys(Dist::Extremes, 3000, 6);
                run_check(g, &caps, &k, None, &opts, &SortPolicy::default(), &what);
            }
        }
    }
}

/// The workgroup-memory ranking (adapters without subgroups) on the same GPU.
#[test]
fn emulated_flavour() {
    let Some(g) = common::gpu() else { return };
    let mut caps = g.caps().clone();
    caps.subgroups = false;
    let p = SortPolicy::default();
    for &strategy in &[Strategy::ReduceThenScan, Strategy::Hybrid] {
        // 0, 1, the tile's edges, several tiles
        let t = sort::tile_keys(strategy, true).unwrap() as usize;
        // (65537 and beyond: the seed's size below, pairs)
        let sizes = [
            0usize,
            1,
            2,
            31,
            33,
            255,
            257,
            t - 1,
            t,
            t + 1,
            4097,
            20_001,
        ];
        for (i, &n) in sizes.iter().enumerate() {
            for &descending in &[false, true] {
                let opts = SortOptions {
                    descending,
                    strategy: Some(strategy),
                    ..Default::default()
                };
                // the distributions turn with the size: each meets both strategies
                let dist = DISTS[(i + descending as usize) % DISTS.len()];
                let what = format!("emulated {strategy} n={n} {dist:?} desc={descending}");
                let vals = common::values(n);
                let k: Vec<u32> = keys(dist, n, 11);
                run_check(g, &caps, &k, Some(&vals), &opts, &p, &what);
                let k: Vec<u32> = keys(DISTS[(i + 4) % DISTS.len()], n, 15);
                run_check(g, &caps, &k, None, &opts, &p, &what);
                let k: Vec<f32> = keys(Dist::Extremes, n, 12);
                run_check(g, &caps, &k, None, &opts, &p, &what);
                let k: Vec<i32> = keys(Dist::Uniform, n, 13);
                run_check(g, &caps, &k, None, &opts, &p, &what);
            }
        }
    }
    // the seed's size, pairs (the emulated ranking at many tiles)
    let n = LARGE[0];
    let vals = common::values(n);
    let k: Vec<u32> = keys(Dist::Uniform, n, 14);
    let opts = SortOptions::default();
    run_check(
        g,
        &caps,
        &k,
        Some(&vals),
        &opts,
        &p,
        &format!("emulated pairs n={n}"),
    );
    // the policy never picks OneSweep without subgroups; asking for it is an error
    assert_eq!(p.choose(&caps, 1 << 24, false), Strategy::ReduceThenScan);
    let opts = SortOptions {
        strategy: Some(Strategy::OneSweep),
        ..Default::default()
    };
    assert!(matches!(
        sort::plan(&caps, &[1u32, 2], None, &opts, &p),
        Err(Error::InvalidInput(_))
    ));
}

/// SPIN = 0: a tile whose predecessor has not published yet counts the predecessor's keys
/// itself at once, so the decoupled fallback runs often, and must give the same result.
#[test]
fn onesweep_fallback() {
    let Some(g) = common::gpu() else { return };
    let caps = g.caps().clone();
    let p = SortPolicy {
        spin: 0,
        ..Default::default()
    };
    let opts = SortOptions {
        strategy: Some(Strategy::OneSweep),
        ..Default::default()
    };
    for &n in &[4097usize, 65537, 300_007] {
        let vals = common::values(n);
        let k: Vec<u32> = keys(Dist::Uniform, n, 21);
        run_check(
            g,
            &caps,
            &k,
            Some(&vals),
            &opts,
            &p,
            &format!("fallback n={n}"),
        );
        let k: Vec<f32> = keys(Dist::Extremes, n, 22);
        run_check(
            g,
            &caps,
            &k,
            None,
            &opts,
            &p,
            &format!("fallback f32 n={n}"),
        );
    }
}

/// Every strategy with the default policy, then OneSweep with its small stage off: small sorts
/// take the small stage by default, so this reaches the 8192-key stages too.
fn every_stage() -> Vec<(Strategy, SortPolicy)> {
    let large = onesweep_small_up_to(&SortPolicy::default(), 0);
    STRATEGIES
        .iter()
        .map(|&s| (s, SortPolicy::default()))
        .chain([(Strategy::OneSweep, large)])
        .collect()
}

/// `base` with OneSweep's small stage taking sorts of up to `max` keys alone or pairs (0: none,
/// `u64::MAX`: all).
fn onesweep_small_up_to(base: &SortPolicy, max: u64) -> SortPolicy {
    SortPolicy {
        onesweep_small_keys_max: max,
        onesweep_small_pairs_max: max,
        ..*base
    }
}

/// Calls `check(options, policy, n, what)` for every strategy at 1, tile − 1, tile, tile + 1
/// and 3·tile + 7 keys (tiles for keys alone and for pairs): full, partial and one-key tiles.
/// OneSweep runs each of its stages at its own tile's edges: `base` with the small stage off
/// (8192-key tiles) and with it taking every size (4096-key tiles).
fn every_strategy_and_tile_edge(
    base: &SortPolicy,
    mut check: impl FnMut(&SortOptions, &SortPolicy, usize, String),
) {
    let large = onesweep_small_up_to(base, 0);
    let small = onesweep_small_up_to(base, u64::MAX);
    for strategy in [
        Strategy::ReduceThenScan,
        Strategy::OneSweep,
        Strategy::Hybrid,
    ] {
        let opts = SortOptions {
            strategy: Some(strategy),
            ..Default::default()
        };
        let stages: &[(&SortPolicy, &str)] = if strategy == Strategy::OneSweep {
            &[(&large, ""), (&small, " small tiles")]
        } else {
            &[(base, "")]
        };
        for &(p, stage) in stages {
            let mut sizes = vec![1usize];
            for pairs in [false, true] {
                let tile = sort::tile_keys_for(strategy, pairs, 2, p).unwrap() as usize;
                sizes.extend([tile - 1, tile, tile + 1, 3 * tile + 7]);
            }
            sizes.sort_unstable();
            sizes.dedup();
            for n in sizes {
                check(&opts, p, n, format!("{strategy:?}{stage} n={n}"));
            }
        }
    }
}

/// `FULL_TILES` both ways for every strategy (the policy turns it on for the scatters of keys
/// and for OneSweep), and with each, OneSweep's values loaded before its look-back or after
/// the keys are written (`VALUES_EARLY`, off by policy): full tiles, a partial last tile, and
/// tiles of one key, keys and pairs.
#[test]
fn full_tile_loops_both_ways() {
    let Some(g) = common::gpu() else { return };
    let caps = g.caps().clone();
    for full in [false, true] {
        for early in [false, true] {
            let p = SortPolicy {
                scatter_full_tiles: full,
                onesweep_full_tiles: full,
                onesweep_values_early: early,
                ..Default::default()
            };
            every_strategy_and_tile_edge(&p, |opts, p, n, what| {
                let what = format!("{what} full tiles {full} values early {early}");
                let vals = common::values(n);
                let k: Vec<u32> = keys(Dist::Uniform, n, 31);
                run_check(g, &caps, &k, Some(&vals), opts, p, &what);
                // keys alone do not depend on VALUES_EARLY
                if early {
                    let k: Vec<u32> = keys(Dist::HighByte, n, 32);
                    run_check(g, &caps, &k, None, opts, p, &what);
                }
            });
        }
    }
}

/// Both rankings (`SortPolicy::onesweep_match_ranking`, `scatter_match_ranking`: match masks in
/// workgroup memory, or one ballot per digit bit) for every strategy: full, partial and
/// one-key tiles; uniform, all-equal (one peer group per subgroup), low-byte-only and sorted
/// keys; keys and stable pairs. On lavapipe's subgroups of 8, four subgroups share each mask
/// word.
#[test]
fn match_and_ballot_ranking() {
    let Some(g) = common::gpu() else { return };
    let caps = g.caps().clone();
    for matching in [false, true] {
        let p = SortPolicy {
            onesweep_match_ranking: matching,
            scatter_match_ranking: matching,
            ..Default::default()
        };
        every_strategy_and_tile_edge(&p, |opts, p, n, what| {
            let vals = common::values(n);
            for dist in [Dist::Uniform, Dist::AllEqual, Dist::LowByte, Dist::Sorted] {
                let k: Vec<u32> = keys(dist, n, 41);
                let what = format!("{what} match ranking {matching} {dist:?}");
                run_check(g, &caps, &k, Some(&vals), opts, p, &format!("{what} pairs"));
                run_check(g, &caps, &k, None, opts, p, &what);
            }
        });
    }
}

#[test]
fn bad_input_is_an_error() {
    let Some(g) = common::gpu() else { return };
    let r = sort::sort_pairs(g, &[3u32, 1, 2], &[1, 2], &SortOptions::default());
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    let bad = SortOptions {
        begin_bit: 8,
        end_bit: 4,
        ..Default::default()
    };
    assert!(matches!(
        sort::sort_keys(g, &[1u32], &bad),
        Err(Error::InvalidInput(_))
    ));
    let bad = SortOptions {
        end_bit: 33,
        ..Default::default()
    };
    assert!(matches!(
        sort::sort_keys(g, &[1u32], &bad),
        Err(Error::InvalidInput(_))
    ));
    let mut small = g.caps().clone();
    small.max_storage_binding = 1024;
    let r = sort::plan(
        &small,
        &[0u32; 1000],
        None,
        &SortOptions::default(),
        &SortPolicy::default(),
    );
    assert!(matches!(r, Err(Error::TooLarge(_))));
    // a binding limit that is not a multiple of 16 (Vulkan's 2^31 - 4): 25 keys fit it
    // unpadded (100 bytes) but are bound padded to 112, so they are refused; 24 keys (96) fit
    small.max_storage_binding = 100;
    let with = |n: usize| {
        sort::plan(
            &small,
            &vec![0u32; n],
            None,
            &SortOptions::default(),
            &SortPolicy::default(),
        )
    };
    assert!(matches!(with(25), Err(Error::TooLarge(_))));
    assert!(with(24).is_ok());
    assert_eq!(
        sort::sort_keys::<u32>(g, &[], &SortOptions::default()).unwrap(),
        vec![]
    );
}

/// A checker that cannot fail is a defect: each kind of wrong output must be caught.
#[test]
fn checker_catches_perturbed_output() {
    let Some(g) = common::gpu() else { return };
    let k: Vec<u32> = keys(Dist::Distinct16, 10_000, 40);
    let vals: Vec<u32> = (0..k.len() as u32).collect();
    let (ok, ov) = sort::sort_pairs(g, &k, &vals, &SortOptions::default()).unwrap();
    let o = Order::default();
    check_pairs(&k, &vals, &ok, &ov, o).unwrap();
    check_keys(&k, &ok, o).unwrap();
    // out of order: swap two unequal neighbours
    let i = (1..ok.len()).find(|&i| ok[i] != ok[i - 1]).unwrap();
    let mut bad = ok.clone();
    bad.swap(i - 1, i);
    assert!(check_keys(&k, &bad, o).unwrap_err().contains("not ordered"));
    // ordered but not a permutation: one key replaced by its (smaller) neighbour
    let mut bad = ok.clone();
    bad[i] = bad[i - 1];
    assert!(check_keys(&k, &bad, o).unwrap_err().contains("permutation"));
    // an unwritten (poisoned) tail
    let mut bad = ok.clone();
    *bad.last_mut().unwrap() = 0xDEAD_BEEF;
    assert!(check_keys(&k, &bad, o).is_err());
    // values not following their keys
    let mut badv = ov.clone();
    badv.swap(0, ov.len() - 1);
    assert!(check_pairs(&k, &vals, &ok, &badv, o)
        .unwrap_err()
        .contains("permutation"));
    // equal keys out of input order (a valid unstable sort)
    let j = (1..ok.len()).find(|&j| ok[j] == ok[j - 1]).unwrap();
    let mut badv = ov.clone();
    badv.swap(j - 1, j);
    assert!(check_pairs(&k, &vals, &ok, &badv, o)
        .unwrap_err()
        .contains("not stable"));
}

/// `SortPolicy::poison_between_passes` is what makes a missed write in the third or fourth pass
/// visible: with all-equal keys every pass is the identity, so a key pass 2 fails to write
/// still holds pass 0's copy, which is the right one. Each strategy's pass 2 is made to skip
/// the key that lands at tile position 0 (`write_key`, shared/sort_tile.wgsl): the plan as
/// shipped still sorts right, the poisoned one does not.
#[test]
fn poison_between_passes_shows_a_missed_write() {
    let Some(g) = common::gpu() else { return };
    let caps = g.caps().clone();
    let n = 5000;
    let k: Vec<u32> = keys(Dist::AllEqual, n, 70);
    let write = "    keys_out[dst] = select(k, from_sortable(k), MAP_OUT != 0u);";
    let skip = "    if dst != 0u { keys_out[dst] = select(k, from_sortable(k), MAP_OUT != 0u); }";
    for &strategy in STRATEGIES {
        let opts = SortOptions {
            strategy: Some(strategy),
            ..Default::default()
        };
        for poison in [false, true] {
            let policy = SortPolicy {
                poison_between_passes: poison,
                ..Default::default()
            };
            let mut p = sort::plan(&caps, &k, None, &opts, &policy).unwrap();
            let mut edited = 0;
            for pass in p.plan.passes.iter_mut() {
                // pass 2 of the digit passes: "scatter 2", "onesweep 2", the hybrid's "scatter 1"
                // (its LSD passes count from 0 after the MSD pass)
                let third = match strategy {
                    Strategy::Hybrid => "scatter 1",
                    Strategy::OneSweep => "onesweep 2",
                    Strategy::ReduceThenScan => "scatter 2",
                };
                if pass.label == third {
                    common::edit_pass(pass, write, skip);
                    edited += 1;
                }
            }
            assert_eq!(edited, 1, "{strategy}");
            let out = g.run(&p.plan).unwrap();
            let r = check_keys(&k, &p.keys::<u32>(&out), Order::default());
            assert_eq!(r.is_err(), poison, "{strategy} poison {poison}: {r:?}");
        }
    }
}

#[test]
fn policy_and_default_api() {
    let Some(g) = common::gpu() else { return };
    // lavapipe: reduce-then-scan at every size (docs/sort.md)
    let s = SortPolicy::default().choose(g.caps(), 1 << 24, false);
    eprintln!("policy on {}: {s}", g.caps().name);
    let k: Vec<f32> = keys(Dist::Extremes, 3000, 50);
    let out = sort::sort_keys(g, &k, &SortOptions::default()).unwrap();
    let mut r = k.clone();
    r.sort_by(f32::total_cmp);
    assert_eq!(
        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        r.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

/// Workgroup grids past the per-dimension limit: the limit lowered to 3, so every pass runs a
/// 2-D grid with spare workgroups (what 2^28 keys do against 65535 on a real GPU).
#[test]
fn two_dimensional_grids() {
    let Some(g) = common::gpu() else { return };
    let mut caps = g.caps().clone();
    caps.max_workgroups_per_dim = 3;
    // OneSweep's 8192-key tiles too (these sizes take its small stage by default)
    for (strategy, policy) in every_stage() {
        let t = sort::tile_keys_for(strategy, true, 1, &policy).unwrap() as usize;
        for &n in &[4 * t + 1, 10 * t - 3] {
            let opts = SortOptions {
                strategy: Some(strategy),
                ..Default::default()
            };
            let vals = common::values(n);
            let k: Vec<u32> = keys(Dist::Uniform, n, 60);
            let what = format!("2-D grid {strategy} n={n}");
            run_check(g, &caps, &k, Some(&vals), &opts, &policy, &what);
        }
    }
}

/// Every case `wgsimd bench` times (u32 per strategy; i32 and f32 keys and pairs for the policy's
/// strategy) verifies on both kernel flavours, and each of its checks fails on a corrupted output:
/// one bit flipped in any element of the keys (or the values) read back.
#[test]
fn bench_cases_verify_and_catch_corruption() {
    for (flavour, g) in common::executors() {
        for n in [5000u64, 4097] {
            let cases = sort::bench_cases(g.caps(), n, 7).unwrap();
            let variants: Vec<&str> = cases.iter().map(|c| c.variant.as_str()).collect();
            for v in ["keys i32", "pairs i32", "keys f32", "pairs f32"] {
                let chosen = SortPolicy::default().choose(g.caps(), n, v.starts_with("pairs"));
                assert!(
                    variants.contains(&format!("{v} {chosen}").as_str()),
                    "{flavour}: no {v} case in {variants:?}"
                );
            }
            let strategies = if g.caps().subgroups { 3 } else { 2 };
            assert_eq!(cases.len(), 2 * strategies + 4, "{variants:?}");
            for (i, case) in cases.iter().enumerate() {
                let what = format!("{flavour} {} n={n}", case.variant);
                let out = g.run(&case.plan).unwrap();
                (case.verify)(&out).unwrap_or_else(|e| panic!("{what}: {e}"));
                let read_back: Vec<_> = out.buffers.keys().copied().collect();
                let want = if case.variant.starts_with("pairs") {
                    2
                } else {
                    1
                };
                assert_eq!(read_back.len(), want, "{what}: read-back buffers");
                for id in read_back {
                    // a different element per case and buffer, the last one included
                    let at = if i % 2 == 0 {
                        n as usize - 1
                    } else {
                        (i * 397) % n as usize
                    };
                    let mut bad = out.clone();
                    let bytes = bad.buffers.get_mut(&id).unwrap();
                    bytes[4 * at] ^= 1;
                    assert!(
                        (case.verify)(&bad).is_err(),
                        "{what}: a flipped bit in buffer {id:?} element {at} passed"
                    );
                }
            }
        }
    }
}

/// The policy on a GPU that is not a CPU adapter (caps borrowed from the simulator and renamed):
/// pairs and keys take OneSweep at every size by default (keys from `onesweep_keys_below` on
/// reduce-then-scan, where a policy sets one); the hybrid only when asked for; without
/// subgroups, and on CPU adapters, reduce-then-scan always.
#[test]
fn policy_on_a_gpu() {
    let sim = wgsimd::sim::SimExecutor::new(Default::default()).unwrap();
    let cpu = sim.caps().clone();
    let mut gpu = cpu.clone();
    gpu.backend = "vulkan".into();
    gpu.name = "a discrete GPU".into();
    assert!(cpu.is_cpu() && !gpu.is_cpu() && gpu.subgroups);
    let p = SortPolicy::default();
    for n in [0, 1, 1 << 20, 1 << 28, (1 << 30) - 1] {
        assert_eq!(p.choose(&gpu, n, true), Strategy::OneSweep, "pairs {n}");
        assert_eq!(p.choose(&gpu, n, false), Strategy::OneSweep, "keys {n}");
        assert_eq!(
            p.choose(&cpu, n, true),
            Strategy::ReduceThenScan,
            "cpu pairs {n}"
        );
        assert_eq!(
            p.choose(&cpu, n, false),
            Strategy::ReduceThenScan,
            "cpu keys {n}"
        );
    }
    let edge = 1 << 25;
    let edged = SortPolicy {
        onesweep_keys_below: edge,
        ..p
    };
    assert_eq!(edged.choose(&gpu, edge - 1, false), Strategy::OneSweep);
    assert_eq!(edged.choose(&gpu, edge, false), Strategy::ReduceThenScan);
    assert_eq!(edged.choose(&gpu, edge, true), Strategy::OneSweep);
    let mut plain = gpu.clone();
    plain.subgroups = false;
    assert_eq!(p.choose(&plain, 100, true), Strategy::ReduceThenScan);
    assert_eq!(p.choose(&plain, 100, false), Strategy::ReduceThenScan);
    let hybrid = SortPolicy {
        hybrid_pairs_min_keys: 1 << 26,
        ..p
    };
    assert_eq!(hybrid.choose(&gpu, 1 << 26, true), Strategy::Hybrid);
    assert_eq!(hybrid.choose(&gpu, (1 << 26) - 1, true), Strategy::OneSweep);
    assert_eq!(hybrid.choose(&gpu, 1 << 26, false), Strategy::OneSweep);
    // OneSweep's tiles need 23.3 KiB of workgroup memory (keys alone and pairs alike): an
    // adapter with WebGPU's default 16 KiB gets reduce-then-scan (13.3 KiB), and forcing
    // OneSweep is an error
    let os_bytes = sort::workgroup_bytes(Strategy::OneSweep, false, gpu.flavor()).unwrap();
    assert_eq!(
        os_bytes,
        sort::workgroup_bytes(Strategy::OneSweep, true, gpu.flavor()).unwrap()
    );
    let rts_bytes = sort::workgroup_bytes(Strategy::ReduceThenScan, false, gpu.flavor()).unwrap();
    assert!(
        rts_bytes <= 16 << 10 && os_bytes > 16 << 10,
        "{rts_bytes} {os_bytes}"
    );
    // (sizes past the small stage's: it takes less, below)
    let (big_keys, big_pairs) = (
        p.onesweep_small_keys_max + 1,
        p.onesweep_small_pairs_max + 1,
    );
    let mut small = gpu.clone();
    small.max_workgroup_storage = os_bytes as u32 - 1;
    assert_eq!(p.choose(&small, big_pairs, true), Strategy::ReduceThenScan);
    assert_eq!(p.choose(&small, big_keys, false), Strategy::ReduceThenScan);
    small.max_workgroup_storage = os_bytes as u32;
    assert_eq!(p.choose(&small, big_pairs, true), Strategy::OneSweep);
    // small sorts take OneSweep's small stage where it fits and the large one does not, and
    // may be forced to
    let small_bytes = |pairs| {
        sort::workgroup_bytes_for(Strategy::OneSweep, pairs, 100, &p, gpu.flavor()).unwrap()
    };
    for pairs in [false, true] {
        assert!(small_bytes(pairs) < os_bytes, "{}", small_bytes(pairs));
        small.max_workgroup_storage = small_bytes(pairs) as u32;
        assert_eq!(p.choose(&small, 100, pairs), Strategy::OneSweep);
        let n = if pairs { big_pairs } else { big_keys };
        assert_eq!(p.choose(&small, n, pairs), Strategy::ReduceThenScan);
        let forced = SortOptions {
            strategy: Some(Strategy::OneSweep),
            ..Default::default()
        };
        let vals = pairs.then_some(&[7u32, 8, 9][..]);
        let r = sort::plan(&small, &[3u32, 1, 2], vals, &forced, &p).unwrap();
        assert_eq!(r.strategy, Strategy::OneSweep);
    }
    small.max_workgroup_storage = 16 << 10;
    let forced = SortOptions {
        strategy: Some(Strategy::OneSweep),
        ..Default::default()
    };
    let keys = [3u32, 1, 2];
    match sort::plan(&small, &keys, None, &forced, &p) {
        Err(Error::InvalidInput(m)) => assert!(m.contains("workgroup memory"), "{m}"),
        other => panic!("OneSweep on 16 KiB: {:?}", other.map(|p| p.strategy)),
    }
    let rts = SortOptions {
        strategy: Some(Strategy::ReduceThenScan),
        ..Default::default()
    };
    assert!(sort::plan(&small, &keys, None, &rts, &p).is_ok());
}
