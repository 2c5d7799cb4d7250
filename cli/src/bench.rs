//! `wgsimd bench`: every algorithm, verified, timed, compared.
//!
//! Rules: inputs are seeded random; each case runs `warmup` times untimed, then `repeats` times
//! timed (GPU timestamps around each pass where the adapter has them, else host time, labelled);
//! the output of the timed runs is verified against the CPU reference, and a failed check marks
//! the row FAILED, as does any simulator finding (on `--backend sim`: a race, an out-of-bounds
//! or uninitialized read, ... is a bug even where the output came out right). Throughput is
//! reported with the fraction of the bandwidth of a vec4 copy measured in the same run. CPU
//! baselines are labelled `cpu`. `--compare` reads the yardstick logs of
//! ../shared/h100/remote.sh and adds a ratio to every matching row.

use std::io::IsTerminal;

use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::case::{self, Case, CaseMaker, Work};
use crate::timing::{self, TimeSource, Timing};
use serde::Serialize;
use wgsimd::{Caps, Context};

use crate::compare::{self, Yardstick};
use crate::plot;
use crate::row::Row;

/// Arguments of `wgsimd bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Small sizes only (a quick check that everything runs and verifies).
    #[arg(long)]
    pub quick: bool,
    /// Element counts for reduce/scan/sort/copy, e.g. 2^20,2^24,1000000.
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<String>,
    /// GEMM shapes MxNxK instead of the default squares and skinny shapes, e.g.
    /// 8x4096x4096,32x4096x4096.
    #[arg(long, value_delimiter = ',', value_parser = parse_shape)]
    pub gemm_shapes: Vec<(u64, u64, u64)>,
    /// Only these algorithms: copy, reduce, scan, sort, sort-wide (64-bit keys and segments),
    /// select, runs, topk, histogram, gemm, queue, cpu.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Timed repeats per case (median and min are reported).
    #[arg(long, default_value_t = 10)]
    pub repeats: usize,
    /// Untimed warm-up runs per case.
    #[arg(long, default_value_t = 2)]
    pub warmup: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write every figure as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Plot throughput vs size per variant (.svg or .png), with each yardstick `--compare`
    /// matched and a panel of ours / yardstick.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Yardstick logs (RESULT lines of cub_bench / cuda_anchors) to compare with.
    #[arg(long)]
    pub compare: Vec<PathBuf>,
    /// Only the N-th case (0-based) of each algorithm and size, e.g. to time one case in a
    /// fresh process (a case's figure can depend on what ran before it: docs/benchmarks.md).
    #[arg(long)]
    pub case: Option<usize>,
}

/// `wgsimd` with no subcommand runs `wgsimd bench` as if given no options: clap's defaults
/// (10 repeats, 2 warm-ups, seed 1), not zeros.
impl Default for BenchArgs {
    fn default() -> Self {
        #[derive(clap::Parser)]
        struct Bare {
            #[command(flatten)]
            args: BenchArgs,
        }
        <Bare as clap::Parser>::parse_from(["bench"]).args
    }
}

/// `wgsimd plot`: draws saved `wgsimd bench --json` reports again, several as one picture
/// (a process per case or size, each with its report).
#[derive(clap::Args, Debug)]
pub struct PlotArgs {
    /// Reports written by `wgsimd bench --json`, of one adapter; their rows drawn together.
    #[arg(required = true)]
    pub json: Vec<PathBuf>,
    /// The image to write (.svg or .png).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs `wgsimd plot`: every report's rows in one picture; reports of different adapters, or
/// a case (algorithm, variant, unit, size) in two of them, are errors.
pub fn replot(args: &PlotArgs) -> anyhow::Result<std::process::ExitCode> {
    let mut adapter: Option<(String, &Path)> = None;
    let mut rows: Vec<Row> = Vec::new();
    // each case's report, by its place in `args.json` (a report may repeat a case of its own:
    // the bench's rows as written)
    let mut seen: std::collections::HashMap<(String, String, String, u64), usize> =
        std::collections::HashMap::new();
    for (i, path) in args.json.iter().enumerate() {
        let saved = read_report(path)?;
        match &adapter {
            Some((a, first)) => anyhow::ensure!(
                *a == saved.adapter,
                "{} is a report of {:?}, {} of {:?}: one picture draws one adapter",
                first.display(),
                a,
                path.display(),
                saved.adapter
            ),
            None => adapter = Some((saved.adapter.clone(), path)),
        }
        for row in saved.rows {
            let case = (
                row.algorithm.clone(),
                row.variant.clone(),
                row.unit.clone(),
                row.size,
            );
            let first = *seen.entry(case).or_insert(i);
            anyhow::ensure!(
                first == i,
                "{} {} at {} is in both {} and {}",
                row.algorithm,
                row.variant,
                row.size_label,
                args.json[first].display(),
                path.display()
            );
            rows.push(row);
        }
    }
    let title = adapter.map(|(a, _)| a).unwrap_or_default();
    plot::write(&args.output, &rows, &title)?;
    println!("wrote {}", args.output.display());
    Ok(std::process::ExitCode::SUCCESS)
}

/// A saved report: its adapter and rows.
#[derive(serde::Deserialize)]
struct Saved {
    adapter: String,
    rows: Vec<Row>,
}

/// Reads the report at `path` (at most 64 MiB: a report is a few KiB).
fn read_report(path: &Path) -> anyhow::Result<Saved> {
    const MAX_REPORT: u64 = 64 << 20;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| {
            std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_REPORT + 1), &mut bytes)
        })
        .with_context(|| format!("reading {}", path.display()))?;
    anyhow::ensure!(
        bytes.len() as u64 <= MAX_REPORT,
        "{}: more than {MAX_REPORT} bytes; not a wgsimd bench report",
        path.display()
    );
    serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a wgsimd bench report", path.display()))
}

#[derive(Serialize)]
struct Report<'a> {
    machine: String,
    adapter: &'a str,
    backend: String,
    driver: &'a str,
    subgroup_size: String,
    copy_gbps: Option<f64>,
    rows: &'a [Row],
    yardsticks: &'a [Yardstick],
}

type CaseFn = fn(&Context, u64, u64) -> wgsimd::Result<Vec<CaseMaker>>;

/// Algorithms the bench knows, with their case builders and default sizes.
fn algorithms() -> Vec<(&'static str, CaseFn)> {
    vec![
        ("reduce", |c, n, s| {
            crate::cases::reduce::bench_cases(c, n, s).map(case::ready)
        }),
        ("scan", |c, n, s| {
            crate::cases::scan::bench_cases(c, n, s).map(case::ready)
        }),
        // (built one at a time: at 2^28 all of them at once need some 15 GiB of host memory)
        ("sort", crate::cases::sort::bench_case_makers),
        // 64-bit keys and segments
        ("sort-wide", |c, n, s| {
            crate::cases::sort_wide::bench_cases(c, n, s).map(case::ready)
        }),
        ("select", |c, n, s| {
            crate::cases::select::bench_cases(c, n, s).map(case::ready)
        }),
        ("runs", |c, n, s| {
            crate::cases::runs::bench_cases(c, n, s).map(case::ready)
        }),
        ("topk", |c, n, s| {
            crate::cases::topk::bench_cases(c, n, s).map(case::ready)
        }),
        ("histogram", |c, n, s| {
            crate::cases::histogram::bench_cases(c, n, s).map(case::ready)
        }),
        ("queue", |c, n, s| {
            crate::cases::queue::bench_cases(c, n, s).map(case::ready)
        }),
    ]
}

fn parse_size(s: &str) -> anyhow::Result<u64> {
    let s = s.trim();
    if let Some(e) = s.strip_prefix("2^") {
        let e: u32 = e.parse()?;
        anyhow::ensure!(e < 40, "size {s} too large");
        return Ok(1 << e);
    }
    Ok(s.parse()?)
}

/// Default element counts for this executor: large on real GPUs, small on CPU adapters and
/// the simulator, whose speed is nanoseconds to microseconds per element.
fn default_sizes(caps: &Caps, sim: bool, quick: bool) -> Vec<u64> {
    let cpu_adapter = caps.is_cpu();
    let exps: &[u32] = match (quick, sim, cpu_adapter) {
        (_, true, _) => &[10, 14],
        (true, _, true) => &[16],
        (false, _, true) => &[16, 20],
        (true, _, _) => &[20],
        (false, _, _) => &[20, 24, 26, 28],
    };
    exps.iter()
        .map(|&e| 1u64 << e)
        .filter(|&n| n * 8 <= caps.max_buffer)
        .collect()
}

fn throughput(work: Work, ns: f64) -> (f64, &'static str, Option<f64>) {
    match work {
        Work::Bytes(b) => (b / ns, "GB/s", Some(b)),
        Work::Keys { keys, bytes } => (keys / ns, "Gkeys/s", Some(bytes)),
        Work::Flops(f) => (f / ns / 1e3, "TFLOP/s", None),
        Work::Tasks(t) => (t / ns * 1e3, "Mtasks/s", None),
    }
}

/// The case's check of its outputs against the CPU reference, then the simulator's findings
/// (none on a GPU).
fn checked(ctx: &Context, c: &Case, findings: &[wgsimd::finding::Finding]) -> Result<(), String> {
    (c.verify)(ctx)?;
    let Some(first) = findings.first() else {
        return Ok(());
    };
    let mut kinds: Vec<&str> = Vec::new();
    for f in findings {
        if !kinds.contains(&f.kind.name()) {
            kinds.push(f.kind.name());
        }
    }
    Err(format!(
        "{} simulator finding(s) ({}), the first: {first}",
        findings.len(),
        kinds.join(", ")
    ))
}

fn row_from(c: &Case, timing: &Timing, check: Result<(), String>, copy_gbps: Option<f64>) -> Row {
    let med = timing.median_ns();
    let (value, unit, bytes) = throughput(c.work, med);
    let passes = if timing.pass_labels.len() > 1 && !timing.pass_ns.is_empty() {
        timing
            .pass_labels
            .iter()
            .cloned()
            .zip(timing.pass_median_ns().into_iter().map(|ns| ns / 1e6))
            .collect()
    } else {
        Vec::new()
    };
    Row {
        algorithm: c.algorithm.clone(),
        variant: c.variant.clone(),
        size: c.size,
        size_label: c.size_label.clone(),
        median_ms: med / 1e6,
        min_ms: timing.min_ns() / 1e6,
        throughput: value,
        unit: unit.into(),
        frac_of_copy: bytes.zip(copy_gbps).map(|(b, cg)| b / med / cg),
        verified: check.is_ok(),
        error: check.err(),
        time_source: match timing.source {
            TimeSource::Timestamps => "gpu timestamps".into(),
            TimeSource::Host => "host clock".into(),
        },
        passes,
        yardstick: None,
        ratio: None,
        yardstick_value: None,
        extra: Vec::new(),
    }
}

fn progress(total: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(total);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb
}

/// Runs the benchmark.
pub fn run(ctx: &Context, args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let caps = ctx.caps().clone();
    let simulated = ctx.is_simulator();
    let sizes: Vec<u64> = if args.sizes.is_empty() {
        default_sizes(&caps, simulated, args.quick)
    } else {
        let asked: Vec<u64> = args
            .sizes
            .iter()
            .map(|s| parse_size(s))
            .collect::<anyhow::Result<_>>()?;
        // a size whose 4-byte elements alone exceed the adapter's largest buffer fits no
        // algorithm: skipped here, before its inputs are generated (2^34 would otherwise
        // allocate 200 GiB of host memory before any plan could refuse it)
        let (fit, over): (Vec<u64>, Vec<u64>) = asked
            .into_iter()
            .partition(|&n| n.saturating_mul(4) <= caps.max_buffer);
        for n in over {
            eprintln!(
                "size {}: skipped: {} bytes of 4-byte elements exceed the adapter's largest buffer ({} bytes)",
                case::size_label(n),
                n.saturating_mul(4),
                caps.max_buffer
            );
        }
        fit
    };
    let wanted = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    let repeats = if simulated {
        args.repeats.min(2)
    } else {
        args.repeats
    };
    let warmup = if simulated { 0 } else { args.warmup };
    let machine = format!(
        "{} ({} CPUs)",
        hostname(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "wgsimd bench on {}{} | {} | {}",
        if ctx.is_simulator() {
            "the simulator of "
        } else {
            ""
        },
        caps.name,
        caps.backend,
        caps.driver
    );
    println!(
        "machine {machine} | subgroups {} | timing: {}",
        if caps.subgroups {
            format!("{}..={}", caps.subgroup_min, caps.subgroup_max)
        } else {
            "emulated".into()
        },
        if ctx.is_simulator() {
            "host clock (the simulator)"
        } else if caps.timestamps {
            "GPU timestamps"
        } else {
            "host clock (no timestamp queries)"
        }
    );
    let yardsticks = compare::load(&args.compare)?;

    let mut rows: Vec<Row> = Vec::new();
    let algos: Vec<_> = algorithms()
        .into_iter()
        .filter(|(n, _)| wanted(n))
        .collect();
    let pb = progress(sizes.len() as u64);

    // the copy yardstick: the largest size that fits one binding
    let mut copy_gbps = None;
    if let Some(&n) = sizes
        .iter()
        .filter(|&&n| n * 4 <= caps.max_storage_binding)
        .max()
    {
        pb.set_message(format!("copy {}", case::size_label(n)));
        // a failed copy is a FAILED row (and no copy fractions), not the end of the bench
        let c = case::copy_case(ctx, n)?;
        let row = match timing::time(ctx, &c, warmup, repeats) {
            Ok((timing, findings)) => row_from(&c, &timing, checked(ctx, &c, &findings), None),
            Err(e) => failed(&c, e.to_string()),
        };
        copy_gbps = row.verified.then_some(row.throughput);
        if wanted("copy") || !row.verified {
            rows.push(row);
        }
    }
    pb.inc(sizes.len() as u64);
    // jobs: (algorithm, size, size label, case builder); GEMM sizes are shapes (the size is the
    // largest dimension, as in its cases), the rest element counts
    type Build = Box<dyn Fn() -> wgsimd::Result<Vec<CaseMaker>>>;
    let mut jobs: Vec<(String, u64, String, Build)> = Vec::new();
    for (name, cases) in &algos {
        for &n in &sizes {
            let ctx = ctx.clone();
            let seed = args.seed;
            let f = *cases;
            jobs.push((
                name.to_string(),
                n,
                case::size_label(n),
                Box::new(move || f(&ctx, n, seed)),
            ));
        }
    }
    if simulated && args.sizes.is_empty() && !args.quick && wanted("sort") {
        // the simulator's speed yardstick: a full u32 sort of 2^20 keys
        let ctx = ctx.clone();
        let seed = args.seed;
        jobs.push((
            "sort".into(),
            1 << 20,
            "2^20".into(),
            Box::new(move || crate::cases::sort::bench_case_makers(&ctx, 1 << 20, seed)),
        ));
    }
    if wanted("gemm") {
        let shapes = if args.gemm_shapes.is_empty() {
            crate::cases::gemm::bench_shapes(&caps, simulated, args.quick)
        } else {
            args.gemm_shapes.clone()
        };
        for (m, n, k) in shapes {
            let ctx = ctx.clone();
            let seed = args.seed;
            jobs.push((
                "gemm".into(),
                m.max(n).max(k),
                format!("{m}x{n}x{k}"),
                Box::new(move || {
                    crate::cases::gemm::bench_cases_shape(&ctx, m, n, k, seed).map(case::ready)
                }),
            ));
        }
    }
    pb.set_length(sizes.len() as u64 + jobs.len() as u64);
    for (name, size, label, build) in &jobs {
        pb.set_message(format!("{name} {label}"));
        match build() {
            Ok(list) => {
                for (i, make) in list.into_iter().enumerate() {
                    if args.case.is_some_and(|want| want != i) {
                        continue;
                    }
                    let c = match make() {
                        Ok(c) => c,
                        Err(e) => {
                            let what = format!("case {i}");
                            rows.extend(unbuilt(&pb, name, &what, *size, label, &e));
                            continue;
                        }
                    };
                    let row = match timing::time(ctx, &c, warmup, repeats) {
                        Ok((timing, findings)) => {
                            let mut row =
                                row_from(&c, &timing, checked(ctx, &c, &findings), copy_gbps);
                            if let Some(extra) = &c.extra {
                                row.extra = extra(ctx, &timing);
                            }
                            row
                        }
                        Err(e) => failed(&c, e.to_string()),
                    };
                    // a line per finished case on stderr, so a long sweep cut short still shows
                    // what it measured
                    pb.suspend(|| {
                        eprintln!(
                            "done: {} {} {}: {:.4} ms median, {:.2} {}, {}",
                            row.algorithm,
                            row.variant,
                            row.size_label,
                            row.median_ms,
                            row.throughput,
                            row.unit,
                            if row.verified { "OK" } else { "FAILED" }
                        )
                    });
                    rows.push(row);
                }
            }
            Err(e) => rows.extend(unbuilt(&pb, name, "every case", *size, label, &e)),
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    if wanted("cpu") {
        rows.extend(cpu_baselines(&sizes, args.seed));
    }
    compare::annotate(&mut rows, &yardsticks);
    print_table(&rows, copy_gbps);
    if let Some(path) = &args.json {
        let sg = if caps.subgroups {
            format!("{}..={}", caps.subgroup_min, caps.subgroup_max)
        } else {
            "none".into()
        };
        let report = Report {
            machine,
            adapter: &caps.name,
            backend: if simulated {
                "simulator".to_string()
            } else {
                caps.backend.to_string()
            },
            driver: &caps.driver,
            subgroup_size: sg,
            copy_gbps,
            rows: &rows,
            yardsticks: &yardsticks,
        };
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.plot {
        plot::write(path, &rows, &caps.name)?;
        println!("wrote {}", path.display());
    }
    let failures = rows.iter().filter(|r| !r.verified).count();
    if failures > 0 {
        eprintln!("wgsimd bench: {failures} case(s) FAILED (a check, a run, or building the case)");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Says why a job's case `variant` (or the whole job) could not be built; a FAILED row for it
/// unless it is past the adapter's limits (`None`: skipped). Any other error, a shader or plan
/// error, fails the bench.
fn unbuilt(
    pb: &indicatif::ProgressBar,
    algorithm: &str,
    variant: &str,
    size: u64,
    size_label: &str,
    e: &wgsimd::Error,
) -> Option<Row> {
    let past_limits = matches!(e, wgsimd::Error::TooLarge(_) | wgsimd::Error::Limit { .. });
    let verdict = if past_limits {
        "skipped"
    } else {
        "FAILED to build"
    };
    pb.suspend(|| eprintln!("{algorithm} {size_label} {variant}: {verdict}: {e}"));
    (!past_limits).then(|| {
        failed_row(
            algorithm,
            variant,
            size,
            size_label,
            format!("building the case: {e}"),
        )
    })
}

fn failed(c: &Case, e: String) -> Row {
    failed_row(&c.algorithm, &c.variant, c.size, &c.size_label, e)
}

/// A row with no figures: the case failed (to build, to run, or its check).
fn failed_row(algorithm: &str, variant: &str, size: u64, size_label: &str, e: String) -> Row {
    Row {
        algorithm: algorithm.into(),
        variant: variant.into(),
        size,
        size_label: size_label.into(),
        median_ms: f64::NAN,
        min_ms: f64::NAN,
        throughput: f64::NAN,
        unit: String::new(),
        frac_of_copy: None,
        verified: false,
        error: Some(e),
        time_source: String::new(),
        passes: Vec::new(),
        yardstick: None,
        ratio: None,
        yardstick_value: None,
        extra: Vec::new(),
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| std::env::var("COMPUTERNAME").unwrap_or_else(|_| "unknown".into()))
}

/// CPU baselines at the same sizes, labelled `cpu`.
fn cpu_baselines(sizes: &[u64], seed: u64) -> Vec<Row> {
    use rand::{Rng, SeedableRng};
    let mut rows = Vec::new();
    let Some(&n) = sizes.iter().max() else {
        return rows;
    };
    let n = n.min(1 << 26) as usize;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let mut time = |variant: &str, f: &mut dyn FnMut() -> u64| {
        let mut ns = Vec::new();
        let mut last = 0;
        for _ in 0..5 {
            let t = Instant::now();
            last = std::hint::black_box(f());
            ns.push(t.elapsed().as_secs_f64() * 1e9);
        }
        let med = timing::median(&ns);
        let ok = last == wgsimd::reference::reduce::sum_u64(&data);
        rows.push(Row {
            algorithm: "reduce".into(),
            variant: format!("cpu {variant}"),
            size: n as u64,
            size_label: case::size_label(n as u64),
            median_ms: med / 1e6,
            min_ms: ns.iter().copied().fold(f64::INFINITY, f64::min) / 1e6,
            throughput: 4.0 * n as f64 / med,
            unit: "GB/s".into(),
            frac_of_copy: None,
            verified: ok,
            error: (!ok).then(|| "wrong sum".into()),
            time_source: "host clock".into(),
            passes: Vec::new(),
            yardstick: None,
            ratio: None,
            yardstick_value: None,
            extra: Vec::new(),
        });
    };
    time("sum u32 (1 thread)", &mut || {
        data.iter().map(|&x| x as u64).sum()
    });
    time(&format!("sum u32 ({threads} threads)"), &mut || {
        let chunk = data.len().div_ceil(threads).max(1);
        std::thread::scope(|s| {
            let hs: Vec<_> = data
                .chunks(chunk)
                .map(|c| s.spawn(move || c.iter().map(|&x| x as u64).sum::<u64>()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap_or(0)).sum()
        })
    });
    // sorts: std's sort_unstable and rayon's parallel sort, checked ordered (a permutation by
    // construction)
    let sort_n = n.min(1 << 24);
    let keys = &data[..sort_n];
    for (variant, parallel) in [
        ("keys u32 sort_unstable (1 thread)", false),
        ("keys u32 rayon par_sort_unstable", true),
    ] {
        let mut ns = Vec::new();
        let mut ok = true;
        for _ in 0..3 {
            let mut v = keys.to_vec();
            let t = Instant::now();
            if parallel {
                use rayon::slice::ParallelSliceMut;
                v.par_sort_unstable();
            } else {
                v.sort_unstable();
            }
            ns.push(t.elapsed().as_secs_f64() * 1e9);
            ok &= v.windows(2).all(|w| w[0] <= w[1]);
        }
        rows.push(cpu_row(
            "sort",
            variant,
            sort_n as u64,
            &ns,
            sort_n as f64,
            "Gkeys/s",
            ok,
        ));
    }
    // GEMM: matrixmultiply's sgemm (f32), checked on one entry against f64
    let g = 512usize;
    let a: Vec<f32> = (0..g * g).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..g * g).map(|i| (i % 5) as f32 - 2.0).collect();
    let mut c = vec![0f32; g * g];
    let mut ns = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        // SAFETY: a, b and c are g×g row-major matrices with the strides given
        unsafe {
            matrixmultiply::sgemm(
                g,
                g,
                g,
                1.0,
                a.as_ptr(),
                g as isize,
                1,
                b.as_ptr(),
                g as isize,
                1,
                0.0,
                c.as_mut_ptr(),
                g as isize,
                1,
            );
        }
        ns.push(t.elapsed().as_secs_f64() * 1e9);
    }
    let want: f64 = (0..g).map(|k| a[k] as f64 * b[k * g + 3] as f64).sum();
    let ok = (c[3] as f64 - want).abs() <= 1e-3 * want.abs().max(1.0);
    rows.push(cpu_row(
        "gemm",
        "f32 matrixmultiply",
        g as u64,
        &ns,
        2.0 * (g * g * g) as f64 / 1e3,
        "TFLOP/s",
        ok,
    ));
    rows
}

fn cpu_row(
    algorithm: &str,
    variant: &str,
    size: u64,
    ns: &[f64],
    work: f64,
    unit: &str,
    ok: bool,
) -> Row {
    let med = timing::median(ns);
    Row {
        algorithm: algorithm.into(),
        variant: format!("cpu {variant}"),
        size,
        size_label: if algorithm == "gemm" {
            format!("{size}x{size}x{size}")
        } else {
            case::size_label(size)
        },
        median_ms: med / 1e6,
        min_ms: ns.iter().copied().fold(f64::INFINITY, f64::min) / 1e6,
        throughput: work / med,
        unit: unit.into(),
        frac_of_copy: None,
        verified: ok,
        error: (!ok).then(|| "wrong result".into()),
        time_source: "host clock".into(),
        passes: Vec::new(),
        yardstick: None,
        ratio: None,
        yardstick_value: None,
        extra: Vec::new(),
    }
}

/// Three significant digits at least, so small CPU-adapter figures do not print as 0.0.
fn significant(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!(
            "{x:.*}",
            (2 - a.log10().floor() as i32).clamp(2, 9) as usize
        )
    }
}

fn print_table(rows: &[Row], copy_gbps: Option<f64>) {
    if let Some(c) = copy_gbps {
        println!("copy bandwidth (vec4 shader copy, read+write): {c:.1} GB/s");
    }
    println!(
        "{:<8} {:<38} {:>13} {:>10} {:>10} {:>17} {:>6} {:>8} {:<}",
        "algo", "variant", "size", "median ms", "min ms", "throughput", "copy%", "vs yard", "check"
    );
    for r in rows {
        let frac = r
            .frac_of_copy
            .map_or("-".into(), |f| format!("{:.0}%", f * 100.0));
        let ratio = r.ratio.map_or("-".into(), |x| format!("{x:.2}x"));
        let check = if r.verified {
            "OK".to_string()
        } else {
            format!("FAILED: {}", r.error.clone().unwrap_or_default())
        };
        println!(
            "{:<8} {:<38} {:>13} {:>10.4} {:>10.4} {:>9} {:<7} {:>6} {:>8} {}",
            r.algorithm,
            r.variant,
            r.size_label,
            r.median_ms,
            r.min_ms,
            significant(r.throughput),
            r.unit,
            frac,
            ratio,
            check
        );
        if !r.passes.is_empty() {
            let parts: Vec<String> = r
                .passes
                .iter()
                .map(|(l, ms)| format!("{l} {ms:.4}"))
                .collect();
            println!("{:<8} {:<38} passes (ms): {}", "", "", parts.join(" | "));
        }
        if !r.extra.is_empty() {
            let parts: Vec<String> = r
                .extra
                .iter()
                .map(|(name, v)| format!("{name} {}", significant(*v)))
                .collect();
            println!("{:<8} {:<38} {}", "", "", parts.join(" | "));
        }
        if let (Some(y), Some(_)) = (&r.yardstick, r.ratio) {
            println!("{:<8} {:<38} yardstick: {y}", "", "");
        }
    }
}

/// `MxNxK` (each at least 1).
fn parse_shape(s: &str) -> Result<(u64, u64, u64), String> {
    let dims: Vec<u64> = s
        .split('x')
        .map(|d| d.trim().parse::<u64>().map_err(|e| format!("{s}: {e}")))
        .collect::<Result<_, _>>()?;
    match dims[..] {
        [m, n, k] if m > 0 && n > 0 && k > 0 => Ok((m, n, k)),
        _ => Err(format!(
            "{s}: expected MxNxK with every dimension at least 1"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report with a failed case (NaN figures, written as `null`) is read back by `wgsimd plot`.
    #[test]
    fn a_failed_row_survives_the_json_round_trip() {
        let json = r#"{"algorithm": "sort", "variant": "keys u32", "size": 4, "size_label": "4",
            "median_ms": null, "min_ms": null, "throughput": null, "unit": "", "frac_of_copy": null,
            "verified": false, "error": "out of memory", "time_source": "", "passes": [],
            "yardstick": null, "ratio": null}"#;
        let row: Row = serde_json::from_str(json).unwrap();
        assert!(row.median_ms.is_nan() && row.min_ms.is_nan() && row.throughput.is_nan());
        let again: Row = serde_json::from_str(&serde_json::to_string(&row).unwrap()).unwrap();
        assert!(again.throughput.is_nan() && !again.verified);
    }

    /// A case that cannot be built is a FAILED row with its name, unless it is past the
    /// adapter's limits (skipped: no row, no failure).
    #[test]
    fn an_unbuilt_case_is_a_failed_row_unless_too_large() {
        let pb = indicatif::ProgressBar::hidden();
        let shader = wgsimd::Error::Shader {
            name: "sort/onesweep".into(),
            message: "bad".into(),
        };
        let row = unbuilt(&pb, "sort", "case 3", 1 << 24, "2^24", &shader).unwrap();
        assert!(!row.verified && row.throughput.is_nan());
        assert_eq!(
            (row.algorithm.as_str(), row.variant.as_str()),
            ("sort", "case 3")
        );
        assert_eq!((row.size, row.size_label.as_str()), (1 << 24, "2^24"));
        assert!(row.error.unwrap().contains("sort/onesweep"));
        let too_large = wgsimd::Error::TooLarge("past the binding".into());
        assert!(unbuilt(
            &pb,
            "gemm",
            "every case",
            8192,
            "8192x8192x8192",
            &too_large
        )
        .is_none());
    }

    #[test]
    fn no_subcommand_takes_the_documented_defaults() {
        let a = BenchArgs::default();
        assert_eq!((a.repeats, a.warmup, a.seed), (10, 2, 1));
        assert!(!a.quick && a.sizes.is_empty() && a.json.is_none());
    }
}
