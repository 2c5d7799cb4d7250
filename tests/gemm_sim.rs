//! The portable GEMM on the simulator (describe once, execute twice): f32, f16, int4 and split-K at
//! small shapes, at several subgroup sizes and with shuffled lanes: zero findings (races,
//! out-of-bounds, uninitialized reads, unwritten output) and the f64 reference's result.

mod common;

use wgsimd::gemm::{self, GemmOptions, Int4Weights, Operand, PathChoice};
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, rel_frobenius, tiled};
use wgsimd::sim::{SimConfig, SimExecutor};
use wgsimd::Executor;

fn check(exec: &SimExecutor, what: &str, p: &gemm::GemmPlan, want: &[f64], tol: f64) {
    let out = exec.run(&p.plan).unwrap();
    assert!(
        out.findings.is_empty(),
        "{what}: findings {:?}",
        out.findings
    );
    let c = p.decode(&out).unwrap();
    let e = rel_frobenius(&c, want);
    assert!(e <= tol, "{what}: relative error {e:.3e}");
}

/// f16 `a16` times int4 weights `w` through `opts`, against the dequantize-then-f64 reference;
/// returns the kernel that ran.
fn check_int4(
    exec: &SimExecutor,
    what: &str,
    a16: &[u16],
    w: &Int4Weights,
    m: usize,
    opts: GemmOptions,
) -> gemm::Path {
    let p = gemm::plan_int4(exec.caps(), a16, w, m, opts).unwrap();
    let want = wgsimd::reference::gemm::int4(a16, w, m);
    check(exec, &format!("{what} int4"), &p, &want, common::TOL_F16_IN);
    p.path
}

/// `a`·`b` in f32, and rounded to f16, through `opts`: both against the f64 reference.
fn check_f32_f16(
    exec: &SimExecutor,
    what: &str,
    a: &[f32],
    b: &[f32],
    (m, n, k): (usize, usize, usize),
    opts: GemmOptions,
) {
    let caps = exec.caps();
    let p = gemm::plan(caps, Operand::F32(a), Operand::F32(b), m, n, k, opts).unwrap();
    check(
        exec,
        &format!("{what} f32"),
        &p,
        &tiled(a, b, m, n, k),
        common::TOL_F32,
    );
    let (a16, b16) = (f32_to_f16(a), f32_to_f16(b));
    let p = gemm::plan(caps, Operand::F16(&a16), Operand::F16(&b16), m, n, k, opts).unwrap();
    let want = tiled(&f16_to_f32(&a16), &f16_to_f32(&b16), m, n, k);
    check(exec, &format!("{what} f16"), &p, &want, common::TOL_F16_IN);
}

#[test]
fn tiled_gemm_on_the_simulator() {
    for (sg, shuffle) in [
        (4, None),
        (8, None),
        (16, None),
        (32, Some(3)),
        (64, None),
        (128, None),
    ] {
        let exec = common::sim(sg, vec![], shuffle);
        for (i, &(m, n, k)) in [(3, 9, 5), (33, 20, 17)].iter().enumerate() {
            let a = gemm::bench::random_f32(m * k, 1 + i as u64);
            let b = gemm::bench::random_f32(k * n, 7 + i as u64);
            let opts = GemmOptions {
                path: PathChoice::Tiled,
                split: Some(2),
                ..Default::default()
            };
            let what = format!("sg{sg} {m}x{n}x{k}");
            check_f32_f16(&exec, &what, &a, &b, (m, n, k), opts);
            let w = Int4Weights::quantize(&b, k, n).unwrap();
            check_int4(&exec, &what, &f32_to_f16(&a), &w, m, opts);
        }
    }
}

/// The sweep's candidate tiles (lane patches, BK = 16, wide tiles) on the simulator: f32 with a
/// partial tile in every dimension, lanes in order (subgroup 8, 32 KiB of workgroup memory:
/// 128×256×16 is refused) and shuffled (subgroup 32, an H100-like device with cooperative
/// matrices and 48 KiB: every candidate runs).
#[test]
fn candidate_policies_on_the_simulator() {
    for (sg, shuffle, coop) in [(8, None, vec![]), (32, Some(5), SimConfig::coop_shapes())] {
        let exec = common::sim(sg, coop, shuffle);
        let caps = exec.caps().clone();
        for (i, (name, policy)) in gemm::GemmPolicy::candidates().into_iter().enumerate() {
            let (m, n, k) = (
                policy.bm as usize - 3,
                policy.bn as usize + 5,
                policy.bk as usize + 3,
            );
            let a = gemm::bench::random_f32(m * k, 30 + i as u64);
            let b = gemm::bench::random_f32(k * n, 40 + i as u64);
            let opts = GemmOptions {
                path: PathChoice::Tiled,
                policy: Some(policy),
                split: Some(1),
                ..Default::default()
            };
            let what = format!("sg{sg} {name} {m}x{n}x{k}");
            if policy.workgroup_bytes() > caps.max_workgroup_storage as u64 {
                let e = gemm::plan(&caps, Operand::F32(&a), Operand::F32(&b), m, n, k, opts);
                assert!(e.is_err(), "{what}: planned beyond workgroup memory");
                continue;
            }
            let p = gemm::plan(&caps, Operand::F32(&a), Operand::F32(&b), m, n, k, opts).unwrap();
            check(&exec, &what, &p, &tiled(&a, &b, m, n, k), common::TOL_F32);
        }
    }
}

/// Every kernel variant of the sweep (`GemmPolicy::kernel_candidates`: the 8×16 block, one
/// buffer, paired steps, unroll 8) on the required shapes plus a tile-coverage shape (M = 2·BM + 45,
/// N = BN + 13: two full tiles and a partial one in M), f32 and f16, and int4 and split-K on one
/// shape, with lanes shuffled on an H100-like device (subgroup 32, 48 KiB): zero findings (a
/// missing barrier of the one-buffer loop is a race) and the f64 reference's result.
#[test]
fn kernel_variants_on_the_simulator() {
    let exec = common::sim(32, SimConfig::coop_shapes(), Some(11));
    let caps = exec.caps().clone();
    for (v, (name, policy)) in gemm::GemmPolicy::kernel_candidates()
        .into_iter()
        .enumerate()
    {
        let opts = GemmOptions {
            path: PathChoice::Tiled,
            policy: Some(policy),
            split: Some(1),
            ..Default::default()
        };
        let coverage = (2 * policy.bm as usize + 45, policy.bn as usize + 13, 24);
        for (i, &(m, n, k)) in common::GEMM_SHAPES.iter().chain([&coverage]).enumerate() {
            let seed = 100 * v as u64 + i as u64;
            let a = gemm::bench::random_f32(m * k, 1000 + seed);
            let b = gemm::bench::random_f32(k * n, 2000 + seed);
            let what = format!("{name} {m}x{n}x{k}");
            check_f32_f16(&exec, &what, &a, &b, (m, n, k), opts);
            let a16 = f32_to_f16(&a);
            if (m, n, k) == (65, 63, 129) {
                let w = Int4Weights::quantize(&b, k, n).unwrap();
                check_int4(&exec, &what, &a16, &w, m, opts);
                let split = GemmOptions {
                    split: Some(3),
                    ..opts
                };
                let p =
                    gemm::plan(&caps, Operand::F32(&a), Operand::F32(&b), m, n, k, split).unwrap();
                check(
                    &exec,
                    &format!("{what} split 3"),
                    &p,
                    &tiled(&a, &b, m, n, k),
                    common::TOL_F32,
                );
            }
        }
    }
}

/// The few-rows kernel (`gemm/gemv`, `PathChoice::Gemv`) on the simulator: f32,
/// f16 and int4 with and without zero points, N and K off every multiple (partial column
/// blocks, a partial last K slice), one K slice and several, one block of rows and several (a
/// partial last block: 11 = 8 + 3), column groups per workgroup from the fewest to 8 (N = 8192:
/// all of K in each workgroup, no split-K sum), K in several staged chunks of one slice (8 ×
/// 2048 × 1100), at two subgroup sizes with shuffled lanes.
#[test]
fn gemv_on_the_simulator() {
    for (sg, shuffle) in [(8, None), (32, Some(9))] {
        let exec = common::sim(sg, vec![], shuffle);
        let caps = exec.caps().clone();
        for (i, &(m, n, k)) in [
            (1, 9, 5),
            (3, 37, 300),
            (8, 1030, 130),
            (5, 9, 7),
            (11, 40, 70),
            (8, 40, 2000),
            (1, 8192, 40),
            (8, 2048, 1100),
        ]
        .iter()
        .enumerate()
        {
            let a = gemm::bench::random_f32(m * k, 70 + i as u64);
            let b = gemm::bench::random_f32(k * n, 80 + i as u64);
            let what = format!("sg{sg} gemv {m}x{n}x{k}");
            let opts = GemmOptions {
                path: PathChoice::Gemv,
                ..Default::default()
            };
            let p = gemm::plan(&caps, Operand::F32(&a), Operand::F32(&b), m, n, k, opts).unwrap();
            assert_eq!(p.path, gemm::Path::Gemv, "{what}");
            check_f32_f16(&exec, &what, &a, &b, (m, n, k), opts);
            let a16 = f32_to_f16(&a);
            let mut w = Int4Weights::quantize(&b, k, n).unwrap();
            for zeros in [false, true] {
                if zeros {
                    w.zeros = Some(common::varied_zeros(w.scales.len()));
                }
                let what = format!("{what} zeros {zeros}");
                let path = check_int4(&exec, &what, &a16, &w, m, opts);
                assert_eq!(path, gemm::Path::Gemv, "{what}");
            }
        }
    }
}

/// The default path by rows, for each format of B: the few-rows kernel up to `GEMV_MAX_M` rows,
/// then the register-tiled kernel (f16 from `COOP_MIN_M` rows the cooperative one where
/// offered); forcing a tile policy keeps the tiled kernel.
#[test]
fn default_path_by_rows() {
    // without cooperative matrices, then with them (the f16 switch at COOP_MIN_M rows)
    for shapes in [vec![], SimConfig::coop_shapes()] {
        let offers = !shapes.is_empty();
        let exec = common::sim(32, shapes, None);
        assert_eq!(gemm::coop_offered(exec.caps()), offers);
        default_path_by_rows_on(exec.caps());
    }
}

fn default_path_by_rows_on(caps: &wgsimd::Caps) {
    let caps = caps.clone();
    let (n, k) = (40, 24);
    let b = gemm::bench::random_f32(k * n, 5);
    let b16 = f32_to_f16(&b);
    let w = Int4Weights::quantize(&b, k, n).unwrap();
    let coop = gemm::coop_offered(&caps);
    for m in [1, 4, 5, 8, 9, 15, 16, 17, 64, 65] {
        let a = gemm::bench::random_f32(m * k, 6);
        let a16 = f32_to_f16(&a);
        let opts = GemmOptions::default();
        let p32 = gemm::plan(&caps, Operand::F32(&a), Operand::F32(&b), m, n, k, opts).unwrap();
        let p16 = gemm::plan(&caps, Operand::F16(&a16), Operand::F16(&b16), m, n, k, opts).unwrap();
        let p4 = gemm::plan_int4(&caps, &a16, &w, m, opts).unwrap();
        let want = match m <= gemm::GEMV_MAX_M {
            true => gemm::Path::Gemv,
            false => gemm::Path::Tiled,
        };
        assert_eq!(p32.path, want, "f32 m={m}");
        assert_eq!(p4.path, want, "int4 m={m}");
        if coop && m >= gemm::COOP_MIN_M {
            assert!(
                !matches!(p16.path, gemm::Path::Gemv | gemm::Path::Tiled),
                "f16 m={m}"
            );
        } else {
            assert_eq!(p16.path, want, "f16 m={m}");
        }
        let forced = GemmOptions {
            policy: Some(gemm::GemmPolicy::for_m(m as u64)),
            ..Default::default()
        };
        let p = gemm::plan(&caps, Operand::F32(&a), Operand::F32(&b), m, n, k, forced).unwrap();
        assert_eq!(p.path, gemm::Path::Tiled, "forced policy m={m}");
    }
}

/// Tiles that overlap are a `cross-workgroup-race`: the register-tiled kernel edited so that
/// workgroups 2i and 2i + 1 both compute tile 2i (the seed's tile-layout bug in its overlapping
/// form) stores some of C from two workgroups of one dispatch, and leaves other tiles unwritten.
/// The finding names both workgroups. Unedited, the same plan has no finding.
#[test]
fn overlapping_tiles_are_a_cross_workgroup_race() {
    let exec = common::sim(8, vec![], None);
    let (m, n, k) = (20, 300, 9);
    let a = gemm::bench::random_f32(m * k, 3);
    let b = gemm::bench::random_f32(k * n, 4);
    let opts = GemmOptions {
        path: PathChoice::Tiled,
        ..Default::default()
    };
    for edit in [false, true] {
        let mut p = gemm::plan(
            exec.caps(),
            Operand::F32(&a),
            Operand::F32(&b),
            m,
            n,
            k,
            opts,
        )
        .unwrap();
        if edit {
            let from = "    let tile = tile_of(wid, nwg);";
            let to = "    let tile = tile_of(vec3<u32>(wid.x & ~1u, wid.y, wid.z), nwg);";
            let pass = p
                .plan
                .passes
                .iter_mut()
                .find(|pass| pass.kernel.source.contains(from))
                .expect("the tiled pass");
            common::edit_pass(pass, from, to);
        }
        let out = exec.run(&p.plan).unwrap();
        let races: Vec<_> = out
            .findings
            .iter()
            .filter(|f| f.kind == wgsimd::finding::FindingKind::CrossWorkgroupRace)
            .collect();
        if edit {
            assert!(!races.is_empty(), "{:?}", out.findings);
            for f in &races {
                assert_eq!(f.parties.len(), 2, "{f}");
                assert_ne!(f.parties[0].workgroup, f.parties[1].workgroup, "{f}");
            }
            assert!(
                out.findings
                    .iter()
                    .any(|f| f.kind == wgsimd::finding::FindingKind::UnwrittenOutput),
                "{:?}",
                out.findings
            );
        } else {
            assert!(out.findings.is_empty(), "{:?}", out.findings);
        }
    }
}

/// Choices and limits a review found wrong, each now right (simulator caps, edited):
/// - `Auto` took the cooperative kernel where C padded to its whole 128-row tiles exceeds the
///   binding limit, and failed, where the portable kernel fits: it now runs the portable one;
/// - buffers of 4 GiB or more were accepted where an adapter binds them (Metal), though the
///   kernels index in u32: refused;
/// - int4 weights through `PathChoice::Coop` silently ran the portable kernel: an error;
/// - a policy with a zero tile dimension: an error of the policy, not of the shader.
#[test]
fn auto_falls_back_and_limits_hold() {
    use wgsimd::Error;
    let exec = common::sim(32, SimConfig::coop_shapes(), None);
    let (m, n, k) = (40, 1000, 8);
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, 5));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, 6));
    let want = tiled(&f16_to_f32(&a), &f16_to_f32(&b), m, n, k);
    let mut caps = exec.caps().clone();
    // C: 160 000 bytes; padded to 128 rows for the cooperative kernel, 512 000
    caps.max_storage_binding = 200_000;
    let opts = GemmOptions::default();
    let coop = GemmOptions {
        path: PathChoice::Coop,
        ..Default::default()
    };
    let r = gemm::plan(&caps, Operand::F16(&a), Operand::F16(&b), m, n, k, coop);
    assert!(matches!(r, Err(Error::TooLarge(_))), "{:?}", r.err());
    let p = gemm::plan(&caps, Operand::F16(&a), Operand::F16(&b), m, n, k, opts).unwrap();
    assert_eq!(p.path, gemm::Path::Tiled);
    check(
        &exec,
        "auto past the coop limit",
        &p,
        &want,
        common::TOL_F16_IN,
    );
    // with the default caps, the same product takes the cooperative kernel
    let p = gemm::plan(
        exec.caps(),
        Operand::F16(&a),
        Operand::F16(&b),
        m,
        n,
        k,
        opts,
    )
    .unwrap();
    assert_eq!(p.path, gemm::Path::Coop16);

    // a Metal-like binding limit: C of 40000² f32 is 6.4 GB
    let mut caps = exec.caps().clone();
    caps.max_storage_binding = 1 << 40;
    caps.max_buffer = 1 << 40;
    let (m, n, k) = (40_000, 40_000, 1);
    let x = vec![0.5f32; 40_000];
    for path in [PathChoice::Tiled, PathChoice::Auto] {
        let o = GemmOptions {
            path,
            ..Default::default()
        };
        match gemm::plan(&caps, Operand::F32(&x), Operand::F32(&x), m, n, k, o) {
            Err(Error::TooLarge(msg)) => assert!(msg.contains("4 GiB"), "{msg}"),
            other => panic!("{path:?}: {:?}", other.map(|p| p.path)),
        }
    }

    let w = Int4Weights::quantize(&gemm::bench::random_f32(128 * 16, 7), 128, 16).unwrap();
    let a = f32_to_f16(&gemm::bench::random_f32(20 * 128, 8));
    let r = gemm::plan_int4(exec.caps(), &a, &w, 20, coop);
    assert!(
        matches!(r, Err(Error::InvalidInput(_))),
        "{:?}",
        r.map(|p| p.path)
    );

    let mut policy = gemm::GemmPolicy::for_m(64);
    policy.bm = 0;
    let o = GemmOptions {
        path: PathChoice::Tiled,
        policy: Some(policy),
        ..Default::default()
    };
    let x = gemm::bench::random_f32(64, 9);
    let r = gemm::plan(exec.caps(), Operand::F32(&x), Operand::F32(&x), 8, 8, 8, o);
    assert!(matches!(r, Err(Error::Plan(_))), "{:?}", r.map(|p| p.path));
}
