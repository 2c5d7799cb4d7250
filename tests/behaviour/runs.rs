//! Unique, run-length encoding and reduction by key: u32, i32 and f32 keys and values, every
//! operator, against `reference::runs::runs` and the reduction's references, with host and GPU
//! counts, outputs poisoned (nothing past the run count is written); runs inside and across the
//! chunks of a small grid (a policy of 3 workgroups of one element per invocation); the run
//! count read by a later recording as its count; and what is refused.

use rand::Rng;
use wgsimd::dtype::Dtype;
use wgsimd::fold::ChunkPolicy;
use wgsimd::plan::POISON_WORD;
use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
use wgsimd::reference::reduce::{minmax, SumF32};
use wgsimd::reference::runs::runs;
use wgsimd::runs::{Aggregate, Runs, RunsConfig, RUNS_POLICY};
use wgsimd::{BufferRef, Count};

use crate::data::{self, Dist};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new("runs::every_configuration", On::Every, every_configuration),
        Test::new(
            "runs::the_count_feeds_a_later_recording",
            On::Every,
            count_feeds_a_recording,
        ),
        Test::new("runs::bad_input", On::Once, bad_input),
    ]
}

/// Keys for `n` elements: one run, every key its own run, random runs of 1 to 40 (of 4 keys,
/// neighbouring runs never the same), long runs of up to 3000, and f32's extremes in runs (−0
/// next to +0, NaNs of the same and of other bits).
fn key_sets(n: usize, seed: u64) -> Vec<(&'static str, Vec<u32>)> {
    let mut r = data::rng(seed);
    let mut runs_of = |max: usize, palette: &[u32]| {
        let mut out = Vec::with_capacity(n);
        let mut k = 0usize;
        while out.len() < n {
            k = (k + 1 + r.random_range(0..palette.len() - 1)) % palette.len();
            let len = r.random_range(1..=max).min(n - out.len());
            out.extend(std::iter::repeat_n(palette[k], len));
        }
        out
    };
    let ext = [
        0x0000_0000,
        0x8000_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7f80_0000,
        0x3f80_0000,
    ];
    vec![
        ("one run", vec![0x8000_0001; n]),
        ("distinct", data::keys::<u32>(Dist::Sorted, n, seed)),
        ("runs of 1-40", runs_of(40, &[1, 2, 3, 4])),
        ("runs of 1-3000", runs_of(3000, &[7, u32::MAX, 0x8000_0000])),
        ("f32 extremes", runs_of(5, &ext)),
    ]
}

/// The reference aggregate of `run` (words of `dtype`) by `op`, or a check of a GPU's f32 sum.
fn check_aggregate(op: ReduceOp, dtype: Dtype, run: &[u32], got: u32) -> Result<(), String> {
    let want = match (op, dtype) {
        (ReduceOp::Sum, Dtype::F32) => {
            let x: Vec<f32> = run.iter().map(|&w| f32::from_bits(w)).collect();
            return SumF32::of(&x).check(f32::from_bits(got));
        }
        (ReduceOp::Sum, _) => run.iter().fold(0u32, |a, &w| a.wrapping_add(w)),
        (op, Dtype::U32) => minmax(run, op == ReduceOp::Max).unwrap(),
        (op, Dtype::I32) => {
            let x: Vec<i32> = run.iter().map(|&w| w as i32).collect();
            minmax(&x, op == ReduceOp::Max).unwrap() as u32
        }
        (op, _) => {
            let x: Vec<f32> = run.iter().map(|&w| f32::from_bits(w)).collect();
            minmax(&x, op == ReduceOp::Max).unwrap().to_bits()
        }
    };
    if got == want {
        Ok(())
    } else {
        Err(format!("{got:#010x}, want {want:#010x}"))
    }
}

/// Runs `r` over `keys` and `values` (words; values ignored without a reduction), host and GPU
/// counts, into poisoned outputs, against the reference.
fn check(t: &Target, r: &Runs, keys: &[u32], values: &[u32], what: &str) {
    let ctx = &t.ctx;
    let n = keys.len();
    let want = runs(keys);
    let cfg = *r.config();
    let kbuf = ctx.upload("keys", &keys_or_one(keys)).unwrap();
    let vbuf = ctx.upload("values", &keys_or_one(values)).unwrap();
    let count = ctx.upload("count", &[n as u32]).unwrap();
    for (how, c) in [
        ("host count", Count::Host(n as u32)),
        ("GPU count", Count::Gpu(BufferRef::from(&count))),
    ] {
        let poison = vec![POISON_WORD; n.max(1)];
        let keys_out = ctx.upload("keys_out", &poison).unwrap();
        let aggs = ctx.upload("aggregates", &poison).unwrap();
        let runs_word = ctx.upload("runs", &[POISON_WORD; 4]).unwrap();
        let mut enc = ctx.encoder();
        let reduce = matches!(cfg.aggregate, Aggregate::Reduce(..));
        r.record(
            &mut enc,
            &kbuf,
            reduce.then(|| BufferRef::from(&vbuf)),
            &keys_out,
            (cfg.aggregate != Aggregate::None).then(|| BufferRef::from(&aggs)),
            runs_word.slice(0, 4),
            c,
        )
        .unwrap();
        util::submit(t, enc);
        let k = util::words(t, &runs_word)[0] as usize;
        let at = format!("{what}, {n} keys, {how}");
        assert_eq!(k, want.len(), "{at}: the run count");
        let got_keys = util::words(t, &keys_out);
        let want_keys: Vec<u32> = want.iter().map(|r| keys[r.start]).collect();
        assert_eq!(got_keys[..k], want_keys[..], "{at}: the keys");
        assert!(
            got_keys[k..].iter().all(|&w| w == POISON_WORD),
            "{at}: keys written past the runs"
        );
        let got = util::words(t, &aggs);
        match cfg.aggregate {
            Aggregate::None => assert!(got.iter().all(|&w| w == POISON_WORD), "{at}"),
            Aggregate::Lengths => {
                let lens: Vec<u32> = want.iter().map(|r| r.len() as u32).collect();
                assert_eq!(got[..k], lens[..], "{at}: the lengths");
            }
            Aggregate::Reduce(op, dtype) => {
                for (i, run) in want.iter().enumerate() {
                    if let Err(e) = check_aggregate(op, dtype, &values[run.clone()], got[i]) {
                        panic!("{at}: run {i} ({} keys from {}): {e}", run.len(), run.start);
                    }
                }
            }
        }
        if cfg.aggregate != Aggregate::None {
            assert!(
                got[k..].iter().all(|&w| w == POISON_WORD),
                "{at}: aggregates written past the runs"
            );
        }
    }
}

fn keys_or_one(x: &[u32]) -> Vec<u32> {
    if x.is_empty() {
        vec![0]
    } else {
        x.to_vec()
    }
}

fn every_configuration(t: &Target) {
    let ctx = &t.ctx;
    let sizes = t.sizes(&[0, 1, 2, 257, 4097, (1 << 20) + 3], 4097);
    let max = *sizes.last().unwrap() as u64;
    let small = ChunkPolicy {
        max_workgroups: 3,
        items: 1,
        ..ChunkPolicy::default()
    };
    // more chunks than the fixup's workgroup has invocations (each takes several)
    let many = ChunkPolicy {
        max_workgroups: 4096,
        items: 1,
        ..ChunkPolicy::default()
    };
    let configs = [
        RunsConfig::unique(Dtype::F32, max),
        RunsConfig::lengths(Dtype::U32, max),
        RunsConfig::reduce(Dtype::U32, ReduceOp::Sum, Dtype::U32, max),
        RunsConfig::reduce(Dtype::I32, ReduceOp::Min, Dtype::I32, max),
        RunsConfig::reduce(Dtype::U32, ReduceOp::Max, Dtype::I32, max),
        RunsConfig::reduce(Dtype::F32, ReduceOp::Sum, Dtype::F32, max),
        RunsConfig::reduce(Dtype::U32, ReduceOp::Min, Dtype::F32, max),
        RunsConfig::reduce(Dtype::I32, ReduceOp::Max, Dtype::F32, max),
    ];
    for (c, cfg) in configs.into_iter().enumerate() {
        // the default grid (16 elements an invocation), one of 3 chunks of one element an
        // invocation (on the large sizes: runs across chunks), and one of 4096 chunks on the
        // GPU's large size
        for (p, policy) in [RUNS_POLICY, small, many].into_iter().enumerate() {
            let r = Runs::with_policy(ctx, cfg, policy).unwrap();
            for &n in &sizes {
                let seed = (n * 31 + c) as u64;
                let values = match cfg.aggregate {
                    Aggregate::Reduce(ReduceOp::Sum, Dtype::F32) => data::random_f32(n, seed)
                        .iter()
                        .map(|x| x.to_bits())
                        .collect(),
                    Aggregate::Reduce(_, Dtype::F32) => data::keys::<f32>(Dist::Extremes, n, seed)
                        .iter()
                        .map(|x| x.to_bits())
                        .collect(),
                    _ => data::keys::<u32>(Dist::Extremes, n, seed),
                };
                for (name, keys) in key_sets(n, seed) {
                    // (one run and all-distinct keys at the small sizes; the small grid where
                    // it crosses chunks at the simulator's sizes; 4097 and the GPU's large
                    // size with its long runs on half the configurations)
                    let short_only = name == "one run" || name == "distinct";
                    if (p == 1 && n != 4097)
                        || (p == 2 && n <= 4097)
                        || (n >= 4097 && short_only)
                        || (n == 4097 && c % 2 == 1)
                        || (n > 4097 && (c % 2 == 1 || !name.starts_with("runs of")))
                    {
                        continue;
                    }
                    let what = format!("{cfg:?}, policy {p}, keys {name}");
                    check(t, &r, &keys, &values, &what);
                }
            }
        }
    }
    // the host-slice functions
    assert_eq!(
        wgsimd::runs::unique(ctx, &[0.0f32, -0.0, -0.0, 1.0]).unwrap(),
        [0.0, -0.0, 1.0]
    );
    let (k, l) = wgsimd::runs::run_length_encode(ctx, &[5i32, 5, -1]).unwrap();
    assert_eq!((k, l), (vec![5, -1], vec![2, 1]));
    let (k, m) =
        wgsimd::runs::reduce_by_key(ctx, &[1u32, 1, 2], &[3i32, -4, 7], ReduceOp::Min).unwrap();
    assert_eq!((k, m), (vec![1, 2], vec![-4, 7]));
}

/// The run count as the count of the recording after it, in one encoder: the sum of the
/// run lengths is the key count.
fn count_feeds_a_recording(t: &Target) {
    let ctx = &t.ctx;
    let n: usize = if t.is_sim() { 3000 } else { 300_000 };
    let keys: Vec<u32> = (0..n as u32).map(|i| i / 7).collect();
    let r = Runs::new(ctx, RunsConfig::lengths(Dtype::U32, n as u64)).unwrap();
    let s = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, n as u64).unwrap();
    let kbuf = ctx.upload("keys", &keys).unwrap();
    let (keys_out, lengths) = (
        ctx.zeroed("keys_out", 4 * n as u64).unwrap(),
        ctx.zeroed("lengths", 4 * n as u64).unwrap(),
    );
    let stats = ctx.zeroed("stats", 256).unwrap();
    let total = ctx.zeroed("total", 8).unwrap();
    let mut enc = ctx.encoder();
    r.record(
        &mut enc,
        &kbuf,
        None,
        &keys_out,
        Some((&lengths).into()),
        stats.slice(12, 4),
        Count::Host(n as u32),
    )
    .unwrap();
    s.record(&mut enc, &lengths, &total, Count::Gpu(stats.slice(12, 4)))
        .unwrap();
    util::submit(t, enc);
    assert_eq!(util::words(t, &stats)[3] as usize, n.div_ceil(7));
    assert_eq!(
        s.decode(&util::words(t, &total)[..2]).unwrap(),
        Scalar::U64(n as u64)
    );
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    util::refused(
        "u8 keys",
        Runs::new(ctx, RunsConfig::unique(Dtype::U8, 10)).map(|_| ()),
    );
    util::refused(
        "u8 values",
        Runs::new(
            ctx,
            RunsConfig::reduce(Dtype::U32, ReduceOp::Sum, Dtype::U8, 10),
        )
        .map(|_| ()),
    );
    let r = Runs::new(
        ctx,
        RunsConfig::reduce(Dtype::U32, ReduceOp::Sum, Dtype::U32, 100),
    )
    .unwrap();
    let keys = ctx.upload("keys", &[1u32; 10]).unwrap();
    let values = ctx.upload("values", &[1u32; 8]).unwrap();
    let out = ctx.zeroed("out", 64).unwrap();
    let aggs = ctx.zeroed("aggs", 64).unwrap();
    let word = ctx.zeroed("runs", 16).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "no values",
        r.record(
            &mut enc,
            &keys,
            None,
            &out,
            Some((&aggs).into()),
            &word,
            Count::Host(10),
        ),
    );
    util::refused(
        "no aggregates",
        r.record(
            &mut enc,
            &keys,
            Some((&keys).into()),
            &out,
            None,
            &word,
            Count::Host(10),
        ),
    );
    util::refused(
        "10 keys, 8 values",
        r.record(
            &mut enc,
            &keys,
            Some((&values).into()),
            &out,
            Some((&aggs).into()),
            &word,
            Count::Host(10),
        ),
    );
    util::refused(
        "keys out over the keys",
        r.record(
            &mut enc,
            &keys,
            Some((&values).into()),
            &keys,
            Some((&aggs).into()),
            &word,
            Count::Host(8),
        ),
    );
    util::refused(
        "mismatched host-slice values",
        wgsimd::runs::reduce_by_key(ctx, &[1u32, 2], &[1u32], ReduceOp::Sum),
    );
}
