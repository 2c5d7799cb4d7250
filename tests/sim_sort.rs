//! The radix sort on the simulator: every strategy at subgroup sizes 4..=128, with shuffled
//! lanes and workgroup order, and the workgroup-memory flavour; sorted, a permutation (pairs
//! carry their index), and zero findings, at small sizes.

mod common;

use wgsimd::sim::{Scheduler, SimConfig, SimExecutor};
use wgsimd::sort::{self, SortOptions, SortPolicy, Strategy};
use wgsimd::Executor;

fn sims() -> Vec<(String, SimExecutor)> {
    let mut v: Vec<(String, SimExecutor)> = [4u32, 8, 16, 32, 64, 128]
        .iter()
        .map(|&s| {
            let cfg = SimConfig {
                subgroup_size: s,
                ..Default::default()
            };
            (format!("sg{s}"), SimExecutor::new(cfg).unwrap())
        })
        .collect();
    let cfg = SimConfig {
        subgroup_size: 16,
        shuffle_lanes: Some(4),
        scheduler: Scheduler::Shuffled(4),
        ..Default::default()
    };
    v.push(("sg16 shuffled".into(), SimExecutor::new(cfg).unwrap()));
    let cfg = SimConfig {
        subgroups: false,
        ..Default::default()
    };
    v.push(("emulated".into(), SimExecutor::new(cfg).unwrap()));
    v
}

#[test]
fn sort_on_sim() {
    let mut failures = Vec::new();
    for (name, sim) in sims() {
        for n in [1usize, 5003] {
            let keys = common::random_u32(n, n as u64 + 1);
            let vals: Vec<u32> = (0..n as u32).collect();
            for strategy in [
                Strategy::ReduceThenScan,
                Strategy::OneSweep,
                Strategy::Hybrid,
            ] {
                if strategy == Strategy::OneSweep && !sim.caps().subgroups {
                    continue;
                }
                let opts = SortOptions {
                    strategy: Some(strategy),
                    ..Default::default()
                };
                let p = sort::plan(
                    sim.caps(),
                    &keys,
                    Some(&vals),
                    &opts,
                    &SortPolicy::default(),
                )
                .unwrap();
                let out = sim.run(&p.plan).unwrap();
                let what = format!("{name} n={n} {strategy}");
                for f in &out.findings {
                    failures.push(format!("{what}: {f}"));
                }
                let k: Vec<u32> = p.keys(&out);
                let v = p.values(&out);
                let mut want: Vec<(u32, u32)> =
                    keys.iter().copied().zip(vals.iter().copied()).collect();
                want.sort_by_key(|&(k, _)| k); // stable
                let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
                if got != want {
                    failures.push(format!("{what}: wrong result"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
