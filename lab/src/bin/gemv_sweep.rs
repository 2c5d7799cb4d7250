//! Few-rows GEMM sweep (a lab tool, not a test): the few-rows kernel (`gemm/gemv`,
//! `PathChoice::Gemv`) by rows M and K split (`GemmOptions::split`: its own rule, "auto", and
//! forced counts), f32 / f16 / int4 B, against the register-tiled kernel at its own split rule
//! ("tiled": the product's path above `GEMV_MAX_M` rows) and the product's own choice ("auto"). Each line is a `Gemm` recorded with
//! timestamps (the CLI's timing method, `wgsimd_timing`), run once more into a poisoned C
//! and compared with `wgsimd::reference::gemm` (f64 products of the same f32, f16-rounded or
//! dequantized int4 inputs; relative Frobenius error) before its figure is printed, with the
//! plan's choices (`CV` column groups, `CHUNK`, `KSLICE` of K per workgroup).
//!
//! `cargo run --release -p wgsimd-lab --bin gemv_sweep -- [--rows 1,2,4,8,16,32] [--nk 4096]
//! [--splits auto,1,2,4,8,16,32] [--formats f32,f16,int4] [--coop 16x256x32-p2,...]
//! [--coop-splits auto,4,8] [--paths gemv,tiled,auto] [--repeats N] [MxNxK ...]`: the
//! shapes are `--rows` × `--nk` × `--nk` plus 1×8192×8192, or the ones given.
//! `LAB_SIM=h100` runs on the simulator (host-timed; small shapes: `4x256x256`).

use wgsimd::gemm::coop::{CoopKernel, CoopVariant};
use wgsimd::gemm::{self, Format, Gemm, GemmOptions, Int4Weights, PathChoice};
use wgsimd::plan::Workgroups;
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, int4, rel_frobenius, tiled, Int4};
use wgsimd::{Buffer, BufferRef, Context};
use wgsimd_lab::timing::{self, Job};

/// One shape's inputs and references.
struct Inputs {
    m: usize,
    n: usize,
    k: usize,
    a32: Vec<f32>,
    b32: Vec<f32>,
    a16: Vec<u16>,
    b16: Vec<u16>,
    w: Int4Weights,
    want32: Vec<f64>,
    want16: Vec<f64>,
    want4: Vec<f64>,
}

fn inputs(m: usize, n: usize, k: usize, with_f32: bool) -> Inputs {
    let a32 = wgsimd_lab::random_f32(m * k, 1);
    let b32 = wgsimd_lab::random_f32(k * n, 2);
    let a16 = f32_to_f16(&a32);
    let b16 = f32_to_f16(&b32);
    let (a16f, b16f) = (f16_to_f32(&a16), f16_to_f32(&b16));
    let w = Int4Weights::quantize(&b16f, k, n).expect("int4 weights");
    // (the f32 reference only where f32 is timed: at 64×14336×4096 each takes seconds)
    let want32 = if with_f32 {
        tiled(&a32, &b32, m, n, k)
    } else {
        Vec::new()
    };
    let want16 = tiled(&a16f, &b16f, m, n, k);
    let want4 = int4(
        &a16,
        &Int4 {
            k,
            n,
            packed: &w.packed,
            scales: &w.scales,
            zeros: w.zeros.as_deref(),
        },
        m,
    );
    Inputs {
        m,
        n,
        k,
        a32,
        b32,
        a16,
        b16,
        w,
        want32,
        want16,
        want4,
    }
}

/// The operands of `g` for format `fmt`, as bound (rows padded as its layout says).
fn operands(ctx: &Context, g: &Gemm, fmt: &str, x: &Inputs) -> wgsimd::Result<Vec<Buffer>> {
    let l = g.layout();
    let (m, n, k) = (x.m, x.n, x.k);
    let bytes: Vec<Vec<u8>> = match fmt {
        "f32" => vec![
            wgsimd_lab::pad_rows(&x.a32, m, k, l.a_row),
            wgsimd_lab::pad_rows(&x.b32, k, n, l.b_row),
        ],
        "f16" => vec![
            wgsimd_lab::pad_rows(&x.a16, m, k, l.a_row),
            wgsimd_lab::pad_rows(&x.b16, k, n, l.b_row),
        ],
        _ => vec![
            wgsimd_lab::pad_rows(&x.a16, m, k, l.a_row),
            bytemuck::cast_slice(&x.w.packed).to_vec(),
            bytemuck::cast_slice(&x.w.scales).to_vec(),
        ],
    };
    g.pad_operands(bytes)
        .iter()
        .enumerate()
        .map(|(i, b)| ctx.upload(&format!("operand {i}"), b))
        .collect()
}

/// The few-rows pass's choices (`CV`, `CHUNK`, `KSLICE`), from the same plan `Gemm::new`
/// makes (`wgsimd::gemm::plan`, public).
fn choices(ctx: &Context, fmt: &str, x: &Inputs, opts: GemmOptions) -> String {
    let caps = ctx.caps();
    let built = match fmt {
        "f32" => gemm::plan(caps, Format::F32, x.m, x.n, x.k, opts),
        "f16" => gemm::plan(caps, Format::F16, x.m, x.n, x.k, opts),
        _ => gemm::plan_int4(caps, x.m, x.k, x.n, false, opts),
    };
    match built {
        Ok(p) => {
            let knobs = p
                .plan
                .passes
                .iter()
                .flat_map(|pass| pass.overrides.iter())
                .filter(|o| ["CV", "CHUNK", "KSLICE"].contains(&o.0.as_str()))
                .map(|o| format!("{}={}", o.0, o.1));
            // the first pass's grid (the product's: K slices in z)
            let grid = p.plan.passes.first().map(|pass| match pass.workgroups {
                Workgroups::Direct(g) => format!("grid={}x{}x{}", g[0], g[1], g[2]),
                _ => "grid=indirect".to_string(),
            });
            knobs.chain(grid).collect::<Vec<_>>().join(" ")
        }
        Err(e) => e.to_string(),
    }
}

/// Times and verifies one format at one split; prints its line.
fn run(ctx: &Context, x: &Inputs, fmt: &str, split: Option<u32>, path: PathChoice, reps: usize) {
    run_with(ctx, x, fmt, (split, None), path, reps)
}

/// [`run`] with a cooperative tile forced (`coop`, f16 and int4; `PathChoice::Coop`).
fn run_with(
    ctx: &Context,
    x: &Inputs,
    fmt: &str,
    (split, coop): (Option<u32>, Option<(String, CoopVariant)>),
    path: PathChoice,
    reps: usize,
) {
    let (m, n, k) = (x.m, x.n, x.k);
    let what = match (path, split) {
        (_, s) if coop.is_some() => {
            let tile = coop.as_ref().map(|c| c.0.clone()).unwrap_or_default();
            match s {
                Some(s) => format!("{tile} s{s}"),
                None => tile,
            }
        }
        (PathChoice::Tiled, _) => "tiled".to_string(),
        (PathChoice::Auto, _) => "auto".to_string(),
        (_, None) => "split auto".to_string(),
        (_, Some(s)) => format!("split {s}"),
    };
    let label = format!("{m}x{n}x{k} {fmt:<4} {what:<10}");
    let fail = |what: &str, e: &dyn std::fmt::Display| println!("{label} FAIL {what}: {e}");
    let opts = GemmOptions {
        path,
        split,
        coop: coop.map(|c| c.1),
        ..Default::default()
    };
    let made = match fmt {
        "f32" => Gemm::new(ctx, Format::F32, m, n, k, opts),
        "f16" => Gemm::new(ctx, Format::F16, m, n, k, opts),
        "int4" => Gemm::new_int4(ctx, m, k, n, false, opts),
        other => panic!("--formats {other}: f32, f16, int4"),
    };
    let g = match made {
        Ok(g) => g,
        Err(e) => return println!("{label} skipped: {e}"),
    };
    let (ops, c) = match (
        operands(ctx, &g, fmt, x),
        ctx.uninit("c", g.layout().c_bytes),
    ) {
        (Ok(o), Ok(c)) => (o, c),
        (Err(e), _) | (_, Err(e)) => return fail("buffers", &e),
    };
    let refs: Vec<BufferRef> = ops.iter().map(BufferRef::from).collect();
    let job = Job {
        passes: g.passes(),
        setup: None,
        record: Box::new(|enc, stamps| g.record_timed(enc, &refs, &c, stamps)),
    };
    let t = match timing::time(ctx, &job, 3, reps) {
        Ok(t) => t,
        Err(e) => return fail("run", &e),
    };
    let report = match timing::poison(ctx, &c).and_then(|()| timing::run_once(ctx, &job)) {
        Ok(r) => r,
        Err(e) => return fail("verified run", &e),
    };
    if let Err(e) = report.clean("the GEMM") {
        return fail("simulator", &e);
    }
    let mut got: Vec<f32> = match ctx.read(&c) {
        Ok(v) => v,
        Err(e) => return fail("read", &e),
    };
    got.truncate(m * n);
    let (want, tol) = match fmt {
        "f32" => (&x.want32, 1e-5),
        "f16" => (&x.want16, 2e-3),
        _ => (&x.want4, 2e-3),
    };
    let err = rel_frobenius(&got, want);
    if err > tol {
        return println!(
            "{label} FAIL err {err:.2e} > {tol:.0e} ({:.4} ms median)",
            t.median_ns() / 1e6
        );
    }
    println!(
        "{label} {:.4} ms median (best {:.4}, {:?}) passes {} [{}] err {err:.1e} ok",
        t.median_ns() / 1e6,
        t.min_ns() / 1e6,
        t.source,
        g.passes().len(),
        choices(ctx, fmt, x, opts),
    );
}

/// A K split of `--splits` or `--coop-splits`: "auto" (the plan's own rule) or a count.
fn split_of(s: &str) -> Option<u32> {
    match s {
        "auto" => None,
        s => Some(s.parse().expect("a split: auto or a count")),
    }
}

fn main() {
    let args = wgsimd_lab::args();
    let rows: Vec<usize> = wgsimd_lab::list_flag(&args, "--rows", &[1, 2, 4, 8, 16, 32]);
    let nk: usize = wgsimd_lab::flag_value(&args, "--nk")
        .map(|s| s.parse().expect("--nk N"))
        .unwrap_or(4096);
    let splits: Vec<String> = wgsimd_lab::list_flag(
        &args,
        "--splits",
        &["auto", "1", "2", "4", "8", "16", "32"].map(String::from),
    );
    let formats: Vec<String> = wgsimd_lab::list_flag(
        &args,
        "--formats",
        &["f32", "f16", "int4"].map(String::from),
    );
    // the lines of each shape and format: the few-rows kernel at each of `--splits`, the
    // register-tiled kernel, the product's own choice
    let paths: Vec<String> = wgsimd_lab::list_flag(
        &args,
        "--paths",
        &["gemv", "tiled", "auto"].map(String::from),
    );
    // cooperative tiles BMxBNxBK (coop16), with suffixes `-1` (one staging buffer), `-p2`
    // (two K tiles in flight) and `-s2` / `-s4` (B in sub-steps, int4): 64x64x32,128x128x64-1,
    // 32x256x32-p2,16x256x128-1-s4
    let coops: Vec<String> = wgsimd_lab::list_flag(&args, "--coop", &[]);
    let coops: Vec<(String, CoopVariant)> = coops
        .iter()
        .map(|t| {
            let mut parts = t.split('-');
            let d: Vec<u32> = parts
                .next()
                .unwrap_or_default()
                .split('x')
                .map(|x| x.parse().expect("--coop BMxBNxBK[-1][-p2]"))
                .collect();
            let mut v = CoopVariant::new(CoopKernel::K16, d[0], d[1], d[2]);
            for suffix in parts {
                v = match suffix {
                    "1" => v.one_buf(),
                    "p2" => v.prefetch(2),
                    "s2" => v.sub_steps(2),
                    "s4" => v.sub_steps(4),
                    other => panic!("--coop suffix {other}: 1, p2, s2 or s4"),
                };
            }
            (format!("coop {t}"), v)
        })
        .collect();
    // K slices of the cooperative tiles: their own rule ("auto") and forced counts
    let coop_splits: Vec<Option<u32>> =
        wgsimd_lab::list_flag(&args, "--coop-splits", &["auto".to_string()])
            .iter()
            .map(|s| split_of(s))
            .collect();
    let repeats: usize = wgsimd_lab::flag_value(&args, "--repeats")
        .map(|r| r.parse().expect("--repeats N"))
        .unwrap_or(20);
    // MxNxK arguments (those not after a flag)
    let mut shapes: Vec<(usize, usize, usize)> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, s)| {
            let [m, n, k] = wgsimd_lab::shape(s);
            (m, n, k)
        })
        .collect();
    if shapes.is_empty() {
        shapes = rows.iter().map(|&m| (m, nk, nk)).collect();
        shapes.push((1, 8192, 8192));
    }
    let ctx = wgsimd_lab::open().expect("a device");
    println!("# {}", wgsimd_lab::describe(&ctx));
    for (m, n, k) in shapes {
        let x = inputs(m, n, k, formats.iter().any(|f| f == "f32"));
        for fmt in &formats {
            if paths.iter().any(|p| p == "gemv") {
                for s in &splits {
                    run(&ctx, &x, fmt, split_of(s), PathChoice::Gemv, repeats);
                }
            }
            if paths.iter().any(|p| p == "tiled") {
                run(&ctx, &x, fmt, None, PathChoice::Tiled, repeats);
            }
            if paths.iter().any(|p| p == "auto") {
                run(&ctx, &x, fmt, None, PathChoice::Auto, repeats);
            }
            if fmt != "f32" {
                for c in &coops {
                    for s in &coop_splits {
                        run_with(
                            &ctx,
                            &x,
                            fmt,
                            (*s, Some(c.clone())),
                            PathChoice::Coop,
                            repeats,
                        );
                    }
                }
            }
        }
    }
}
