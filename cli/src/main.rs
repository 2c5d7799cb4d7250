//! `wgsimd`: the headless benchmark (default), device info, and one command per algorithm.
//!
//! Every command takes `--backend auto|gpu|sim` and the simulator's `--profile P`,
//! `--subgroup-size N`, `--shuffle-lanes SEED` and `--schedules N|LIST`. Errors are
//! one line on stderr with a non-zero exit code; commands that write files write them atomically.

mod backend;
mod bench;
mod case;
mod cases;
mod check_cmd;
mod compare;
mod gemm_cmd;
mod histogram_cmd;
mod kernels_cmd;
mod npy;
mod pipeline_cmd;
mod plot;
mod reduce_cmd;
mod replay_cmd;
mod row;
mod scan_cmd;
mod select_cmd;
mod sort_cmd;
mod timing;
mod topk_cmd;
mod unique_cmd;

use std::process::ExitCode;

use crate::backend::{Backend, SimSettings};
use clap::{Args, Parser, Subcommand};
use wgsimd::Context;

#[derive(Parser)]
#[command(
    name = "wgsimd",
    version,
    about = "Portable GPU SIMD kernels: benchmark, run, check"
)]
struct Cli {
    #[command(flatten)]
    exec: ExecArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

/// Executor selection, shared by every command.
#[derive(Args, Clone, Debug)]
pub struct ExecArgs {
    /// auto (GPU if any, else simulator), gpu, or sim.
    #[arg(long, global = true, default_value = "auto")]
    backend: String,
    /// Simulator: the device profile simulated (h100, apple-m, lavapipe).
    #[arg(long, global = true, default_value = "h100")]
    profile: String,
    /// Simulator subgroup size (power of two, 4..=128; default: the profile's).
    #[arg(long, global = true)]
    subgroup_size: Option<u32>,
    /// Simulator: permute the lane layout with this seed.
    #[arg(long, global = true)]
    shuffle_lanes: Option<u64>,
    /// Simulator: the schedules every submission runs under, their outputs compared: N (the
    /// first N of the exploration sequence; 1 is lockstep alone) or a list of lockstep,
    /// round-robin, random:SEED, run-ahead:SEED. Default: lockstep, round-robin, random:1,
    /// run-ahead:1.
    #[arg(long, global = true)]
    schedules: Option<String>,
    /// Simulator: under the interleaving schedules, the workgroups of a dispatch whose
    /// subgroups run as independent threads: N or `all` (default 8; the others keep their
    /// subgroups in lockstep).
    #[arg(long, global = true)]
    threaded_workgroups: Option<String>,
}

impl ExecArgs {
    fn open(&self) -> anyhow::Result<Context> {
        let backend: Backend = self.backend.parse()?;
        Ok(backend::open(backend, &self.sim()?)?)
    }

    fn sim(&self) -> anyhow::Result<SimSettings> {
        if let Some(s) = self.subgroup_size {
            if !(4..=128).contains(&s) || !s.is_power_of_two() {
                anyhow::bail!("--subgroup-size must be a power of two in 4..=128, not {s}");
            }
        }
        let schedules = match &self.schedules {
            Some(s) => Some(wgsimd::sim::Schedule::parse_list(s)?),
            None => None,
        };
        let threaded_workgroups = match self.threaded_workgroups.as_deref() {
            None => None,
            Some("all") => Some(None),
            Some(n) => match n.parse::<u32>() {
                Ok(n) => Some(Some(n)),
                Err(_) => {
                    anyhow::bail!("--threaded-workgroups must be a count or `all`, not {n:?}")
                }
            },
        };
        Ok(SimSettings {
            profile: self.profile.clone(),
            subgroup_size: self.subgroup_size,
            shuffle_lanes: self.shuffle_lanes,
            schedules,
            threaded_workgroups,
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Time and verify every algorithm (the default command).
    Bench(bench::BenchArgs),
    /// Print the adapter, backend, driver, subgroup sizes, features and key limits.
    Info,
    /// Reduce a .npy array: sum, min or max; the result is the last line of stdout. With
    /// --by-key, each run of equal consecutive keys' values, to .npy files.
    Reduce(reduce_cmd::ReduceArgs),
    /// Count a .npy array's samples (uint8, uint32, int32, float32) in even bins over
    /// [LO, HI); the counts as a uint32 .npy.
    Histogram(histogram_cmd::HistogramArgs),
    /// Select a .npy array's elements by a flags .npy (stable); with --partition every element,
    /// the selected first, and their count on the last line of stdout.
    Select(select_cmd::SelectArgs),
    /// Scan a .npy array (exclusive, or --inclusive) by sum, min, max or an operator in a WGSL
    /// file; the prefixes as a .npy.
    Scan(scan_cmd::ScanArgs),
    /// The k largest (or --smallest) of a .npy array, or of each row of a 2-D one, with their
    /// indices, as .npy files.
    Topk(topk_cmd::TopkArgs),
    /// The runs of equal consecutive elements of a .npy array: each run's value, and with
    /// --counts-out its length.
    Unique(unique_cmd::UniqueArgs),
    /// Run one WGSL entry point on the simulator and report porting bugs (exit 0 clean, 1
    /// findings, 2 error).
    Check(check_cmd::CheckArgs),
    /// Run several passes over shared, named buffers (a JSON pipeline file) on the simulator,
    /// state kept between passes; findings per pass (exit 0 clean, 1 findings, 2 error).
    Pipeline(pipeline_cmd::PipelineArgs),
    /// Run every compute dispatch of a wgpu API trace folder on the simulator; findings against
    /// the application's shaders (exit 0 clean, 1 findings, 2 error).
    Replay(replay_cmd::ReplayArgs),
    /// Sort a .npy array (uint32, int32, float32, uint64, int64, float64), optionally with uint32
    /// values, or each segment of it by uint32 offsets; stable.
    Sort(sort_cmd::SortArgs),
    /// Multiply two .npy matrices: C (M,N) = A (M,K) · B (K,N), float32 or float16; C float32 (or float16 with --out-dtype).
    Gemm(gemm_cmd::GemmArgs),
    /// Draw a saved `bench --json` report as an .svg or .png plot.
    Plot(bench::PlotArgs),
    /// Write every shipped kernel stage as one composed WGSL file (includes resolved, overrides
    /// at their defaults) under a folder, for reading, porting or other tools.
    Kernels(kernels_cmd::KernelsArgs),
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli
        .command
        .unwrap_or_else(|| Command::Bench(bench::BenchArgs::default()))
    {
        Command::Bench(args) => bench::run(&cli.exec.open()?, &args),
        Command::Info => info(&cli.exec),
        Command::Reduce(args) => reduce_cmd::run(&cli.exec.open()?, &args),
        Command::Histogram(args) => histogram_cmd::run(&cli.exec.open()?, &args),
        Command::Select(args) => select_cmd::run(&cli.exec.open()?, &args),
        Command::Scan(args) => scan_cmd::run(&cli.exec.open()?, &args),
        Command::Topk(args) => topk_cmd::run(&cli.exec.open()?, &args),
        Command::Unique(args) => unique_cmd::run(&cli.exec.open()?, &args),
        // a bad simulator option is a usage error: exit 2, as these commands document (1 is
        // findings)
        Command::Check(args) => match cli.exec.sim() {
            Ok(sim) => check_cmd::run(&args, &sim),
            Err(e) => Ok(check_cmd::usage("check", e)),
        },
        Command::Pipeline(args) => match cli.exec.sim() {
            Ok(sim) => pipeline_cmd::run(&args, &sim),
            Err(e) => Ok(check_cmd::usage("pipeline", e)),
        },
        Command::Replay(args) => match cli.exec.sim() {
            Ok(sim) => replay_cmd::run(&args, &sim),
            Err(e) => Ok(check_cmd::usage("replay", e)),
        },
        Command::Sort(args) => sort_cmd::run(&cli.exec.open()?, &args),
        Command::Gemm(args) => gemm_cmd::run(&cli.exec.open()?, &args),
        Command::Plot(args) => bench::replot(&args),
        Command::Kernels(args) => kernels_cmd::run(&args),
    }
}

fn info(exec: &ExecArgs) -> anyhow::Result<ExitCode> {
    let backend: Backend = exec.backend.parse()?;
    if backend != Backend::Sim {
        let adapters = wgsimd::gpu::list_adapters();
        if adapters.is_empty() {
            println!("no GPU adapter found");
        }
        for a in &adapters {
            let i = a.get_info();
            println!("adapter: {} ({:?}, {:?})", i.name, i.backend, i.device_type);
        }
    }
    let e = exec.open()?;
    let c = e.caps();
    println!("selected: {}", c.name);
    println!("backend: {}", c.backend);
    println!("driver: {}", c.driver);
    if c.subgroups {
        println!(
            "subgroups: yes, size {}..={}",
            c.subgroup_min, c.subgroup_max
        );
    } else {
        println!("subgroups: no (workgroup-memory emulation)");
    }
    println!("f16: {}", if c.f16 { "yes" } else { "no" });
    println!("timestamps: {}", if c.timestamps { "yes" } else { "no" });
    if c.cooperative_matrix.is_empty() {
        println!("cooperative matrix: none");
    }
    for m in &c.cooperative_matrix {
        println!(
            "cooperative matrix: {}x{}x{} {} -> {}",
            m.m, m.n, m.k, m.ab, m.acc
        );
    }
    println!(
        "max storage binding: {} MiB ({} bytes)",
        c.max_storage_binding >> 20,
        c.max_storage_binding
    );
    println!(
        "max buffer: {} MiB ({} bytes)",
        c.max_buffer >> 20,
        c.max_buffer
    );
    println!("workgroup memory: {} KiB", c.max_workgroup_storage >> 10);
    println!("max workgroups per dimension: {}", c.max_workgroups_per_dim);
    println!("storage offset alignment: {} B", c.storage_offset_alignment);
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e)
            if e.use_stderr()
                && e.kind() != clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            eprintln!("wgsimd: error: {}", usage_line(&e.render().to_string()));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version (exit 0), or the help where no subcommand is given (2)
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wgsimd: error: {}", format!("{e:#}").replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

/// clap's usage error on one line: its message (with any tip) and the usage, without the
/// "error: " it starts with and the pointer to `--help`.
fn usage_line(rendered: &str) -> String {
    let mut parts = Vec::new();
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("For more information") {
            continue;
        }
        if let Some(u) = line.strip_prefix("Usage: ") {
            parts.push(format!("(usage: {u})"));
        } else if line.starts_with("tip: ") {
            parts.push(format!("({line})"));
        } else {
            parts.push(line.strip_prefix("error: ").unwrap_or(line).to_string());
        }
    }
    parts.join(" ")
}
