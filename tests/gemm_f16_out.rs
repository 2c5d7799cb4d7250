//! f16 output (`OutFormat::F16`: the `gemm/to_f16` pass, the split-K sum rounding as it sums, the
//! few-rows and register-tiled kernels' stores, or the cooperative kernel reading its tile back)
//! on the GPU (lavapipe in CI; the H100 runs the cooperative route) and on the simulator: every
//! path's f16 C is its f32 C rounded to nearest even, bit for bit as the host rounds it
//! (`half::f16::from_f32`; NaN compared as NaN), and within f16 rounding of the f64 reference.
//! Outputs are poisoned and element counts leave every remainder of the pass's quads, so an
//! unwritten element or a lost half fails the bit comparison; on the simulator, a read of C's
//! never-written padding is an uninitialized read. Special values (ties, the f16 range's edges,
//! subnormals, ±inf, NaN) go through a product with K = 1 and B = [1], whose f32 C is A itself.

mod common;

use wgsimd::gemm::{self, GemmOptions, GemmPlan, Int4Weights, Operand, OutFormat, PathChoice};
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, int4, rel_frobenius, tiled};
use wgsimd::sim::{SimConfig, SimExecutor};
use wgsimd::Executor;

fn data(len: usize, seed: u64) -> Vec<f32> {
    gemm::bench::random_f32(len, seed)
}

fn f16_out(opts: GemmOptions) -> GemmOptions {
    GemmOptions {
        out: OutFormat::F16,
        ..opts
    }
}

/// Which pass rounds C to f16.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Route {
    /// `gemm/to_f16`, after the product.
    Pass,
    /// The split-K sum (`OUT_F16`).
    SplitSum,
    /// The few-rows kernel's own store (`OUT_F16`).
    Gemv,
    /// The register-tiled kernel's own store, with one K split (`OUT_F16`).
    Tiled,
    /// The cooperative-matrix kernel, reading its tile back (`OUT_F16`).
    Coop,
}

/// Plans `build` with f32 and with f16 output and runs both on `exec`: the f16 C must be the f32
/// C rounded, bit for bit, and within `tol` of `want`. Returns the f32 C and who rounded.
fn check(
    exec: &dyn Executor,
    what: &str,
    build: impl Fn(GemmOptions) -> GemmPlan,
    opts: GemmOptions,
    want: Option<&[f64]>,
    tol: f64,
) -> (Vec<f32>, Route) {
    let p32 = build(opts);
    let p16 = build(f16_out(opts));
    assert_eq!(
        p16.path, p32.path,
        "{what}: the output dtype changed the kernel"
    );
    // who rounds: the rounding pass (one pass more), the split-K sum, or the product kernel
    let has = |p: &GemmPlan, label: &str| p.plan.passes.iter().any(|q| q.label == label);
    let rounding_pass = has(&p16, "to f16");
    assert_eq!(
        p16.plan.passes.len(),
        p32.plan.passes.len() + usize::from(rounding_pass),
        "{what}"
    );
    let route = if rounding_pass {
        Route::Pass
    } else if has(&p16, "split-k sum") {
        Route::SplitSum
    } else if has(&p16, "gemv") {
        Route::Gemv
    } else if has(&p16, "gemm") {
        Route::Tiled
    } else {
        let coop = p16
            .plan
            .passes
            .iter()
            .any(|q| q.label.starts_with("gemm/coop"));
        assert!(coop, "{what}: nothing rounds");
        Route::Coop
    };

    let out32 = exec.run(&p32.plan).unwrap();
    let out16 = exec.run(&p16.plan).unwrap();
    assert!(out32.findings.is_empty(), "{what}: {:?}", out32.findings);
    assert!(out16.findings.is_empty(), "{what}: {:?}", out16.findings);
    let c32 = p32.decode(&out32).unwrap();
    let c16 = p16.decode_f16(&out16).unwrap();
    assert!(p16.decode(&out16).is_err() && p32.decode_f16(&out32).is_err());
    assert_eq!(c16.len(), c32.len(), "{what}");
    let rounded = f32_to_f16(&c32);
    for (i, (&got, &host)) in c16.iter().zip(&rounded).enumerate() {
        let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
        assert!(
            got == host || (nan(got) && nan(host)),
            "{what}: element {i}: f32 {:e} ({:#010x}) rounded to {got:#06x}, host {host:#06x}",
            c32[i],
            c32[i].to_bits()
        );
    }
    if let Some(want) = want {
        let e = rel_frobenius(&f16_to_f32(&c16), want);
        assert!(e <= tol, "{what}: relative error {e:.3e}");
    }
    (c32, route)
}

/// Every path with f16 output: the register-tiled kernel (f32 and f16 in, split-K forced), the
/// few-rows kernel, int4 weights, the default choice, and the cooperative-matrix kernel where
/// the executor offers it; M·N leaves every remainder mod 4. Every route that rounds is taken:
/// the rounding pass, the split-K sum, the few-rows and register-tiled kernels' own stores (N
/// even, one K slice), the cooperative kernel's read-back (N even).
fn paths_round_like_the_host(exec: &dyn Executor, label: &str) {
    let caps = exec.caps();
    let mut routes = std::collections::BTreeSet::new();
    let tiled_split = GemmOptions {
        path: PathChoice::Tiled,
        split: Some(3),
        ..Default::default()
    };
    let tiled_whole_k = GemmOptions {
        split: Some(1),
        ..tiled_split
    };
    let gemv = GemmOptions {
        path: PathChoice::Gemv,
        ..Default::default()
    };
    // M·N = 1, 561, 238, 35, 24: every remainder of the pass's quads (1, 1, 2, 3, 0); then
    // N even across several tiles with partial quads at the right edge (the register-tiled
    // kernel's own f16 store)
    let mut shapes = vec![
        (1, 1, 1),
        (33, 17, 40),
        (7, 34, 5),
        (5, 7, 3),
        (4, 6, 9),
        (70, 134, 20),
    ];
    // the cooperative kernel: N odd (the pass rounds), N even across the right edge and N a
    // whole tile (the kernel rounds, through its edge path and without it)
    if gemm::coop_offered(caps) {
        shapes.extend([(65, 63, 129), (40, 34, 24), (20, 128, 16)]);
    }
    for (i, &(m, n, k)) in shapes.iter().enumerate() {
        let what = format!("{label} {m}x{n}x{k}");
        let a = data(m * k, 300 + i as u64);
        let b = data(k * n, 310 + i as u64);
        let (a16, b16) = (f32_to_f16(&a), f32_to_f16(&b));
        let want32 = tiled(&a, &b, m, n, k);
        let want16 = tiled(&f16_to_f32(&a16), &f16_to_f32(&b16), m, n, k);
        let f32s = |o| gemm::plan(caps, Operand::F32(&a), Operand::F32(&b), m, n, k, o).unwrap();
        let f16s = |o| gemm::plan(caps, Operand::F16(&a16), Operand::F16(&b16), m, n, k, o);
        for (name, opts) in [
            ("default", GemmOptions::default()),
            ("tiled split 3", tiled_split),
            ("tiled whole K", tiled_whole_k),
            ("gemv", gemv),
        ] {
            let what = format!("{what} {name}");
            let (_, route) = check(
                exec,
                &format!("{what} f32"),
                f32s,
                opts,
                Some(&want32),
                1e-3,
            );
            routes.insert(route);
            let f16s = |o| f16s(o).unwrap();
            let (_, route) = check(
                exec,
                &format!("{what} f16"),
                f16s,
                opts,
                Some(&want16),
                common::TOL_F16_OUT,
            );
            routes.insert(route);
        }
        let w = Int4Weights::quantize(&b, k, n).unwrap();
        let int4s = |o| gemm::plan_int4(caps, &a16, &w, m, o).unwrap();
        let want = int4(&a16, &w, m);
        let (_, route) = check(
            exec,
            &format!("{what} int4"),
            int4s,
            tiled_split,
            Some(&want),
            common::TOL_F16_OUT,
        );
        routes.insert(route);
        if gemm::coop_offered(caps) && m >= 16 {
            let coop = GemmOptions {
                path: PathChoice::Coop,
                ..Default::default()
            };
            let f16s = |o| f16s(o).unwrap();
            let (_, route) = check(
                exec,
                &format!("{what} coop"),
                f16s,
                coop,
                Some(&want16),
                common::TOL_F16_OUT,
            );
            routes.insert(route);
        }
    }
    // every rounding route ran: the pass, the split-K sum, the few-rows and the register-tiled
    // kernels' own stores, and the cooperative kernel where it is offered
    let want = 4 + usize::from(gemm::coop_offered(caps));
    assert_eq!(routes.len(), want, "{label}: {routes:?}");
}

/// f32 values at f16's rounding boundaries, each with its neighbours one ulp either side:
/// overflow to inf (65520 ties up to inf, 65519.996 rounds to 65504), the smallest normal,
/// subnormals and their ties, the point below which everything is zero (2^-25 ties to even 0),
/// ties to even in the normal range, ±inf, NaN, f32's extremes; then seeded random values of
/// either sign with exponents spanning f16's range and beyond, and exact ties among them.
fn special_values() -> Vec<f32> {
    let mut bits: Vec<u32> = Vec::new();
    for edge in [
        0x477f_e000u32, // 65504, f16's largest
        0x477f_f000,    // 65520, halfway to 2^16
        0x3880_0000,    // 2^-14, f16's smallest normal
        0x387f_c000,    // f16's largest subnormal
        0x3300_0000,    // 2^-25, half of the smallest subnormal
        0x3380_0000,    // 2^-24, the smallest subnormal
        0x33c0_0000,    // 1.5 · 2^-24: a tie, rounds up to 2 · 2^-24
        0x3420_0000,    // 2.5 · 2^-24: a tie, rounds down to 2 · 2^-24
        0x3f80_1000,    // 1 + 2^-11: a tie, rounds down to 1
        0x3f80_3000,    // 1 + 3 · 2^-11: a tie, rounds up
        0x3f80_0000,    // 1
        0x7f7f_ffff,    // f32's largest
        0x0080_0000,    // f32's smallest normal
    ] {
        for e in edge - 2..=edge + 2 {
            bits.extend([e, e | 0x8000_0000]);
        }
    }
    bits.extend([
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa1_2345,
        0xffc0_0001,
        0,
    ]);
    let mut r = common::rng(77);
    for i in 0..4001u32 {
        let sign = (rand::Rng::random::<u32>(&mut r) & 1) << 31;
        let exponent = rand::Rng::random_range(&mut r, 95u32..=150);
        let mut mantissa = rand::Rng::random::<u32>(&mut r) & 0x7f_ffff;
        if i % 4 == 0 {
            mantissa = (mantissa & !0x1fff) | 0x1000; // an exact tie when the result is normal
        }
        bits.push(sign | exponent << 23 | mantissa);
    }
    bits.into_iter().map(f32::from_bits).collect()
}

/// The special values as an M×1 matrix times [1] (f32 in, the register-tiled kernel): C is A
/// itself wherever the adapter keeps the value (checked for every finite normal value and ±inf),
/// and its f16 rounding is the host's.
fn specials_round_like_the_host(exec: &dyn Executor, label: &str) {
    let a = special_values();
    let one = [1.0f32];
    let m = a.len();
    assert_eq!(m % 2, 1, "an odd count, so the last word has one element");
    let opts = GemmOptions {
        path: PathChoice::Tiled,
        ..Default::default()
    };
    let build = |o| {
        gemm::plan(
            exec.caps(),
            Operand::F32(&a),
            Operand::F32(&one),
            m,
            1,
            1,
            o,
        )
    };
    let (c32, _) = check(
        exec,
        &format!("{label} specials"),
        |o| build(o).unwrap(),
        opts,
        None,
        0.0,
    );
    for (&x, &c) in a.iter().zip(&c32) {
        if x.is_normal() || x.is_infinite() {
            assert_eq!(x.to_bits(), c.to_bits(), "{label}: C is not A for {x:e}");
        }
    }
}

#[test]
fn f16_output_on_the_gpu() {
    let Some(g) = common::gpu() else { return };
    paths_round_like_the_host(g, "gpu");
    specials_round_like_the_host(g, "gpu");
}

/// The same on the simulator: lanes in order at subgroup 8 (lavapipe's size), shuffled on an
/// H100-like device with cooperative matrices (subgroup 32, 48 KiB); zero findings.
#[test]
fn f16_output_on_the_simulator() {
    for (sg, shuffle, coop) in [(8, None, vec![]), (32, Some(3), SimConfig::coop_shapes())] {
        let offered = !coop.is_empty();
        let exec = common::sim(sg, coop, shuffle);
        // (a cooperative kernel that fails to build is not offered: that must fail here)
        assert_eq!(gemm::coop_offered(exec.caps()), offered, "sg{sg}");
        paths_round_like_the_host(&exec, &format!("sim sg{sg}"));
    }
    let exec = SimExecutor::new(SimConfig::default()).unwrap();
    specials_round_like_the_host(&exec, "sim");
}
