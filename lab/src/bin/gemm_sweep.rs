//! GEMM tile sweep (a lab tool, not a test): tiles of the portable kernel (`GemmPolicy`, f32),
//! tiles of the cooperative-matrix kernels (`coop::CoopVariant`, f16 → f32), and the candidate
//! kernels of `lab/wgsl/` on the tiles they were written for (`cand NAME TILE`), at M = N = K =
//! 4096 and 8192. Each variant is the library's plan (`wgsimd::gemm::plan`) made ready on the
//! device and recorded with timestamps (the CLI's timing method, `wgsimd_timing`), then run
//! once more into a poisoned C and verified against `wgsimd::reference::gemm` (256 seeded
//! entries against f64 dot products and every entry finite; every entry from 512³ down) before
//! its figure is printed. One line per variant: name, shape, median and best TFLOP/s, ok / FAIL.
//!
//! The first variant of each kind is timed again at the end of its size ("again"), to show
//! drift within the process.
//!
//! `cargo run --release -p wgsimd-lab --bin gemm_sweep -- [--sizes 4096,8192] [--repeats N]
//! [--list] [FILTER ...]`: a variant runs when its line (`f32 tiled 64x128x8 w8x4 pair u8
//! 4096x4096x4096`) contains any FILTER, or a FILTER `=NAME` equals its name exactly
//! (`=coop16 128x256x32 1a2b`, with or without its mark `(large_tile)`). `cand` selects the
//! candidate kernels, `coop16` every cooperative tile and candidate. `--list` prints the
//! variants and their workgroup memory.
//!
//! `LAB_EDIT='FROM=>TO;;;FROM=>TO'` (`\n` for a line break) edits the composed text of every
//! pass whose kernel contains FROM (compose, replace, `Kernel::from_source`), e.g. to remove
//! `// wgsimd: runtime checks off` and time a kernel with wgpu's bounds checks.
//! `--shapes MxNxK,...` times those shapes instead of the cubes of `--sizes` (decode-sized products:
//! `--shapes 16x14336x4096`), and `--split S` gives the cooperative tiles S slices of K.
//! `LAB_SIM=h100` runs on the simulator (host-timed; small sizes: `--sizes 256`).

use std::cell::Cell;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgsimd::gemm::coop::{self, CoopVariant};
use wgsimd::gemm::{self, Format, GemmOptions, GemmPolicy, PathChoice};
use wgsimd::reference::gemm::{entry, f16_to_f32, f32_to_f16, rel_frobenius, tiled};
use wgsimd::{BufferRef, Context};
use wgsimd_lab::candidates::{self, Candidate};
use wgsimd_lab::tiles;
use wgsimd_lab::timing::{self, Job};

const SAMPLES: usize = 256;

enum Kind {
    Tiled(GemmPolicy),
    Coop(CoopVariant),
    /// A candidate of `candidates::all()` (index) on a coop16 plan of this tile.
    Cand(usize, CoopVariant),
}

struct Variant {
    name: String,
    kind: Kind,
}

impl Variant {
    fn line(&self, [m, n, k]: [usize; 3]) -> String {
        let fmt = if matches!(self.kind, Kind::Tiled(_)) {
            "f32"
        } else {
            "f16"
        };
        format!("{fmt} {} {m}x{n}x{k}", self.name)
    }

    fn same_kind(&self, other: &Variant) -> bool {
        std::mem::discriminant(&self.kind) == std::mem::discriminant(&other.kind)
    }
}

fn variants(cands: &[Candidate]) -> Vec<Variant> {
    let mut v: Vec<Variant> = tiles::tiled()
        .into_iter()
        .map(|(n, p)| Variant {
            name: format!("tiled {n}"),
            kind: Kind::Tiled(p),
        })
        .collect();
    v.extend(tiles::coop().into_iter().map(|(name, c)| Variant {
        name,
        kind: Kind::Coop(c),
    }));
    for (i, c) in cands.iter().enumerate() {
        for (tile, t) in &c.tiles {
            v.push(Variant {
                name: format!("cand {} {tile}", c.name),
                kind: Kind::Cand(i, *t),
            });
        }
    }
    v
}

struct Inputs {
    m: usize,
    n: usize,
    k: usize,
    a32: Vec<f32>,
    b32: Vec<f32>,
    a16: Vec<u16>,
    b16: Vec<u16>,
    a16f: Vec<f32>,
    b16f: Vec<f32>,
}

fn inputs([m, n, k]: [usize; 3]) -> Inputs {
    let a32 = wgsimd_lab::random_f32(m * k, 1 + n as u64);
    let b32 = wgsimd_lab::random_f32(k * n, 2 + n as u64);
    let a16 = f32_to_f16(&a32);
    let b16 = f32_to_f16(&b32);
    let (a16f, b16f) = (f16_to_f32(&a16), f16_to_f32(&b16));
    Inputs {
        m,
        n,
        k,
        a32,
        b32,
        a16,
        b16,
        a16f,
        b16f,
    }
}

/// Relative Frobenius error of C against `wgsimd::reference::gemm`: every entry (`tiled`) up to
/// 512³, else `SAMPLES` seeded entries (`entry`); infinity if any entry is not finite (poison
/// reads as −6.3e18, so an unwritten entry fails too) or C is short.
fn error(c: &[f32], a: &[f32], b: &[f32], [m, n, k]: [usize; 3], seed: u64) -> f64 {
    if c.len() != m * n || c.iter().any(|v| !v.is_finite() || v.abs() > 1e12) {
        return f64::INFINITY;
    }
    if m * n * k <= 1 << 27 {
        return rel_frobenius(c, &tiled(a, b, m, n, k));
    }
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for _ in 0..SAMPLES {
        let (i, j) = (r.random_range(0..m), r.random_range(0..n));
        let want = entry(a, b, n, k, i, j);
        let got = c[i * n + j] as f64;
        num += (got - want) * (got - want);
        den += want * want;
    }
    (num / den.max(f64::MIN_POSITIVE)).sqrt()
}

/// The edits of `LAB_EDIT` (FROM, TO).
fn edits() -> Vec<(String, String)> {
    std::env::var("LAB_EDIT")
        .iter()
        .flat_map(|e| e.split(";;;"))
        .map(|edit| {
            let (from, to) = edit.split_once("=>").expect("LAB_EDIT=FROM=>TO");
            (from.replace("\\n", "\n"), to.replace("\\n", "\n"))
        })
        .collect()
}

/// Plans, times and verifies one variant; prints its line. The first verified variant (while
/// `self_checked` is false) also shows that the verifier catches a 1% error in every entry and
/// one poisoned entry.
fn run_one(
    ctx: &Context,
    v: &Variant,
    cands: &[Candidate],
    x: &Inputs,
    (repeats, split): (usize, Option<u32>),
    tag: &str,
    self_checked: &Cell<bool>,
) {
    let (m, n, k) = (x.m, x.n, x.k);
    let dims = [m, n, k];
    let name = format!("{}{tag}", v.name);
    let shape = format!("{m}x{n}x{k}");
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        println!("{name:<44} {shape:>15}  FAIL {what}: {e}");
    };
    let t0 = Instant::now();
    let (fmt, opts) = match &v.kind {
        Kind::Tiled(p) => (
            Format::F32,
            GemmOptions {
                path: PathChoice::Tiled,
                policy: Some(*p),
                split: Some(1),
                ..Default::default()
            },
        ),
        Kind::Coop(c) | Kind::Cand(_, c) => (
            Format::F16,
            GemmOptions {
                path: PathChoice::Coop,
                coop: Some(*c),
                split,
                ..Default::default()
            },
        ),
    };
    let mut built = match gemm::plan(ctx.caps(), fmt, m, n, k, opts) {
        Ok(p) => p,
        Err(e) => {
            println!("{name:<44} {shape:>15}  skipped: {e}");
            return;
        }
    };
    if let Kind::Cand(i, c) = &v.kind {
        let cand = &cands[*i];
        if !cand.takes(c, dims) {
            println!("{name:<44} {shape:>15}  skipped: full tiles only");
            return;
        }
        match cand.kernel(ctx.caps().flavor()) {
            Ok(k) => {
                candidates::swap_kernel(&mut built.plan, "gemm/coop", &k);
            }
            Err(e) => return fail("kernel", &e),
        }
    }
    for (from, to) in edits() {
        for pass in built.plan.passes.iter_mut() {
            if pass.kernel.source.contains(&from) {
                let text = pass.kernel.source.replace(&from, &to);
                match candidates::edited(&pass.kernel, text) {
                    Ok(k) => pass.kernel = k,
                    Err(e) => return fail("LAB_EDIT", &e),
                }
            }
        }
    }
    let passes: Vec<String> = built.plan.passes.iter().map(|p| p.label.clone()).collect();
    let (a_id, b_id, c_id) = (built.inputs[0], built.inputs[1], built.c);
    let c_bytes = built.plan.buffers[c_id.0].size;
    let prepared = match ctx.prepare(built.plan) {
        Ok(p) => p,
        Err(e) => return fail("prepare", &e),
    };
    // operands: n is a multiple of the load width here (4 f32, 8 f16), so rows need no padding
    let per = fmt.per_load() as usize;
    let row = |cols: usize| cols.div_ceil(per) * per;
    let bytes = |a32: &[f32], a16: &[u16], rows: usize, cols: usize| match fmt {
        Format::F16 => wgsimd_lab::pad_rows(a16, rows, cols, row(cols)),
        _ => wgsimd_lab::pad_rows(a32, rows, cols, row(cols)),
    };
    let upload = |label, data: Vec<u8>| ctx.upload(label, &data);
    let (a, b, c) = match (
        upload("a", bytes(&x.a32, &x.a16, m, k)),
        upload("b", bytes(&x.b32, &x.b16, k, n)),
        ctx.uninit("c", c_bytes),
    ) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return fail("buffers", &e),
    };
    let job = Job {
        passes,
        setup: None,
        record: Box::new(|enc, stamps| {
            let args = [
                (a_id, BufferRef::from(&a)),
                (b_id, BufferRef::from(&b)),
                (c_id, BufferRef::from(&c)),
            ];
            prepared.record(enc, &args, stamps)
        }),
    };
    let t = match timing::time(ctx, &job, 3, repeats) {
        Ok(t) => t,
        Err(e) => return fail("run", &e),
    };
    // the verified run, into a poisoned C
    let findings = match timing::poison(ctx, &c).and_then(|()| timing::run_once(ctx, &job)) {
        Ok(r) => r.findings,
        Err(e) => return fail("verified run", &e),
    };
    let mut out: Vec<f32> = match ctx.read(&c) {
        Ok(v) => v,
        Err(e) => return fail("read", &e),
    };
    out.truncate(m * n);
    let (ra, rb, tol) = match v.kind {
        Kind::Tiled(_) => (&x.a32, &x.b32, 1e-5 * (k as f64 / 1024.0).sqrt()),
        _ => (&x.a16f, &x.b16f, 2e-3),
    };
    let err = error(&out, ra, rb, dims, 99);
    if !self_checked.get() && err <= tol {
        self_checked.set(true);
        let scaled: Vec<f32> = out.iter().map(|v| v * 1.01).collect();
        let mut poisoned = out.clone();
        poisoned[m * n / 2 + 7] = f32::from_bits(wgsimd::plan::POISON_WORD);
        let caught =
            error(&scaled, ra, rb, dims, 99) > tol && error(&poisoned, ra, rb, dims, 99) > tol;
        println!(
            "# verifier self-check (1% off everywhere; one poison entry): {}",
            if caught { "both caught" } else { "NOT CAUGHT" }
        );
    }
    if err > tol {
        // (the time too: a LAB_EDIT that removes work gives a wrong C and a bound)
        return println!(
            "{name:<44} {shape:>15}  FAIL err {err:.2e} > {tol:.1e} (median {:.2} TFLOP/s)",
            2.0 * (m * n * k) as f64 / t.median_ns() / 1e3
        );
    }
    if let Some(f) = findings.first() {
        return println!(
            "{name:<44} {shape:>15}  FAIL: {} simulator finding(s), the first: {f}",
            findings.len()
        );
    }
    let flops = 2.0 * (m * n * k) as f64;
    println!(
        "{name:<44} {shape:>15}  median {:7.2} TFLOP/s  best {:7.2}  ({:.4} ms median, err {err:.1e}, {:?}, {:.1}s)  ok",
        flops / t.median_ns() / 1e3,
        flops / t.min_ns() / 1e3,
        t.median_ns() / 1e6,
        t.source,
        t0.elapsed().as_secs_f64(),
    );
}

fn list(ctx: &Context, all: &[Variant], cands: &[Candidate]) {
    let sg = coop::planned_subgroup(ctx.caps()).unwrap_or(32);
    for v in all {
        match &v.kind {
            Kind::Tiled(p) => println!(
                "{:<44} {:>5} B workgroup memory",
                v.name,
                p.workgroup_bytes()
            ),
            Kind::Coop(c) | Kind::Cand(_, c) => {
                let show =
                    |r: wgsimd::Result<u64>| r.map_or_else(|e| e.to_string(), |b| b.to_string());
                let note = match &v.kind {
                    Kind::Cand(i, _) => match cands[*i].kernel(ctx.caps().flavor()) {
                        Ok(_) => " (candidate: its own workgroup size and memory)".to_string(),
                        Err(e) => format!(" (candidate does not load: {e})"),
                    },
                    _ => String::new(),
                };
                println!(
                    "{:<44} {:>4} invocations at subgroup {sg}  {:>5} B workgroup memory ({:>5} B without edge tiles)  {}+{} staging buffers (A+B){note}",
                    v.name,
                    show(c.invocations(sg).map(u64::from)),
                    show(c.workgroup_bytes(true)),
                    show(c.workgroup_bytes(false)),
                    c.policy.bufs,
                    c.policy.b_bufs
                );
            }
        }
    }
}

fn main() {
    let args = wgsimd_lab::args();
    let mut shapes: Vec<[usize; 3]> = vec![[4096; 3], [8192; 3]];
    let mut split = None;
    let mut repeats = 0usize;
    let mut show_list = false;
    let mut filters: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sizes" => {
                shapes = it
                    .next()
                    .expect("--sizes 4096,8192")
                    .split(',')
                    .map(|s| [s.trim().parse().expect("a size"); 3])
                    .collect()
            }
            "--shapes" => {
                shapes = it
                    .next()
                    .expect("--shapes 16x14336x4096,...")
                    .split(',')
                    .map(wgsimd_lab::shape)
                    .collect()
            }
            "--split" => split = Some(it.next().and_then(|s| s.parse().ok()).expect("--split S")),
            "--repeats" => repeats = it.next().and_then(|s| s.parse().ok()).expect("a count"),
            "--list" => show_list = true,
            f => filters.push(f.to_string()),
        }
    }
    let started = Instant::now();
    let ctx = wgsimd_lab::open().expect("a device");
    let cands = candidates::all();
    let all = variants(&cands);
    if show_list {
        return list(&ctx, &all, &cands);
    }
    println!("# {}", wgsimd_lab::describe(&ctx));
    let wanted = |v: &Variant, dims: [usize; 3]| {
        filters.is_empty()
            || filters.iter().any(|f| match f.strip_prefix('=') {
                // (the name, or the name without its "(large_tile)"-like mark)
                Some(exact) => v.name == exact || v.name.split(" (").next() == Some(exact),
                None => v.line(dims).contains(f.as_str()),
            })
    };
    let self_checked = Cell::new(false);
    let done = Cell::new(true);
    for &dims in &shapes {
        let t = Instant::now();
        let x = inputs(dims);
        let [m, n, k] = dims;
        println!("# {m}x{n}x{k}: inputs in {:.1}s", t.elapsed().as_secs_f64());
        let reps = match (repeats, n >= 8192) {
            (r, _) if r > 0 => r,
            (_, true) => 5,
            _ => 10,
        };
        let mut firsts: Vec<&Variant> = Vec::new();
        for v in all.iter().filter(|v| wanted(v, dims)) {
            if !firsts.iter().any(|f| f.same_kind(v)) {
                firsts.push(v);
            }
            run_one(&ctx, v, &cands, &x, (reps, split), "", &self_checked);
        }
        for v in firsts {
            run_one(&ctx, v, &cands, &x, (reps, split), " (again)", &done);
        }
    }
    println!("# total {:.1}s", started.elapsed().as_secs_f64());
}
