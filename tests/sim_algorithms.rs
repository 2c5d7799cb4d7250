//! Every shipped algorithm on the simulator at subgroup sizes 4..=128 (and with shuffled lanes):
//! zero findings and results equal to the CPU references, at small sizes.

mod common;

use wgsimd::reduce::{self, ReduceOp, ReducePolicy, Scalar};
use wgsimd::sim::{Scheduler, SimConfig, SimExecutor};
use wgsimd::{reference, scan, Executor};

const SUBGROUP_SIZES: [u32; 6] = [4, 8, 16, 32, 64, 128];

fn sims() -> Vec<(String, SimExecutor)> {
    let mut v = Vec::new();
    for s in SUBGROUP_SIZES {
        let cfg = SimConfig {
            subgroup_size: s,
            ..Default::default()
        };
        v.push((format!("sg{s}"), SimExecutor::new(cfg).unwrap()));
    }
    for (s, seed) in [(8, 1u64), (32, 2)] {
        let cfg = SimConfig {
            subgroup_size: s,
            shuffle_lanes: Some(seed),
            scheduler: Scheduler::Shuffled(seed),
            ..Default::default()
        };
        v.push((
            format!("sg{s} shuffled lanes {seed}"),
            SimExecutor::new(cfg).unwrap(),
        ));
    }
    v
}

fn no_findings(what: &str, out: &wgsimd::RunOutput) {
    let real: Vec<_> = out.findings.iter().collect();
    assert!(
        real.is_empty(),
        "{what}: findings:\n{}",
        real.iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

const SIZES: [usize; 5] = [1, 7, 257, 1030, 5000];

#[test]
fn reduce_on_sim() {
    for (name, sim) in sims() {
        for &n in &SIZES {
            let x = common::random_u32(n, n as u64);
            let xi: Vec<i32> = x.iter().map(|&v| v as i32).collect();
            let xf: Vec<f32> = x.iter().map(|&v| (v % 2000) as f32 - 1000.5).collect();
            for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
                let what = format!("{name} n={n} {op:?}");
                // u32
                let p = reduce::plan(sim.caps(), &x, op, ReducePolicy::default()).unwrap();
                let out = sim.run(&p.plan).unwrap();
                no_findings(&what, &out);
                let got = p.decode(&out).unwrap();
                let want = match op {
                    ReduceOp::Sum => Scalar::U64(reference::reduce::sum_u64(&x)),
                    _ => Scalar::U32(reference::reduce::minmax(&x, op == ReduceOp::Max).unwrap()),
                };
                assert_eq!(got, want, "{what} u32");
                // i32
                let p = reduce::plan(sim.caps(), &xi, op, ReducePolicy::default()).unwrap();
                let out = sim.run(&p.plan).unwrap();
                no_findings(&what, &out);
                let got = p.decode(&out).unwrap();
                let want = match op {
                    ReduceOp::Sum => Scalar::I64(reference::reduce::sum_i64(&xi)),
                    _ => Scalar::I32(reference::reduce::minmax(&xi, op == ReduceOp::Max).unwrap()),
                };
                assert_eq!(got, want, "{what} i32");
                // f32
                let p = reduce::plan(sim.caps(), &xf, op, ReducePolicy::default()).unwrap();
                let out = sim.run(&p.plan).unwrap();
                no_findings(&what, &out);
                let got = p.decode(&out).unwrap();
                match op {
                    ReduceOp::Sum => {
                        let (s, a) = reference::reduce::sum_f32(&xf);
                        let Scalar::F32(g) = got else {
                            panic!("{what}: {got:?}")
                        };
                        assert!(
                            ((g as f64) - s).abs() <= 1e-6 * a.max(1.0),
                            "{what} f32 {g} vs {s}"
                        );
                    }
                    _ => {
                        let w = reference::reduce::minmax(&xf, op == ReduceOp::Max).unwrap();
                        assert_eq!(got, Scalar::F32(w), "{what} f32");
                    }
                }
            }
        }
    }
}

#[test]
fn scan_on_sim() {
    for (name, sim) in sims() {
        for &n in &SIZES {
            let x = common::random_u32(n, 7 + n as u64);
            for inclusive in [false, true] {
                let p = scan::plan(sim.caps(), &x, inclusive).unwrap();
                let out = sim.run(&p.plan).unwrap();
                no_findings(&format!("{name} n={n} scan"), &out);
                assert_eq!(
                    p.decode(&out),
                    reference::scan::scan_u32(&x, inclusive),
                    "{name} n={n} inclusive={inclusive}"
                );
            }
        }
    }
}

/// The check of the check: a perturbed result must not equal the reference.
#[test]
fn perturbed_result_is_caught() {
    let sim = SimExecutor::new(SimConfig::default()).unwrap();
    let x = common::random_u32(1000, 3);
    let p = scan::plan(sim.caps(), &x, false).unwrap();
    let out = sim.run(&p.plan).unwrap();
    let mut got = p.decode(&out);
    assert_eq!(got, reference::scan::scan_u32(&x, false));
    got[500] ^= 1;
    assert_ne!(got, reference::scan::scan_u32(&x, false));
}

/// The utility kernels (`wgsl/util/`) on the simulator: copy and fill, odd sizes, every
/// subgroup size.
#[test]
fn util_kernels_on_sim() {
    use wgsimd::kernel::{self, Flavor};
    use wgsimd::plan::{BufferInit, Plan, Workgroups};
    let copy = kernel::load("util/copy", Flavor::Subgroup).unwrap();
    let fill = kernel::load("util/fill", Flavor::Subgroup).unwrap();
    for (name, sim) in sims() {
        for words in [4usize, 1028, 4100] {
            let x = common::random_u32(words, 9);
            let mut plan = Plan::new("util");
            let src = plan.upload("src", &x);
            let dst = plan.buffer("dst", words as u64 * 4, BufferInit::Poison);
            let filled = plan.buffer("filled", words as u64 * 4, BufferInit::Poison);
            plan.read_back(dst);
            plan.read_back(filled);
            plan.pass(
                "copy",
                &copy,
                "main",
                &[],
                &[src, dst],
                Workgroups::Direct([3, 1, 1]),
            );
            plan.pass(
                "fill",
                &fill,
                "main",
                &[("VALUE", 7.0)],
                &[filled],
                Workgroups::Direct([2, 1, 1]),
            );
            let out = sim.run(&plan).unwrap();
            no_findings(&format!("{name} util {words}"), &out);
            assert_eq!(out.get::<u32>(dst), x);
            assert!(out.get::<u32>(filled).iter().all(|&v| v == 7));
        }
    }
}
