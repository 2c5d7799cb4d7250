//! A small test runner: each test runs once per target it applies to, GPU trials without an
//! adapter are reported as skipped (and counted), failures show the panic's message.
//!
//! Arguments as libtest takes them, as far as `cargo test` passes them: name filters
//! (substrings; `--exact` for whole names), `--skip FILTER`, `--list`, `--test-threads N`.
//! `WGSIMD_REQUIRE_GPU=1` turns every skipped GPU trial into a failure (CI has lavapipe).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::targets::{Slot, Target, Targets};

/// Which targets a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum On {
    /// Every target: the simulator at each configuration, the GPU in both flavours.
    Every,
    /// The GPU targets only (sizes or features the simulator is too slow for).
    Gpu,
    /// Once, on the first simulator target: tests of the API that do not depend on the device.
    Once,
}

/// One test: a name and what it does on a target (panicking on failure).
pub struct Test {
    /// `module::name`.
    pub name: &'static str,
    /// Where it runs.
    pub on: On,
    /// The test.
    pub run: fn(&Target),
}

impl Test {
    /// A test on `on`.
    pub const fn new(name: &'static str, on: On, run: fn(&Target)) -> Test {
        Test { name, on, run }
    }
}

/// A test function and the target it runs on.
type Run = (fn(&Target), Arc<Target>);

struct Trial {
    name: String,
    run: Option<Run>,
    /// Why it cannot run here.
    skip: Option<String>,
}

struct Args {
    filters: Vec<String>,
    skips: Vec<String>,
    exact: bool,
    list: bool,
    threads: usize,
}

fn parse_args() -> Args {
    let mut args = Args {
        filters: Vec::new(),
        skips: Vec::new(),
        exact: false,
        list: false,
        threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
    };
    if let Some(n) = std::env::var("RUST_TEST_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        args.threads = n;
    }
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--exact" => args.exact = true,
            "--list" => args.list = true,
            "--skip" => args.skips.extend(it.next()),
            "--test-threads" => {
                if let Some(n) = it.next().and_then(|v| v.parse().ok()) {
                    args.threads = n;
                }
            }
            "--format" | "--color" | "-Z" | "--logfile" => {
                it.next();
            }
            _ if a.starts_with("--test-threads=") => {
                if let Ok(n) = a["--test-threads=".len()..].parse() {
                    args.threads = n;
                }
            }
            _ if a.starts_with('-') => {}
            _ => args.filters.push(a),
        }
    }
    args.threads = args.threads.max(1);
    args
}

impl Args {
    fn selects(&self, name: &str) -> bool {
        let hit = |f: &String| {
            if self.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        };
        (self.filters.is_empty() || self.filters.iter().any(hit))
            && !self.skips.iter().any(|s| name.contains(s.as_str()))
    }
}

thread_local! {
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `tests` on `targets` and exits with libtest's status: 0 when nothing failed.
pub fn main(tests: Vec<Test>, targets: Targets) -> std::process::ExitCode {
    let args = parse_args();
    let require_gpu = std::env::var("WGSIMD_REQUIRE_GPU").is_ok_and(|v| v == "1");
    let mut trials = Vec::new();
    for t in &tests {
        for target in targets.for_test(t.on) {
            let name = format!("{}::{}", t.name, target.name());
            if !args.selects(&name) {
                continue;
            }
            trials.push(match target {
                Slot::Ok(target) => Trial {
                    name,
                    run: Some((t.run, target)),
                    skip: None,
                },
                Slot::Err(missing) => Trial {
                    name,
                    run: None,
                    skip: Some(missing.reason.clone()),
                },
            });
        }
    }
    if args.list {
        for t in &trials {
            println!("{}: test", t.name);
        }
        return std::process::ExitCode::SUCCESS;
    }

    panic::set_hook(Box::new(|info| {
        let msg = match info.payload().downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "(panic with a non-string payload)".into()),
        };
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{at}")));
    }));

    println!("\nrunning {} tests", trials.len());
    let start = Instant::now();
    let queue = Arc::new(Mutex::new(trials.into_iter().collect::<VecDeque<_>>()));
    let results = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..args.threads)
        .map(|_| {
            let queue = queue.clone();
            let results = results.clone();
            std::thread::spawn(move || loop {
                let Some(trial) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let outcome = run_trial(&trial, require_gpu);
                let line = match &outcome {
                    Outcome::Passed(s) => format!("test {} ... ok ({s:.1}s)", trial.name),
                    Outcome::Skipped(why) => format!("test {} ... skipped: {why}", trial.name),
                    Outcome::Failed(_) => format!("test {} ... FAILED", trial.name),
                };
                println!("{line}");
                let _ = std::io::stdout().flush();
                results.lock().unwrap().push((trial.name, outcome));
            })
        })
        .collect();
    for w in workers {
        w.join().expect("test worker");
    }
    let results = std::mem::take(&mut *results.lock().unwrap());
    let failed: Vec<_> = results
        .iter()
        .filter_map(|(n, o)| match o {
            Outcome::Failed(msg) => Some((n, msg)),
            _ => None,
        })
        .collect();
    let skipped = results
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Skipped(_)))
        .count();
    let passed = results.len() - failed.len() - skipped;
    if !failed.is_empty() {
        println!("\nfailures:");
        for (name, msg) in &failed {
            println!("\n---- {name} ----\n{msg}");
        }
        println!("\nfailures:");
        for (name, _) in &failed {
            println!("    {name}");
        }
    }
    if skipped > 0 {
        eprintln!(
            "\nnote: {skipped} GPU test(s) skipped: {} (WGSIMD_REQUIRE_GPU=1 fails them)",
            targets.gpu_missing().unwrap_or("no GPU adapter")
        );
    }
    println!(
        "\ntest result: {}. {passed} passed; {} failed; {skipped} skipped (no GPU); finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len(),
        start.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(101)
    }
}

enum Outcome {
    Passed(f64),
    Skipped(String),
    Failed(String),
}

fn run_trial(trial: &Trial, require_gpu: bool) -> Outcome {
    let Some((run, target)) = &trial.run else {
        let why = trial.skip.clone().unwrap_or_default();
        return if require_gpu {
            Outcome::Failed(format!("WGSIMD_REQUIRE_GPU=1 but {why}"))
        } else {
            Outcome::Skipped(why)
        };
    };
    let t0 = Instant::now();
    match panic::catch_unwind(AssertUnwindSafe(|| run(target))) {
        Ok(()) => Outcome::Passed(t0.elapsed().as_secs_f64()),
        Err(_) => Outcome::Failed(
            PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "panicked".into()),
        ),
    }
}
