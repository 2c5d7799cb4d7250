//! Select and partition: u32, i32 and f32 elements by byte flags, u32 flags and a WGSL
//! predicate, against `reference::select::partition`, with host and GPU counts, outputs
//! poisoned (a select leaves the rest of its output alone); the selected count read by a later
//! recording as its count; and what is refused.

use rand::Rng;
use wgsimd::dtype::Dtype;
use wgsimd::plan::POISON_WORD;
use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
use wgsimd::reference::select::partition;
use wgsimd::scan::ScanPolicy;
use wgsimd::select::{select, select_if, Select, SelectConfig, SelectPolicy};
use wgsimd::sim::{Scheduler, SimConfig};
use wgsimd::{BufferRef, Caps, Context, Count};

use crate::data::{self, Dist};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "select::every_configuration",
            On::Every,
            every_configuration,
        ),
        Test::new(
            "select::the_count_feeds_a_later_recording",
            On::Every,
            count_feeds_a_recording,
        ),
        Test::new("select::across_tiles", On::Every, across_tiles),
        Test::new("select::decoupled_fallback", On::Once, decoupled_fallback),
        Test::new("select::bad_input", On::Once, bad_input),
    ]
}

/// Flags for `n` elements: none, all, random, alternating, the last alone.
fn flag_sets(n: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut r = data::rng(seed);
    let mut last = vec![0u8; n];
    if let Some(l) = last.last_mut() {
        *l = 1;
    }
    vec![
        vec![0; n],
        vec![1; n],
        (0..n)
            .map(|_| r.random_range(0..4u8))
            .map(|f| (f == 0) as u8 * 7)
            .collect(),
        (0..n).map(|i| (i % 2) as u8).collect(),
        last,
    ]
}

/// Runs `s` over `input` (`n` elements as words) with `flags`, host and GPU counts, into a
/// poisoned output, and checks it against the reference partition by `keep`.
fn check(
    ctx: &Context,
    s: &Select,
    input: &[u32],
    flags: Option<&wgsimd::Buffer>,
    keep: &dyn Fn(usize) -> bool,
    what: &str,
) {
    let n = input.len();
    let (yes, no) = partition(input, keep);
    let data = ctx.upload("input", input).unwrap();
    let count = ctx.upload("count", &[n as u32]).unwrap();
    for (how, c) in [
        ("host count", Count::Host(n as u32)),
        ("GPU count", Count::Gpu(BufferRef::from(&count))),
    ] {
        let out = ctx.upload("output", &vec![POISON_WORD; n.max(1)]).unwrap();
        let selected = ctx.upload("selected", &[POISON_WORD; 4]).unwrap();
        let mut enc = ctx.encoder();
        s.record(
            &mut enc,
            &data,
            flags.map(BufferRef::from),
            &out,
            selected.slice(0, 4),
            c,
        )
        .unwrap();
        let report = ctx.submit(enc).expect("submit");
        if let Some(f) = report.findings.first() {
            panic!("{what}, {n} elements, {how}: {f}");
        }
        let got = ctx.read::<u32>(&out).unwrap();
        let k = ctx.read::<u32>(&selected).unwrap()[0] as usize;
        assert_eq!(
            k,
            yes.len(),
            "{what}, {n} elements, {how}: the selected count"
        );
        assert_eq!(
            got[..k],
            yes[..],
            "{what}, {n} elements, {how}: the selected"
        );
        if s.config().partition {
            assert_eq!(got[k..n], no[..], "{what}, {n} elements, {how}: the others");
        } else {
            assert!(
                got[k..].iter().all(|&w| w == POISON_WORD),
                "{what}, {n} elements, {how}: written past the selected"
            );
        }
    }
}

fn every_configuration(t: &Target) {
    let ctx = &t.ctx;
    let sizes = t.sizes(&[0, 1, 3, 4, 5, 17, 257, 4097, (1 << 20) + 3], 4097);
    let max = *sizes.last().unwrap() as u64;
    for partition_too in [false, true] {
        for (dtype, flag_dtype) in [(Dtype::U32, Dtype::U8), (Dtype::F32, Dtype::U32)] {
            let mut c = SelectConfig::flags(dtype, flag_dtype, max);
            if partition_too {
                c = c.partition();
            }
            let s = Select::new(ctx, c).unwrap();
            for &n in &sizes {
                let input: Vec<u32> = data::keys::<u32>(Dist::Extremes, n, n as u64);
                for (f, flags) in flag_sets(n, n as u64).into_iter().enumerate() {
                    let buf = if flag_dtype == Dtype::U8 {
                        ctx.upload("flags", if n == 0 { &[0u8][..] } else { &flags })
                            .unwrap()
                    } else {
                        let words: Vec<u32> =
                            flags.iter().map(|&f| f as u32 * 0x0100_0001).collect();
                        ctx.upload("flags", if n == 0 { &[0u32][..] } else { &words })
                            .unwrap()
                    };
                    let what = format!(
                        "{dtype} by {flag_dtype} flags (set {f}), partition {partition_too}"
                    );
                    check(ctx, &s, &input, Some(&buf), &|i| flags[i] != 0, &what);
                }
            }
        }
        // a predicate over i32: the negative elements, as the kernel's `keep` says
        let pred = "fn keep(x: i32) -> bool { return x < 0; }";
        let mut c = SelectConfig::predicate(Dtype::I32, pred, max);
        if partition_too {
            c = c.partition();
        }
        let s = Select::new(ctx, c).unwrap();
        for &n in &sizes {
            let input: Vec<u32> = data::keys::<u32>(Dist::Uniform, n, n as u64);
            let keep = |i: usize| (input[i] as i32) < 0;
            check(
                ctx,
                &s,
                &input,
                None,
                &keep,
                &format!("i32 by a predicate, partition {partition_too}"),
            );
        }
    }
    // the host-slice functions
    assert_eq!(
        select(ctx, &[1.5f32, -2.0, 3.0], &[1u8, 0, 1]).unwrap(),
        [1.5, 3.0]
    );
    let even = "fn keep(x: u32) -> bool { return x % 2u == 0u; }";
    assert_eq!(select_if(ctx, &[3u32, 4, 6, 7], even).unwrap(), [4, 6]);
    let (p, k) = wgsimd::select::partition(ctx, &[5i32, 6, 7], &[0u32, 1, 0]).unwrap();
    assert_eq!((p, k), (vec![6, 5, 7], 1));
}

/// Around one and two tiles of the device's policy, where the look-back carries the selected
/// counts: a partition by byte flags, and a selection by u32 flags.
fn across_tiles(t: &Target) {
    let tile = SelectPolicy::for_caps(t.caps())
        .tiles
        .tile_for(1, t.caps().flavor())
        .unwrap() as usize;
    let sizes = [tile - 1, tile + 1, 2 * tile + 3];
    let max = sizes[2] as u64;
    let by_bytes = Select::new(
        &t.ctx,
        SelectConfig::flags(Dtype::U32, Dtype::U8, max).partition(),
    )
    .unwrap();
    let by_words = Select::new(&t.ctx, SelectConfig::flags(Dtype::U32, Dtype::U32, max)).unwrap();
    for n in sizes {
        let input: Vec<u32> = data::keys::<u32>(Dist::Uniform, n, n as u64);
        let flags = &flag_sets(n, 7 + n as u64)[2];
        let keep = |i: usize| flags[i] != 0;
        let bytes = t.ctx.upload("flags", flags).unwrap();
        let what = format!("tile {tile}, partition by bytes");
        check(&t.ctx, &by_bytes, &input, Some(&bytes), &keep, &what);
        let words: Vec<u32> = flags.iter().map(|&f| f as u32 * 3).collect();
        let words = t.ctx.upload("flags", &words).unwrap();
        let what = format!("tile {tile}, select by u32 flags");
        check(&t.ctx, &by_words, &input, Some(&words), &keep, &what);
    }
}

/// Tiles that look back before their predecessors publish (starved and shuffled workgroups,
/// tiles in workgroup order) sum those predecessors' marks themselves: byte flags, u32 flags
/// and a predicate, at subgroups of 4 and 32 and without subgroups.
fn decoupled_fallback(_: &Target) {
    let profiles = [
        ("h100", Caps::h100(), 4),
        ("h100", Caps::h100(), 32),
        ("portable", Caps::lavapipe().without_subgroups(), 32),
    ];
    let schedulers = [
        Scheduler::Unfair { starved: vec![0] },
        Scheduler::Unfair {
            starved: vec![1, 3],
        },
        Scheduler::Shuffled(5),
    ];
    let pred = "fn keep(x: u32) -> bool { return (x & 3u) == 1u; }";
    for (name, caps, sg) in profiles {
        for (k, scheduler) in schedulers.iter().enumerate() {
            let mut config = SimConfig::for_profile(caps.clone());
            config.subgroup_size = sg;
            config.scheduler = scheduler.clone();
            config.fail_on_step_limit = true;
            let ctx = Context::simulator(config).unwrap();
            let policy = SelectPolicy {
                tiles: ScanPolicy {
                    tile: 4096,
                    small_tile: 4096,
                    spin: [0, 3][k % 2],
                    tickets: false,
                    ..ScanPolicy::for_caps(ctx.caps())
                },
                ..SelectPolicy::for_caps(ctx.caps())
            };
            let what = format!("{name} at {sg} lanes, {scheduler:?}");
            let n = [2 * 4096 + 1, 3 * 4096 - 3, 4 * 4096 + 5][k];
            let input: Vec<u32> = data::keys::<u32>(Dist::Uniform, n, k as u64);
            let flags = &flag_sets(n, k as u64)[2];
            let keep = |i: usize| flags[i] != 0;
            let configs = [
                SelectConfig::flags(Dtype::U32, Dtype::U8, n as u64).partition(),
                SelectConfig::flags(Dtype::U32, Dtype::U32, n as u64),
            ];
            let bytes = ctx.upload("flags", flags).unwrap();
            let words: Vec<u32> = flags.iter().map(|&f| f as u32).collect();
            let words = ctx.upload("flags", &words).unwrap();
            for (c, buf) in configs.into_iter().zip([&bytes, &words]) {
                let s = Select::with_policy(&ctx, c, policy).unwrap();
                check(&ctx, &s, &input, Some(buf), &keep, &what);
            }
            let s = Select::with_policy(
                &ctx,
                SelectConfig::predicate(Dtype::U32, pred, n as u64),
                policy,
            )
            .unwrap();
            let keep = |i: usize| input[i] & 3 == 1;
            check(
                &ctx,
                &s,
                &input,
                None,
                &keep,
                &format!("{what}, a predicate"),
            );
        }
    }
}

/// The selected count as the count of the recording after it, in one encoder: the sum of the
/// selected elements.
fn count_feeds_a_recording(t: &Target) {
    let ctx = &t.ctx;
    let n = if t.is_sim() { 3000 } else { 300_000 };
    let input: Vec<u32> = (0..n as u32).collect();
    let flags: Vec<u8> = (0..n).map(|i| (i % 3 == 0) as u8).collect();
    let s = Select::new(ctx, SelectConfig::flags(Dtype::U32, Dtype::U8, n as u64)).unwrap();
    let r = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, n as u64).unwrap();
    let (data, fbuf) = (
        ctx.upload("input", &input).unwrap(),
        ctx.upload("flags", &flags).unwrap(),
    );
    let kept = ctx.zeroed("kept", 4 * n as u64).unwrap();
    // the count at byte 4 of a stats buffer (not aligned for binding: copied into place)
    let stats = ctx.zeroed("stats", 256).unwrap();
    let total = ctx.zeroed("total", 8).unwrap();
    let mut enc = ctx.encoder();
    s.record(
        &mut enc,
        &data,
        Some((&fbuf).into()),
        &kept,
        stats.slice(4, 4),
        Count::Host(n as u32),
    )
    .unwrap();
    r.record(&mut enc, &kept, &total, Count::Gpu(stats.slice(4, 4)))
        .unwrap();
    util::submit(t, enc);
    let want: u64 = input
        .iter()
        .filter(|&&x| x % 3 == 0)
        .map(|&x| x as u64)
        .sum();
    assert_eq!(
        r.decode(&util::words(t, &total)[..2]).unwrap(),
        Scalar::U64(want)
    );
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    util::refused(
        "f32 flags",
        Select::new(ctx, SelectConfig::flags(Dtype::U32, Dtype::F32, 10)).map(|_| ()),
    );
    util::refused(
        "u8 elements",
        Select::new(ctx, SelectConfig::flags(Dtype::U8, Dtype::U8, 10)).map(|_| ()),
    );
    let bad = SelectConfig::predicate(Dtype::F32, "fn keep(x: f32) -> bool { return x }", 10);
    assert!(matches!(
        Select::new(ctx, bad),
        Err(wgsimd::Error::Shader { .. })
    ));
    let s = Select::new(ctx, SelectConfig::flags(Dtype::U32, Dtype::U8, 100)).unwrap();
    let data = ctx.upload("input", &[1u32; 10]).unwrap();
    let flags = ctx.upload("flags", &[1u8; 8]).unwrap();
    let out = ctx.zeroed("output", 64).unwrap();
    let sel = ctx.zeroed("selected", 16).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "no flags",
        s.record(&mut enc, &data, None, &out, &sel, Count::Host(10)),
    );
    util::refused(
        "10 elements, 8 flags",
        s.record(
            &mut enc,
            &data,
            Some((&flags).into()),
            &out,
            &sel,
            Count::Host(10),
        ),
    );
    util::refused(
        "a 2-byte selected count",
        s.record(
            &mut enc,
            &data,
            Some((&flags).into()),
            &out,
            sel.slice(0, 2),
            Count::Host(8),
        ),
    );
    util::refused(
        "mismatched host-slice flags",
        select(ctx, &[1u32, 2], &[1u8]),
    );
}
