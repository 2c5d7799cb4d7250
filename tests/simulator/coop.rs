//! The cooperative-matrix GEMM kernels (`gemm/coop16`, `gemm/coop8`, `gemm/coop8_int4`) on the
//! simulator at the subgroup sizes the behaviour suite does not run, edge tiles and whole tiles:
//! zero findings and the f64 reference's product; and the race-free early B stage of the large
//! tile, with the race the simulator reports when it goes into the wrong buffer.

use wgsimd::device::CoopShape;
use wgsimd::finding::{Finding, FindingKind};
use wgsimd::gemm::coop::{self, CoopKernel};
use wgsimd::gemm::{self, Format, GemmOptions, GemmOutput, GemmPlan, Operand, Path, PathChoice};
use wgsimd::kernel::Kernel;
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, rel_frobenius, tiled};
use wgsimd::sim::SimConfig;
use wgsimd::{Caps, Context};

/// f16 inputs, C f32: the reference multiplies the very f16 values, so only the f32
/// accumulation errs (as in the behaviour suite).
pub const TOL: f64 = 2e-5;

/// The H100 profile offering the f16 cooperative shapes `sizes` at subgroups of `sg`.
pub fn sim(sg: u32, sizes: &[u32], shuffle: Option<u64>) -> Context {
    let mut profile = Caps::h100();
    profile.cooperative_matrix = sizes.iter().map(|&s| CoopShape::f16_f32(s)).collect();
    Context::simulator(SimConfig {
        subgroup_size: sg,
        shuffle_lanes: shuffle,
        ..SimConfig::for_profile(profile)
    })
    .unwrap()
}

/// f16 A (M×K) and B (K×N) in [-1, 1), from `seed`.
pub fn operands(m: usize, n: usize, k: usize, seed: u64) -> (Vec<u16>, Vec<u16>) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
    let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
    (f32_to_f16(&a), f32_to_f16(&b))
}

/// The f64 product of f16 `a` and `b`.
pub fn reference(a: &[u16], b: &[u16], (m, n, k): (usize, usize, usize)) -> Vec<f64> {
    tiled(&f16_to_f32(a), &f16_to_f32(b), m, n, k)
}

/// C = A·B through `gemm::execute` (an error on any finding), which must take `want`; C within
/// `TOL` of the f64 reference.
pub fn product(
    ctx: &Context,
    want: Path,
    opts: GemmOptions,
    mnk: (usize, usize, usize),
) -> Vec<f32> {
    let (m, n, k) = mnk;
    let what = format!("{want:?} sg{} {m}x{n}x{k}", ctx.caps().subgroup_min);
    let (a, b) = operands(m, n, k, (m * 31 + n * 7 + k) as u64);
    let (c, path) = gemm::execute(ctx, Operand::F16(&a), Operand::F16(&b), m, n, k, opts)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(path, want, "{what}");
    let GemmOutput::F32(c) = c else {
        panic!("{what}: f16 C")
    };
    let e = rel_frobenius(&c, &reference(&a, &b, mnk));
    assert!(e <= TOL, "{what}: relative error {e:.3e}");
    c
}

pub const COOP: GemmOptions = GemmOptions {
    path: PathChoice::Coop,
    policy: None,
    split: None,
    coop: None,
    out: gemm::OutFormat::F32,
};

/// Runs `built` (planned for other caps than `ctx`'s, K and N multiples of 8) on `ctx`: the
/// first M·N elements of C, the findings, and the subgroup guard's word (0 where none).
pub fn run_built(
    ctx: &Context,
    built: &GemmPlan,
    a: &[u16],
    b: &[u16],
) -> (Vec<f32>, Vec<Finding>, u32) {
    let prepared = ctx.prepare(built.plan.clone()).unwrap();
    let operand = |i: usize, h: &[u16]| {
        let mut bytes = bytemuck::cast_slice::<u16, u8>(h).to_vec();
        bytes.resize(built.plan.buffers[built.inputs[i].0].size as usize, 0);
        ctx.upload("operand", &bytes).unwrap()
    };
    let (a_buf, b_buf) = (operand(0, a), operand(1, b));
    let c = ctx.uninit("c", built.plan.buffers[built.c.0].size).unwrap();
    let args = [
        (built.inputs[0], a_buf.as_ref()),
        (built.inputs[1], b_buf.as_ref()),
        (built.c, c.as_ref()),
    ];
    let mut enc = ctx.encoder();
    prepared.record((&mut enc).into(), &args, None).unwrap();
    let findings = ctx.submit(enc).unwrap().findings;
    let mut out: Vec<f32> = ctx.read(&c).unwrap();
    out.truncate(built.m * built.n);
    let guard = built.guard.map_or(0, |g| {
        ctx.read_ref::<u32>(&prepared.own(g).unwrap()).unwrap()[0]
    });
    (out, findings, guard)
}

/// coop16 at subgroups of 16 and 64 (the behaviour suite runs 32 and 128): M, N, K not
/// multiples of the tile; tiles across the bottom edge only (stored directly into C's padded
/// rows); three tile columns, the last across the right edge.
#[test]
fn coop16_at_subgroups_of_16_and_64() {
    for (sg, shuffle) in [(16, None), (64, Some(3))] {
        let ctx = sim(sg, &[16], shuffle);
        for mnk in [(65, 40, 48), (130, 72, 33), (136, 128, 40), (72, 300, 40)] {
            product(&ctx, Path::Coop16, COOP, mnk);
        }
    }
}

/// coop8 (which no simulated profile of the behaviour suite offers) at every subgroup size its
/// tile fits, lanes shuffled at 8: partial tiles, and whole ones.
#[test]
fn coop8_at_every_subgroup_size() {
    for (sg, shuffle) in [
        (8, Some(5)),
        (16, None),
        (32, Some(7)),
        (64, None),
        (128, None),
    ] {
        let ctx = sim(sg, &[8], shuffle);
        for mnk in [(65, 40, 48), (64, 64, 16)] {
            product(&ctx, Path::Coop8, COOP, mnk);
        }
    }
}

/// int4 weights on coop8 (`gemm/coop8_int4`, which no simulated profile of the behaviour suite
/// offers), with and without zero points, at every subgroup size its tile fits: partial tiles
/// (N odd, K past a group and not a whole packed word) and whole ones, against the product
/// with every weight rounded to f16 (the kernel stages them as f16; a conversion may round
/// either way: 1e-3, as the behaviour suite).
#[test]
fn int4_weights_on_coop8() {
    use wgsimd::gemm::{execute_int4, Int4Weights};
    for (sg, shuffle) in [(8, Some(5)), (32, None), (64, Some(2))] {
        let ctx = sim(sg, &[8], shuffle);
        for (m, n, k) in [(65, 41, 300), (64, 64, 128)] {
            let (a, b) = operands(m, n, k, (m * 7 + n + k) as u64);
            let mut w = Int4Weights::quantize(&f16_to_f32(&b), k, n).unwrap();
            for zeros in [false, true] {
                if zeros {
                    let g = w.groups() * n;
                    w.zeros = Some(
                        (0..g)
                            .map(|j| half::f16::from_f32((j % 7) as f32 + 5.0).to_bits())
                            .collect(),
                    );
                }
                let what = format!("coop8 int4 sg{sg} {m}x{n}x{k} zeros {zeros}");
                let (c, path) =
                    execute_int4(&ctx, &a, &w, m, COOP).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(path, Path::Coop8, "{what}");
                let GemmOutput::F32(c) = c else {
                    panic!("{what}: f16 C")
                };
                let w16 = f16_to_f32(&f32_to_f16(&w.dequantize().unwrap()));
                let want = tiled(&f16_to_f32(&a), &w16, m, n, k);
                let e = rel_frobenius(&c, &want);
                assert!(e <= 1e-3, "{what}: relative error {e:.3e}");
            }
        }
    }
}

/// The check above can fail: C off by 1% of its norm in one element, or one element left as
/// poison, is over `TOL`.
#[test]
fn a_perturbed_coop_result_is_caught() {
    let mnk = (65, 40, 48);
    let c = product(&sim(32, &[8], None), Path::Coop8, COOP, mnk);
    let (a, b) = operands(mnk.0, mnk.1, mnk.2, (65 * 31 + 40 * 7 + 48) as u64);
    let want = reference(&a, &b, mnk);
    let norm = want.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut off = c.clone();
    off[40 * 33 + 7] += (0.01 * norm) as f32;
    assert!(rel_frobenius(&off, &want) > TOL);
    let mut poisoned = c;
    poisoned[64 * 40 + 39] = f32::from_bits(wgsimd::plan::POISON_WORD);
    assert!(rel_frobenius(&poisoned, &want) > TOL);
}

/// The large tile (one A buffer, two B buffers) stages B of tile t+1 before step t's first
/// barrier, while other subgroups still multiply: fine, because it goes into the B buffer step
/// t−1 read and every subgroup has passed two barriers since. That looks like a race and is not
/// (zero findings, the right product); staging it into the buffer step t reads is one, and the
/// simulator reports it (lanes shuffled, whole tiles, four K steps).
#[test]
fn b_staged_before_the_barrier_is_race_free_only_in_the_other_buffer() {
    let ctx = sim(32, &[16], Some(5));
    let v = coop::large_tile();
    assert!(v.policy.b_bufs == 2 && v.policy.bufs == 1);
    let mnk = (2 * v.policy.bm as usize, v.policy.bn as usize, 4 * 32);
    let (m, n, k) = mnk;
    let (a, b) = operands(m, n, k, 41);
    let opts = GemmOptions {
        coop: Some(v),
        ..COOP
    };
    let built = gemm::plan(ctx.caps(), Format::F16, m, n, k, opts).unwrap();
    let (c, findings, _) = run_built(&ctx, &built, &a, &b);
    assert!(findings.is_empty(), "{findings:#?}");
    assert!(rel_frobenius(&c, &reference(&a, &b, mnk)) <= TOL);

    let mut racy = gemm::plan(ctx.caps(), Format::F16, m, n, k, opts).unwrap();
    let early = "stash_b_tile(lid, next % NBUF_B, pre, fb);";
    let mut edited = 0;
    for pass in racy.plan.passes.iter_mut() {
        if pass.kernel.name != CoopKernel::K16.name() {
            continue;
        }
        let src = &pass.kernel.source;
        assert!(src.contains(early), "the early stage is in the kernel");
        let wrong = src.replacen(early, "stash_b_tile(lid, t % NBUF_B, pre, fb);", 1);
        let k = Kernel::from_source("gemm/coop16 (edited)", pass.kernel.flavor, wrong).unwrap();
        pass.kernel = std::sync::Arc::new(k);
        edited += 1;
    }
    assert_eq!(edited, 1);
    let (_, findings, _) = run_built(&ctx, &racy, &a, &b);
    assert!(
        findings
            .iter()
            .any(|f| f.kind == FindingKind::WorkgroupRace),
        "{:?}",
        super::kinds(&findings)
    );
}
