//! The simulator's speed: sorts random u32 keys (OneSweep, as on the `h100` profile) on simulated
//! lanes at each subgroup size, once under lockstep alone and once under the default exploration
//! of schedules, every checker on, and prints per run the wall time, the process's CPU time
//! (user + system, where `/proc/self/stat` exists), the statements and lane-operations executed
//! and lane-operations per CPU second. Exits non-zero if a sort comes out wrong or has findings.
//!
//! `cargo run --release --example sim_speed [-- [KEYS] [SIZES] [SCHEDULES] [THREADS]]`: KEYS
//! (default 2^20; `2^N` or a count), SIZES (default `4,8,32,64,128`), SCHEDULES (`--schedules`
//! of the CLI: `N` or a list; default both lockstep alone and the default exploration; `-`
//! for the default), THREADS (`SimConfig::threads`: 0, the default, one per core; 1, the
//! schedules one after another).

use std::time::Instant;

use rand::{Rng, SeedableRng};
use wgsimd::sim::{Schedule, SimConfig};
use wgsimd::sort::{sort_keys, SortOptions};
use wgsimd::Context;

/// User + system CPU seconds of this process so far (`/proc/self/stat`, in clock ticks of
/// 1/100 s, the fixed `USER_HZ` of Linux's interface), or `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the fields after the command name, which is in parentheses and may hold spaces
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    // fields 14 and 15 of the line (utime, stime) are 11 and 12 after the name
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn count(s: &str) -> Result<usize, String> {
    match s.strip_prefix("2^") {
        Some(e) => e
            .parse::<u32>()
            .ok()
            .filter(|&e| e < 31)
            .map(|e| 1usize << e),
        None => s.parse().ok(),
    }
    .ok_or_else(|| format!("bad key count {s:?}"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = count(args.first().map_or("2^20", String::as_str))?;
    let sizes: Vec<u32> = args
        .get(1)
        .map_or("4,8,32,64,128", String::as_str)
        .split(',')
        .map(|s| s.trim().parse())
        .collect::<Result<_, _>>()?;
    let threads: usize = args.get(3).map_or(Ok(0), |t| t.parse())?;
    let explorations: Vec<(String, Vec<Schedule>)> = match args.get(2).filter(|s| *s != "-") {
        Some(s) => vec![(s.clone(), Schedule::parse_list(s)?)],
        None => vec![
            ("lockstep".into(), vec![Schedule::Lockstep]),
            ("default".into(), Schedule::DEFAULT.to_vec()),
        ],
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let keys: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let mut want = keys.clone();
    want.sort_unstable();
    println!(
        "{n} u32 keys, h100 profile, every checker on, schedules on {threads} threads (0: one \
         per core); time per sort: wall, CPU (user + system)"
    );
    println!("subgroups  schedules  wall s  CPU s  statements  lane-ops  lane-ops/CPU s");
    for &s in &sizes {
        for (name, schedules) in &explorations {
            let config = SimConfig {
                subgroup_size: s,
                schedules: schedules.clone(),
                threads,
                ..SimConfig::default()
            };
            let ctx = Context::simulator(config)?;
            let sim = ctx.sim().ok_or("not a simulator")?.clone();
            let (c0, t0) = (cpu_seconds(), Instant::now());
            let got = sort_keys(&ctx, &keys, &SortOptions::default())?;
            let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds());
            if got != want {
                return Err(format!("subgroups of {s}, {name}: the sort came out wrong").into());
            }
            let cpu = c0.zip(cpu).map(|(a, b)| b - a);
            let st = sim.stats();
            let per = cpu.unwrap_or(wall).max(1e-9);
            println!(
                "{s:>9}  {name:>9}  {wall:>6.2}  {:>5}  {:>10.3e}  {:>8.3e}  {:>14.3e}",
                cpu.map_or("-".into(), |c| format!("{c:.2}")),
                st.statements as f64,
                st.lane_ops as f64,
                st.lane_ops as f64 / per,
            );
        }
    }
    Ok(())
}
