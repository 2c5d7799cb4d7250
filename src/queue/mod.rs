//! # The persistent-kernel work queue (issue 7)
//!
//! A lock-free bounded MPMC ring in storage memory (`wgsl/shared/queue.wgsl`), drained by a
//! persistent kernel whose scheduler subgroups dequeue and hand tasks to worker subgroups, with
//! child launches through indirect dispatch. `docs/queue.md` has the state machine, the ABA
//! argument for the versioned head/tail and the forward-progress argument. Rules:
//!
//! - **Tasks are real work**: task `t` sums `words_per_task` words of the input (wrapping u32)
//!   into `results[t]` and spawns children `fanout·t + 1 ..= fanout·t + fanout` (those below
//!   `n_tasks`): a tree rooted at task 0, which the host seeds into the ring.
//! - **Every run is counted**: `runs[t]` is incremented at each execution of task `t`;
//!   [`check`] demands exactly 1 for every id, so a lost or duplicated task shows.
//! - **No inter-workgroup forward-progress assumption.** Persistent workgroups poll a bounded
//!   number of times and exit; children that do not fit the ring are spilled and run by a child
//!   dispatch (indirect, arguments written on the GPU) in the same submission. One submission is
//!   `rounds` × (persistent, child args, child). While tasks remain the host submits again,
//!   carrying every state buffer over (`QueueState`): each submission runs at least one task
//!   (docs/queue.md), so the loop ends.
//! - Needs subgroups (`Caps::subgroups`); there is no workgroup-memory flavour of the roles yet.
//!
//! Enqueue-to-start latency percentiles are not measured yet (left for later, see docs/queue.md).

use std::sync::Arc;

use crate::case::{size_label, Case, Work};
use crate::error::{Error, Result};
use crate::exec::{Caps, Executor, RunOutput};
use crate::kernel::{self, Kernel};
use crate::plan::{BufferId, BufferInit, Plan, Workgroups, POISON_WORD};

/// Largest ring: the slot index has 12 bits in the packed head/tail.
pub const MAX_CAPACITY: u32 = 1 << 12;
/// Slot states, as in the WGSL (`payload << 2 | state`).
pub const S_EMPTY: u32 = 0;
/// A producer owns the slot.
pub const S_WRITING: u32 = 1;
/// The slot holds a task.
pub const S_FULL: u32 = 2;
/// A consumer owns the slot.
pub const S_READING: u32 = 3;

/// Tuning of the work queue.
#[derive(Clone, Copy, Debug)]
pub struct QueuePolicy {
    /// Persistent workgroups (64 invocations each). Not measured yet: 8 keeps lavapipe's two
    /// threads and the simulator busy; the H100 would want about one per SM (132).
    pub workgroups: u32,
    /// Ring slots, a power of two ≤ [`MAX_CAPACITY`]. Small on purpose in tests (contention,
    /// spills); not tuned.
    pub capacity: u32,
    /// (persistent, child args, child) rounds per submission.
    pub rounds: u32,
    /// Most submissions before giving up with an error (each runs at least one task).
    pub max_submissions: u32,
}

impl Default for QueuePolicy {
    fn default() -> Self {
        QueuePolicy {
            workgroups: 8,
            capacity: 64,
            rounds: 2,
            max_submissions: 100_000,
        }
    }
}

/// A problem: `n_tasks` tasks over `input` (`n_tasks · words_per_task` words).
#[derive(Clone, Debug)]
pub struct QueueProblem {
    /// Number of tasks (< 2^30, and `n_tasks · fanout` < 2^32).
    pub n_tasks: u32,
    /// Input words each task sums.
    pub words_per_task: u32,
    /// Children per task (≥ 1).
    pub fanout: u32,
    /// The input, `n_tasks · words_per_task` words.
    pub input: Vec<u32>,
}

impl QueueProblem {
    /// A seeded random problem.
    pub fn random(n_tasks: u32, words_per_task: u32, fanout: u32, seed: u64) -> Self {
        let n = n_tasks as u64 * words_per_task as u64;
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let input = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u32
            })
            .collect();
        QueueProblem {
            n_tasks,
            words_per_task,
            fanout,
            input,
        }
    }

    fn validate(&self, caps: &Caps, policy: &QueuePolicy) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidInput(m));
        if !caps.subgroups {
            return bad("the work queue needs subgroup operations".into());
        }
        if self.n_tasks >= 1 << 30 || self.n_tasks as u64 * self.fanout as u64 >= 1 << 32 {
            return bad(format!(
                "{} tasks × fanout {} too many",
                self.n_tasks, self.fanout
            ));
        }
        if self.fanout == 0 {
            return bad("fanout must be at least 1".into());
        }
        if self.input.len() as u64 != self.n_tasks as u64 * self.words_per_task as u64 {
            return bad(format!(
                "input has {} words, want {} tasks × {}",
                self.input.len(),
                self.n_tasks,
                self.words_per_task
            ));
        }
        if self.input.len() as u64 * 4 > caps.max_storage_binding {
            return Err(Error::TooLarge("queue input exceeds one binding".into()));
        }
        let c = policy.capacity;
        if !c.is_power_of_two() || !(2..=MAX_CAPACITY).contains(&c) {
            return bad(format!("capacity {c} not a power of two in 2..=4096"));
        }
        if policy.workgroups == 0 || policy.workgroups > caps.max_workgroups_per_dim {
            return bad(format!("{} persistent workgroups", policy.workgroups));
        }
        Ok(())
    }
}

/// Every state buffer of the queue, carried from one submission to the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueState {
    /// Per task: its result (`POISON_WORD` until it ran).
    pub results: Vec<u32>,
    /// Per task: how many times it ran.
    pub runs: Vec<u32>,
    /// Packed head, packed tail, then the slots.
    pub ring: Vec<u32>,
    /// done, spill count, child lo, child hi.
    pub ctl: Vec<u32>,
    /// Spilled task ids.
    pub spill: Vec<u32>,
}

impl QueueState {
    /// The initial state: task 0 in slot 0 (none for zero tasks).
    pub fn initial(n_tasks: u32, capacity: u32) -> Self {
        let mut ring = vec![0u32; 2 + capacity as usize];
        if n_tasks > 0 {
            ring[1] = 1; // tail: version 0, index 1
            ring[2] = S_FULL; // task 0
        }
        QueueState {
            results: vec![POISON_WORD; n_tasks as usize],
            runs: vec![0; n_tasks as usize],
            ring,
            ctl: vec![0; 4],
            spill: vec![0; n_tasks as usize],
        }
    }

    /// Tasks done so far.
    pub fn done(&self) -> u32 {
        self.ctl[0]
    }
}

/// One submission, built: run `plan`, then [`QueuePlan::decode`].
pub struct QueuePlan {
    /// The passes.
    pub plan: Plan,
    ids: [BufferId; 5],
}

impl QueuePlan {
    /// The state after the run.
    pub fn decode(&self, out: &RunOutput) -> Result<QueueState> {
        let [results, runs, ring, ctl, spill] = self.ids.map(|id| out.get::<u32>(id));
        if ctl.len() < 4 {
            return Err(Error::Gpu("queue state missing".into()));
        }
        Ok(QueueState {
            results,
            runs,
            ring,
            ctl,
            spill,
        })
    }
}

fn kernels() -> Result<[Arc<Kernel>; 3]> {
    // the queue kernels use subgroup builtins directly; they compose the same in either flavour
    let f = kernel::Flavor::Subgroup;
    Ok([
        kernel::load("queue/persistent", f)?,
        kernel::load("queue/child_args", f)?,
        kernel::load("queue/child", f)?,
    ])
}

/// Builds one submission starting from `state`.
pub fn plan(
    caps: &Caps,
    problem: &QueueProblem,
    policy: &QueuePolicy,
    state: &QueueState,
) -> Result<QueuePlan> {
    problem.validate(caps, policy)?;
    let [persistent, child_args, child] = kernels()?;
    let mut plan = Plan::new("queue");
    let params = plan.upload(
        "params",
        &[
            problem.n_tasks,
            problem.words_per_task,
            problem.fanout,
            policy.capacity,
        ],
    );
    let input = plan.upload("input", &problem.input);
    let results = plan.upload("results", &state.results);
    let runs = plan.upload("runs", &state.runs);
    let ring = plan.upload("ring", &state.ring);
    let ctl = plan.upload("ctl", &state.ctl);
    let spill = plan.upload("spill", &state.spill);
    let args = plan.buffer("child args", 12, BufferInit::Zeroed);
    let binds = [params, input, results, runs, ring, ctl, spill, args];
    for r in 0..policy.rounds.max(1) {
        plan.pass(
            format!("persistent {r}"),
            &persistent,
            "main",
            &[],
            &binds,
            Workgroups::Direct([policy.workgroups, 1, 1]),
        );
        plan.pass(
            format!("child args {r}"),
            &child_args,
            "main",
            &[],
            &binds,
            Workgroups::Direct([1, 1, 1]),
        );
        plan.pass(
            format!("child {r}"),
            &child,
            "main",
            &[],
            &binds,
            Workgroups::Indirect {
                buffer: args,
                offset: 0,
            },
        );
    }
    let ids = [results, runs, ring, ctl, spill];
    for id in ids {
        plan.read_back(id);
    }
    plan.validate()?;
    Ok(QueuePlan { plan, ids })
}

/// The outcome of [`run`].
#[derive(Clone, Debug)]
pub struct QueueOutcome {
    /// The final state.
    pub state: QueueState,
    /// Submissions it took.
    pub submissions: u32,
    /// Findings of every submission (simulator only).
    pub findings: Vec<crate::finding::Finding>,
}

/// Runs every task of `problem`: submits until all are done.
pub fn run(
    exec: &dyn Executor,
    problem: &QueueProblem,
    policy: &QueuePolicy,
) -> Result<QueueOutcome> {
    problem.validate(exec.caps(), policy)?;
    let mut state = QueueState::initial(problem.n_tasks, policy.capacity);
    let mut findings = Vec::new();
    let mut submissions = 0;
    while state.done() < problem.n_tasks {
        if submissions >= policy.max_submissions {
            return Err(Error::Gpu(format!(
                "work queue: {} of {} tasks done after {submissions} submissions",
                state.done(),
                problem.n_tasks
            )));
        }
        let before = state.done();
        let qp = plan(exec.caps(), problem, policy, &state)?;
        let out = exec.run(&qp.plan)?;
        findings.extend(out.findings.iter().cloned());
        state = qp.decode(&out)?;
        submissions += 1;
        if state.done() <= before {
            // every submission runs at least one task (docs/queue.md); if not, something is wrong
            return Err(Error::Gpu(format!(
                "work queue made no progress in a submission ({before} of {} done)",
                problem.n_tasks
            )));
        }
    }
    Ok(QueueOutcome {
        state,
        submissions,
        findings,
    })
}

/// Checks a final state against the CPU reference: every task ran exactly once, with the right
/// result, and the ring is empty.
pub fn check(problem: &QueueProblem, state: &QueueState) -> std::result::Result<(), String> {
    let n = problem.n_tasks as usize;
    let w = problem.words_per_task as usize;
    if state.runs.len() != n || state.results.len() != n {
        return Err("state has the wrong number of tasks".into());
    }
    for t in 0..n {
        if state.runs[t] != 1 {
            return Err(format!("task {t} ran {} times", state.runs[t]));
        }
        let want = problem.input[t * w..(t + 1) * w]
            .iter()
            .fold(0u32, |a, &x| a.wrapping_add(x));
        if state.results[t] != want {
            return Err(format!(
                "task {t}: result {:#x}, want {want:#x}",
                state.results[t]
            ));
        }
    }
    if state.done() as usize != n {
        return Err(format!("done counter {} for {n} tasks", state.done()));
    }
    if let Some(i) = state.ring[2..].iter().position(|&s| s != S_EMPTY) {
        return Err(format!(
            "ring slot {i} not empty at the end: {:#x}",
            state.ring[2 + i]
        ));
    }
    Ok(())
}

/// What [`aba_probe`] observed (`wgsl/queue/aba_probe.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbaProbe {
    /// Packed head the stale reader read (version 0, index 0).
    pub stale_head: u32,
    /// Packed head after the others pushed the ring once round (same index, newer version).
    pub head_after_wrap: u32,
    /// Every operation of the round trip did what it should.
    pub round_trip_ok: bool,
    /// The stale reader's result: must be `None` (rejected).
    pub stale_result: Option<u32>,
    /// A fresh reader's result afterwards: must be `Some(200)`.
    pub fresh_result: Option<u32>,
    /// Then the ring must be empty (`None`).
    pub after: Option<u32>,
}

/// Runs the ABA probe kernel on a ring of `capacity` slots: a stale reader across a wrap-around.
pub fn aba_probe(exec: &dyn Executor, capacity: u32) -> Result<AbaProbe> {
    let problem = QueueProblem {
        n_tasks: 0,
        words_per_task: 0,
        fanout: 1,
        input: vec![],
    };
    let policy = QueuePolicy {
        capacity,
        ..QueuePolicy::default()
    };
    problem.validate(exec.caps(), &policy)?;
    let k = kernel::load("queue/aba_probe", kernel::Flavor::Subgroup)?;
    let mut plan = Plan::new("queue aba probe");
    let params = plan.upload("params", &[0u32, 0, 1, capacity]);
    let ring = plan.upload("ring", &QueueState::initial(0, capacity).ring);
    let probe = plan.buffer("probe", 32, BufferInit::Poison);
    let mut binds = vec![params; 9];
    binds[4] = ring;
    binds[8] = probe;
    plan.pass(
        "aba probe",
        &k,
        "main",
        &[],
        &binds,
        Workgroups::Direct([1, 1, 1]),
    );
    plan.read_back(probe);
    plan.validate()?;
    let out = exec.run(&plan)?;
    if let Some(f) = out.findings.first() {
        return Err(Error::Sim(format!(
            "aba probe: {} findings, first: {f:?}",
            out.findings.len()
        )));
    }
    let p: Vec<u32> = out.get(probe);
    if p.len() < 8 {
        return Err(Error::Gpu("aba probe output missing".into()));
    }
    let opt = |x: u32| (x != u32::MAX).then_some(x);
    Ok(AbaProbe {
        stale_head: p[1],
        head_after_wrap: p[4],
        round_trip_ok: p[0] == 1 && p[2] == 100 && p[3] == 1,
        stale_result: opt(p[5]),
        fresh_result: opt(p[6]),
        after: opt(p[7]),
    })
}

/// Benchmark cases: one submission draining a task tree (fanout 4, 64 words per task).
/// Throughput in tasks/s (`Work::Keys`, keys = tasks). The timed run starts from the initial state,
/// so a case whose single submission does not finish fails verification rather than lying.
pub fn bench_cases(caps: &Caps, n: u64, seed: u64) -> Result<Vec<Case>> {
    let n_tasks = (n / 64).clamp(1, 1 << 20) as u32;
    let problem = QueueProblem::random(n_tasks, 64, 4, seed);
    let policy = QueuePolicy {
        workgroups: 132,
        capacity: 1024,
        // a spill frontier advances about one tree level per round; fanout 4 over ≤ 2^20 tasks is
        // ≤ 10 levels
        rounds: 16,
        ..QueuePolicy::default()
    };
    let qp = plan(
        caps,
        &problem,
        &policy,
        &QueueState::initial(n_tasks, policy.capacity),
    )?;
    let bytes = problem.input.len() as f64 * 4.0 + n_tasks as f64 * 8.0;
    let QueuePlan { plan, ids } = qp;
    let decoder = QueuePlan {
        plan: Plan::new("decode"),
        ids,
    };
    Ok(vec![Case {
        algorithm: "queue".into(),
        variant: "task tree fanout 4, 64 words/task".into(),
        size: n_tasks as u64,
        size_label: size_label(n_tasks as u64),
        plan,
        work: Work::Keys {
            keys: n_tasks as f64,
            bytes,
        },
        verify: Box::new(move |out| {
            let state = decoder.decode(out).map_err(|e| e.to_string())?;
            check(&problem, &state)
        }),
    }])
}
