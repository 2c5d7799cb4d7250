//! Sorts of 64-bit keys (u64, i64, f64) against the CPU reference: keys alone, pairs and the
//! index payload, ascending and descending, bit ranges within one half, across both and in the
//! high half alone; keys that differ only in their low or only in their high words, f64's awkward
//! values (NaNs with payloads, ±0, ±inf, subnormals, neighbours of ±1); recorded at offsets with
//! host and GPU counts. Every output is checked ordered, a permutation of the input (values with
//! their keys) and stable. The 32-bit digit passes underneath are the sort suite's; this one
//! covers what the 64-bit sort adds: the words' order, the second value word, the joins.

use wgsimd::dtype::Dtype;
use wgsimd::reference::sort::{check_segments, check_wide, check_wide_segments, Order};
use wgsimd::sort::{SortConfig, SortPolicy, Sorter, Strategy};
use wgsimd::{BufferRef, Context, Count};

use crate::data;
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "sort_wide::types_payloads_and_ranges",
            On::Every,
            types_payloads_and_ranges,
        ),
        Test::new(
            "sort_wide::recorded_with_counts",
            On::Every,
            recorded_with_counts,
        ),
        Test::new("sort_wide::fused_passes", On::Every, fused_passes),
        Test::new("sort_wide::fused_edges", On::Every, fused_edges),
        Test::new("sort_wide::fused_fallback", On::Once, fused_fallback),
        Test::new("sort_wide::segments", On::Every, segments),
        Test::new("sort_wide::segment_paths", On::Every, segment_paths),
        Test::new(
            "sort_wide::offsets_that_decrease",
            On::Every,
            offsets_that_decrease,
        ),
        Test::new(
            "sort_wide::segment_counts_from_the_gpu",
            On::Every,
            segment_counts_from_the_gpu,
        ),
        Test::new("sort_wide::wide_segments", On::Every, wide_segments),
        Test::new("sort_wide::bad_input", On::Once, bad_input),
    ]
}

/// Bit patterns of f64's awkward values.
const F64_EXTREMES: &[u64] = &[
    0,
    1 << 63,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff8_0000_0000_0001,
    0xfff8_0000_0000_0000,
    0xfff0_0000_0000_0001,
    1,
    (1 << 63) | 1,
    0x3ff0_0000_0000_0000,
    0x3ff0_0000_0000_0001,
    0x3fef_ffff_ffff_ffff,
    0xbff0_0000_0000_0000,
    0xbff0_0000_0000_0001,
];

/// `n` keys: uniform bits, a few high words with uniform low words (the order is in the low
/// half), uniform high words over two low words (in the high half), all equal, and the awkward
/// values of each type (f64's, i64's and u64's extremes, mixed).
fn wide_keys(kind: u32, n: usize, seed: u64) -> Vec<u64> {
    let mut r = data::rng(seed);
    use rand::Rng;
    let one: u64 = r.random();
    let ext: Vec<u64> = F64_EXTREMES
        .iter()
        .copied()
        .chain([
            u64::MAX,
            i64::MAX as u64,
            i64::MIN as u64,
            0xffff_ffff,
            1 << 32,
        ])
        .collect();
    (0..n)
        .map(|_| match kind {
            0 => r.random(),
            1 => {
                ((r.random_range(0..3u64)) << 32 | 0x8000_0000_0000_0000) | r.random::<u32>() as u64
            }
            2 => (r.random::<u64>() & !0xffff_ffff) | r.random_range(0..2u64),
            3 => one,
            _ => ext[r.random_range(0..ext.len())],
        })
        .collect()
}

/// The payloads: keys alone, u32 values, the index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum With {
    Keys,
    Values,
    Index,
}

/// Sorts the first `count` of `keys` by `config` on `t` through the recording API (keys and
/// values at the binding alignment in buffers that hold more), and checks them.
fn sort_checked(t: &Target, config: SortConfig, with: With, keys: &[u64], what: &str) {
    let ctx = &t.ctx;
    let n = keys.len();
    let sorter = Sorter::new(ctx, config).unwrap_or_else(|e| panic!("{what}: {e}"));
    let align = wgsimd::context::binding_alignment(t.caps());
    let mut kw = vec![0x5e5e_5e5eu32; align as usize / 4];
    kw.extend(bytemuck::cast_slice::<u64, u32>(keys));
    kw.extend([0x5e5e_5e5e; 4]);
    let kb = ctx.upload("keys", &kw).unwrap();
    let values = data::values(n);
    let mut vw = vec![0x7a7a_7a7au32; 2 * align as usize / 4];
    vw.extend(match with {
        With::Values => values.clone(),
        _ => vec![u32::MAX; n],
    });
    vw.extend([0x7a7a_7a7a; 4]);
    let vb = ctx.upload("values", &vw).unwrap();
    let mut enc = ctx.encoder();
    let k = kb.slice(align, 8 * n.max(1) as u64);
    let v = (with != With::Keys).then(|| vb.slice(2 * align, 4 * n.max(1) as u64));
    sorter
        .record(&mut enc, k, v, Count::Host(n as u32))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    util::submit(t, enc);
    let kw = util::words(t, &kb);
    let vw = util::words(t, &vb);
    let a = align as usize / 4;
    assert!(
        kw[..a]
            .iter()
            .chain(&kw[a + 2 * n..])
            .all(|&w| w == 0x5e5e_5e5e),
        "{what}: keys' neighbours written"
    );
    assert!(
        vw[..2 * a]
            .iter()
            .chain(&vw[2 * a + n..])
            .all(|&w| w == 0x7a7a_7a7a),
        "{what}: values' neighbours written"
    );
    let out: Vec<u64> = bytemuck::pod_collect_to_vec(&kw[a..a + 2 * n]);
    let order = order_of(&config);
    let iota: Vec<u32> = (0..n as u32).collect();
    let (vin, vout) = payloads(with, &values, &iota, &vw[2 * a..2 * a + n]);
    if let Err(e) = check_wide(config.key, (keys, vin), (&out, vout), order) {
        panic!("{what}: {e}");
    }
}

/// OneSweep wherever the target has subgroups, whose sorts of 64-bit keys are fused (its
/// first and last passes read and write the caller's keys), as the policy picks on a GPU;
/// otherwise what the policy picks (reduce-then-scan, composed of 32-bit sorts between a
/// split and a join). The 32-bit sort suite runs both strategies under every payload.
fn strategy(t: &Target, n: usize) -> Strategy {
    if t.caps().subgroups {
        Strategy::OneSweep
    } else {
        SortPolicy::default().choose(t.caps(), n as u64, true)
    }
}

fn checked() -> SortPolicy {
    SortPolicy {
        poison_between_passes: true,
        ..SortPolicy::default()
    }
}

fn config(t: &Target, dtype: Dtype, n: usize, with: With, descending: bool) -> SortConfig {
    let mut c = SortConfig::keys(dtype, n as u64)
        .strategy(strategy(t, n))
        .policy(checked());
    c.payload = match with {
        With::Keys => wgsimd::sort::Payload::None,
        With::Values => wgsimd::sort::Payload::Values,
        With::Index => wgsimd::sort::Payload::Index,
    };
    c.descending = descending;
    c
}

const WITH: [With; 3] = [With::Keys, With::Values, With::Index];

/// The order `c` sorts by, as the reference checks take it.
fn order_of(c: &SortConfig) -> Order {
    Order {
        descending: c.descending,
        begin_bit: c.begin_bit,
        end_bit: c.end_bit,
    }
}

/// The payload in and out as the reference checks take them: none for keys alone, else the
/// values given (or the indices, `iota`) beside the words read back (`out`).
fn payloads<'a>(
    with: With,
    values: &'a [u32],
    iota: &'a [u32],
    out: &'a [u32],
) -> (&'a [u32], &'a [u32]) {
    match with {
        With::Keys => (&[], &[]),
        With::Values => (values, out),
        With::Index => (iota, out),
    }
}

/// Each type over its key kinds, the payloads and directions taking turns; bit ranges; sizes
/// 0, 1 and 2.
fn types_payloads_and_ranges(t: &Target) {
    let n = if t.is_sim() { 700 } else { 50_001 };
    let mut turn = 0;
    for (dtype, kinds) in [
        (Dtype::U64, &[0u32, 1, 4][..]),
        (Dtype::I64, &[2, 4][..]),
        (Dtype::F64, &[0, 3, 4, 4][..]),
    ] {
        for &kind in kinds {
            let with = WITH[turn % 3];
            let descending = turn % 2 == 1;
            turn += 1;
            let keys = wide_keys(kind, n, turn as u64);
            let what = format!("{dtype} keys kind {kind} {with:?} descending {descending}");
            sort_checked(t, config(t, dtype, n, with, descending), with, &keys, &what);
        }
    }
    // bit ranges: in the low half, across both, the high half alone, empty
    for (i, (begin, end)) in [(0, 20), (16, 48), (32, 64), (40, 56), (33, 33)]
        .into_iter()
        .enumerate()
    {
        for with in [WITH[i % 3], WITH[(i + 1) % 3]] {
            let keys = wide_keys(0, n, 3);
            let c = config(t, Dtype::F64, n, with, false).bits(begin, end);
            sort_checked(t, c, with, &keys, &format!("bits {begin}..{end} {with:?}"));
        }
    }
    for n in [0, 1, 2] {
        let keys = wide_keys(4, n, 9);
        let c = config(t, Dtype::I64, 10, With::Values, false);
        sort_checked(t, c, With::Values, &keys, &format!("{n} keys"));
    }
}

/// What a recording dispatches: OneSweep sorts of 64-bit keys run no split or join (their
/// first pass reads the caller's keys, their last writes them), one global histogram for both
/// words, and at least two digit passes (identity passes pad a range of one digit or none);
/// reduce-then-scan and `fused_wide: false` keep the split and the join.
fn fused_passes(t: &Target) {
    let ctx = &t.ctx;
    let labels = |c: SortConfig| Sorter::new(ctx, c).unwrap().passes();
    let has = |p: &[String], what: &str| p.iter().any(|l| l.contains(what));
    if t.caps().subgroups {
        for (bits, digit_passes) in [
            ((0, 64), 8),
            ((0, 8), 2),
            ((28, 36), 2),
            ((60, 64), 2),
            ((33, 33), 2),
            ((0, 0), 2),
            ((4, 44), 6),
        ] {
            for with in WITH {
                let c = config(t, Dtype::F64, 1000, with, false).bits(bits.0, bits.1);
                let p = labels(c);
                let what = format!("bits {bits:?} {with:?}: {p:?}");
                assert!(!has(&p, "split") && !has(&p, "join"), "{what}");
                assert_eq!(
                    p.iter().filter(|l| l.contains("histogram")).count(),
                    1,
                    "{what}"
                );
                let sweeps = p.iter().filter(|l| l.starts_with("onesweep ")).count();
                assert_eq!(sweeps, digit_passes, "{what}");
                assert!(!has(&p, "indices") && !has(&p, "copy back"), "{what}");
            }
        }
        let composed = SortPolicy {
            fused_wide: false,
            ..checked()
        };
        let c = config(t, Dtype::U64, 1000, With::Values, false).policy(composed);
        let p = labels(c);
        assert!(has(&p, "split") && has(&p, "join"), "{p:?}");
    }
    let c = config(t, Dtype::U64, 1000, With::Keys, false).strategy(Strategy::ReduceThenScan);
    let p = labels(c);
    assert!(has(&p, "split") && has(&p, "join"), "{p:?}");
}

/// The fused sort's edges: counts below one tile and over several (an odd number, the last
/// partial), bit ranges starting mid-word and reaching one word or both, f64's awkward values
/// (a negative key's low word is complemented by its high word's sign, in either word's last
/// pass), every payload; and the composition the fused sort replaces (`fused_wide: false`) at
/// one size.
fn fused_edges(t: &Target) {
    let tiles = if t.is_sim() {
        vec![1, 2 * 4096 + 5]
    } else {
        vec![1, 77, 5 * 8192 + 3, 3 * 8192 - 1]
    };
    let mut turn = 0;
    for &n in &tiles {
        for (begin, end) in [(4, 12), (28, 36), (60, 64), (36, 40), (0, 64), (33, 33)] {
            let with = WITH[turn % 3];
            let descending = turn % 2 == 1;
            let dtype = [Dtype::F64, Dtype::I64, Dtype::F64, Dtype::U64][turn % 4];
            turn += 1;
            let keys = wide_keys(4, n, turn as u64);
            let mut c = config(t, dtype, n, with, descending).bits(begin, end);
            if !t.caps().subgroups && t.is_sim() && n > 1000 {
                // (reduce-then-scan's composition at this size is the sort suite's)
                continue;
            }
            c.max_count = n as u64 + 3;
            let what = format!("{n} {dtype} keys, bits {begin}..{end} {with:?} desc {descending}");
            sort_checked(t, c, with, &keys, &what);
        }
    }
    if t.caps().subgroups {
        // the large pairs stage (8192-key tiles staged in two rounds: the last pass's f64 sign
        // bits of both rounds) around its tile
        let large = SortPolicy {
            onesweep_small_pairs_max: 0,
            ..checked()
        };
        let sizes = if t.is_sim() {
            vec![8192 + 5]
        } else {
            vec![3 * 8192 + 1]
        };
        for &n in &sizes {
            for (with, descending) in [
                (With::Values, true),
                (With::Keys, false),
                (With::Index, true),
            ] {
                let keys = wide_keys(4, n, 17);
                let c = config(t, Dtype::F64, n, with, descending).policy(large);
                sort_checked(
                    t,
                    c,
                    with,
                    &keys,
                    &format!("large tiles, {n} {with:?} desc {descending}"),
                );
            }
        }
        let composed = SortPolicy {
            fused_wide: false,
            ..checked()
        };
        for with in WITH {
            let n = 500;
            let keys = wide_keys(4, n, 5);
            let c = config(t, Dtype::F64, n, with, true).policy(composed);
            sort_checked(t, c, with, &keys, &format!("composed {with:?}"));
        }
    }
}

/// The decoupled fallback of the fused passes (the first reads the caller's keys for a silent
/// predecessor's digits): OneSweep without tickets under the simulator's unfair scheduler.
fn fused_fallback(_: &Target) {
    use wgsimd::sim::{Scheduler, SimConfig};
    for starved in [vec![0], vec![1, 3]] {
        let sim = SimConfig {
            subgroup_size: 8,
            scheduler: Scheduler::Unfair {
                starved: starved.clone(),
            },
            ..SimConfig::default()
        };
        let t = Target::new("sim-unfair", Context::simulator(sim).unwrap());
        let n = 3 * 4096 + 5;
        let policy = SortPolicy {
            onesweep_tickets: false,
            ..checked()
        };
        for (dtype, with, bits) in [
            (Dtype::F64, With::Values, (0, 64)),
            (Dtype::I64, With::Keys, (36, 44)),
        ] {
            let keys = wide_keys(4, n, 11);
            let c = config(&t, dtype, n, with, false)
                .bits(bits.0, bits.1)
                .policy(policy);
            let what = format!("starved {starved:?} {dtype} {with:?} bits {bits:?}");
            sort_checked(&t, c, with, &keys, &what);
        }
    }
}

/// GPU counts: clamped to what the caller's ranges hold and to the maximum; the keys and values
/// past the count keep theirs; two recordings with different counts in one encoder.
fn recorded_with_counts(t: &Target) {
    let ctx: &Context = &t.ctx;
    let n = if t.is_sim() { 600 } else { 50_000 };
    let config = SortConfig::keys(Dtype::U64, n as u64)
        .with_values()
        .descending();
    let sorter = Sorter::new(ctx, config).unwrap();
    let count = ctx.upload("count", &[0u32; 8]).unwrap();
    for (c, range, sorted) in [
        (n / 2 + 3, n, n / 2 + 3),
        (n + 50, n, n),
        (n, n / 3, n / 3),
        (0, n, 0),
    ] {
        let keys = wide_keys(1, n, c as u64);
        let values = data::values(n);
        let kb = ctx.upload("keys", &keys).unwrap();
        let vb = ctx.upload("values", &values).unwrap();
        let other_keys = wide_keys(0, 100, 1);
        let ob = ctx.upload("other keys", &other_keys).unwrap();
        let ov = ctx.upload("other values", &data::values(100)).unwrap();
        ctx.write_buffer(&count.slice(16, 4), bytemuck::bytes_of(&(c as u32)))
            .unwrap();
        let mut enc = ctx.encoder();
        sorter
            .record(
                &mut enc,
                kb.slice(0, 8 * range as u64),
                Some(vb.slice(0, 4 * n as u64)),
                Count::Gpu(count.slice(16, 4)),
            )
            .unwrap();
        sorter
            .record(&mut enc, &ob, Some(BufferRef::from(&ov)), Count::Host(100))
            .unwrap();
        util::submit(t, enc);
        let got: Vec<u64> = ctx.read(&kb).unwrap();
        let gv = util::words(t, &vb);
        let order = order_of(sorter.config());
        if let Err(e) = check_wide(
            Dtype::U64,
            (&keys[..sorted], &values[..sorted]),
            (&got[..sorted], &gv[..sorted]),
            order,
        ) {
            panic!("GPU count {c} over {range} keys: {e}");
        }
        assert!(
            got[sorted..] == keys[sorted..] && gv[sorted..] == values[sorted..],
            "GPU count {c}: keys or values past it changed"
        );
        let (og, ogv) = (ctx.read::<u64>(&ob).unwrap(), util::words(t, &ov));
        if let Err(e) = check_wide(
            Dtype::U64,
            (&other_keys, &data::values(100)),
            (&og, &ogv),
            order,
        ) {
            panic!("the second recording: {e}");
        }
    }
}

/// CSR offsets of `n` keys: segments of the given kind (0: random lengths 0..2L with empty
/// ones, 1: all of length L, 2: one segment, 3: empty segments around one of all the keys,
/// 4: every key its own segment).
fn offsets(kind: u32, n: usize, len: usize, seed: u64) -> Vec<u32> {
    use rand::Rng;
    let mut r = data::rng(seed);
    let mut o = vec![0u32];
    match kind {
        0 => {
            while (*o.last().unwrap() as usize) < n {
                let l = r.random_range(0..2 * len + 1);
                o.push((*o.last().unwrap() as usize + l).min(n) as u32);
            }
        }
        1 => {
            o.extend((1..n.div_ceil(len)).map(|j| (j * len) as u32));
            o.push(n as u32);
        }
        2 => o.push(n as u32),
        3 => o.extend([0, 0, n as u32, n as u32]),
        _ => o.extend(1..=n as u32),
    }
    if n == 0 {
        o.truncate(2);
    }
    o
}

/// Records a segmented sort of `keys` (and values) by `config` with the host's counts and
/// checks it against each segment's stable sort.
fn segments_checked<T: data::Key>(
    t: &Target,
    config: SortConfig,
    with: With,
    keys: &[T],
    offs: &[u32],
    what: &str,
) {
    let sorter = Sorter::new(&t.ctx, config).unwrap_or_else(|e| panic!("{what}: {e}"));
    segments_checked_by(t, &sorter, with, keys, offs, what);
}

/// [`segments_checked`] by a sorter made before (its config's payload is `with`).
fn segments_checked_by<T: data::Key>(
    t: &Target,
    sorter: &Sorter,
    with: With,
    keys: &[T],
    offs: &[u32],
    what: &str,
) {
    let ctx = &t.ctx;
    let n = keys.len();
    let config = sorter.config();
    let values = data::values(n);
    let ob = ctx.upload("offsets", offs).unwrap();
    let counts = (Count::Host(offs.len() as u32 - 1), Count::Host(n as u32));
    let v = (with != With::Keys).then_some(&values[..]);
    let (got, gv) = run_segmented(t, sorter, (keys, v), &ob, counts, what);
    let iota: Vec<u32> = (0..n as u32).collect();
    let (vin, vout) = payloads(with, &values, &iota, gv.get(..n).unwrap_or(&[]));
    let order = order_of(config);
    if let Err(e) = check_segments((keys, vin), (&got[..n], vout), offs, order) {
        panic!("{what}: {e}");
    }
}

/// A segmented sort by `sorter` of `keys`, with `values` riding along where given, in the
/// segments of `offsets` and these counts, recorded, submitted and read back: the keys and the
/// values' words (all of them).
fn run_segmented<T: data::Key>(
    t: &Target,
    sorter: &Sorter,
    (keys, values): (&[T], Option<&[u32]>),
    offsets: &wgsimd::Buffer,
    (segments, count): (Count, Count),
    what: &str,
) -> (Vec<T>, Vec<u32>) {
    let ctx = &t.ctx;
    let kb = ctx.upload("keys", keys).unwrap();
    let vb = ctx.upload("values", values.unwrap_or(&[0])).unwrap();
    let v = values.map(|_| BufferRef::from(&vb));
    let mut enc = ctx.encoder();
    sorter
        .record_segmented(&mut enc, &kb, v, offsets, segments, count)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    util::submit(t, enc);
    (ctx.read(&kb).unwrap(), util::words(t, &vb))
}

/// Segments of every kind over each key type and payload, directions taking turns; a bit
/// range; sizes 0 and 1.
fn segments(t: &Target) {
    let n = if t.is_sim() { 900 } else { 60_001 };
    let mut turn = 0;
    for kind in 0..5u32 {
        for len in [3usize, 40] {
            if kind >= 2 && len == 40 {
                continue;
            }
            let offs = offsets(kind, n, len, turn as u64);
            let max = offs.len() as u32 - 1 + (turn % 2) * 100;
            let with = WITH[turn as usize % 3];
            let descending = turn % 2 == 1;
            let mut c = config(t, Dtype::U32, n, with, descending).segmented(max);
            let what = format!("offsets kind {kind}, len {len}, {with:?}, descending {descending}");
            match turn % 3 {
                0 => {
                    c.key = Dtype::F32;
                    let keys: Vec<f32> = data::keys(data::Dist::Extremes, n, turn as u64);
                    segments_checked(t, c, with, &keys, &offs, &what);
                }
                1 => {
                    c.key = Dtype::I32;
                    let keys: Vec<i32> = data::keys(data::Dist::Distinct16, n, turn as u64);
                    segments_checked(t, c, with, &keys, &offs, &what);
                }
                _ => {
                    let keys: Vec<u32> = data::keys(data::Dist::Uniform, n, turn as u64);
                    segments_checked(t, c, with, &keys, &offs, &what);
                }
            }
            turn += 1;
        }
    }
    let offs = offsets(0, n, 10, 5);
    let keys: Vec<u32> = data::keys(data::Dist::Uniform, n, 5);
    let c = config(t, Dtype::U32, n, With::Values, false)
        .segmented(offs.len() as u32)
        .bits(4, 12);
    segments_checked(t, c, With::Values, &keys, &offs, "bits 4..12");
    for n in [0usize, 1] {
        let keys: Vec<u32> = data::keys(data::Dist::Uniform, n, 1);
        let offs = offsets(1, n, 1, 1);
        let c = config(t, Dtype::U32, 10, With::Index, false).segmented(4);
        segments_checked(t, c, With::Index, &keys, &offs, &format!("{n} keys"));
    }
}

/// Offsets of segments of the given lengths, in order.
fn offsets_of(lens: &[usize]) -> Vec<u32> {
    let mut o = vec![0u32];
    for &l in lens {
        o.push(o.last().unwrap() + l as u32);
    }
    o
}

/// The local path (src/sort/segments.rs) at each bucket's edges, and the global path where a
/// segment is longer than the largest bucket, `L` (the sorter's `segment_buckets`): segments
/// of 0 and 1 keys, each bucket's edges, many tiny segments, a run with one segment of `L + 1`
/// among small ones; over the key types' awkward keys, all-equal and reversed keys,
/// descending, a bit range, values and indices, host and GPU counts. The simulators cap `L` at
/// the smallest tile (the policy's `segment_local_max`) and each sorts one larger tile's
/// shortest and longest segments, in turn, so that every stage runs at every subgroup size
/// without sorting 16384-key tiles many times (without subgroups there are no tiles).
fn segment_paths(t: &Target) {
    let ctx = &t.ctx;
    let probe = Sorter::new(ctx, SortConfig::keys(Dtype::U32, 1).segmented(1)).unwrap();
    let all = probe.segment_buckets().to_vec();
    assert!(all.len() >= 2, "{}: buckets {all:?}", t.name());
    let short = checked().segment_rank_max as u64;
    let tiles: Vec<u64> = all.iter().copied().filter(|&b| b > short).collect();
    let mut policy = checked();
    if t.is_sim() && !tiles.is_empty() {
        policy.segment_local_max = tiles[0];
        // sim-4, sim-32, sim-128: one larger tile each
        let i = match t.name() {
            "sim-4" => 1,
            "sim-32" => 2,
            "sim-128" => 3,
            _ => 0,
        };
        if i > 0 && i < tiles.len() {
            let lens = [tiles[i - 1] as usize + 1, tiles[i] as usize];
            let offs = offsets_of(&lens);
            let n = *offs.last().unwrap() as usize;
            let keys: Vec<u32> = data::keys(data::Dist::Uniform, n, 3);
            let mut p = checked();
            p.segment_local_max = tiles[i];
            let cfg = config(t, Dtype::U32, n, With::Values, false)
                .policy(p)
                .segmented(2);
            let what = format!("the {}-key tile's edges", tiles[i]);
            segments_checked(t, cfg, With::Values, &keys, &offs, &what);
        }
    }
    let c = |dtype: Dtype, n: usize, with: With, descending: bool, segs: usize| {
        config(t, dtype, n, with, descending)
            .policy(policy)
            .segmented(segs.max(1) as u32)
    };
    let buckets = Sorter::new(ctx, c(Dtype::U32, 1, With::Keys, false, 1))
        .unwrap()
        .segment_buckets()
        .to_vec();
    let l = *buckets.last().unwrap() as usize;
    // each bucket's edges
    let mut edges = vec![0usize, 1, 2];
    for &b in &buckets {
        let b = b as usize;
        edges.extend([b - 1, b]);
        if b != l {
            edges.push(b + 1);
        }
    }
    let tiny_lens: Vec<usize> = (0..if t.is_sim() { 300 } else { 20_000 })
        .map(|i| i * 7 % 5)
        .collect();
    let cases: [(&[usize], &str); 5] = [
        (&edges, "bucket edges"),
        (&[3, l + 1, 0, 40, 1], "one segment past L"),
        (&tiny_lens, "tiny segments"),
        (&[l], "one segment of L"),
        (&[l + 1], "one segment past L"),
    ];
    // four sorters, taking turns: f32 awkward keys alone, i32 awkward keys with values
    // descending, all-equal u32 keys with indices, reversed u32 keys with values descending
    let most = cases
        .iter()
        .map(|c| c.0.iter().sum::<usize>())
        .max()
        .unwrap();
    let most_segs = cases.iter().map(|c| c.0.len()).max().unwrap();
    let variants = [
        (Dtype::F32, With::Keys, false),
        (Dtype::I32, With::Values, true),
        (Dtype::U32, With::Index, false),
        (Dtype::U32, With::Values, true),
    ];
    let sorters: Vec<Sorter> = variants
        .iter()
        .map(|&(d, w, desc)| Sorter::new(ctx, c(d, most, w, desc, most_segs)).unwrap())
        .collect();
    for (turn, (lens, what)) in cases.iter().enumerate() {
        let offs = offsets_of(lens);
        let n = *offs.last().unwrap() as usize;
        let (_, with, descending) = variants[turn % 4];
        let what = format!("{what}, {with:?}, descending {descending}");
        let sorter = &sorters[turn % 4];
        let seed = turn as u64;
        match turn % 4 {
            0 => {
                let keys: Vec<f32> = data::keys(data::Dist::Extremes, n, seed);
                segments_checked_by(t, sorter, with, &keys, &offs, &what);
            }
            1 => {
                let keys: Vec<i32> = data::keys(data::Dist::Extremes, n, seed);
                segments_checked_by(t, sorter, with, &keys, &offs, &what);
            }
            2 => {
                let keys: Vec<u32> = data::keys(data::Dist::AllEqual, n, seed);
                segments_checked_by(t, sorter, with, &keys, &offs, &what);
            }
            _ => {
                let keys: Vec<u32> = data::keys(data::Dist::Reversed, n, seed);
                segments_checked_by(t, sorter, with, &keys, &offs, &what);
            }
        }
    }
    // a bit range, local and global
    for lens in [&[5usize, l, 0, 17][..], &[5, l + 1, 17]] {
        let offs = offsets_of(lens);
        let n = *offs.last().unwrap() as usize;
        let keys: Vec<u32> = data::keys(data::Dist::Uniform, n, 9);
        let cfg = c(Dtype::U32, n, With::Values, true, lens.len()).bits(4, 13);
        segments_checked(
            t,
            cfg,
            With::Values,
            &keys,
            &offs,
            &format!("bits 4..13, {lens:?}"),
        );
    }
    // GPU counts: the local path and (a longer segment by the count) the global one
    let lens = [l - 1, 2, 30];
    let offs = offsets_of(&lens);
    let n = l + 40;
    let keys: Vec<u32> = data::keys(data::Dist::Uniform, n, 11);
    let sorter = Sorter::new(ctx, c(Dtype::U32, n, With::Index, false, 8)).unwrap();
    let ob = ctx.upload("offsets", &offs).unwrap();
    for (segs, count) in [(3usize, l + 31), (2, l + 40), (1, l + 1)] {
        let words = ctx.upload("counts", &[segs as u32, count as u32]).unwrap();
        let counts = (Count::Gpu(words.slice(0, 4)), Count::Gpu(words.slice(4, 4)));
        let values = data::values(n);
        let what = format!("GPU counts: {segs} segments, {count} keys");
        let (got, gv) = run_segmented(t, &sorter, (&keys, Some(&values)), &ob, counts, &what);
        let mut o = offs[..segs].to_vec();
        o.push(count as u32);
        let iota: Vec<u32> = (0..count as u32).collect();
        if let Err(e) = check_segments(
            (&keys[..count], &iota),
            (&got[..count], &gv[..count]),
            &o,
            Order::default(),
        ) {
            panic!("GPU counts: {segs} segments, {count} keys: {e}");
        }
        assert_eq!(got[count..], keys[count..], "keys past the count moved");
    }
}

/// Segment and key counts from GPU words: the segment count clamped to what the offsets hold
/// (the last segment then runs to the key count), the key count clamped to the keys' range.
fn segment_counts_from_the_gpu(t: &Target) {
    let ctx: &Context = &t.ctx;
    let n = if t.is_sim() { 500 } else { 40_000 };
    let offs = offsets(0, n, 20, 3);
    let s = offs.len() - 1;
    let sorter = Sorter::new(
        ctx,
        SortConfig::keys(Dtype::U32, n as u64)
            .with_values()
            .segmented(s as u32 + 5),
    )
    .unwrap();
    let words = ctx.upload("counts", &[0u32; 8]).unwrap();
    let ob = ctx.upload("offsets", &offs).unwrap();
    // (segment word, offsets bound, key count word): the segments the sort sees
    for (seg_word, bound, count, seen) in [
        (s, s + 1, n, s),
        (s + 50, s + 1, n, s),
        (s, s - 1, n / 2, s - 2),
        (1, s + 1, n, 1),
    ] {
        let keys: Vec<u32> = data::keys(data::Dist::Distinct16, n, seen as u64);
        let values = data::values(n);
        let (kb, vb) = (
            ctx.upload("keys", &keys).unwrap(),
            ctx.upload("values", &values).unwrap(),
        );
        ctx.write_buffer(
            &words.slice(0, 8),
            bytemuck::cast_slice(&[seg_word as u32, count as u32]),
        )
        .unwrap();
        let mut enc = ctx.encoder();
        sorter
            .record_segmented(
                &mut enc,
                &kb,
                Some(BufferRef::from(&vb)),
                ob.slice(0, 4 * bound as u64),
                Count::Gpu(words.slice(0, 4)),
                Count::Gpu(words.slice(4, 4)),
            )
            .unwrap();
        util::submit(t, enc);
        let (got, gv) = (ctx.read::<u32>(&kb).unwrap(), util::words(t, &vb));
        // the segments seen: the first `seen`, the last running to the count
        let mut o: Vec<u32> = offs[..seen].iter().map(|&x| x.min(count as u32)).collect();
        o.push(count as u32);
        if let Err(e) = check_segments(
            (&keys[..count], &values[..count]),
            (&got[..count], &gv[..count]),
            &o,
            Order::default(),
        ) {
            panic!("segment word {seg_word}, offsets bound {bound}, count {count}: {e}");
        }
        assert!(
            got[count..] == keys[count..] && gv[count..] == values[count..],
            "keys past the count moved"
        );
    }
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    util::refused(
        "bits 0..65",
        Sorter::new(ctx, SortConfig::keys(Dtype::U64, 10).bits(0, 65)).map(|_| ()),
    );
    util::refused(
        "2^30 keys",
        Sorter::new(ctx, SortConfig::keys(Dtype::F64, 1 << 30)).map(|_| ()),
    );
    let pairs = Sorter::new(ctx, SortConfig::keys(Dtype::I64, 100).with_values()).unwrap();
    let keys_only = Sorter::new(ctx, SortConfig::keys(Dtype::I64, 100)).unwrap();
    let kb = ctx.upload("keys", &[7u64; 10]).unwrap();
    let vb = ctx.upload("values", &[1u32; 10]).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "no values for pairs",
        pairs.record(&mut enc, &kb, None, Count::Host(10)),
    );
    util::refused(
        "values for keys alone",
        keys_only.record(&mut enc, &kb, Some(BufferRef::from(&vb)), Count::Host(10)),
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
        "9 values for 10 keys",
        pairs.record(&mut enc, &kb, Some(vb.slice(0, 36)), Count::Host(10)),
    );
    util::refused(
        "values over the keys",
        pairs.record(
            &mut enc,
            kb.slice(0, 80),
            Some(kb.slice(0, 40)),
            Count::Host(10),
        ),
    );
    let seg = Sorter::new(ctx, SortConfig::keys(Dtype::U32, 100).segmented(4)).unwrap();
    let ob = ctx.upload("offsets", &[0u32, 5, 10]).unwrap();
    let k32 = ctx.upload("keys", &[7u32; 10]).unwrap();
    util::refused(
        "5 segments of 4",
        seg.record_segmented(&mut enc, &k32, None, &ob, Count::Host(5), Count::Host(10)),
    );
    util::refused(
        "3 segments over 3 offsets",
        seg.record_segmented(&mut enc, &k32, None, &ob, Count::Host(3), Count::Host(10)),
    );
    util::refused(
        "segmented sorter without offsets",
        seg.record(&mut enc, &k32, None, Count::Host(10)),
    );
    let segv = Sorter::new(
        ctx,
        SortConfig::keys(Dtype::U32, 100).with_values().segmented(4),
    )
    .unwrap();
    util::refused(
        "offsets over the values",
        segv.record_segmented(
            &mut enc,
            &k32,
            Some(vb.slice(0, 40)),
            vb.slice(0, 12),
            Count::Host(2),
            Count::Host(10),
        ),
    );
    util::refused(
        "offsets for a plain sorter",
        keys_only.record_segmented(&mut enc, &kb, None, &ob, Count::Host(2), Count::Host(10)),
    );
    let wide_seg = Sorter::new(ctx, SortConfig::keys(Dtype::U64, 10).segmented(2)).unwrap();
    util::refused(
        "64-bit segmented sorter without offsets",
        wide_seg.record(&mut enc, &kb, None, Count::Host(10)),
    );
    util::refused(
        "64-bit segmented sorter with values it does not carry",
        wide_seg.record_segmented(
            &mut enc,
            &kb,
            Some(BufferRef::from(&vb)),
            &ob,
            Count::Host(2),
            Count::Host(10),
        ),
    );
    util::refused(
        "64-bit keys over the offsets",
        wide_seg.record_segmented(
            &mut enc,
            &kb,
            None,
            kb.slice(0, 12),
            Count::Host(2),
            Count::Host(10),
        ),
    );
    util::refused(
        "64-bit segmented, 3 segments of 2",
        wide_seg.record_segmented(&mut enc, &kb, None, &ob, Count::Host(3), Count::Host(10)),
    );
    util::refused(
        "64-bit segmented, 11 keys of 10",
        wide_seg.record_segmented(&mut enc, &kb, None, &ob, Count::Host(2), Count::Host(11)),
    );
    util::refused(
        "0 segments",
        Sorter::new(ctx, SortConfig::keys(Dtype::U32, 10).segmented(0)).map(|_| ()),
    );
    let o = wgsimd::sort::SortOptions::default();
    for bad in [&[1u32, 3][..], &[0, 4], &[0, 2, 1, 3], &[]] {
        util::refused(
            &format!("offsets {bad:?}"),
            wgsimd::sort::sort_segments(ctx, &[1u32, 2, 3], None, bad, &o),
        );
    }
    // nothing was recorded by the refused recordings
    util::submit(t, enc);
    assert_eq!(ctx.read::<u64>(&kb).unwrap(), [7u64; 10]);
    assert_eq!(ctx.read::<u32>(&k32).unwrap(), [7u32; 10]);
}

/// Offsets that decrease (the recording does not check them; the host-slice functions and the
/// CLI do): overlapping segments, which the local path's classify stage counts past its
/// buckets' room, and a decrease inside the count. Each key takes the segment the split's
/// search finds, so the output is a permutation of the input, and no access leaves its
/// binding (on the simulator a finding fails the run).
fn offsets_that_decrease(t: &Target) {
    let ctx = &t.ctx;
    let n = 100 * 32;
    // [0, 50, 0, 50, ...]: 250 segments [0, 50), past the short bucket's room (3200 / 17 =
    // 188); [0, 2, 0, 2, ...]: 2000 segments [0, 2), past the tiny bucket's (3200 / 2); one
    // decrease inside the count
    let shapes: Vec<Vec<u32>> = vec![
        (0..=500u32)
            .map(|j| if j == 500 { n as u32 } else { 50 * (j % 2) })
            .collect(),
        (0..=4000u32)
            .map(|j| if j == 4000 { n as u32 } else { 2 * (j % 2) })
            .collect(),
        vec![0, 1000, 400, 2000, n as u32],
    ];
    let keys: Vec<u32> = data::keys(data::Dist::Uniform, n, 9);
    let values = data::values(n);
    for (i, offs) in shapes.iter().enumerate() {
        let config = SortConfig::keys(Dtype::U32, n as u64)
            .with_values()
            .policy(checked())
            .segmented(offs.len() as u32 - 1);
        let sorter = Sorter::new(ctx, config).unwrap();
        let ob = ctx.upload("offsets", offs).unwrap();
        let counts = (Count::Host(offs.len() as u32 - 1), Count::Host(n as u32));
        let what = format!("shape {i}");
        let (got, gv) = run_segmented(t, &sorter, (&keys, Some(&values)), &ob, counts, &what);
        let mut pairs: Vec<(u32, u32)> = got[..n]
            .iter()
            .copied()
            .zip(gv[..n].iter().copied())
            .collect();
        let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
        pairs.sort_unstable();
        want.sort_unstable();
        assert!(
            pairs == want,
            "shape {i}: not a permutation of the input's (key, value) pairs"
        );
    }
}

/// A segmented sort of 64-bit keys (`src/sort/wide_segments.rs`), checked by
/// [`check_wide_segments`]: the composed sorts of each 32-bit word, and the gathers between.
fn wide_segments_checked(
    t: &Target,
    sorter: &Sorter,
    with: With,
    (keys, sorted): (&[u64], usize),
    offs: &[u32],
    counts: (Count, Count),
    what: &str,
) {
    let ctx = &t.ctx;
    let n = keys.len();
    let config = sorter.config();
    let values = data::values(n);
    let ob = ctx.upload("offsets", offs).unwrap();
    let kb = ctx
        .upload("keys", &[keys, &[0x5e5e_5e5e_5e5e_5e5e]].concat())
        .unwrap();
    let poison = vec![0x7a7a_7a7au32; n + 1];
    let vb = match with {
        With::Values => ctx.upload("values", &[&values[..], &[0x7a7a_7a7a]].concat()),
        _ => ctx.upload("values", &poison),
    }
    .unwrap();
    let v = (with != With::Keys).then(|| vb.slice(0, 4 * n.max(1) as u64));
    let mut enc = ctx.encoder();
    sorter
        .record_segmented(
            &mut enc,
            kb.slice(0, 8 * n.max(1) as u64),
            v,
            &ob,
            counts.0,
            counts.1,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    util::submit(t, enc);
    let got: Vec<u64> = ctx.read(&kb).unwrap();
    let gv = util::words(t, &vb);
    assert_eq!(
        got[n], 0x5e5e_5e5e_5e5e_5e5e,
        "{what}: past the keys written"
    );
    assert_eq!(gv[n], 0x7a7a_7a7a, "{what}: past the values written");
    let uploaded = if with == With::Values {
        &values
    } else {
        &poison
    };
    assert!(
        got[sorted..n] == keys[sorted..] && gv[sorted..n] == uploaded[sorted..n],
        "{what}: keys or values past the count changed"
    );
    let iota: Vec<u32> = (0..sorted as u32).collect();
    let (vin, vout) = payloads(
        with,
        &values[..sorted],
        &iota,
        gv.get(..sorted).unwrap_or(&[]),
    );
    // the offsets of the sorted keys (a GPU count may leave the last ones out)
    let checked: Vec<u32> = offs
        .iter()
        .copied()
        .filter(|&o| o as usize <= sorted)
        .collect();
    let order = order_of(config);
    let (keys, got) = (&keys[..sorted], &got[..sorted]);
    if let Err(e) = check_wide_segments(config.key, (keys, vin), (got, vout), &checked, order) {
        panic!("{what}: {e}");
    }
}

/// Segmented sorts of u64, i64 and f64 keys: each type over key kinds whose order lies in the
/// low words, the high words or both, the segment kinds, payloads and directions taking turns;
/// the global path (a policy without the local one); bit ranges in the low half, across both,
/// the high half alone and empty; sizes 0 and 1; segment and key counts from GPU words.
fn wide_segments(t: &Target) {
    let ctx = &t.ctx;
    let n = if t.is_sim() { 700 } else { 40_001 };
    let mut turn = 0usize;
    for (dtype, kinds) in [
        (Dtype::U64, &[0u32, 1][..]),
        (Dtype::I64, &[2, 4][..]),
        (Dtype::F64, &[4, 3, 1][..]),
    ] {
        for &kind in kinds {
            let with = WITH[turn % 3];
            let descending = turn % 2 == 1;
            let offs = offsets(turn as u32 % 5, n, [3, 40][turn % 2], turn as u64);
            let keys = wide_keys(kind, n, turn as u64);
            let mut c = config(t, dtype, n, with, descending).segmented(offs.len() as u32 + 7);
            if turn == 2 {
                c.policy.segment_local_max = 0;
            }
            let what = format!(
                "{dtype} keys kind {kind}, offsets kind {}, {with:?}, descending {descending}",
                turn % 5
            );
            let sorter = Sorter::new(ctx, c).unwrap_or_else(|e| panic!("{what}: {e}"));
            let counts = (Count::Host(offs.len() as u32 - 1), Count::Host(n as u32));
            wide_segments_checked(t, &sorter, with, (&keys, n), &offs, counts, &what);
            turn += 1;
        }
    }
    let offs = offsets(0, n, 10, 5);
    for (i, (begin, end)) in [(0, 20), (16, 48), (32, 64), (33, 33)]
        .into_iter()
        .enumerate()
    {
        let with = WITH[i % 3];
        let keys = wide_keys(i as u32 % 3, n, 3);
        let c = config(t, Dtype::F64, n, with, i == 1)
            .bits(begin, end)
            .segmented(offs.len() as u32);
        let sorter = Sorter::new(ctx, c).unwrap();
        let counts = (Count::Host(offs.len() as u32 - 1), Count::Host(n as u32));
        let what = format!("bits {begin}..{end}, {with:?}");
        wide_segments_checked(t, &sorter, with, (&keys, n), &offs, counts, &what);
    }
    for m in [0usize, 1] {
        let keys = wide_keys(4, m, 9);
        let offs = offsets(1, m, 1, 1);
        let c = config(t, Dtype::I64, 10, With::Index, false).segmented(4);
        let sorter = Sorter::new(ctx, c).unwrap();
        let counts = (Count::Host(offs.len() as u32 - 1), Count::Host(m as u32));
        wide_segments_checked(
            t,
            &sorter,
            With::Index,
            (&keys, m),
            &offs,
            counts,
            &format!("{m} keys"),
        );
    }
    // GPU counts: the segment count and the key count from words the GPU holds; the keys past
    // the count are a segment of their own, untouched
    let offs = offsets(0, n, 30, 11);
    let keys = wide_keys(0, n + 90, 11);
    let mut offs_more = offs.clone();
    offs_more.push(n as u32 + 90);
    let words = ctx
        .upload("counts", &[offs.len() as u32 - 1, n as u32, 0, 0])
        .unwrap();
    let c = config(t, Dtype::U64, n + 90, With::Values, true).segmented(offs.len() as u32 + 3);
    let sorter = Sorter::new(ctx, c).unwrap();
    let counts = (Count::Gpu(words.slice(0, 4)), Count::Gpu(words.slice(4, 4)));
    wide_segments_checked(
        t,
        &sorter,
        With::Values,
        (&keys, n),
        &offs_more,
        counts,
        "GPU counts",
    );
}
