//! The cooperative-matrix GEMM kernels (`gemm/coop16`, `gemm/coop8`) on the simulator, through
//! the normal plan path: f16 inputs, shapes with partial tiles (edge stores) and full tiles
//! (direct `coopStoreT` to C), zero findings, and the f64 reference's result.

mod common;

use common::sim;
use wgsimd::exec::CoopShape;
use wgsimd::gemm::coop::{CoopKernel, CoopVariant};
use wgsimd::gemm::{self, GemmOptions, Operand, Path, PathChoice};
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, rel_frobenius, tiled};
use wgsimd::sim::{SimConfig, SimExecutor};
use wgsimd::Executor;

/// f16 inputs, C f32 (`common::TOL_F16_IN`: only the f32 accumulation errs)
const TOL: f64 = common::TOL_F16_IN;

/// Runs C = A·B for random f16 A, B on `exec`; returns (C, f64 reference).
fn run(exec: &SimExecutor, want_path: Path, mnk: (usize, usize, usize)) -> (Vec<f32>, Vec<f64>) {
    run_variant(exec, want_path, None, mnk)
}

/// [`run`] on a forced cooperative-matrix variant (`None`: the default one), or, for
/// `Path::Tiled`, on the portable kernel.
fn run_variant(
    exec: &SimExecutor,
    want_path: Path,
    variant: Option<CoopVariant>,
    (m, n, k): (usize, usize, usize),
) -> (Vec<f32>, Vec<f64>) {
    let what = format!(
        "{want_path:?} {variant:?} sg{} {m}x{n}x{k}",
        exec.caps().subgroup_min
    );
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, 11 + m as u64));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, 17 + n as u64));
    let opts = GemmOptions {
        path: match want_path {
            Path::Tiled => PathChoice::Tiled,
            _ => PathChoice::Coop,
        },
        coop: variant,
        ..Default::default()
    };
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
    assert_eq!(p.path, want_path, "{what}");
    let out = exec.run(&p.plan).unwrap();
    assert!(
        out.findings.is_empty(),
        "{what}: findings {:#?}",
        out.findings
    );
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
    // 32 is the H100's subgroup size; the layout holds at any single size, lanes in any order
    for (sg, shuffle) in [
        (16, None),
        (32, None),
        (32, Some(3)),
        (64, None),
        (128, None),
    ] {
        let exec = sim(sg, SimConfig::coop_shapes(), shuffle);
        // edge tiles: M, N, K not multiples of the 128×128×32 tile
        for mnk in [(65, 40, 48), (130, 72, 33)] {
            run(&exec, Path::Coop16, mnk);
        }
        // tiles across the bottom edge only: direct stores into C's padded rows
        run(&exec, Path::Coop16, (136, 128, 40));
        // three tile columns, the last across the right edge
        run(&exec, Path::Coop16, (72, 300, 40));
    }
}

/// Issue 4's shapes (and a C of two 128-row tiles and a partial third, the 64-row-tile coverage
/// case of the seed's bug) through the cooperative kernels and through the portable
/// register-tiled kernel on the same simulated H100-like device: each within `TOL` of the f64
/// reference and of each other, element by element in the Frobenius sense. lavapipe offers no
/// cooperative matrices, so this is CI's direct comparison of the two (on the H100,
/// `coop_matches_portable_when_offered` in tests/gemm.rs).
#[test]
fn coop_matches_the_portable_kernel_on_the_required_shapes() {
    let exec = sim(32, SimConfig::coop_shapes(), Some(7));
    let exec8 = sim(32, vec![shape(8)], None);
    for mnk in common::GEMM_SHAPES.iter().copied().chain([(301, 40, 24)]) {
        // each run checks zero findings and TOL against f64; the inputs depend on the shape only
        let (portable, _) = run(&exec, Path::Tiled, mnk);
        let portable: Vec<f64> = portable.iter().map(|&x| x as f64).collect();
        for (exec, path) in [(&exec, Path::Coop16), (&exec8, Path::Coop8)] {
            let (c, _) = run(exec, path, mnk);
            let e = rel_frobenius(&c, &portable);
            assert!(
                e <= TOL,
                "{path:?} {mnk:?}: {e:.3e} from the portable kernel"
            );
        }
    }
}

/// More tiles than one dispatch dimension allows (an adapter of 3 workgroups per dimension,
/// 5 tile rows of C): the grid folds into rows of 3, and the one workgroup past the last tile
/// exits. It must: C's rows are padded to whole tiles only, so a sixth tile row would store
/// past C, which the simulator reports.
#[test]
fn a_folded_grid_computes_every_tile_once_and_no_more() {
    let exec = sim(32, SimConfig::coop_shapes(), None);
    let mut narrow = exec.caps().clone();
    narrow.max_workgroups_per_dim = 3;
    let (m, n, k) = (520, 40, 40);
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, 31));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, 32));
    let want = tiled(&f16_to_f32(&a), &f16_to_f32(&b), m, n, k);
    // both entry points: 4×2 and 4×4 fragments per subgroup
    for v in [
        CoopVariant::new(CoopKernel::K16, 128, 128, 32),
        CoopVariant::new(CoopKernel::K16W, 128, 128, 16),
    ] {
        let opts = GemmOptions {
            path: PathChoice::Coop,
            coop: Some(v),
            ..Default::default()
        };
        let p = gemm::plan(&narrow, Operand::F16(&a), Operand::F16(&b), m, n, k, opts).unwrap();
        let grids: Vec<_> = p.plan.passes.iter().map(|x| x.workgroups).collect();
        let folded = wgsimd::plan::Workgroups::Direct([3, 2, 1]);
        assert!(grids.contains(&folded), "{v:?}: {grids:?}");
        let out = exec.run(&p.plan).unwrap();
        assert!(
            out.findings.is_empty(),
            "{v:?}: findings {:#?}",
            out.findings
        );
        let e = rel_frobenius(&p.decode(&out).unwrap(), &want);
        assert!(e <= TOL, "{v:?}: relative error {e:.3e}");
    }
}

/// Every candidate variant of the sweep (coop16, the 64×64-per-subgroup coop16w, their
/// vec4<f16>-staged twins coop16v / coop16vw, one or two staging buffers) at subgroup sizes
/// where its layout holds, lanes in order and shuffled: a C of two by two whole tiles over three K steps
/// (so the one-buffer variants overwrite their buffer twice), tiles across the bottom edge only
/// (C's rows padded to whole tiles, stored directly: the `1a2b` variants run there too), and
/// tiles across every edge (the edge path; refused for the variants that fit 48 KiB only
/// without it).
#[test]
fn coop16_candidate_variants_on_the_simulator() {
    for (sg, shuffle) in [(16, None), (32, Some(7)), (64, None)] {
        let exec = sim(sg, SimConfig::coop_shapes(), shuffle);
        for (name, v) in CoopVariant::candidates() {
            let path = v.kernel.path();
            let (bm, bn, bk) = (
                v.policy.bm as usize,
                v.policy.bn as usize,
                v.policy.bk as usize,
            );
            // a C of whole tiles (no edge path, `EDGES` = 0), two by two (the tile order and
            // the column offsets of the staging and the stores), over three K steps
            let interior = (2 * bm, 2 * bn, 2 * bk + 3);
            if gemm::coop::usable_variant(exec.caps(), &v, interior.0, interior.1).is_err() {
                // too few invocations to stage the tile at this size: refused, never wrong
                assert!(sg < 32, "{name} refused at sg {sg}");
                continue;
            }
            run_variant(&exec, path, Some(v), interior);
            // tiles across the bottom edge only (C's rows padded: no edge path), then across
            // both edges
            let edgy = [(bm + 8, bn, 24), (bm / 2 + 3, 40, 2 * bk + 3)];
            for (m, n, k) in edgy {
                if gemm::coop::usable_variant(exec.caps(), &v, m, n).is_err() {
                    // only fits without the edge path's squares: refused where C has tiles
                    // across its right edge
                    assert!(gemm::coop::has_edges(&v.policy, n), "{name} {m}x{n}");
                    assert!(v.workgroup_bytes(true).unwrap() > 48 << 10, "{name}");
                    continue;
                }
                run_variant(&exec, path, Some(v), (m, n, k));
            }
        }
    }
}

#[test]
fn the_sweep_covers_every_16x16_kernel_with_one_and_two_buffers() {
    let c = CoopVariant::candidates();
    for kind in [
        CoopKernel::K16,
        CoopKernel::K16W,
        CoopKernel::K16V,
        CoopKernel::K16VW,
    ] {
        assert!(c.iter().any(|(_, v)| v.kernel == kind), "{kind:?}");
    }
    assert!(c.iter().any(|(_, v)| v.policy.bufs == 1));
    assert_eq!(c[0].1, CoopKernel::K16.variant(), "the default first");
    assert!(
        c.iter().any(|(_, v)| *v == gemm::coop::large_tile()),
        "the large products' tile is among the candidates the simulator proves"
    );
    assert!(c.iter().any(|(_, v)| *v == gemm::coop::large_tile_edges()));
    assert!(c.iter().any(|(_, v)| v.policy.b_bufs > v.policy.bufs));
}

#[test]
fn a_variant_that_does_not_fit_the_subgroup_size_falls_back() {
    // coop16w 128×256: 8 subgroups of 8 lanes cannot stage B (8 loads per invocation > 4)
    let v = CoopVariant::new(CoopKernel::K16W, 128, 256, 16);
    let exec = sim(8, SimConfig::coop_shapes(), None);
    assert!(gemm::coop::usable_variant(exec.caps(), &v, 70, 20).is_err());
    let (m, n, k) = (70, 20, 16);
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, 3));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, 4));
    let mut opts = GemmOptions {
        coop: Some(v),
        ..Default::default()
    };
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
    assert_eq!(p.path, Path::Tiled);
    opts.path = PathChoice::Coop;
    assert!(gemm::plan(
        exec.caps(),
        Operand::F16(&a),
        Operand::F16(&b),
        m,
        n,
        k,
        opts
    )
    .is_err());
}

#[test]
fn coop8_gemm_on_the_simulator() {
    for (sg, shuffle) in [
        (8, Some(5)),
        (16, None),
        (32, None),
        (64, None),
        (128, None),
    ] {
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

// ---- f16 and cooperative-matrix semantics, on small kernels ---------------------------------

use wgsimd::finding::FindingKind;
use wgsimd::sim::check::{check, CheckReport, CheckRequest};

/// The report has at least one finding of `kind`.
fn assert_finds(r: &CheckReport, kind: FindingKind) {
    assert!(
        r.findings.iter().any(|f| f.kind == kind),
        "no {kind:?} in {:?}",
        r.findings
    );
}

fn check_src(src: &str, out_words: usize, sg: u32) -> wgsimd::Result<CheckReport> {
    check(&CheckRequest {
        name: "inline.wgsl".into(),
        source: src.into(),
        entry: "main".into(),
        workgroups: [1, 1, 1],
        binds: vec![format!("0=u32:uninit:{out_words}").parse().unwrap()],
        config: SimConfig {
            subgroup_size: sg,
            ..Default::default()
        },
    })
}

const F16_KERNEL: &str = r#"
enable f16;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> h: array<f16, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    h[lid] = f16(f32(lid) * 0.1 + 1000.0);
    workgroupBarrier();
    let a = h[lid];
    let b = h[63u - lid] * 0.001h;
    var v = vec2<f16>(a, b);
    v = v * 3.0h;
    out[lid * 4u] = bitcast<u32>(f32(a + b));
    out[lid * 4u + 1u] = bitcast<u32>(f32(a * b));
    out[lid * 4u + 2u] = bitcast<u32>(f32(v.x - v.y));
    out[lid * 4u + 3u] = u32(a + b);
}
"#;

#[test]
fn f16_arithmetic_rounds_after_every_operation() {
    use half::f16;
    let r = check_src(F16_KERNEL, 256, 32).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    let h = |x: f32| f16::from_f32(x);
    for lid in 0..64u32 {
        let a = h(lid as f32 * 0.1 + 1000.0);
        let b = h(h((63 - lid) as f32 * 0.1 + 1000.0).to_f32() * h(0.001).to_f32());
        let (vx, vy) = (h(a.to_f32() * 3.0), h(b.to_f32() * 3.0));
        let s = h(a.to_f32() + b.to_f32());
        let want = [
            s.to_f32().to_bits(),
            h(a.to_f32() * b.to_f32()).to_f32().to_bits(),
            h(vx.to_f32() - vy.to_f32()).to_f32().to_bits(),
            s.to_f32() as u32,
        ];
        let got = &out[lid as usize * 4..lid as usize * 4 + 4];
        assert_eq!(got, want, "lid {lid}");
    }
    // the f32 path would differ: 1000 + 0.1·lid is not an f16 for most lanes
    assert_ne!(out[4], (1000.1f32 + 1.0031f32).to_bits());
}

#[test]
fn f16_in_a_host_buffer_is_a_clear_error() {
    let src = r#"
enable f16;
@group(0) @binding(0) var<storage, read_write> out: array<f16>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) lid: u32) { out[lid] = f16(lid); }
"#;
    let Err(e) = check_src(src, 4, 4) else {
        panic!("f16 storage ran");
    };
    assert!(
        e.to_string().contains("f16 in a storage or uniform buffer"),
        "{e}"
    );
}

/// One subgroup of 32 (at subgroup size 32): C = A·B for 8×8 f16 A, B staged in workgroup
/// memory, stored row-major; `guard` (of `x` = the lane's index) wraps the cooperative
/// operations.
fn coop_kernel(guard: &str) -> String {
    format!(
        r#"
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<workgroup> t: array<f16, 128>;
var<workgroup> flag: array<u32, 32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {{
    for (var i = lid; i < 128u; i += 32u) {{ t[i] = f16(f32(i % 13u) - 6.0); }}
    flag[lid] = lid;
    // naga rejects a cooperative operation under a visibly non-uniform condition; a
    // workgroupUniformLoad result counts as uniform whatever the pointer, which lets a test
    // hand it per-lane values
    let x = workgroupUniformLoad(&flag[lid]);
    if {guard} {{
        let a = coopLoadT<coop_mat8x8<f16, A>>(&t[0], 8u);
        let b = coopLoad<coop_mat8x8<f16, B>>(&t[64], 8u);
        var c = coop_mat8x8<f32, C>();
        c = coopMultiplyAdd(a, b, c);
        coopStoreT(c, &out[0], 8u);
    }}
}}
"#
    )
}

#[test]
fn a_cooperative_multiply_add_matches_the_cpu_and_needs_the_whole_subgroup() {
    let r = check_src(&coop_kernel("true"), 64, 32).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let t: Vec<f32> = (0..128).map(|i| (i % 13) as f32 - 6.0).collect();
    let out = &r.buffers[&0].1;
    for i in 0..8 {
        for j in 0..8 {
            // A row-major at t[0..64]; B column-major at t[64..128]: B(k, j) = t[64 + j·8 + k]
            let want: f32 = (0..8).map(|k| t[i * 8 + k] * t[64 + j * 8 + k]).sum();
            assert_eq!(f32::from_bits(out[i * 8 + j]), want, "({i}, {j})");
        }
    }
    // inside a branch half the subgroup skips: flagged at each cooperative operation
    let r = check_src(&coop_kernel("x < 16u"), 64, 32).unwrap();
    assert!(
        r.findings
            .iter()
            .any(|f| f.kind == FindingKind::NonUniformSubgroupOp
                && f.message.contains("coopMultiplyAdd")),
        "{:?}",
        r.findings
    );
    // a store past the end of `out` is reported, not performed
    let r = check_src(&coop_kernel("true"), 60, 32).unwrap();
    assert_finds(&r, FindingKind::OutOfBounds);
}

#[test]
fn too_small_a_subgroup_falls_back_to_the_portable_kernel() {
    // coop16's 128×128 tile needs more invocations than 4 or 8 subgroups of 4 or 8 lanes give;
    // coop8's needs more than subgroups of 4: the automatic choice takes the portable kernel
    for (sg, shapes) in [
        (4, SimConfig::coop_shapes()),
        (8, vec![shape(16)]),
        (4, vec![shape(8)]),
    ] {
        let exec = sim(sg, shapes, None);
        assert!(gemm::coop::usable(exec.caps()).is_err(), "sg {sg}");
        let (m, n, k) = (65, 40, 48);
        let a = f32_to_f16(&gemm::bench::random_f32(m * k, 1));
        let b = f32_to_f16(&gemm::bench::random_f32(k * n, 2));
        let p = gemm::plan(
            exec.caps(),
            Operand::F16(&a),
            Operand::F16(&b),
            m,
            n,
            k,
            GemmOptions::default(),
        )
        .unwrap();
        assert_eq!(p.path, Path::Tiled, "sg {sg}");
        let out = exec.run(&p.plan).unwrap();
        assert!(out.findings.is_empty(), "sg {sg}: {:?}", out.findings);
        let e = rel_frobenius(
            &p.decode(&out).unwrap(),
            &tiled(&f16_to_f32(&a), &f16_to_f32(&b), m, n, k),
        );
        assert!(e <= TOL, "sg {sg}: relative error {e:.3e}");
    }
}

/// One subgroup of 32: C = A·B for 8×8 f16 A, B staged in a `vec4<f16>` workgroup array the
/// way gemm_coop_stage_v.wgsl stages (the stride counted in vec4s): A row-major with stride 3
/// (a vec4 of padding per row, never written), B column-major with stride 2, ending exactly at
/// the array's end. `len`: the array's length (40 fits); `skip`: a staged vec4 left unwritten;
/// `barrier`: the barrier between staging and the loads.
fn vec4_kernel(len: u32, skip: u32, barrier: bool) -> String {
    let barrier = if barrier { "workgroupBarrier();" } else { "" };
    format!(
        r#"
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<workgroup> t: array<vec4<f16>, {len}>;
fn val(i: u32) -> vec4<f16> {{
    return vec4<f16>(f16(i % 13u), f16(i % 7u), -f16(i % 5u), f16(i % 3u)) - 2.0h;
}}
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {{
    // A: rows r at t[3r], t[3r + 1] (t[3r + 2] is padding); B: t[24..40]
    for (var i = lid; i < 40u; i += 32u) {{
        if i != {skip}u && (i >= 24u || i % 3u != 2u) && i < {len}u {{
            t[i] = val(i);
        }}
    }}
    {barrier}
    let a = coopLoadT<coop_mat8x8<f16, A>>(&t[0], 3u);
    let b = coopLoad<coop_mat8x8<f16, B>>(&t[24], 2u);
    var c = coop_mat8x8<f32, C>();
    c = coopMultiplyAdd(a, b, c);
    coopStoreT(c, &out[0], 8u);
}}
"#
    )
}

/// The f16 value of element `e` of `val(i)` in [`vec4_kernel`].
fn vec4_val(i: usize, e: usize) -> f32 {
    [
        (i % 13) as f32,
        (i % 7) as f32,
        -((i % 5) as f32),
        (i % 3) as f32,
    ][e] - 2.0
}

#[test]
fn a_vec4_staged_cooperative_load_reads_the_right_halves_and_is_checked() {
    // looks bad but is fine: unwritten padding between A's rows, and B's last element the
    // array's last (a stride counted in f16 instead of vec4s would read padding or run past)
    let r = check_src(&vec4_kernel(40, 99, true), 64, 32).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    for i in 0..8 {
        for j in 0..8 {
            // A(i, k) = half k of row i: vec4 3i + k / 4; B(k, j) = vec4 24 + 2j + k / 4
            let want: f32 = (0..8)
                .map(|k| vec4_val(3 * i + k / 4, k % 4) * vec4_val(24 + 2 * j + k / 4, k % 4))
                .sum();
            assert_eq!(f32::from_bits(out[i * 8 + j]), want, "({i}, {j})");
        }
    }
    // one vec4 short: B's last column runs past the array
    let r = check_src(&vec4_kernel(39, 99, true), 64, 32).unwrap();
    assert_finds(&r, FindingKind::OutOfBounds);
    // a staged vec4 never written (A's row 7, second half)
    let r = check_src(&vec4_kernel(40, 22, true), 64, 32).unwrap();
    assert_finds(&r, FindingKind::UninitializedRead);
    // no barrier between the staging stores of other lanes and the subgroup's load
    let r = check_src(&vec4_kernel(40, 99, false), 64, 32).unwrap();
    assert_finds(&r, FindingKind::WorkgroupRace);
}

/// An experiment's kernel (`examples/wgsl/`, as `gemm_sweep`'s `EXP_SOURCE` runs it) in place of
/// the cooperative passes of `variant`'s plan for a C of two tile rows by one tile column over
/// five K steps (seeds `seeds`): the run's findings and its relative error against f64.
fn run_experiment(
    exec: &SimExecutor,
    variant: CoopVariant,
    src: &str,
    seeds: (u64, u64),
) -> (Vec<wgsimd::finding::Finding>, f64) {
    let (m, n, k) = (
        2 * variant.policy.bm as usize,
        variant.policy.bn as usize,
        5 * variant.policy.bk as usize,
    );
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, seeds.0));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, seeds.1));
    let opts = GemmOptions {
        path: PathChoice::Coop,
        coop: Some(variant),
        ..Default::default()
    };
    let mut p = gemm::plan(
        exec.caps(),
        Operand::F16(&a),
        Operand::F16(&b),
        m,
        n,
        k,
        opts,
    )
    .unwrap();
    for pass in p.plan.passes.iter_mut() {
        if pass.kernel.name.starts_with("gemm/coop") {
            pass.kernel = std::sync::Arc::new(pass.kernel.edited(src.to_string()).unwrap());
        }
    }
    let out = exec.run(&p.plan).unwrap();
    let want = tiled(&f16_to_f32(&a), &f16_to_f32(&b), m, n, k);
    let err = rel_frobenius(&p.decode(&out).unwrap(), &want);
    (out.findings, err)
}

/// The sweep's prefetch-distance experiment (`examples/wgsl/coop16_dist.wgsl`, run through
/// `EXP_SOURCE`) is a GEMM at every distance, on coop16's plan for the two-buffer and the
/// one-buffer tiles (full tiles, five K steps, lanes shuffled): the figures docs/gemm.md gives
/// for it are of a real product. Stashing a stale register set is caught.
#[test]
fn the_prefetch_distance_experiment_computes_the_product() {
    let source = include_str!("../examples/wgsl/coop16_dist.wgsl");
    let line = "const DIST: u32 = 2u;";
    assert!(source.contains(line));
    let exec = sim(32, SimConfig::coop_shapes(), Some(3));
    let err = |variant: CoopVariant, src: String| {
        let (findings, err) = run_experiment(&exec, variant, &src, (31, 37));
        assert!(findings.is_empty(), "findings {findings:#?}");
        err
    };
    let variants = [
        CoopVariant::new(CoopKernel::K16, 128, 128, 32),
        gemm::coop::large_tile_edges(),
    ];
    for v in variants {
        for dist in 1..=3 {
            let src = source.replace(line, &format!("const DIST: u32 = {dist}u;"));
            let e = err(v, src);
            assert!(e <= TOL, "{v:?} DIST {dist}: relative error {e:.3e}");
        }
    }
    // the odd tiles stashed from set 0 instead of set 1
    let stale = source.replacen(
        "stash_tile(lid, buf, r1, fa, fb);",
        "stash_tile(lid, buf, r0, fa, fb);",
        1,
    );
    assert_ne!(stale, source);
    assert!(err(variants[0], stale) > TOL);
}

/// The fragment-pipelining experiments (`examples/wgsl/coop16_fp.wgsl`, `coop16w_fp.wgsl`):
/// step t loads tile t+1's fragments while it multiplies tile t's, and stashes tile t+2 into the
/// buffer step t−1 read, with one barrier per step. Race-free and the right product on the
/// two-buffer BK = 16 tiles they are written for; stashing into the buffer the step reads is a
/// race the simulator reports.
#[test]
fn the_fragment_pipelining_experiments_compute_the_product() {
    let exec = sim(32, SimConfig::coop_shapes(), Some(3));
    let run = |variant: CoopVariant, src: &str| run_experiment(&exec, variant, src, (43, 47));
    let narrow = include_str!("../examples/wgsl/coop16_fp.wgsl");
    let wide = include_str!("../examples/wgsl/coop16w_fp.wgsl");
    let cases = [
        (narrow, CoopVariant::new(CoopKernel::K16, 128, 128, 16)),
        (narrow, CoopVariant::new(CoopKernel::K16, 128, 256, 16)),
        (wide, CoopVariant::new(CoopKernel::K16W, 128, 256, 16)),
        (wide, CoopVariant::new(CoopKernel::K16W, 256, 128, 16)),
    ];
    for (src, v) in cases {
        assert_eq!((v.policy.bk, v.policy.bufs, v.policy.b_bufs), (16, 2, 2));
        let (findings, err) = run(v, src);
        assert!(findings.is_empty(), "{v:?}: findings {findings:#?}");
        assert!(err <= TOL, "{v:?}: relative error {err:.3e}");
    }
    // tile t+2 stashed into the buffer step t loads from
    let stash = "stash_tile(lid, cur, pre, fa, fb);";
    let racy = narrow.replacen(stash, "stash_tile(lid, nxt, pre, fa, fb);", 1);
    assert_ne!(racy, narrow);
    let (findings, _) = run(cases[0].1, &racy);
    assert!(
        findings
            .iter()
            .any(|f| f.kind == FindingKind::WorkgroupRace),
        "{findings:#?}"
    );
}

/// One A buffer and two B buffers (`large_tile`): B of tile t+1 is stashed before step t's first
/// barrier, while other subgroups still multiply — fine, because it goes into the B buffer step
/// t−1 read, and every subgroup passed two barriers since. That looks like a race and is not
/// (zero findings, the right product); stashing it into the buffer step t reads is one, and the
/// simulator reports it (lanes shuffled, full tiles, four K steps).
#[test]
fn b_staged_before_the_barrier_is_race_free_only_in_the_other_buffer() {
    let exec = sim(32, SimConfig::coop_shapes(), Some(5));
    let v = gemm::coop::large_tile();
    assert!(v.policy.b_bufs == 2 && v.policy.bufs == 1);
    let (m, n, k) = (2 * v.policy.bm as usize, v.policy.bn as usize, 4 * 32);
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, 41));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, 43));
    let opts = GemmOptions {
        path: PathChoice::Coop,
        coop: Some(v),
        ..Default::default()
    };
    let plan = || {
        gemm::plan(
            exec.caps(),
            Operand::F16(&a),
            Operand::F16(&b),
            m,
            n,
            k,
            opts,
        )
        .unwrap()
    };
    let p = plan();
    let out = exec.run(&p.plan).unwrap();
    assert!(out.findings.is_empty(), "{:#?}", out.findings);
    let want = tiled(&f16_to_f32(&a), &f16_to_f32(&b), m, n, k);
    assert!(rel_frobenius(&p.decode(&out).unwrap(), &want) <= TOL);

    let mut p = plan();
    let early = "stash_b_tile(lid, next % NBUF_B, pre, fb);";
    for pass in p.plan.passes.iter_mut() {
        let src = &pass.kernel.source;
        assert!(src.contains(early), "the early stash is in the kernel");
        let edited = src.replacen(early, "stash_b_tile(lid, t % NBUF_B, pre, fb);", 1);
        let kernel = wgsimd::kernel::Kernel::from_source("edited", pass.kernel.flavor, edited);
        pass.kernel = std::sync::Arc::new(kernel.unwrap());
    }
    let out = exec.run(&p.plan).unwrap();
    assert!(
        out.findings
            .iter()
            .any(|f| f.kind == wgsimd::finding::FindingKind::WorkgroupRace),
        "{:#?}",
        out.findings.iter().map(|f| f.kind).collect::<Vec<_>>()
    );
}

/// An executor that reports `caps` and runs plans on `sim` (an adapter whose reported
/// subgroup range does not say what it runs).
struct Claims {
    caps: wgsimd::Caps,
    sim: SimExecutor,
}

impl Executor for Claims {
    fn caps(&self) -> &wgsimd::Caps {
        &self.caps
    }
    fn run(&self, plan: &wgsimd::Plan) -> wgsimd::Result<wgsimd::RunOutput> {
        self.sim.run(plan)
    }
}

/// Metal: wgpu reports subgroups of 4..64 and 8×8 cooperative matrices. The cooperative kernel
/// is planned for 32 (Apple GPUs) and checks the width it meets: at 32 it computes C; at 16
/// every workgroup stops, `subgroup_mismatch` names the width, `decode` is an error, and
/// `gemm::execute` reruns the product on the portable kernel. A reported range elsewhere
/// (Vulkan) plans no cooperative kernel.
#[test]
fn metal_plans_for_32_and_guards_the_width() {
    let mut caps = sim(32, vec![shape(8)], None).caps().clone();
    caps.backend = "Metal".into();
    caps.subgroup_min = 4;
    caps.subgroup_max = 64;
    assert_eq!(gemm::coop::planned_subgroup(&caps), Some(32));
    let (m, n, k) = (65, 40, 48);
    let a = f32_to_f16(&gemm::bench::random_f32(m * k, 21));
    let b = f32_to_f16(&gemm::bench::random_f32(k * n, 22));
    let want = tiled(&f16_to_f32(&a), &f16_to_f32(&b), m, n, k);
    let (fa, fb) = (Operand::F16(&a), Operand::F16(&b));
    let opts = GemmOptions::default();
    let p = gemm::plan(&caps, fa, fb, m, n, k, opts).unwrap();
    assert_eq!(p.path, Path::Coop8);

    let at32 = sim(32, vec![shape(8)], None).run(&p.plan).unwrap();
    assert!(at32.findings.is_empty(), "{:?}", at32.findings);
    assert_eq!(p.subgroup_mismatch(&at32), None);
    assert!(rel_frobenius(&p.decode(&at32).unwrap(), &want) <= TOL);

    let at16 = sim(16, vec![shape(8)], None).run(&p.plan).unwrap();
    assert_eq!(p.subgroup_mismatch(&at16), Some(16));
    let e = p.decode(&at16).unwrap_err().to_string();
    assert!(
        e.contains("planned for subgroups of 32 and the GPU ran them 16 wide"),
        "{e}"
    );
    // (C was never written: the only finding)
    assert!(
        !at16.findings.is_empty()
            && at16
                .findings
                .iter()
                .all(|f| f.kind == wgsimd::finding::FindingKind::UnwrittenOutput),
        "{:?}",
        at16.findings
    );

    let claims = Claims {
        caps: caps.clone(),
        sim: sim(16, vec![shape(8)], None),
    };
    let (p, out) = gemm::execute(&claims, fa, fb, m, n, k, opts).unwrap();
    assert_eq!(p.path, Path::Tiled);
    assert!(rel_frobenius(&p.decode(&out).unwrap(), &want) <= TOL);
    let forced = GemmOptions {
        path: PathChoice::Coop,
        ..Default::default()
    };
    let (p, out) = gemm::execute(&claims, fa, fb, m, n, k, forced).unwrap();
    assert_eq!(p.path, Path::Coop8);
    assert!(p.decode(&out).is_err());

    let mut vulkan = caps;
    vulkan.backend = "Vulkan".into();
    vulkan.subgroup_min = 32;
    assert_eq!(gemm::coop::planned_subgroup(&vulkan), None);
    let p = gemm::plan(&vulkan, fa, fb, m, n, k, opts).unwrap();
    assert_eq!(p.path, Path::Tiled);
}
