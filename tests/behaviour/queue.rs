//! The persistent-kernel work queue: every task runs exactly once, with the right result, under
//! contention (a ring much smaller than the task count, spills to child launches), on every
//! target and under unfair schedulers on the simulator; the versioned CAS rejects a stale
//! reader after the index wraps; the latency clock is consistent; and the checks catch a lost,
//! duplicated or wrong task and a broken clock.

use wgsimd::queue::{
    self, ClockLatency, Latency, QueueLayout, QueueOutcome, QueuePolicy, QueueProblem, QueueState,
};
use wgsimd::reference::queue::Ring;
use wgsimd::sim::{Scheduler, SimConfig};
use wgsimd::{BufferRef, Caps, Context};

use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "queue::every_task_exactly_once",
            On::Every,
            every_task_exactly_once,
        ),
        Test::new(
            "queue::state_in_the_callers_buffers",
            On::Every,
            state_in_the_callers_buffers,
        ),
        Test::new("queue::zero_tasks", On::Every, zero_tasks),
        Test::new("queue::spill_all", On::Every, spill_all),
        Test::new(
            "queue::narrow_child_dispatches",
            On::Every,
            narrow_child_dispatches,
        ),
        Test::new(
            "queue::spills_from_a_launched_end_off_a_block",
            On::Every,
            spills_from_a_launched_end_off_a_block,
        ),
        Test::new("queue::latency_clock", On::Every, latency_clock),
        Test::new(
            "queue::aba_probe_rejects_the_stale_reader",
            On::Every,
            aba_probe,
        ),
        Test::new("queue::unfair_schedulers", On::Once, unfair_schedulers),
        Test::new(
            "queue::long_tasks_within_the_loop_limit",
            On::Once,
            long_tasks,
        ),
        Test::new(
            "queue::policy_for_each_profile",
            On::Once,
            policy_for_each_profile,
        ),
        Test::new("queue::bad_input", On::Once, bad_input),
        Test::new("queue::device_clock", On::Gpu, device_clock),
        Test::new("queue::the_checks_can_fail", On::Once, the_checks_can_fail),
    ]
}

/// Runs and checks; every task came through the ring or a spill, and with `wraps` the ring
/// went round at least twice.
fn run_checked(
    t: &Target,
    problem: &QueueProblem,
    policy: &QueuePolicy,
    wraps: bool,
) -> QueueOutcome {
    let what = format!(
        "{} tasks, capacity {}, fanout {}, {} workgroups",
        problem.n_tasks, policy.capacity, problem.fanout, policy.workgroups
    );
    let out = queue::run(&t.ctx, problem, policy).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(f) = out.findings.first() {
        panic!("{what}: {} findings; the first: {f}", out.findings.len());
    }
    queue::check(problem, &out.state).unwrap_or_else(|e| panic!("{what}: {e}"));
    let idx_bits = out.state.layout.idx_bits;
    let dequeues = out.state.ring[0] >> idx_bits;
    let spills = out.state.ctl[1];
    assert_eq!(
        dequeues + spills,
        problem.n_tasks,
        "{what}: every task from the ring or a spill"
    );
    if wraps {
        assert!(
            dequeues > 2 * policy.capacity,
            "{what}: the ring went round {dequeues}/{} times",
            policy.capacity
        );
    }
    out
}

fn every_task_exactly_once(t: &Target) {
    let cases: &[(u32, u32, u32, u32)] = if t.is_sim() {
        &[(1, 2, 1, 1), (150, 4, 3, 3), (120, 8, 1, 3)]
    } else {
        &[
            (1, 2, 1, 1),
            (2, 2, 1, 3),
            (4097, 8, 3, 8),
            (20_000, 16, 4, 16),
            (6000, 64, 1, 8),
        ]
    };
    for &(n, capacity, fanout, workgroups) in cases {
        let problem = QueueProblem::random(n, if t.is_sim() { 9 } else { 24 }, fanout, n as u64);
        let policy = QueuePolicy {
            workgroups,
            capacity,
            ..QueuePolicy::default()
        };
        run_checked(t, &problem, &policy, n > 100);
    }
}

/// The state in the caller's buffers (`queue::build` without a state), recorded as an
/// application records it, one submission draining the tree: every task ran once with its
/// result, and on the simulator no finding under any schedule explored. Which tasks went
/// through the ring and which spilled differs between schedules (the ring's versions count
/// the operations through it); the plan declares those buffers order-dependent, and the tasks'
/// results and run counts are still compared.
fn state_in_the_callers_buffers(t: &Target) {
    let (n, capacity, workgroups) = if t.is_sim() {
        (150, 4, 6)
    } else {
        (5000, 8, 16)
    };
    let problem = QueueProblem::random(n, 9, 3, 11);
    let policy = QueuePolicy {
        workgroups,
        capacity,
        rounds: 16,
        ..QueuePolicy::default()
    };
    let layout = QueueLayout::of(t.caps().flavor()).unwrap();
    let initial = QueueState::initial(&layout, n, capacity, false);
    let qp = queue::build(t.caps(), &problem, &policy, None).unwrap();
    let prepared = t.ctx.prepare(qp.plan.clone()).unwrap();
    let buffers: Vec<_> = qp
        .state_words(&initial)
        .unwrap()
        .iter()
        .map(|w| t.ctx.upload("queue state", w).unwrap())
        .collect();
    let args: Vec<_> = qp
        .state_args()
        .into_iter()
        .zip(buffers.iter().map(BufferRef::from))
        .collect();
    let mut enc = t.ctx.encoder();
    prepared.record((&mut enc).into(), &args, None).unwrap();
    let findings = t.ctx.submit(enc).unwrap().findings;
    if let Some(f) = findings.first() {
        panic!("{} findings; the first: {f}", findings.len());
    }
    let words = buffers
        .iter()
        .map(|b| t.ctx.read::<u32>(b).unwrap())
        .collect();
    let state = qp.state_from(words).unwrap();
    queue::check(&problem, &state).unwrap();
}

fn zero_tasks(t: &Target) {
    let problem = QueueProblem::random(0, 4, 2, 1);
    let out = queue::run(&t.ctx, &problem, &QueuePolicy::default()).unwrap();
    assert_eq!(out.submissions, 0);
    queue::check(&problem, &out.state).unwrap();
}

/// Every child a child launch: each task after the first ran from the spill list.
fn spill_all(t: &Target) {
    let problem = QueueProblem::random(60, 3, 2, 4);
    let policy = QueuePolicy {
        spill_all: true,
        workgroups: 2,
        capacity: 8,
        rounds: 3,
        ..QueuePolicy::default()
    };
    let out = queue::run(&t.ctx, &problem, &policy).unwrap();
    queue::check(&problem, &out.state).unwrap();
    let s = &out.state;
    assert_eq!(s.ctl[s.layout.ctl_spill], 59, "every child spilled");
    let mut spilled = s.spill.clone();
    spilled.sort_unstable();
    assert_eq!(spilled[1..], (1..60).collect::<Vec<u32>>()[..]);
}

/// Child dispatches narrower than their spilled blocks (one and three workgroups): each
/// workgroup strides over several blocks, and every task still runs once. A tree of fanout 4
/// with every child spilled puts 256 tasks in one level, 32 blocks of 8 (4 of 64 with
/// one-invocation teams); a round of a few persistent polls leaves the levels to the child
/// dispatches. A last submission's second parity is covered by three rounds a submission.
fn narrow_child_dispatches(t: &Target) {
    let problem = QueueProblem::random(341, 3, 4, 9);
    for child_workgroups in [1, 3] {
        let policy = QueuePolicy {
            spill_all: true,
            workgroups: 2,
            capacity: 8,
            rounds: 3,
            child_workgroups,
            ..QueuePolicy::default()
        };
        let out = queue::run(&t.ctx, &problem, &policy)
            .unwrap_or_else(|e| panic!("{child_workgroups} child workgroups: {e}"));
        if let Some(f) = out.findings.first() {
            panic!("{child_workgroups} child workgroups: {f}");
        }
        queue::check(&problem, &out.state)
            .unwrap_or_else(|e| panic!("{child_workgroups} child workgroups: {e}"));
        let s = &out.state;
        assert_eq!(s.ctl[s.layout.ctl_spill], 340, "every child spilled");
    }
}

/// A persistent pass whose spills start where the launched part of the spill list ends, off a
/// block boundary: the child dispatch's blocks count from there, so the first spill of the pass
/// opens a block whatever its index. The state is made by hand: one entry already launched (the
/// id of a task that runs later from the ring, never read again: the list holds one word a task,
/// so one is all a tree leaves room for), task 0 in the ring, every child spilled; a block count
/// kept by the list's own indices would launch none of task 0's children (from index 1), and
/// they would never run.
fn spills_from_a_launched_end_off_a_block(t: &Target) {
    // a tree of 7 (two children in the block) and a chain of 4 (one: the block's first entry
    // alone)
    for (n, fanout) in [(7, 2), (4, 1)] {
        let problem = QueueProblem::random(n, 3, fanout, 11);
        let policy = QueuePolicy {
            spill_all: true,
            workgroups: 1,
            capacity: 4,
            rounds: 2,
            ..QueuePolicy::default()
        };
        let layout = QueueLayout::of(t.caps().flavor()).unwrap();
        let mut state = QueueState::initial(&layout, n, policy.capacity, false);
        state.ctl[layout.ctl_spill] = 1;
        state.ctl[layout.ctl_end] = 1;
        state.ctl[layout.ctl_end + 1] = 1;
        for submission in 0.. {
            if state.done() == n {
                break;
            }
            assert!(
                submission < 20,
                "{} of {n} tasks after 20 submissions",
                state.done()
            );
            let qp = queue::plan(t.caps(), &problem, &policy, &state).unwrap();
            let prepared = t.ctx.prepare(qp.plan.clone()).unwrap();
            let mut enc = t.ctx.encoder();
            prepared.record((&mut enc).into(), &[], None).unwrap();
            let findings = t.ctx.submit(enc).unwrap().findings;
            assert!(findings.is_empty(), "{}", findings[0]);
            state = qp.read_state(&t.ctx, &prepared).unwrap();
        }
        queue::check(&problem, &state).unwrap();
        assert_eq!(
            state.ctl[layout.ctl_spill], n,
            "every child spilled, after the one entry"
        );
    }
}

/// The logical clock: every enqueue and start ticks once, starts follow their enqueues.
fn latency_clock(t: &Target) {
    let problem = if t.is_sim() {
        QueueProblem::random(200, 5, 3, 17)
    } else {
        QueueProblem::random(3000, 8, 3, 17)
    };
    let policy = QueuePolicy {
        latency: true,
        capacity: 16,
        workgroups: 4,
        ..QueuePolicy::default()
    };
    let out = run_checked(t, &problem, &policy, false);
    let l = out.latency.expect("latency");
    let n = problem.n_tasks;
    assert_eq!(l.tasks, n);
    assert_eq!(
        out.state.ctl[out.state.layout.ctl_clock],
        2 * n,
        "enqueues + starts"
    );
    assert_eq!(l.gpu_ticks, 2 * n - 1);
    assert!(
        1 <= l.p50_ticks && l.p50_ticks <= l.p99_ticks && l.p99_ticks <= l.max_ticks,
        "{l:?}"
    );
    assert!(l.max_ticks < 2 * n, "{l:?}");
    let timed = l.with_run_ns(2e6);
    let (p50, p99) = (timed.p50_ns.unwrap(), timed.p99_ns.unwrap());
    assert!(0.0 < p50 && p50 <= p99, "{timed:?}");
}

/// The kernel's own round trip: a reader that read the head before the others pushed the ring
/// once round must fail its CAS, and the task stays for a fresh reader.
fn aba_probe(t: &Target) {
    for capacity in [2, 8] {
        let p = queue::aba_probe(&t.ctx, capacity).unwrap();
        let what = format!("capacity {capacity}: {p:?}");
        assert!(p.round_trip_ok, "{what}");
        let mask = (1 << QueueLayout::of(t.caps().flavor()).unwrap().idx_bits) - 1;
        assert_eq!(
            p.stale_head & mask,
            p.head_after_wrap & mask,
            "{what}: the index wrapped round"
        );
        assert_ne!(
            p.stale_head, p.head_after_wrap,
            "{what}: the version moved on"
        );
        assert_eq!(p.stale_result, None, "{what}: the stale CAS must fail");
        assert_eq!(
            p.fresh_result,
            Some(200),
            "{what}: the task is kept for a fresh reader"
        );
        assert_eq!(p.after, None, "{what}: taken exactly once");
    }
}

/// Starved workgroups (they run after every other has finished) at subgroups of 8 and without
/// subgroups: the others must drain the queue without them.
fn unfair_schedulers(_: &Target) {
    for profile in [Caps::h100(), Caps::h100().without_subgroups()] {
        let mut config = SimConfig::for_profile(profile);
        config.subgroup_size = 8;
        config.shuffle_lanes = Some(3);
        config.scheduler = Scheduler::Unfair {
            starved: vec![0, 2],
        };
        config.fail_on_step_limit = true;
        let t = Target::new("sim-unfair", Context::simulator(config).unwrap());
        for (n, capacity, fanout) in [(150, 4, 3), (120, 8, 1)] {
            let problem = QueueProblem::random(n, 9, fanout, 5);
            let policy = QueuePolicy {
                workgroups: 3,
                capacity,
                ..QueuePolicy::default()
            };
            run_checked(&t, &problem, &policy, true);
        }
    }
}

/// lavapipe ends every loop of an invocation after 65535 back-edges in all: long tasks stay
/// within the budget the host plans for (the simulated lavapipe reports any overrun as a
/// `loop-limit` finding), and a task too long for it is refused.
fn long_tasks(_: &Target) {
    let mut config = SimConfig::for_profile(Caps::lavapipe().without_subgroups());
    config.subgroup_size = 64;
    config.fail_on_step_limit = true;
    let t = Target::new("sim-lavapipe", Context::simulator(config).unwrap());
    let policy = QueuePolicy {
        workgroups: 1,
        capacity: 8,
        ..QueuePolicy::default()
    };
    run_checked(&t, &QueueProblem::random(400, 400, 1, 8), &policy, false);
    util::refused(
        "tasks past the loop budget",
        queue::run(&t.ctx, &QueueProblem::random(2, 40_000, 1, 9), &policy).map(|o| o.submissions),
    );
    // three tasks' loops (a child team's task, its own loop and its block loop; a persistent
    // team's one poll and drain): 3 × 20 004 loop steps pass the budget of 60 000, two would not
    util::refused(
        "three tasks past the loop budget",
        queue::run(&t.ctx, &QueueProblem::random(2, 19_995, 1, 9), &policy).map(|o| o.submissions),
    );
}

fn policy_for_each_profile(_: &Target) {
    for name in wgsimd::device::PROFILES {
        let caps = Caps::profile(name).unwrap();
        let p = QueuePolicy::for_caps(&caps);
        let layout = QueueLayout::of(caps.flavor()).unwrap();
        assert!(
            p.capacity.is_power_of_two() && p.capacity <= layout.max_capacity(),
            "{name}: {p:?}"
        );
        assert!(
            p.workgroups >= 1 && p.workgroups <= caps.max_workgroups_per_dim,
            "{name}: {p:?}"
        );
    }
    let p = QueuePolicy::for_caps(&Caps::h100());
    assert!(p.workgroups >= 132, "a workgroup per SM at least: {p:?}");
}

fn bad_input(t: &Target) {
    let run = |problem: QueueProblem, policy: QueuePolicy| {
        queue::run(&t.ctx, &problem, &policy).map(|o| o.submissions)
    };
    let d = QueuePolicy::default();
    util::refused("fanout 0", run(QueueProblem::random(4, 2, 0, 1), d));
    util::refused(
        "capacity 3",
        run(
            QueueProblem::random(4, 2, 1, 1),
            QueuePolicy { capacity: 3, ..d },
        ),
    );
    util::refused(
        "capacity past the ring",
        run(
            QueueProblem::random(4, 2, 1, 1),
            QueuePolicy {
                capacity: 1 << 20,
                ..d
            },
        ),
    );
    util::refused(
        "no workgroups",
        run(
            QueueProblem::random(4, 2, 1, 1),
            QueuePolicy { workgroups: 0, ..d },
        ),
    );
    for child_workgroups in [0, 65536] {
        util::refused(
            &format!("{child_workgroups} child workgroups"),
            run(
                QueueProblem::random(4, 2, 1, 1),
                QueuePolicy {
                    child_workgroups,
                    ..d
                },
            ),
        );
    }
    let mut short = QueueProblem::random(4, 2, 1, 1);
    short.input.pop();
    util::refused("input of the wrong length", run(short, d));
    let clock = QueuePolicy {
        device_clock: true,
        ..d
    };
    util::refused(
        "the device clock without latency",
        run(QueueProblem::random(4, 2, 1, 1), clock),
    );
    // the simulator has no device clock: refused before anything runs
    let e = util::refused(
        "the device clock on the simulator",
        run(
            QueueProblem::random(4, 2, 1, 1),
            QueuePolicy {
                latency: true,
                ..clock
            },
        ),
    );
    assert!(e.contains("simulator"), "{e}");
}

/// The device clock: the probe finds it advancing; a chain (each task pushes one child, so the
/// queue is otherwise idle) and a tree that spills time every hand-off, on a device opened with
/// the clock; a device opened without it refuses the policy when the plan is prepared.
fn device_clock(t: &Target) {
    let policy = QueuePolicy {
        latency: true,
        device_clock: true,
        capacity: 4,
        workgroups: 4,
        ..QueuePolicy::default()
    };
    let chain = QueueProblem::random(301, 4, 1, 3);
    let e = util::refused(
        "the device clock, not opened",
        queue::run(&t.ctx, &chain, &policy).map(|o| o.submissions),
    );
    assert!(e.contains("PASSTHROUGH_SHADERS"), "{e}");
    let gpu = wgsimd::gpu::GpuContext::open_with_clock().expect("the same adapter");
    if !gpu.has_clock() {
        println!("    (no device clock on {}: not tested)", gpu.caps.name);
        return;
    }
    let probe = gpu.probe_clock().unwrap();
    assert!(probe.units_per_ns > 0.0 && probe.pass_ns > 0.0, "{probe:?}");
    // the floor of a latency from the host: a bare pass reads the clock (not the stand-in's
    // all-ones), after the host's moment where the two are one time line
    match (gpu.device_now(), gpu.bare_submit()) {
        (Some(_), Ok((host, start, call_ns))) => {
            assert_ne!(start, u64::MAX, "the clock was not read");
            assert!(call_ns > 0.0);
            if probe.same_timeline {
                assert!(
                    start > host,
                    "first instruction {start} before the host's {host}"
                );
            }
        }
        (None, Err(e)) => assert!(e.to_string().contains("calibrated"), "{e}"),
        (now, r) => panic!("device_now {now:?}, bare_submit {r:?}"),
    }
    let ctx = Context::Gpu(std::sync::Arc::new(gpu));
    let ctx = if t.caps().subgroups {
        ctx
    } else {
        ctx.without_subgroups().unwrap()
    };
    for (problem, capacity) in [(chain, 4), (QueueProblem::random(400, 4, 4, 9), 2)] {
        let out = queue::run(&ctx, &problem, &QueuePolicy { capacity, ..policy }).unwrap();
        queue::check(&problem, &out.state).unwrap();
        let c = out.clock.expect("clock latency");
        assert_eq!(
            c.ring.samples + c.spilled.samples,
            problem.n_tasks - 1,
            "{c:?}"
        );
        for s in [c.ring, c.spilled] {
            assert!(s.p50 <= s.p99 && s.p99 <= s.max, "{c:?}");
        }
        if problem.fanout > 1 {
            assert!(c.spilled.samples > 0, "a ring of 2 spills: {c:?}");
        }
    }
}

fn the_checks_can_fail(t: &Target) {
    let layout = QueueLayout::of(t.caps().flavor()).unwrap();
    let problem = QueueProblem::random(10, 3, 2, 5);
    let mut good = QueueState::initial(&layout, 10, 4, false);
    good.ring[2] = layout.s_empty;
    for i in 0..10 {
        good.runs[i] = 1;
        good.results[i] = problem.input[i * 3..i * 3 + 3]
            .iter()
            .fold(0u32, |a, &x| a.wrapping_add(x));
    }
    good.ctl[layout.ctl_done] = 10;
    queue::check(&problem, &good).unwrap();
    let broken = |f: &dyn Fn(&mut QueueState)| {
        let mut s = good.clone();
        f(&mut s);
        queue::check(&problem, &s).unwrap_err()
    };
    assert!(broken(&|s| s.runs[4] = 0).contains("task 4 ran 0"));
    assert!(broken(&|s| s.runs[7] = 2).contains("task 7 ran 2"));
    assert!(broken(&|s| s.results[9] ^= 1).contains("task 9"));
    assert!(broken(&|s| s.ring[3] = 5 << 2 | layout.s_full).contains("not empty"));

    // the latency checks
    let mut clock = QueueState::initial(&layout, 3, 4, true);
    clock.ticks = vec![0, 1, 2, 4, 3, 5];
    clock.ctl[layout.ctl_clock] = 6;
    let l = Latency::from_state(&clock).unwrap();
    assert_eq!(
        (l.p50_ticks, l.p99_ticks, l.max_ticks, l.gpu_ticks),
        (2, 2, 2, 5)
    );
    let bad_clock = |f: &dyn Fn(&mut QueueState)| {
        let mut s = clock.clone();
        f(&mut s);
        Latency::from_state(&s).unwrap_err()
    };
    assert!(bad_clock(&|s| s.ctl[layout.ctl_clock] = 7).contains("clock ended"));
    assert!(bad_clock(&|s| s.ticks.swap(2, 3)).contains("task 1 started"));
    assert!(bad_clock(&|s| s.ticks[5] = 4).contains("twice"));

    // the device clock's reading: task 2 was spilled; wrapping differences; a start before its push
    let mut device = QueueState::initial(&layout, 3, 4, true);
    device.ticks = vec![0, 7, 0xffff_fff0, 0x10, 40, 100];
    let e = ClockLatency::from_state(&device).unwrap_err();
    assert!(e.contains("not a complete run"), "{e}");
    device.runs = vec![1; 3];
    device.ctl[layout.ctl_spill] = 1;
    device.spill[0] = 2;
    let c = ClockLatency::from_state(&device).unwrap();
    assert_eq!((c.ring.samples, c.ring.p50), (1, 0x20), "{c:?}");
    assert_eq!((c.spilled.samples, c.spilled.max), (1, 60), "{c:?}");
    assert_eq!(c.root_start, 7);
    device.ticks.swap(4, 5);
    let e = ClockLatency::from_state(&device).unwrap_err();
    assert!(e.contains("task 2 started"), "{e}");

    // the reference ring: without versions a stale reader would take a task again
    for index_only in [false, true] {
        let mut ring = Ring::new(4);
        ring.index_only = index_only;
        assert!(ring.try_enqueue(100));
        let stale = ring.dequeue_read();
        assert_eq!(ring.try_dequeue(), Some(100));
        for task in 1..4 {
            assert!(ring.try_enqueue(task));
            assert_eq!(ring.try_dequeue(), Some(task));
        }
        assert!(ring.try_enqueue(200));
        let got = ring.dequeue_finish(stale);
        assert_eq!(
            got,
            if index_only { Some(200) } else { None },
            "index_only {index_only}"
        );
    }
}
