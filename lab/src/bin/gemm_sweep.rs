//! GEMM tile sweep for the H100 (development, not a test): every candidate tile of the portable
//! kernel (`GemmPolicy::candidates`, f32) and of the cooperative-matrix kernels
//! (`CoopVariant::candidates`, f16 → f32) at M = N = K = 4096 and 8192, each timed with
//! `Executor::time` and verified on 256 seeded entries of C against f64 dot products (plus every
//! entry finite). One line per variant: name, shape, median and best TFLOP/s, ok / FAIL.
//!
//! Inputs are generated once per shape. The first variant of each group is timed again at the
//! end of its shape ("again"), to show drift within the process (docs/gemm.md: the H100's
//! timings were bimodal). Unless `--no-unchecked`, a few variants (among those the filters
//! select) are then timed again on a second executor whose shader modules are built without
//! bounds checks (`WGSIMD_SHADER_CHECKS=none`, tagged "nochk").
//!
//! `cargo run --release --example gemm_sweep -- [--sizes 4096,8192] [--repeats N]
//! [--no-unchecked] [--list] [FILTER ...]`: a variant runs when its name or shape contains any
//! FILTER (e.g. `coop16w`, `w8x4`, `8192`), or when a FILTER `=NAME` is exactly its short name
//! (`=64x128x8 w8x4`, the default). Portable names carry the block (`wide` = 8×16 per invocation,
//! else 8×8) and the K-loop knobs (`1buf`, `pair`, `u8`; see `GemmPolicy::kernel_candidates`):
//! `-- wide 1buf pair u8 "=64x128x8 w8x4"` times the kernel variants against the default.
//! `--list` prints the portable and cooperative-matrix candidates with their invocations and
//! workgroup memory, and exits. Cooperative names: `coop16` (f16 staging), `coop16v` (vec4<f16>
//! staging), `w` = 64×64 of C per subgroup, `1buf` = one staging buffer, `1a2b` = one A buffer
//! and two B buffers; `-- coop16` times them all.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgsimd::gemm::coop::CoopVariant;
use wgsimd::gemm::{self, GemmOptions, GemmPolicy, Operand, PathChoice};
use wgsimd::reference::gemm::{entry, f16_to_f32, f32_to_f16};
use wgsimd::{Executor, GpuExecutor};

const SAMPLES: usize = 256;

#[derive(Clone)]
enum Variant {
    Tiled(&'static str, GemmPolicy),
    Coop(&'static str, CoopVariant),
}

impl Variant {
    fn short(&self) -> &'static str {
        match self {
            Variant::Tiled(n, _) | Variant::Coop(n, _) => n,
        }
    }

    fn name(&self) -> String {
        match self {
            Variant::Tiled(n, _) => format!("f32 tiled {n}"),
            Variant::Coop(n, _) => format!("f16 {n}"),
        }
    }
}

struct Inputs {
    n: usize,
    a32: Vec<f32>,
    b32: Vec<f32>,
    a16: Vec<u16>,
    b16: Vec<u16>,
    a16f: Vec<f32>,
    b16f: Vec<f32>,
}

fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| r.random::<f32>() * 2.0 - 1.0).collect()
}

fn inputs(n: usize) -> Inputs {
    let a32 = random(n * n, 1 + n as u64);
    let b32 = random(n * n, 2 + n as u64);
    let a16 = f32_to_f16(&a32);
    let b16 = f32_to_f16(&b32);
    let (a16f, b16f) = (f16_to_f32(&a16), f16_to_f32(&b16));
    Inputs {
        n,
        a32,
        b32,
        a16,
        b16,
        a16f,
        b16f,
    }
}

/// Relative Frobenius error over `SAMPLES` seeded entries; infinity if any entry of C is not
/// finite (poison reads as −6.3e18, so an unwritten entry fails too) or C is short.
fn sampled_error(c: &[f32], a: &[f32], b: &[f32], n: usize, seed: u64) -> f64 {
    if c.len() != n * n || c.iter().any(|v| !v.is_finite() || v.abs() > 1e12) {
        return f64::INFINITY;
    }
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for _ in 0..SAMPLES {
        let (i, j) = (r.random_range(0..n), r.random_range(0..n));
        let want = entry(a, b, n, n, i, j);
        let got = c[i * n + j] as f64;
        num += (got - want) * (got - want);
        den += want * want;
    }
    (num / den.max(f64::MIN_POSITIVE)).sqrt()
}

/// Plans, times and verifies one variant; prints its line.
/// With `self_check`, also shows that the verifier catches a 1% error in every entry and one
/// poisoned entry (a check that cannot fail is no check).
fn run_one(g: &GpuExecutor, v: &Variant, x: &Inputs, repeats: usize, tag: &str, self_check: bool) {
    let n = x.n;
    let name = format!("{}{tag}", v.name());
    let shape = format!("{n}x{n}x{n}");
    let t0 = Instant::now();
    let planned = match v {
        Variant::Tiled(_, p) => gemm::plan(
            g.caps(),
            Operand::F32(&x.a32),
            Operand::F32(&x.b32),
            n,
            n,
            n,
            GemmOptions {
                path: PathChoice::Tiled,
                policy: Some(*p),
                split: Some(1),
                ..Default::default()
            },
        ),
        Variant::Coop(_, c) => gemm::plan(
            g.caps(),
            Operand::F16(&x.a16),
            Operand::F16(&x.b16),
            n,
            n,
            n,
            GemmOptions {
                path: PathChoice::Coop,
                coop: Some(*c),
                ..Default::default()
            },
        ),
    };
    let mut p = match planned {
        Ok(p) => p,
        Err(e) => {
            println!("{name:<40} {shape:>15}  FAIL plan: {e}");
            return;
        }
    };
    // EXP_EDIT="FROM=>TO;;;FROM=>TO" (`\n` for a line break): diagnostic source edits of every
    // pass whose kernel contains FROM (most are no GEMM any more, so their check fails)
    for edit in std::env::var("EXP_EDIT")
        .iter()
        .flat_map(|e| e.split(";;;"))
    {
        let (from, to) = edit.split_once("=>").expect("EXP_EDIT=FROM=>TO");
        let (from, to) = (from.replace("\\n", "\n"), to.replace("\\n", "\n"));
        for pass in p.plan.passes.iter_mut() {
            if pass.kernel.source.contains(&from) {
                let src = pass.kernel.source.replace(&from, &to);
                pass.kernel = std::sync::Arc::new(pass.kernel.edited(src).unwrap());
            }
        }
    }
    // EXP_SOURCE=FILE: the cooperative-matrix passes run FILE's kernel instead (a whole module
    // that takes their bindings, overrides and grid; examples/wgsl/)
    if let Ok(path) = std::env::var("EXP_SOURCE") {
        let src = std::fs::read_to_string(&path).expect("EXP_SOURCE");
        for pass in p.plan.passes.iter_mut() {
            if pass.kernel.name.starts_with("gemm/coop") {
                pass.kernel = std::sync::Arc::new(pass.kernel.edited(src.clone()).unwrap());
            }
        }
    }
    let (out, t) = match g.time(&p.plan, 3, repeats) {
        Ok(r) => r,
        Err(e) => {
            println!("{name:<40} {shape:>15}  FAIL run: {e}");
            return;
        }
    };
    let c = match p.decode(&out) {
        Ok(c) => c,
        Err(e) => {
            println!("{name:<40} {shape:>15}  FAIL decode: {e}");
            return;
        }
    };
    let (err, tol) = match v {
        Variant::Tiled(..) => (
            sampled_error(&c, &x.a32, &x.b32, n, 99),
            1e-5 * (n as f64 / 1024.0).sqrt(),
        ),
        Variant::Coop(..) => (sampled_error(&c, &x.a16f, &x.b16f, n, 99), 2e-3),
    };
    if self_check && err <= tol {
        let (a, b) = match v {
            Variant::Tiled(..) => (&x.a32, &x.b32),
            Variant::Coop(..) => (&x.a16f, &x.b16f),
        };
        let scaled: Vec<f32> = c.iter().map(|v| v * 1.01).collect();
        let mut poisoned = c.clone();
        poisoned[n * n / 2 + 7] = f32::from_bits(wgsimd::plan::POISON_WORD);
        let caught = sampled_error(&scaled, a, b, n, 99) > tol
            && sampled_error(&poisoned, a, b, n, 99) > tol;
        println!(
            "# verifier self-check (1% off everywhere; one poison entry): {}",
            if caught { "both caught" } else { "NOT CAUGHT" }
        );
    }
    let flops = 2.0 * (n as f64).powi(3);
    let verdict = if err <= tol {
        "ok".to_string()
    } else {
        format!("FAIL err {err:.2e} > {tol:.1e}")
    };
    println!(
        "{name:<40} {shape:>15}  median {:7.2} TFLOP/s  best {:7.2}  ({:.3} ms median, err {err:.1e}, {:?}, {:.1}s)  {verdict}",
        flops / t.median_ns() / 1e3,
        flops / t.min_ns() / 1e3,
        t.median_ns() / 1e6,
        t.source,
        t0.elapsed().as_secs_f64(),
    );
}

fn main() {
    let mut sizes = vec![4096usize, 8192];
    let mut repeats = 0usize;
    let mut unchecked = true;
    let mut list = false;
    let mut filters: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sizes" => {
                sizes = args
                    .next()
                    .expect("--sizes 4096,8192")
                    .split(',')
                    .map(|s| s.trim().parse().expect("a size"))
                    .collect()
            }
            "--repeats" => repeats = args.next().and_then(|s| s.parse().ok()).expect("a count"),
            "--no-unchecked" => unchecked = false,
            "--list" => list = true,
            f => filters.push(f.to_string()),
        }
    }
    if list {
        for (name, p) in GemmPolicy::candidates() {
            println!(
                "{name:<40} block {}x{}  {:>3} invocations  {:>2} KiB workgroup memory",
                p.tm,
                p.tn,
                p.invocations(),
                p.workgroup_bytes() >> 10
            );
        }
        for (name, v) in CoopVariant::candidates() {
            let show = |r: wgsimd::Result<u64>| r.map_or_else(|e| e.to_string(), |b| b.to_string());
            println!(
                "{name:<40} {:>4} invocations at subgroup 32  {:>5} B workgroup memory ({:>5} B without edge tiles)  {}+{} staging buffers (A+B)",
                show(v.invocations(32).map(u64::from)),
                show(v.workgroup_bytes(true)),
                show(v.workgroup_bytes(false)),
                v.policy.bufs,
                v.policy.b_bufs
            );
        }
        return;
    }
    let started = Instant::now();
    let g = GpuExecutor::new().expect("a GPU adapter");
    let caps = g.caps().clone();
    println!(
        "# {} ({}, driver {}), subgroup {}..{}, workgroup memory {} B, coop {:?}, checks {}",
        caps.name,
        caps.backend,
        caps.driver,
        caps.subgroup_min,
        caps.subgroup_max,
        caps.max_workgroup_storage,
        caps.cooperative_matrix
            .iter()
            .map(|c| format!("{}x{}x{} {}->{}", c.m, c.n, c.k, c.ab, c.acc))
            .collect::<Vec<_>>(),
        std::env::var("WGSIMD_SHADER_CHECKS").unwrap_or_else(|_| "bounds (default)".into()),
    );
    let mut variants: Vec<Variant> = GemmPolicy::candidates()
        .into_iter()
        .map(|(n, p)| Variant::Tiled(n, p))
        .collect();
    variants.extend(
        CoopVariant::candidates()
            .into_iter()
            .map(|(n, c)| Variant::Coop(n, c)),
    );
    let wanted = |v: &Variant, n: usize| {
        let line = format!("{} {n}x{n}x{n}", v.name());
        filters.is_empty()
            || filters.iter().any(|f| match f.strip_prefix('=') {
                Some(exact) => v.short() == exact,
                None => line.contains(f.as_str()),
            })
    };
    let coop_ok = gemm::coop_offered(&caps);
    let mut all = Vec::new();
    let mut self_checked = false;
    for &n in &sizes {
        let t = Instant::now();
        let x = inputs(n);
        println!("# {n}^3: inputs in {:.1}s", t.elapsed().as_secs_f64());
        let reps = if repeats > 0 {
            repeats
        } else if n >= 8192 {
            5
        } else {
            10
        };
        let mut firsts: Vec<Variant> = Vec::new();
        for v in &variants {
            if !wanted(v, n) {
                continue;
            }
            if matches!(v, Variant::Coop(..)) && !coop_ok {
                println!(
                    "{:<32} {n}x{n}x{n}  skipped: no cooperative matrices",
                    v.name()
                );
                continue;
            }
            let first_of_kind = !firsts
                .iter()
                .any(|f| std::mem::discriminant(f) == std::mem::discriminant(v));
            if first_of_kind {
                firsts.push(v.clone());
            }
            run_one(&g, v, &x, reps, "", !self_checked);
            self_checked = true;
        }
        for v in &firsts {
            run_one(&g, v, &x, reps, " (again)", false);
        }
        all.push((x, reps));
    }
    drop(g);
    if unchecked {
        // a second device whose shader modules are built with no runtime checks (the executor
        // reads WGSIMD_SHADER_CHECKS when it creates a module)
        std::env::set_var("WGSIMD_SHADER_CHECKS", "none");
        let g = GpuExecutor::new().expect("a second GPU executor");
        let pick: Vec<Variant> = variants
            .iter()
            .filter(|v| {
                let name = v.name();
                name.ends_with("tiled 128x128x8")
                    || name.ends_with("tiled 64x128x8 w8x4")
                    || name.ends_with("tiled wide 128x128x8 w4x8")
                    || name.ends_with("tiled wide 128x256x8 w4x8")
                    || name.ends_with("coop16 128x256x16")
                    || name.ends_with("coop16 128x128x32")
                    || name.ends_with("coop16w 128x256x16")
            })
            .cloned()
            .collect();
        for (x, reps) in &all {
            for v in &pick {
                if wanted(v, x.n) && (coop_ok || matches!(v, Variant::Tiled(..))) {
                    run_one(&g, v, x, *reps, " nochk", false);
                }
            }
        }
    }
    println!("# total {:.1}s", started.elapsed().as_secs_f64());
}
