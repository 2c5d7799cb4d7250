//! The persistent-kernel work queue: every task id runs exactly once under contention (ring much
//! smaller than the task count, many producers and consumers, spills to child launches) on the GPU
//! (lavapipe in CI) and on the simulator (subgroup sizes 4, 8, 32, 64, shuffled lanes, unfair and
//! shuffled schedulers) with zero findings, in both flavours (subgroup teams, and one-invocation
//! teams without subgroups); the versioned CAS rejects a stale reader after index wrap-around;
//! the checker catches a lost, a duplicated and a wrong task; the latency clock is consistent
//! (never timed here) and its checker catches a broken clock.

mod common;

use wgsimd::queue::{self, Latency, QueuePolicy, QueueProblem, QueueState, CTL_CLOCK, S_FULL};
use wgsimd::reference::queue::{ring_next, Ring};
use wgsimd::sim::{Scheduler, SimConfig, SimExecutor};
use wgsimd::Executor;

/// Runs, checks, and returns (successful dequeues, spills): the head's version counts dequeues.
fn run_checked(
    exec: &dyn Executor,
    what: &str,
    problem: &QueueProblem,
    policy: &QueuePolicy,
) -> (u32, u32) {
    let out = queue::run(exec, problem, policy).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.findings.is_empty(),
        "{what}: findings {:#?}",
        &out.findings[..out.findings.len().min(5)]
    );
    queue::check(problem, &out.state).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (dequeues, spills) = (out.state.ring[0] >> 12, out.state.ctl[1]);
    eprintln!(
        "{what}: {} tasks in {} submissions, {dequeues} through the ring, {spills} spilled",
        problem.n_tasks, out.submissions
    );
    assert_eq!(
        dequeues + spills,
        problem.n_tasks,
        "{what}: every task came from the ring or a spill"
    );
    (dequeues, spills)
}

#[test]
fn gpu_every_task_exactly_once_under_contention() {
    let Some(gpu) = common::gpu() else { return };
    for (n, cap, fanout, wgs) in [
        (1, 2, 1, 1),
        (2, 2, 1, 3),
        (4097, 8, 3, 8),
        (20_000, 16, 4, 16),
        (6000, 64, 1, 8),
        (6001, 256, 2, 16),
    ] {
        let problem = QueueProblem::random(n, 24, fanout, n as u64);
        let policy = QueuePolicy {
            workgroups: wgs,
            capacity: cap,
            ..QueuePolicy::default()
        };
        let what = format!("gpu n={n} cap={cap}");
        let (dequeues, _) = run_checked(gpu, &what, &problem, &policy);
        if n > 1000 {
            assert!(
                dequeues > 2 * cap,
                "{what}: the ring went round only {dequeues}/{cap} times"
            );
        }
    }
}

#[test]
fn gpu_zero_tasks() {
    let Some(gpu) = common::gpu() else { return };
    let problem = QueueProblem::random(0, 4, 2, 1);
    let out = queue::run(gpu, &problem, &QueuePolicy::default()).unwrap();
    assert_eq!(out.submissions, 0);
    queue::check(&problem, &out.state).unwrap();
}

#[test]
fn sim_every_task_exactly_once_at_every_subgroup_size() {
    for (i, sg) in [4u32, 8, 16, 32, 64, 128].into_iter().enumerate() {
        sim_contention(sg, true, 7 + i as u64, 2, "sim");
    }
}

/// The queue on the simulator at subgroup size `sg` (real subgroups or the emulated flavour),
/// shuffled lanes, unfair and shuffled schedulers: a spill-heavy problem (fanout 3 into 4 slots)
/// and a ring-heavy one (a chain through 8 slots), every task exactly once, the ring wrapping.
fn sim_contention(sg: u32, subgroups: bool, lane_seed: u64, rounds: u32, label: &str) {
    for scheduler in [
        Scheduler::Unfair {
            starved: vec![0, 2],
        },
        Scheduler::Shuffled(sg as u64),
    ] {
        let sim = SimExecutor::new(SimConfig {
            subgroup_size: sg,
            subgroups,
            shuffle_lanes: Some(lane_seed),
            scheduler: scheduler.clone(),
            fail_on_step_limit: true,
            ..SimConfig::default()
        })
        .unwrap();
        for (n, cap, fanout) in [(150, 4, 3), (120, 8, 1)] {
            let problem = QueueProblem::random(n, 9, fanout, sg as u64);
            let policy = QueuePolicy {
                workgroups: 3,
                capacity: cap,
                rounds,
                ..QueuePolicy::default()
            };
            let what = format!("{label} sg={sg} {scheduler:?} n={n} cap={cap}");
            let (dequeues, _) = run_checked(&sim, &what, &problem, &policy);
            assert!(
                dequeues > 2 * cap,
                "{what}: the ring went round only {dequeues}/{cap} times"
            );
        }
    }
}

#[test]
fn checker_catches_lost_duplicated_and_wrong_tasks() {
    let problem = QueueProblem::random(10, 3, 2, 5);
    let mut good = QueueState::initial(10, 4, false);
    good.ring[2] = 0;
    for t in 0..10 {
        good.runs[t] = 1;
        good.results[t] = problem.input[t * 3..t * 3 + 3]
            .iter()
            .fold(0u32, |a, &x| a.wrapping_add(x));
    }
    good.ctl[0] = 10;
    queue::check(&problem, &good).unwrap();
    let mut lost = good.clone();
    lost.runs[4] = 0;
    assert!(queue::check(&problem, &lost)
        .unwrap_err()
        .contains("task 4 ran 0"));
    let mut dup = good.clone();
    dup.runs[7] = 2;
    assert!(queue::check(&problem, &dup)
        .unwrap_err()
        .contains("task 7 ran 2"));
    let mut wrong = good.clone();
    wrong.results[9] ^= 1;
    assert!(queue::check(&problem, &wrong)
        .unwrap_err()
        .contains("task 9"));
    let mut left = good.clone();
    left.ring[3] = 5 << 2 | S_FULL;
    assert!(queue::check(&problem, &left).is_err());
}

#[test]
fn versioned_cas_rejects_a_stale_reader_after_wraparound() {
    for index_only in [false, true] {
        let mut ring = Ring::new(4);
        ring.index_only = index_only;
        assert!(ring.try_enqueue(100));
        // a reader reads head (index 0, version 0) and is delayed
        let stale = ring.dequeue_read();
        // the others take task 100 and push the ring round once, so head is back at index 0 with
        // task 200 in slot 0
        assert_eq!(ring.try_dequeue(), Some(100));
        for t in 1..4 {
            assert!(ring.try_enqueue(t));
            assert_eq!(ring.try_dequeue(), Some(t));
        }
        assert!(ring.try_enqueue(200));
        assert_eq!(ring.head & 0xfff, stale & 0xfff, "index wrapped around");
        assert_ne!(ring.head, stale, "version moved on");
        let got = ring.dequeue_finish(stale);
        if index_only {
            // without versions the stale CAS is accepted (ABA)
            assert_eq!(got, Some(200));
        } else {
            // versioned: rejected, the slot restored, the task still there for a fresh reader
            assert_eq!(got, None);
            assert_eq!(ring.try_dequeue(), Some(200));
            assert_eq!(ring.try_dequeue(), None);
        }
    }
    // stale producer: reads tail, the ring goes round, its CAS on tail is rejected
    let mut ring = Ring::new(2);
    let stale_tail = ring.tail;
    for t in 0..2 {
        assert!(ring.try_enqueue(t));
        assert_eq!(ring.try_dequeue(), Some(t));
    }
    let tail_now = ring.tail;
    ring.tail = stale_tail; // replay the stale producer's view for the claim...
    ring.tail = tail_now; // ...but the CAS compares with the live tail
    assert_eq!(stale_tail & 0xfff, tail_now & 0xfff);
    assert_ne!(stale_tail, tail_now);
    // versions wrap at 2^20 without touching the index
    assert_eq!(ring_next(0xffff_f000 | 3, 4), 0);
    assert_eq!(ring_next(0x0000_1001, 4), 0x0000_2002);
}

#[test]
fn gpu_bench_cases_verify_over_repeated_runs() {
    // the simulator runs the same plans, setup (restore) passes included
    let sim = SimExecutor::new(SimConfig {
        fail_on_step_limit: true,
        ..SimConfig::default()
    })
    .unwrap();
    for case in queue::bench_cases(sim.caps(), 1 << 10, 5).unwrap() {
        let out = sim.run(&case.plan).unwrap();
        assert!(out.findings.is_empty(), "{:?}", out.findings.first());
        (case.verify)(&out).unwrap_or_else(|e| panic!("sim {}: {e}", case.variant));
    }
    let Some(gpu) = common::gpu() else { return };
    let cases = queue::bench_cases(gpu.caps(), 1 << 16, 3).unwrap();
    assert_eq!(cases.len(), 2, "plain and with the latency clock");
    for case in cases {
        // repeated runs of one prepared plan, as the bench does (the timings are not looked at):
        // the last run must have drained the whole queue again, from the restored state
        let (out, timing) = gpu.time(&case.plan, 0, 2).unwrap();
        (case.verify)(&out).unwrap_or_else(|e| panic!("{}: {e}", case.variant));
        if let Some(extra) = &case.extra {
            // a made-up run time: only the shape of the figures is checked, nothing is timed
            let figs = extra(&out, &timing);
            assert_eq!(figs.len(), 4, "{figs:?}");
            assert!(
                figs.iter().all(|(_, v)| v.is_finite() && *v > 0.0),
                "{figs:?}"
            );
            assert!(figs[0].1 <= figs[1].1 && figs[2].1 <= figs[3].1, "{figs:?}");
        }
    }
}

#[test]
fn gpu_rerun_without_restore_is_caught() {
    // the plain plan reuses its drained state when run again: the round count gives it away
    let Some(gpu) = common::gpu() else { return };
    let problem = QueueProblem::random(500, 4, 2, 1);
    let policy = QueuePolicy::default();
    let qp = queue::plan(
        gpu.caps(),
        &problem,
        &policy,
        &QueueState::initial(500, policy.capacity, false),
    )
    .unwrap();
    let once = qp.decode(&gpu.run(&qp.plan).unwrap()).unwrap();
    queue::check_restored(&once, policy.rounds).unwrap();
    let (out, _) = gpu.time(&qp.plan, 0, 2).unwrap();
    let again = qp.decode(&out).unwrap();
    queue::check(&problem, &again).unwrap(); // the final state looks fine...
    let e = queue::check_restored(&again, policy.rounds).unwrap_err(); // ...but was not re-run
    assert!(e.contains("not restored"), "{e}");
}

/// The latency clock of a complete run: `Latency::from_state` (inside `queue::run`) already
/// demands the clock at 2n, the ticks a permutation of 0..2n and every start after its enqueue.
fn assert_latency(what: &str, problem: &QueueProblem, out: &queue::QueueOutcome) {
    let l = out.latency.unwrap_or_else(|| panic!("{what}: no latency"));
    let n = problem.n_tasks;
    assert_eq!(l.tasks, n, "{what}");
    assert_eq!(out.state.ctl[CTL_CLOCK], 2 * n, "{what}: enqueues + starts");
    assert_eq!(l.gpu_ticks, 2 * n - 1, "{what}");
    assert!(
        1 <= l.p50_ticks && l.p50_ticks <= l.p99_ticks && l.p99_ticks <= l.max_ticks,
        "{what}: {l:?}"
    );
    assert!(l.max_ticks < 2 * n, "{what}: {l:?}");
    let timed = l.with_run_ns(2e6);
    let (p50, p99) = (timed.p50_ns.unwrap(), timed.p99_ns.unwrap());
    assert!(0.0 < p50 && p50 <= p99, "{what}: {timed:?}");
    eprintln!("{what}: latency {l:?}");
}

#[test]
fn latency_clock_counts_every_enqueue_and_start() {
    let problem = QueueProblem::random(3000, 8, 3, 17);
    let mut runs: Vec<(String, &dyn Executor)> = Vec::new();
    for (flavor, g) in common::executors() {
        runs.push((format!("gpu {flavor}"), g));
    }
    let sims: Vec<(String, SimExecutor)> = [(8, true), (32, false)]
        .into_iter()
        .map(|(sg, subgroups)| {
            let sim = SimExecutor::new(SimConfig {
                subgroup_size: sg,
                subgroups,
                shuffle_lanes: Some(3),
                scheduler: Scheduler::Unfair { starved: vec![0] },
                fail_on_step_limit: true,
                ..SimConfig::default()
            })
            .unwrap();
            (format!("sim sg={sg} subgroups={subgroups}"), sim)
        })
        .collect();
    for (what, sim) in &sims {
        runs.push((what.clone(), sim));
    }
    for (what, exec) in runs {
        let problem = if what.starts_with("sim") {
            QueueProblem::random(200, 5, 3, 17)
        } else {
            problem.clone()
        };
        let policy = QueuePolicy {
            latency: true,
            capacity: 16,
            workgroups: 4,
            ..QueuePolicy::default()
        };
        let out = queue::run(exec, &problem, &policy).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            out.findings.is_empty(),
            "{what}: {:?}",
            out.findings.first()
        );
        queue::check(&problem, &out.state).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_latency(&what, &problem, &out);
    }
}

#[test]
fn latency_checker_catches_a_broken_clock() {
    // a hand-made complete run of 3 tasks: 0 enqueued at 0 (host), started 1, pushes 1 and 2
    // (ticks 2, 3), 1 starts at 4, 2 at 5; clock at 6
    let mut good = QueueState::initial(3, 4, true);
    good.ticks = vec![0, 1, 2, 4, 3, 5];
    good.ctl[CTL_CLOCK] = 6;
    let l = Latency::from_state(&good).unwrap();
    assert_eq!((l.p50_ticks, l.p99_ticks, l.max_ticks), (2, 2, 2));
    assert_eq!(l.gpu_ticks, 5);
    let broken = |f: &dyn Fn(&mut QueueState)| {
        let mut s = good.clone();
        f(&mut s);
        Latency::from_state(&s).unwrap_err()
    };
    assert!(broken(&|s| s.ctl[CTL_CLOCK] = 7).contains("clock ended"));
    assert!(broken(&|s| s.ticks.swap(2, 3)).contains("task 1 started"));
    assert!(broken(&|s| s.ticks[5] = 4).contains("twice"));
    assert!(broken(&|s| s.ticks[5] = u32::MAX).contains("past the clock"));
    assert!(broken(&|s| s.ticks.clear()).contains("tick words"));
    // the ns window: the clock stood at its final 6 after round 1's persistent pass, so the
    // passes from round 1's child args on are left out
    use wgsimd::queue::{latency::active_ns, CTL_MARKS};
    let passes = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    good.ctl[CTL_MARKS] = 4;
    good.ctl[CTL_MARKS + 1] = 6;
    assert_eq!(active_ns(&good, 2, &passes), Some(1.0 + 2.0 + 3.0 + 4.0));
    good.ctl[CTL_MARKS + 1] = 5; // the last child pass ticked: every pass counts
    assert_eq!(active_ns(&good, 2, &passes), Some(21.0));
    assert_eq!(active_ns(&good, 2, &[f64::NAN; 6]), None, "host timing");
    assert_eq!(active_ns(&good, 3, &passes), None, "3 passes per round");
}

#[test]
fn emulated_flavour_every_task_exactly_once() {
    // the emulated kernels use no subgroup builtin or operation at all (comments aside)
    for name in [
        "queue/persistent",
        "queue/child_args",
        "queue/child",
        "queue/aba_probe",
    ] {
        let k = wgsimd::kernel::load(name, wgsimd::kernel::Flavor::Emulated).unwrap();
        let code: String = k
            .source
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect();
        assert!(!code.contains("subgroup"), "{name} uses subgroups");
    }
    // lavapipe with subgroups switched off (the emulated kernels), then the simulator without
    // subgroups: one-invocation teams, 64 per workgroup
    if let Some(g) = common::gpu_emulated() {
        for (n, cap, fanout, wgs) in [(1, 2, 1, 1), (4097, 8, 3, 8), (6000, 64, 1, 3)] {
            let problem = QueueProblem::random(n, 24, fanout, n as u64);
            let policy = QueuePolicy {
                workgroups: wgs,
                capacity: cap,
                ..QueuePolicy::default()
            };
            let what = format!("gpu emulated n={n} cap={cap}");
            let (dequeues, _) = run_checked(g, &what, &problem, &policy);
            if n > 1000 {
                assert!(
                    dequeues > 2 * cap,
                    "{what}: ring went round {dequeues}/{cap}"
                );
            }
        }
    }
    for (i, sg) in [4u32, 32].into_iter().enumerate() {
        sim_contention(
            sg,
            false,
            11 + i as u64,
            QueuePolicy::default().rounds,
            "sim emulated",
        );
        // the ABA probe composes in this flavour too
        let sim = SimExecutor::new(SimConfig {
            subgroup_size: sg,
            subgroups: false,
            fail_on_step_limit: true,
            ..SimConfig::default()
        })
        .unwrap();
        assert_probe(
            &format!("sim emulated sg={sg}"),
            queue::aba_probe(&sim, 4).unwrap(),
        );
    }
}

/// Issue 7's emulated flake: lavapipe ends every loop of an invocation after 65535 back-edges in
/// all (one counter per row of 8 lanes, shared by every loop), and the persistent kernel ran
/// thousands of tasks' sum loops on one row, so a task stored a prefix sum. Long tasks in a chain
/// on one workgroup overran it on every run before the kernel bounded its polls by LOOP_BUDGET;
/// the simulator's `loop-limit` check reports the same overrun (one 64-lane subgroup runs all).
#[test]
fn long_tasks_stay_within_the_lavapipe_loop_limit() {
    let policy = QueuePolicy {
        workgroups: 1,
        capacity: 8,
        ..QueuePolicy::default()
    };
    let sim = SimExecutor::new(SimConfig {
        subgroup_size: 64,
        subgroups: false,
        fail_on_step_limit: true,
        ..SimConfig::default()
    })
    .unwrap();
    let problem = QueueProblem::random(400, 400, 1, 8);
    run_checked(&sim, "sim emulated long tasks", &problem, &policy);
    if let Some(g) = common::gpu_emulated() {
        let problem = QueueProblem::random(3000, 200, 1, 7);
        run_checked(g, "gpu emulated long tasks", &problem, &policy);
    }
    // a task longer than the budget allows is refused up front
    let long = QueueProblem::random(2, 8000, 1, 9);
    assert!(matches!(
        queue::run(&sim, &long, &policy),
        Err(wgsimd::Error::InvalidInput(_))
    ));
}

#[test]
fn policy_for_caps_fits_each_adapter() {
    let sim = SimExecutor::new(SimConfig::default()).unwrap();
    let mut caps = vec![sim.caps().clone()];
    if let Some(g) = common::gpu() {
        caps.push(g.caps().clone());
        // the policy lavapipe gets runs to completion
        let problem = QueueProblem::random(5000, 16, 3, 9);
        run_checked(
            g,
            "gpu for_caps",
            &problem,
            &QueuePolicy::for_caps(g.caps()),
        );
    }
    // an H100-like adapter (2 GiB bindings): many persistent workgroups, the largest ring
    let mut big = sim.caps().clone();
    big.backend = "Vulkan".into();
    big.name = "NVIDIA H100 80GB HBM3".into();
    big.max_storage_binding = 2 << 30;
    big.max_workgroups_per_dim = 65535;
    let p = QueuePolicy::for_caps(&big);
    assert!(
        p.workgroups >= 132 && p.capacity == queue::MAX_CAPACITY,
        "{p:?}"
    );
    caps.push(big);
    for c in &caps {
        let p = QueuePolicy::for_caps(c);
        assert!(p.capacity.is_power_of_two() && p.capacity <= queue::MAX_CAPACITY);
        assert!(
            p.workgroups >= 1 && p.workgroups <= c.max_workgroups_per_dim,
            "{p:?}"
        );
        assert!(!p.latency, "the clock is opt-in");
    }
    assert_eq!(QueuePolicy::for_caps(sim.caps()).workgroups, 3);
}

fn assert_probe(what: &str, p: wgsimd::queue::AbaProbe) {
    assert!(p.round_trip_ok, "{what}: {p:?}");
    assert_eq!(
        p.stale_head & 0xfff,
        p.head_after_wrap & 0xfff,
        "{what}: index wrapped round"
    );
    assert_ne!(p.stale_head, p.head_after_wrap, "{what}: version moved on");
    assert_eq!(p.stale_result, None, "{what}: stale CAS must be rejected");
    assert_eq!(
        p.fresh_result,
        Some(200),
        "{what}: task kept for a fresh reader"
    );
    assert_eq!(p.after, None, "{what}: exactly once");
}

#[test]
fn aba_probe_kernel_rejects_the_stale_reader() {
    if let Some(gpu) = common::gpu() {
        for cap in [2, 8] {
            assert_probe(
                &format!("gpu cap={cap}"),
                queue::aba_probe(gpu, cap).unwrap(),
            );
        }
    }
    for sg in [4, 8, 16, 32, 64, 128] {
        let sim = SimExecutor::new(SimConfig {
            subgroup_size: sg,
            fail_on_step_limit: true,
            ..SimConfig::default()
        })
        .unwrap();
        assert_probe(&format!("sim sg={sg}"), queue::aba_probe(&sim, 4).unwrap());
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let sim = SimExecutor::new(SimConfig::default()).unwrap();
    let good = QueueProblem::random(10, 2, 2, 1);
    let policy = QueuePolicy::default();
    let mut short = good.clone();
    short.input.pop();
    let mut no_fanout = good.clone();
    no_fanout.fanout = 0;
    let huge = QueueProblem {
        n_tasks: 1 << 30,
        words_per_task: 0,
        fanout: 1,
        input: vec![],
    };
    for (what, p, pol) in [
        ("short input", &short, policy),
        ("fanout 0", &no_fanout, policy),
        ("too many tasks", &huge, policy),
        (
            "capacity 3",
            &good,
            QueuePolicy {
                capacity: 3,
                ..policy
            },
        ),
        (
            "capacity 8192",
            &good,
            QueuePolicy {
                capacity: 8192,
                ..policy
            },
        ),
        (
            "no workgroups",
            &good,
            QueuePolicy {
                workgroups: 0,
                ..policy
            },
        ),
    ] {
        match queue::run(&sim, p, &pol) {
            Err(wgsimd::Error::InvalidInput(_)) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
    // a state that does not match the problem
    let state = QueueState::initial(9, policy.capacity, false);
    assert!(matches!(
        queue::plan(sim.caps(), &good, &policy, &state),
        Err(wgsimd::Error::InvalidInput(_))
    ));
}
