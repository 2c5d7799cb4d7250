//! The shipped algorithms under the default exploration of schedules (`wgsimd::sim::schedule`)
//! at subgroups of 8 and 64 (the behaviour suite runs every case at 4, 32 and 128): each sort,
//! reduction, scan and queue run is clean under every schedule and right. Sizes are a few
//! tiles, enough for OneSweep's look-back and the reductions' last-workgroup fold to meet
//! interleaved and suspended workgroups.

use wgsimd::queue::{self, QueuePolicy, QueueProblem};
use wgsimd::reduce::{reduce, ReduceOp, Scalar};
use wgsimd::reference::sort::{check_keys, check_pairs, Order};
use wgsimd::sim::{Scheduler, SimConfig};
use wgsimd::sort::{sort_keys_with, sort_pairs_with, SortOptions, SortPolicy, Strategy};
use wgsimd::{Caps, Context};

/// The H100 profile at `sg` lanes under the default exploration, lanes and workgroup order
/// shuffled.
fn sim(sg: u32) -> Context {
    let config = SimConfig {
        subgroup_size: sg,
        shuffle_lanes: Some(sg as u64),
        scheduler: Scheduler::Shuffled(sg as u64),
        ..SimConfig::for_profile(Caps::h100())
    };
    assert_eq!(config.schedules, wgsimd::sim::Schedule::DEFAULT);
    Context::simulator(config).unwrap()
}

fn keys(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i ^ seed).wrapping_mul(0x9E37_79B1).rotate_left(7))
        .collect()
}

#[test]
fn onesweep_is_clean_under_the_default_exploration() {
    for sg in [8, 64] {
        let ctx = sim(sg);
        let o = SortOptions {
            strategy: Some(Strategy::OneSweep),
            ..SortOptions::default()
        };
        let small = SortPolicy {
            poison_between_passes: true,
            ..SortPolicy::default()
        };
        // the large tiles (8192 keys) forced at a small size
        let large = SortPolicy {
            onesweep_small_keys_max: 0,
            onesweep_small_pairs_max: 0,
            ..small
        };
        for (policy, n) in [(small, 3 * 4096 + 5), (large, 2 * 8192 + 7)] {
            let k = keys(n, sg);
            let out = sort_keys_with(&ctx, &k, &o, &policy).unwrap_or_else(|e| panic!("{sg}: {e}"));
            check_keys(&k, &out, Order::default()).unwrap_or_else(|e| panic!("{sg}: {e}"));
            let values: Vec<u32> = (0..n as u32).collect();
            let (ok, ov) = sort_pairs_with(&ctx, &k, &values, &o, &policy)
                .unwrap_or_else(|e| panic!("{sg} pairs: {e}"));
            check_pairs(&k, &values, &ok, &ov, Order::default())
                .unwrap_or_else(|e| panic!("{sg} pairs: {e}"));
        }
    }
}

#[test]
fn reduce_and_scan_are_clean_under_the_default_exploration() {
    for sg in [8, 64] {
        let ctx = sim(sg);
        for n in [1usize, 5000, 70_001] {
            let data: Vec<u32> = keys(n, 3).iter().map(|k| k % 1000).collect();
            let sum: u64 = data.iter().map(|&x| x as u64).sum();
            let got = reduce(&ctx, &data, ReduceOp::Sum).unwrap_or_else(|e| panic!("{sg}: {e}"));
            assert!(
                matches!(got, Scalar::U64(s) if s == sum),
                "{sg} {n}: {got:?}"
            );
            let max = *data.iter().max().unwrap();
            let got = reduce(&ctx, &data, ReduceOp::Max).unwrap_or_else(|e| panic!("{sg}: {e}"));
            assert!(
                matches!(got, Scalar::U32(m) if m == max),
                "{sg} {n}: {got:?}"
            );
            let f: Vec<f32> = data.iter().map(|&x| x as f32 / 7.0 - 50.0).collect();
            let want: f64 = f.iter().map(|&x| x as f64).sum();
            let abs: f64 = f.iter().map(|&x| x.abs() as f64).sum();
            match reduce(&ctx, &f, ReduceOp::Sum).unwrap_or_else(|e| panic!("{sg}: {e}")) {
                Scalar::F32(s) => assert!(
                    (s as f64 - want).abs() <= 1e-6 * abs.max(1.0),
                    "{sg} {n}: {s} against {want}"
                ),
                other => panic!("{other:?}"),
            }
            for inclusive in [false, true] {
                let out = wgsimd::scan::scan(&ctx, &data, inclusive)
                    .unwrap_or_else(|e| panic!("{sg}: {e}"));
                let mut acc = 0u32;
                for (i, (&x, &y)) in data.iter().zip(&out).enumerate() {
                    let before = acc;
                    acc = acc.wrapping_add(x);
                    let want = if inclusive { acc } else { before };
                    assert_eq!(y, want, "{sg} {n} inclusive {inclusive}: element {i}");
                }
            }
        }
    }
}

#[test]
fn the_queue_is_clean_under_the_default_exploration() {
    for sg in [8, 64] {
        let ctx = sim(sg);
        let problem = QueueProblem::random(150, 9, 3, 3);
        let policy = QueuePolicy {
            workgroups: 3,
            capacity: 4,
            ..QueuePolicy::default()
        };
        let out = queue::run(&ctx, &problem, &policy).unwrap_or_else(|e| panic!("{sg}: {e}"));
        assert!(out.findings.is_empty(), "{sg}: {:#?}", out.findings);
        queue::check(&problem, &out.state).unwrap_or_else(|e| panic!("{sg}: {e}"));
    }
}
