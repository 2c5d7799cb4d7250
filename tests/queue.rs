//! The persistent-kernel work queue: every task id runs exactly once under contention (ring much
//! smaller than the task count, many producers and consumers, spills to child launches) on the GPU
//! (lavapipe in CI) and on the simulator (subgroup sizes 4, 8, 32, 64, shuffled lanes, unfair and
//! shuffled schedulers) with zero findings; the versioned CAS rejects a stale reader after index
//! wrap-around; the checker catches a lost, a duplicated and a wrong task.

mod common;

use wgsimd::queue::{self, QueuePolicy, QueueProblem, QueueState, S_FULL};
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
        for scheduler in [
            Scheduler::Unfair {
                starved: vec![0, 2],
            },
            Scheduler::Shuffled(sg as u64),
        ] {
            let sim = SimExecutor::new(SimConfig {
                subgroup_size: sg,
                shuffle_lanes: Some(7 + i as u64),
                scheduler: scheduler.clone(),
                fail_on_step_limit: true,
                ..SimConfig::default()
            })
            .unwrap();
            // spill-heavy (fanout 3 into 4 slots) and ring-heavy (a chain through 8 slots)
            for (n, cap, fanout) in [(150, 4, 3), (120, 8, 1)] {
                let problem = QueueProblem::random(n, 9, fanout, sg as u64);
                let policy = QueuePolicy {
                    workgroups: 3,
                    capacity: cap,
                    rounds: 2,
                    ..QueuePolicy::default()
                };
                let what = format!("sim sg={sg} {scheduler:?} n={n} cap={cap}");
                let (dequeues, _) = run_checked(&sim, &what, &problem, &policy);
                assert!(
                    dequeues > 2 * cap,
                    "{what}: the ring went round only {dequeues}/{cap} times"
                );
            }
        }
    }
}

#[test]
fn checker_catches_lost_duplicated_and_wrong_tasks() {
    let problem = QueueProblem::random(10, 3, 2, 5);
    let mut good = QueueState::initial(10, 4);
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
fn gpu_bench_case_verifies_in_one_submission() {
    let Some(gpu) = common::gpu() else { return };
    for case in queue::bench_cases(gpu.caps(), 1 << 16, 3).unwrap() {
        let out = gpu.run(&case.plan).unwrap();
        (case.verify)(&out).unwrap();
    }
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
    let no_subgroups = SimExecutor::new(SimConfig {
        subgroups: false,
        ..SimConfig::default()
    })
    .unwrap();
    assert!(matches!(
        queue::run(&no_subgroups, &good, &policy),
        Err(wgsimd::Error::InvalidInput(_))
    ));
}
