//! The cooperative-matrix GEMM kernels (`gemm/coop16`, `gemm/coop8`) on the simulator, through
//! the normal plan path: f16 inputs, shapes with partial tiles (edge stores) and full tiles
//! (direct `coopStoreT` to C), zero findings, and the f64 reference's result.

use wgsimd::exec::CoopShape;
use wgsimd::gemm::{self, GemmOptions, Operand, Path, PathChoice};
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, rel_frobenius, tiled};
use wgsimd::sim::{SimConfig, SimExecutor};
use wgsimd::Executor;

const TOL: f64 = 2e-3;

fn sim(sg: u32, shapes: Vec<CoopShape>, shuffle: Option<u64>) -> SimExecutor {
    SimExecutor::new(SimConfig {
        subgroup_size: sg,
        shuffle_lanes: shuffle,
        cooperative_matrix: shapes,
        ..Default::default()
    })
    .unwrap()
}

/// Runs C = A·B for random f16 A, B on `exec`; returns (C, f64 reference).
fn run(exec: &SimExecutor, want_path: Path, (m, n, k): (usize, usize, usize)) -> (Vec<f32>, Vec<f64>) {
    let what = format!("{want_path:?} sg{} {m}x{n}x{k}", exec.caps().subgroup_min);
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, 11 + m as u64));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, 17 + n as u64));
    let opts = GemmOptions {
        path: PathChoice::Coop,
        ..Default::default()
    };
    let p = gemm::plan(exec.caps(), Operand::F16(&a), Operand::F16(&b), m, n, k, opts).unwrap();
    assert_eq!(p.path, want_path, "{what}");
    let out = exec.run(&p.plan).unwrap();
    assert!(out.findings.is_empty(), "{what}: findings {:#?}", out.findings);
    let c = p.decode(&out).unwrap();
    let want = tiled(&f16_to_f32(&a), &f16_to_f32(&b), m, n, k);
    let e = rel_frobenius(&c, &want);
    assert!(e <= TOL, "{what}: relative error {e:.3e}");
    (c, want)
}

fn shape(s: u32) -> CoopShape {
    SimConfig::coop_shapes()
        .into_iter()
        .find(|c| c.m == s)
        .unwrap()
}

#[test]
fn coop16_gemm_on_the_simulator() {
    let exec = sim(32, SimConfig::coop_shapes(), None);
    // edge tiles: M, N, K not multiples of the 128×128×32 tile
    for mnk in [(65, 40, 48), (130, 72, 33)] {
        run(&exec, Path::Coop16, mnk);
    }
    // one full tile (direct stores to C) next to edge tiles
    run(&exec, Path::Coop16, (136, 128, 40));
}

#[test]
fn coop8_gemm_on_the_simulator() {
    for (sg, shuffle) in [(32, None), (8, Some(5))] {
        let exec = sim(sg, vec![shape(8)], shuffle);
        for mnk in [(65, 40, 48), (130, 72, 33), (64, 64, 16)] {
            run(&exec, Path::Coop8, mnk);
        }
    }
}

#[test]
fn a_perturbed_coop_result_is_caught() {
    let exec = sim(32, vec![shape(8)], None);
    let (mut c, want) = run(&exec, Path::Coop8, (65, 40, 48));
    let norm = want.iter().map(|x| x * x).sum::<f64>().sqrt();
    c[40 * 33 + 7] += (0.01 * norm) as f32;
    assert!(rel_frobenius(&c, &want) > TOL);
    // an element left unwritten (poison) fails too
    let (mut c, want) = run(&exec, Path::Coop8, (65, 40, 48));
    c[64 * 40 + 39] = f32::from_bits(wgsimd::plan::POISON_WORD);
    assert!(rel_frobenius(&c, &want) > TOL);
}

#[test]
fn cooperative_matrices_are_off_by_default() {
    let exec = SimExecutor::new(SimConfig::default()).unwrap();
    assert!(exec.caps().cooperative_matrix.is_empty());
    assert!(!gemm::coop_offered(exec.caps()));
}
