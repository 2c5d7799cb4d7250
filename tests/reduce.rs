//! Reductions on the GPU (lavapipe in CI) against `src/reference/reduce.rs`, in both kernel
//! flavours, at issue 2's sizes, with random and adversarial inputs. Every plan poisons its
//! result buffer, so an unwritten result cannot pass; the fold's partial slots start zeroed,
//! which reads as "not yet published" (wgsl/shared/fold.wgsl), so a partial that was never
//! published cannot be taken for one either.

mod common;

use rand::Rng;
use wgsimd::reduce::{self, reduce, ReduceOp, ReducePolicy, Scalar};
use wgsimd::reference::reduce as refr;
use wgsimd::{Error, Executor};

/// Checks a sum against the reference (`reference::reduce::check_sum_f32`).
fn check_sum_f32(got: Scalar, x: &[f32]) -> Result<(), String> {
    match got {
        Scalar::F32(g) => refr::check_sum_f32(g, x),
        _ => Err(format!("wrong type {got:?}")),
    }
}

fn check_minmax<T: Copy + PartialOrd + refr::IsNan + std::fmt::Debug>(
    got: Option<T>,
    x: &[T],
    max: bool,
) -> Result<(), String> {
    let want = refr::minmax(x, max);
    match (got, want) {
        (Some(g), Some(w)) if g.same(&w) => Ok(()),
        _ => Err(format!("got {got:?}, want {want:?}")),
    }
}

fn f32_of(s: Scalar) -> Option<f32> {
    match s {
        Scalar::F32(v) => Some(v),
        _ => None,
    }
}

fn run_u32(exec: &dyn Executor, x: &[u32], tag: &str) {
    let s = reduce(exec, x, ReduceOp::Sum).unwrap();
    assert_eq!(s, Scalar::U64(refr::sum_u64(x)), "{tag} sum");
    if x.is_empty() {
        return;
    }
    for (op, max) in [(ReduceOp::Min, false), (ReduceOp::Max, true)] {
        let got = match reduce(exec, x, op).unwrap() {
            Scalar::U32(v) => Some(v),
            other => panic!("{tag}: type {other:?}"),
        };
        check_minmax(got, x, max).unwrap_or_else(|e| panic!("{tag} {op:?}: {e}"));
    }
}

fn run_i32(exec: &dyn Executor, x: &[i32], tag: &str) {
    assert_eq!(
        reduce(exec, x, ReduceOp::Sum).unwrap(),
        Scalar::I64(refr::sum_i64(x)),
        "{tag} sum"
    );
    if x.is_empty() {
        return;
    }
    for (op, max) in [(ReduceOp::Min, false), (ReduceOp::Max, true)] {
        let got = match reduce(exec, x, op).unwrap() {
            Scalar::I32(v) => Some(v),
            other => panic!("{tag}: type {other:?}"),
        };
        check_minmax(got, x, max).unwrap_or_else(|e| panic!("{tag} {op:?}: {e}"));
    }
}

fn run_f32(exec: &dyn Executor, x: &[f32], tag: &str) {
    check_sum_f32(reduce(exec, x, ReduceOp::Sum).unwrap(), x)
        .unwrap_or_else(|e| panic!("{tag} sum: {e}"));
    if x.is_empty() {
        return;
    }
    for (op, max) in [(ReduceOp::Min, false), (ReduceOp::Max, true)] {
        let got = f32_of(reduce(exec, x, op).unwrap());
        check_minmax(got, x, max).unwrap_or_else(|e| panic!("{tag} {op:?}: {e}"));
    }
}

#[test]
fn random_inputs_at_every_size_and_type() {
    for (flavor, g) in common::executors() {
        for &n in common::SIZES {
            let mut r = common::rng(n as u64);
            let u: Vec<u32> = (0..n).map(|_| r.random()).collect();
            let i: Vec<i32> = (0..n).map(|_| r.random()).collect();
            let f: Vec<f32> = (0..n).map(|_| r.random_range(-1.0e3f32..1.0e3)).collect();
            let tag = format!("{flavor} n={n}");
            run_u32(g, &u, &tag);
            run_i32(g, &i, &tag);
            run_f32(g, &f, &tag);
        }
    }
}

#[test]
fn adversarial_inputs() {
    let n = 2_684_354;
    for (flavor, g) in common::executors() {
        // all equal at the extremes: exact wide sums, min = max
        run_u32(g, &vec![u32::MAX; n], &format!("{flavor} all u32::MAX"));
        run_u32(g, &vec![0; 257], &format!("{flavor} all zero"));
        run_i32(g, &vec![i32::MIN; n], &format!("{flavor} all i32::MIN"));
        run_i32(g, &vec![i32::MAX; 4097], &format!("{flavor} all i32::MAX"));
        let mut alt: Vec<i32> = (0..4097)
            .map(|k| if k % 2 == 0 { i32::MIN } else { i32::MAX })
            .collect();
        run_i32(g, &alt, &format!("{flavor} alternating extremes"));
        alt.reverse();
        run_i32(g, &alt, &format!("{flavor} alternating extremes reversed"));
        // f32: ±0, NaN at every position class, infinities, huge magnitudes, subnormals
        run_f32(g, &[0.0, -0.0], &format!("{flavor} ±0"));
        run_f32(g, &[-0.0; 300], &format!("{flavor} -0"));
        // numpy: a sum of nothing but -0.0 is -0.0, one +0 makes it +0
        let s = reduce(g, &[-0.0f32; 300], ReduceOp::Sum).unwrap();
        assert!(
            matches!(s, Scalar::F32(v) if v.to_bits() == 0x8000_0000),
            "{flavor}: {s:?}"
        );
        let s = reduce(g, &[-0.0f32, 0.0, -0.0], ReduceOp::Sum).unwrap();
        assert!(
            matches!(s, Scalar::F32(v) if v.to_bits() == 0),
            "{flavor}: {s:?}"
        );
        for pos in [0usize, 1, 255, 256, 4096] {
            let mut v: Vec<f32> = (0..4097).map(|k| k as f32).collect();
            v[pos] = f32::NAN;
            run_f32(g, &v, &format!("{flavor} NaN at {pos}"));
            v[pos] = -f32::NAN;
            run_f32(g, &v, &format!("{flavor} -NaN at {pos}"));
        }
        run_f32(
            g,
            &[f32::INFINITY, 1.0, f32::NEG_INFINITY],
            &format!("{flavor} inf - inf"),
        );
        run_f32(g, &[f32::INFINITY, 1.0, 2.0], &format!("{flavor} +inf"));
        run_f32(g, &[f32::NEG_INFINITY; 3], &format!("{flavor} -inf"));
        let huge: Vec<f32> = (0..n)
            .map(|k| if k % 2 == 0 { 3.0e38 } else { -3.0e38 })
            .collect();
        run_f32(g, &huge, &format!("{flavor} cancelling huge"));
        // the bound 1e-6·Σ|x| is beyond f32 there: the pairs cancel, so exactly 0
        let s = reduce(g, &huge, ReduceOp::Sum).unwrap();
        assert_eq!(s, Scalar::F32(0.0), "{flavor} cancelling huge");
        // running sums that overflow f32 although the exact sum does not (the kernel's two
        // accumulators take x, y and z, w of each vec4): the sum runs again scaled; a sum
        // that does overflow is ±inf
        for (x, want) in [
            (vec![2e38f32, 2e38, -2e38, -2e38], 0.0f32),
            (vec![3e38, 3e38, -3e38], 3e38),
            (vec![3e38, 3e38], f32::INFINITY),
            (vec![-3e38, -3e38, 1.0], f32::NEG_INFINITY),
        ] {
            run_f32(g, &x, &format!("{flavor} overflowing partials {x:?}"));
            let s = reduce(g, &x, ReduceOp::Sum).unwrap();
            assert_eq!(s, Scalar::F32(want), "{flavor} {x:?}");
        }
        let big: Vec<f32> = (0..(1 << 20) + 5)
            .map(|i| {
                if i < (1 << 19) {
                    2e38
                } else if i < (1 << 20) {
                    -2e38
                } else {
                    1.5
                }
            })
            .collect();
        run_f32(g, &big, &format!("{flavor} halves of 2e38 and -2e38"));
        // (7.5 is below the double-float's resolution next to 2^19 · 2e38: finite is the point)
        let s = reduce(g, &big, ReduceOp::Sum).unwrap();
        assert!(
            matches!(s, Scalar::F32(v) if v.is_finite()),
            "{flavor} halves of 2e38 and -2e38: {s:?}"
        );
        let mut r = common::rng(7);
        let mixed: Vec<f32> = (0..n)
            .map(|_| r.random_range(-1.0f32..1.0) * 10f32.powi(r.random_range(-30..30)))
            .collect();
        run_f32(g, &mixed, &format!("{flavor} mixed magnitudes"));
        // subnormals: exact, or all flushed to zero (WGSL allows either; NVIDIA's Vulkan
        // driver flushes, lavapipe and the simulator do not), never something in between
        let sub = vec![1.0e-40f32; 4097];
        run_f32(g, &sub, &format!("{flavor} subnormals"));
        let Scalar::F32(s) = reduce(g, &sub, ReduceOp::Sum).unwrap() else {
            panic!("{flavor} subnormals: not an f32")
        };
        let exact = refr::sum_f32(&sub).0;
        assert!(
            s == 0.0 || ((s as f64) - exact).abs() <= 1e-6 * exact,
            "{flavor} subnormals: {s}, neither {exact} nor 0"
        );
        // the double-float accumulation: per vec4 (2^30, 1, -2^30, 1), so each accumulator
        // adds 1 to a multiple of 2^30 (an f32 sum keeps none of the ones; the exact sum is
        // 2^21 + 2), held to 2^-40·Σ|x| (the kernel's bound is about 2^-44·Σ|x|; 1e-6·Σ|x|,
        // the contract, would pass 0)
        let mut ones: Vec<f32> = (0..1 << 22)
            .map(|i| [1073741824.0, 1.0, -1073741824.0, 1.0][i % 4])
            .collect();
        ones.extend([1.0, 1.0]);
        run_f32(g, &ones, &format!("{flavor} ones beside 2^30"));
        let Scalar::F32(s) = reduce(g, &ones, ReduceOp::Sum).unwrap() else {
            panic!("{flavor}: not an f32")
        };
        let (exact, abs) = refr::sum_f32(&ones);
        assert_eq!(exact, (1u64 << 21) as f64 + 2.0);
        assert!(
            (s as f64 - exact).abs() <= abs * 2f64.powi(-40),
            "{flavor} ones beside 2^30: {s}, exact {exact}"
        );
    }
}

#[test]
fn flavours_agree_exactly() {
    let (Some(a), Some(b)) = (common::gpu(), common::gpu_emulated()) else {
        return;
    };
    let mut r = common::rng(11);
    let f: Vec<f32> = (0..100_003).map(|_| r.random_range(-1.0f32..1.0)).collect();
    let u: Vec<u32> = (0..100_003).map(|_| r.random()).collect();
    for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
        assert_eq!(
            reduce(a, &u, op).unwrap(),
            reduce(b, &u, op).unwrap(),
            "{op:?} u32"
        );
        assert_eq!(
            reduce(a, &f, op).unwrap(),
            reduce(b, &f, op).unwrap(),
            "{op:?} f32"
        );
    }
}

#[test]
fn f32_sum_is_deterministic() {
    let Some(g) = common::gpu() else { return };
    let mut r = common::rng(3);
    let f: Vec<f32> = (0..1_000_003)
        .map(|_| r.random_range(-1.0f32..1.0))
        .collect();
    let first = reduce(g, &f, ReduceOp::Sum).unwrap();
    for _ in 0..3 {
        assert_eq!(reduce(g, &f, ReduceOp::Sum).unwrap(), first);
    }
}

#[test]
fn inputs_larger_than_one_binding_are_chunked() {
    // pretend the binding limit is 64 KiB: 2684354 elements become 41 chunks with their own
    // partial ranges; the real device runs the same plan
    for (flavor, g) in common::executors() {
        let mut caps = g.caps().clone();
        caps.max_storage_binding = 64 << 10;
        let mut r = common::rng(5);
        let u: Vec<u32> = (0..2_684_354).map(|_| r.random()).collect();
        let f: Vec<f32> = (0..2_684_354)
            .map(|_| r.random_range(-1.0f32..1.0))
            .collect();
        let p = reduce::plan(&caps, &u, ReduceOp::Sum, ReducePolicy::default()).unwrap();
        assert!(p.plan.passes.len() > 40, "expected chunking");
        assert_eq!(
            p.decode(&g.run(&p.plan).unwrap()).unwrap(),
            Scalar::U64(refr::sum_u64(&u)),
            "{flavor}"
        );
        let p = reduce::plan(&caps, &f, ReduceOp::Max, ReducePolicy::default()).unwrap();
        let got = f32_of(p.decode(&g.run(&p.plan).unwrap()).unwrap());
        check_minmax(got, &f, true).unwrap();
        let p = reduce::plan(&caps, &f, ReduceOp::Sum, ReducePolicy::default()).unwrap();
        check_sum_f32(p.decode(&g.run(&p.plan).unwrap()).unwrap(), &f).unwrap();
    }
}

#[test]
fn odd_workgroup_counts() {
    // grids of 1, 3 and 7 workgroups: the grid-stride loop must cover every element
    let Some(g) = common::gpu() else { return };
    let mut r = common::rng(9);
    let u: Vec<u32> = (0..300_001).map(|_| r.random()).collect();
    for wgs in [1, 3, 7] {
        let p = reduce::plan(
            g.caps(),
            &u,
            ReduceOp::Sum,
            ReducePolicy {
                max_workgroups: wgs,
            },
        )
        .unwrap();
        assert_eq!(
            p.decode(&g.run(&p.plan).unwrap()).unwrap(),
            Scalar::U64(refr::sum_u64(&u)),
            "{wgs} workgroups"
        );
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let Some(g) = common::gpu() else { return };
    let empty: [f32; 0] = [];
    assert!(matches!(
        reduce(g, &empty, ReduceOp::Min),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        reduce(g, &empty, ReduceOp::Max),
        Err(Error::InvalidInput(_))
    ));
    assert_eq!(reduce(g, &empty, ReduceOp::Sum).unwrap(), Scalar::F32(0.0));
    assert!("mean".parse::<ReduceOp>().is_err());
}

#[test]
fn the_checks_catch_a_perturbed_result() {
    // the same checks as above must reject a result that is off by one ulp-scale step
    let Some(g) = common::gpu() else { return };
    let mut r = common::rng(13);
    let f: Vec<f32> = (0..4097).map(|_| r.random_range(0.5f32..1.0)).collect();
    let good = reduce(g, &f, ReduceOp::Sum).unwrap();
    check_sum_f32(good, &f).unwrap();
    let Scalar::F32(v) = good else { panic!() };
    assert!(check_sum_f32(Scalar::F32(v * (1.0 + 1e-5)), &f).is_err());
    let u: Vec<u32> = (0..4097).map(|_| r.random()).collect();
    let Scalar::U64(s) = reduce(g, &u, ReduceOp::Sum).unwrap() else {
        panic!()
    };
    assert_eq!(s, refr::sum_u64(&u));
    assert_ne!(s + 1, refr::sum_u64(&u));
    assert!(check_minmax(Some(1.0f32), &[2.0, 3.0], false).is_err());
    assert!(check_minmax(Some(1.0f32), &[1.0, f32::NAN], false).is_err());
}

/// The sum's allowance for adapters that flush subnormals (refr::SumF32) is only that: a flushed
/// sum of subnormals passes, a wrong one or a flushed normal input does not.
#[test]
fn the_sum_check_allows_flushed_subnormals_only() {
    let sub = [1.0e-40f32; 100];
    refr::check_sum_f32(0.0, &sub).unwrap();
    refr::check_sum_f32(1.0e-38, &sub).unwrap();
    assert!(refr::check_sum_f32(1.0e-30, &sub).is_err());
    assert!(refr::check_sum_f32(-1.0e-30, &sub).is_err());
    refr::check_sum_f32(2.0e-38, &[1.0e-40f32, 2.0e-38, 1.0e-40]).unwrap();
    assert!(refr::check_sum_f32(0.0, &[2.0e-38f32, 3.0e-38]).is_err());
    assert!(refr::check_sum_f32(1.0, &[1.0e-40f32, 1.0]).is_ok());
    assert!(refr::check_sum_f32(1.0 + 1e-5, &[1.0e-40f32, 1.0]).is_err());
}

/// The fold's slots carry the run's epoch (wgsl/shared/fold.wgsl): four dispatches share one
/// slots buffer, over inputs a, b, a, b. A fold that forgot to reset the counter would never fold
/// again and leave a result poisoned; publishers that ignored the epoch would leave the wrong
/// tag bit in the slots (a stale partial taken for a fresh one shows only where stores become
/// visible late, which neither lavapipe nor the simulator does, so the tags are checked
/// directly). On the GPU in both flavours and on the simulator.
#[test]
fn the_fold_takes_only_this_runs_partials() {
    use wgsimd::kernel;
    use wgsimd::plan::{BufferInit, Plan, Workgroups};
    let n = 100_000u32;
    let grid = 5u32;
    let a = common::random_u32(n as usize, 1);
    let b = common::random_u32(n as usize, 2);
    let sim = wgsimd::sim::SimExecutor::new(Default::default()).unwrap();
    for (name, exec) in common::executors_and(&sim) {
        let k = kernel::load("reduce/sum_u64", exec.caps().flavor()).unwrap();
        let mut plan = Plan::new("four runs");
        let params = plan.upload("params", &[n, 0, grid, 0]);
        let ia = plan.upload("a", &a);
        let ib = plan.upload("b", &b);
        let slots = plan.buffer("slots", (2 * grid as u64 + 2) * 4, BufferInit::Zeroed);
        let results: Vec<_> = (0..4)
            .map(|i| plan.buffer(format!("result {i}"), 8, BufferInit::Poison))
            .collect();
        for (i, input) in [ia, ib, ia, ib].into_iter().enumerate() {
            plan.pass(
                format!("run {i}"),
                &k,
                "main",
                &[],
                &[params, input, slots, results[i]],
                Workgroups::Direct([grid, 1, 1]),
            );
            plan.read_back(results[i]);
        }
        plan.read_back(slots);
        let out = exec.run(&plan).unwrap();
        assert!(out.findings.is_empty(), "{name}: {:?}", out.findings);
        for (i, want) in [&a, &b, &a, &b].into_iter().enumerate() {
            let w: Vec<u32> = out.get(results[i]);
            let got = w[0] as u64 | (w[1] as u64) << 32;
            assert_eq!(got, refr::sum_u64(want), "{name}: run {i}");
        }
        let words: Vec<u32> = out.get(slots);
        let g = 2 * grid as usize;
        assert_eq!((words[g], words[g + 1]), (0, 4), "{name}: counter, epoch");
        // the last run's epoch, 3 (odd), writes tag bit 0 (a tag that ignored the epoch would
        // be 1, as in epoch 0)
        assert!(
            words[..g].iter().all(|&w| w >> 31 == 0),
            "{name}: tags {words:x?}"
        );
    }
}
