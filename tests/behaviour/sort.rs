//! Radix sort against the CPU reference: every strategy the target runs (OneSweep at both
//! tile sizes), key types u32 / i32 / f32, keys alone, pairs and the index payload, ascending
//! and descending, bit ranges, awkward sizes and adversarial distributions; recorded in place on
//! the caller's buffers at offsets, with host and GPU counts. Every output is checked to be
//! ordered, a permutation of the input and stable; the sorts run with
//! `poison_between_passes`, so a key or value a pass fails to write cannot hide behind an
//! older copy in the scratch buffers.

use wgsimd::dtype::Dtype;
use wgsimd::reference::sort::{check_keys, check_pairs, Order};
use wgsimd::sim::{Schedule, Scheduler, SimConfig};
use wgsimd::sort::{
    self, sort_indices, sort_keys_with, sort_pairs_with, SortConfig, SortOptions, SortPolicy,
    Sorter, Strategy,
};
use wgsimd::{BufferRef, Context, Count};

use crate::data::{self, Dist, Key, DISTS};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "sort::sizes_and_tile_edges",
            On::Every,
            sizes_and_tile_edges,
        ),
        Test::new("sort::distributions", On::Every, distributions),
        Test::new(
            "sort::descending_and_bit_ranges",
            On::Every,
            descending_and_bit_ranges,
        ),
        Test::new("sort::index_payload", On::Every, index_payload),
        Test::new("sort::recorded_in_place", On::Every, recorded_in_place),
        Test::new("sort::count_from_the_gpu", On::Every, count_from_the_gpu),
        Test::new("sort::large", On::Gpu, large),
        Test::new("sort::onesweep_fallback", On::Once, onesweep_fallback),
        Test::new("sort::bad_input", On::Once, bad_input),
        Test::new("sort::the_check_can_fail", On::Once, the_check_can_fail),
    ]
}

/// The policy every test sorts under: poison between passes.
fn checked() -> SortPolicy {
    SortPolicy {
        poison_between_passes: true,
        ..SortPolicy::default()
    }
}

/// The ways `t` sorts: reduce-then-scan, and with subgroups OneSweep at its small and its large
/// tiles (the large ones forced at small sizes), each with its name.
fn variants(t: &Target) -> Vec<(&'static str, Strategy, SortPolicy)> {
    let mut v = vec![("reduce-then-scan", Strategy::ReduceThenScan, checked())];
    if t.caps().subgroups {
        v.push(("onesweep", Strategy::OneSweep, checked()));
        let large = SortPolicy {
            onesweep_small_keys_max: 0,
            onesweep_small_pairs_max: 0,
            ..checked()
        };
        v.push(("onesweep large tiles", Strategy::OneSweep, large));
    }
    v
}

fn opts(strategy: Strategy) -> SortOptions {
    SortOptions {
        strategy: Some(strategy),
        ..SortOptions::default()
    }
}

/// Sorts `keys` (and values, with `pairs`) by the host-slice functions and checks the result.
fn sort_checked<T: Key>(
    t: &Target,
    keys: &[T],
    pairs: bool,
    o: SortOptions,
    policy: &SortPolicy,
    what: &str,
) {
    let order = Order {
        descending: o.descending,
        begin_bit: o.begin_bit,
        end_bit: o.end_bit.unwrap_or(32),
    };
    let r = if pairs {
        let values = data::values(keys.len());
        let (k, v) = sort_pairs_with(&t.ctx, keys, &values, &o, policy)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        check_pairs(keys, &values, &k, &v, order)
    } else {
        let k = sort_keys_with(&t.ctx, keys, &o, policy).unwrap_or_else(|e| panic!("{what}: {e}"));
        check_keys(keys, &k, order)
    };
    if let Err(e) = r {
        panic!("{what}: {e}");
    }
}

/// The tiles of every stage a variant runs, from the kernels, with their neighbours.
fn tile_edges(strategy: Strategy, pairs: bool, policy: &SortPolicy) -> Vec<usize> {
    let tile = sort::tile_keys_for(strategy, pairs, 1, policy).unwrap() as usize;
    let mut v = vec![tile - 1, tile, tile + 1, 2 * tile + 1];
    if strategy == Strategy::ReduceThenScan {
        // the histogram pass counts HIST_GROUP tiles per workgroup
        let k = wgsimd::kernel::load("sort/histogram", wgsimd::kernel::Flavor::Subgroup).unwrap();
        let group = k.const_u32("HIST_GROUP").unwrap() as usize;
        v.extend([group * tile - 1, group * tile + 1]);
    }
    v
}

fn sizes_and_tile_edges(t: &Target) {
    for (name, strategy, policy) in variants(t) {
        for pairs in [false, true] {
            // (empty, one, within a subgroup and a workgroup's first step, then the tiles)
            let mut sizes = vec![0, 1, 33, 257];
            sizes.extend(tile_edges(strategy, pairs, &policy));
            if !t.is_sim() {
                sizes.push(65_537);
            }
            for n in sizes {
                let keys: Vec<u32> = data::random_u32(n, n as u64);
                let what = format!("{name}, {n} keys, pairs {pairs}");
                sort_checked(t, &keys, pairs, opts(strategy), &policy, &what);
            }
        }
    }
}

/// Each distribution of `T`, as keys alone or pairs by turns (`turn` picks which comes first),
/// so each of the three key types meets every distribution and every distribution both ways.
fn dist_keys<T: Key>(t: &Target, n: usize, turn: usize) {
    for (i, &dist) in DISTS.iter().enumerate() {
        let pairs = (i + turn).is_multiple_of(2);
        let keys: Vec<T> = data::keys(dist, n, 11);
        let what = format!("{dist:?} {}, pairs {pairs}", T::DTYPE);
        sort_checked(t, &keys, pairs, SortOptions::default(), &checked(), &what);
    }
}

/// Every distribution, each key type, keys or pairs by turns, by the strategy the device's
/// policy picks (on a GPU without subgroups at a third of the size: its ranking is the simulator's
/// workgroup-memory one, and lavapipe runs it at half the speed).
fn distributions(t: &Target) {
    let n = match (t.is_sim(), t.caps().subgroups) {
        (true, _) => 3001,
        (false, true) => 100_003,
        (false, false) => 30_011,
    };
    dist_keys::<u32>(t, n, 0);
    dist_keys::<i32>(t, n, 1);
    dist_keys::<f32>(t, n, 0);
}

/// Each direction and bit range is its own specialization of the kernels: the simulator runs
/// them all with every variant, u32 and f32 keys; a GPU (whose driver compiles each: on
/// lavapipe about a second a pipeline, most of this case's time) runs four of them with the
/// strategy its policy picks on u32 keys and f32 keys on the descending full width, and the
/// other strategy on the descending full width (OneSweep at its small tiles).
fn descending_and_bit_ranges(t: &Target) {
    let n = if t.is_sim() { 2000 } else { 65_537 };
    // the full width descending, an empty range, one bit (a sort of one pass), four passes
    // from an unaligned shift with a partial last digit; then, on the simulator only, two
    // digits from an unaligned shift, one whole digit at the bottom and one at the top
    let all: &[(u32, u32, bool)] = &[
        (0, 32, true),
        (0, 0, false),
        (8, 9, false),
        (3, 32, true),
        (4, 20, true),
        (0, 8, false),
        (24, 32, false),
    ];
    let chosen = SortPolicy::default().choose(t.caps(), n as u64, false);
    for (name, strategy, policy) in variants(t) {
        let picked = strategy == chosen && name != "onesweep large tiles";
        let ranges = if t.is_sim() {
            all
        } else if picked {
            &all[..4]
        } else if name != "onesweep large tiles" {
            &all[..1]
        } else {
            &[]
        };
        for pairs in [false, true] {
            for (k, &(begin, end, descending)) in ranges.iter().enumerate() {
                let o = SortOptions {
                    descending,
                    begin_bit: begin,
                    end_bit: Some(end),
                    strategy: Some(strategy),
                };
                let what =
                    format!("{name}, bits {begin}..{end}, descending {descending}, pairs {pairs}");
                let u: Vec<u32> = data::keys(Dist::Uniform, n, 5);
                sort_checked(t, &u, pairs, o, &policy, &what);
                // f32 keys over every range on the simulator; on a GPU the picked strategy's
                // full range descending
                if t.is_sim() || (picked && k == 0) {
                    let f: Vec<f32> = data::keys(Dist::Extremes, n, 6);
                    sort_checked(t, &f, pairs, o, &policy, &format!("{what}, f32 extremes"));
                }
            }
        }
    }
}

/// The index payload: the values out are each key's input position (a stable argsort).
fn index_payload(t: &Target) {
    let n = if t.is_sim() { 3000 } else { 300_000 };
    for dist in [Dist::Uniform, Dist::Distinct16, Dist::AllEqual] {
        let keys: Vec<f32> = data::keys(dist, n, 3);
        for descending in [false, true] {
            let o = SortOptions {
                descending,
                ..SortOptions::default()
            };
            let (k, idx) = sort_indices(&t.ctx, &keys, &o).unwrap();
            let iota: Vec<u32> = (0..n as u32).collect();
            let order = Order {
                descending,
                ..Order::default()
            };
            if let Err(e) = check_pairs(&keys, &iota, &k, &idx, order) {
                panic!("{dist:?}, descending {descending}: {e}");
            }
        }
    }
}

/// A sorter recorded on the caller's buffers in place: keys at an offset in a buffer that ends
/// with them (an odd count), values at another; two sorts with different host counts in one
/// encoder, then the same again next "frame". The words around the keys and values keep their
/// values.
fn recorded_in_place(t: &Target) {
    let ctx = &t.ctx;
    let n = if t.is_sim() { 3001 } else { 500_001 };
    let align = wgsimd::context::binding_alignment(t.caps()) as usize;
    for (name, strategy, policy) in variants(t) {
        let config = SortConfig::keys(Dtype::U32, n as u64)
            .with_values()
            .strategy(strategy)
            .policy(policy);
        let sorter = Sorter::new(ctx, config).unwrap();
        let counts = [n, n / 3 + 1];
        for frame in 0..2u64 {
            let sets: Vec<(Vec<u32>, Vec<u32>)> = counts
                .iter()
                .map(|&c| (data::random_u32(c, frame * 10 + c as u64), data::values(c)))
                .collect();
            // keys after `align` sentinel bytes, values after twice that, nothing after either
            let bufs: Vec<_> = sets
                .iter()
                .map(|(k, v)| {
                    let mut kw = vec![0x5e5e_5e5e; align / 4];
                    kw.extend(k);
                    let mut vw = vec![0x7a7a_7a7a; align / 2];
                    vw.extend(v);
                    (
                        ctx.upload("keys", &kw).unwrap(),
                        ctx.upload("values", &vw).unwrap(),
                    )
                })
                .collect();
            let mut enc = ctx.encoder();
            for ((kb, vb), &c) in bufs.iter().zip(&counts) {
                let keys = kb.slice(align as u64, c as u64 * 4);
                let values = vb.slice(2 * align as u64, c as u64 * 4);
                sorter
                    .record(&mut enc, keys, Some(values), Count::Host(c as u32))
                    .unwrap();
            }
            util::submit(t, enc);
            for (((kb, vb), (k, v)), &c) in bufs.iter().zip(&sets).zip(&counts) {
                let kw = util::words(t, kb);
                let vw = util::words(t, vb);
                assert!(
                    kw[..align / 4].iter().all(|&w| w == 0x5e5e_5e5e),
                    "{name}: keys' neighbours written"
                );
                assert!(
                    vw[..align / 2].iter().all(|&w| w == 0x7a7a_7a7a),
                    "{name}: values' neighbours written"
                );
                if let Err(e) =
                    check_pairs(k, v, &kw[align / 4..], &vw[align / 2..], Order::default())
                {
                    panic!("{name}, frame {frame}, {c} pairs: {e}");
                }
            }
        }
    }
}

/// The count read from a GPU word: keys past it stay as they were; a count above the maximum
/// is clamped to it.
fn count_from_the_gpu(t: &Target) {
    let ctx = &t.ctx;
    let n = if t.is_sim() { 3000 } else { 400_000 };
    for (name, strategy, policy) in variants(t) {
        let config = SortConfig::keys(Dtype::F32, n as u64)
            .with_index()
            .descending()
            .strategy(strategy)
            .policy(policy);
        let sorter = Sorter::new(ctx, config).unwrap();
        let count = ctx.upload("count", &[0u32; 8]).unwrap();
        for (c, sorted) in [(n / 2 + 3, n / 2 + 3), (n + 50, n), (0, 0)] {
            let keys: Vec<f32> = data::keys(Dist::Extremes, n, c as u64);
            let kb = ctx.upload("keys", &keys).unwrap();
            let ib = ctx.upload("indices", &vec![u32::MAX; n]).unwrap();
            ctx.write_buffer(&count.slice(16, 4), bytemuck::bytes_of(&(c as u32)))
                .unwrap();
            let mut enc = ctx.encoder();
            sorter
                .record(
                    &mut enc,
                    &kb,
                    Some(BufferRef::from(&ib)),
                    Count::Gpu(count.slice(16, 4)),
                )
                .unwrap();
            util::submit(t, enc);
            let got: Vec<f32> = t.ctx.read(&kb).unwrap();
            let idx = util::words(t, &ib);
            let iota: Vec<u32> = (0..sorted as u32).collect();
            let order = Order {
                descending: true,
                ..Order::default()
            };
            if let Err(e) = check_pairs(
                &keys[..sorted],
                &iota,
                &got[..sorted],
                &idx[..sorted],
                order,
            ) {
                panic!("{name}: GPU count {c} of {n}: {e}");
            }
            if let Some(i) = (sorted..n).find(|&i| got[i].to_bits() != keys[i].to_bits()) {
                panic!(
                    "{name}: key {i}, past the GPU count {c}, changed from {:#x} to {:#x}",
                    keys[i].to_bits(),
                    got[i].to_bits()
                );
            }
            assert!(
                idx[sorted..].iter().all(|&i| i == u32::MAX),
                "{name}: indices past the count written"
            );
        }
    }
}

/// The large sizes, by the strategy the device's policy picks (the others run at 65537 keys
/// in `sizes_and_tile_edges`): keys at both, pairs and f32 extremes at the largest; without
/// subgroups (the workgroup-memory ranking, whose every path the smaller sizes reach) keys at
/// the largest alone.
fn large(t: &Target) {
    let n_max = (1 << 22) + 7;
    let strategy = SortPolicy::default().choose(t.caps(), n_max, true);
    let policy = checked();
    // (keys at both sizes; pairs and f32's extremes at the largest alone, for CI's time)
    let sizes: &[usize] = if t.caps().subgroups {
        &[2_684_354, n_max as usize]
    } else {
        &[n_max as usize]
    };
    for &n in sizes {
        let largest = n == n_max as usize;
        for pairs in [false, true] {
            if pairs && (!largest || !t.caps().subgroups) {
                continue;
            }
            let u: Vec<u32> = data::random_u32(n, 1);
            let what = format!("{strategy}, {n} u32, pairs {pairs}");
            sort_checked(t, &u, pairs, opts(strategy), &policy, &what);
        }
        if largest && t.caps().subgroups {
            let f: Vec<f32> = data::keys(Dist::Extremes, n, 2);
            let what = format!("{strategy}, {n} f32 extremes");
            sort_checked(t, &f, false, opts(strategy), &policy, &what);
        }
    }
}

/// OneSweep's decoupled fallback: tiles tied to workgroup indices (no tickets) and the first
/// workgroups starved, so later tiles run before their predecessors published anything and
/// must count the keys themselves; and with tickets, the first ticket's taker suspended by the
/// preemptive schedule.
fn onesweep_fallback(_: &Target) {
    for starved in [vec![0], vec![0, 1, 2], vec![1, 3]] {
        let config = SimConfig {
            subgroup_size: 8,
            scheduler: Scheduler::Unfair {
                starved: starved.clone(),
            },
            ..SimConfig::default()
        };
        let t = Target::new("sim-unfair", Context::simulator(config).unwrap());
        for (policy, n) in [
            (
                SortPolicy {
                    onesweep_tickets: false,
                    ..checked()
                },
                3 * 4096 + 5,
            ),
            (
                SortPolicy {
                    onesweep_tickets: false,
                    onesweep_small_keys_max: 0,
                    onesweep_small_pairs_max: 0,
                    ..checked()
                },
                2 * 8192 + 7,
            ),
        ] {
            for pairs in [false, true] {
                let keys: Vec<u32> = data::keys(Dist::Distinct16, n, 4);
                let what = format!("starved {starved:?}, {n} keys, pairs {pairs}");
                sort_checked(&t, &keys, pairs, opts(Strategy::OneSweep), &policy, &what);
            }
        }
    }
    // tickets on, as shipped: round-robin suspends the first ticket's taker, so its successor
    // polls SPIN times and counts the silent tile's digits itself. Polling without end (no
    // fallback in reach), the successor waits until its step budget runs out: the wait is
    // real, the fallback is what ends it.
    for (spin, fallback) in [(64, true), (u32::MAX, false)] {
        let config = SimConfig {
            subgroup_size: 8,
            schedules: vec![Schedule::RoundRobin],
            max_steps: 2_000_000,
            ..SimConfig::default()
        };
        let t = Target::new("sim-preempted", Context::simulator(config).unwrap());
        let policy = SortPolicy { spin, ..checked() };
        let keys: Vec<u32> = data::keys(Dist::Distinct16, 3 * 4096 + 5, 4);
        let o = opts(Strategy::OneSweep);
        if fallback {
            sort_checked(&t, &keys, false, o, &policy, "preempted, spin 64");
        } else {
            let e = sort_keys_with(&t.ctx, &keys, &o, &policy)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("step-limit") && e.contains("wgsl/sort/lib/onesweep.wgsl"),
                "{e}"
            );
        }
    }
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    let o = SortOptions::default();
    let p = checked();
    util::refused(
        "values of another length",
        sort_pairs_with(ctx, &[3u32, 1], &[1], &o, &p),
    );
    for (b, e) in [(8, 4), (0, 33)] {
        let bits = SortOptions {
            begin_bit: b,
            end_bit: Some(e),
            ..o
        };
        util::refused(
            &format!("bits {b}..{e}"),
            sort_keys_with(ctx, &[1u32], &bits, &p),
        );
    }
    util::refused(
        "f16 keys",
        Sorter::new(ctx, SortConfig::keys(Dtype::F16, 10)).map(|_| ()),
    );
    util::refused(
        "2^30 keys",
        Sorter::new(ctx, SortConfig::keys(Dtype::U32, 1 << 30)).map(|_| ()),
    );
    let portable = ctx.without_subgroups().unwrap();
    util::refused(
        "OneSweep without subgroups",
        Sorter::new(
            &portable,
            SortConfig::keys(Dtype::U32, 10).strategy(Strategy::OneSweep),
        )
        .map(|_| ()),
    );
    let keys_only = Sorter::new(ctx, SortConfig::keys(Dtype::U32, 100)).unwrap();
    let pairs = Sorter::new(ctx, SortConfig::keys(Dtype::U32, 100).with_values()).unwrap();
    let kb = ctx.upload("keys", &[1u32; 10]).unwrap();
    let vb = ctx.upload("values", &[1u32; 10]).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "values for a keys-only sorter",
        keys_only.record(&mut enc, &kb, Some(BufferRef::from(&vb)), Count::Host(10)),
    );
    util::refused(
        "no values for pairs",
        pairs.record(&mut enc, &kb, None, Count::Host(10)),
    );
    util::refused(
        "11 of 10 keys",
        keys_only.record(&mut enc, &kb, None, Count::Host(11)),
    );
    util::refused(
        "101 keys of 100",
        keys_only.record(&mut enc, &kb, None, Count::Host(101)),
    );
    util::refused(
        "keys at an unaligned offset",
        keys_only.record(&mut enc, kb.slice(4, 36), None, Count::Host(9)),
    );
}

/// The checks reject what a broken sort would give: out of order, not a permutation,
/// values that left their keys, equal keys out of input order.
fn the_check_can_fail(_: &Target) {
    let o = Order::default();
    let keys = [3u32, 1, 2, 1];
    assert!(check_keys(&keys, &[1, 1, 2, 3], o).is_ok());
    assert!(check_keys(&keys, &[1, 2, 1, 3], o).is_err());
    assert!(check_keys(&keys, &[1, 1, 3, 3], o).is_err());
    let values = [10, 11, 12, 13];
    assert!(check_pairs(&keys, &values, &[1, 1, 2, 3], &[11, 13, 12, 10], o).is_ok());
    assert!(
        check_pairs(&keys, &values, &[1, 1, 2, 3], &[13, 11, 12, 10], o).is_err(),
        "unstable"
    );
    assert!(
        check_pairs(&keys, &values, &[1, 1, 2, 3], &[11, 13, 10, 12], o).is_err(),
        "values moved"
    );
    let f = [0.0f32, -0.0];
    assert!(check_keys(&f, &[0.0, -0.0], o).is_err(), "+0 before -0");
}
