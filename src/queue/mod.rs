//! # The persistent-kernel work queue
//!
//! A lock-free bounded MPMC ring in storage memory (`wgsl/queue/lib/ring.wgsl`), drained by a
//! persistent kernel whose scheduler teams dequeue and hand tasks to worker teams, with
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
//!   dispatch (indirect, its arguments written by the persistent pass) in the same submission.
//!   One submission is `rounds` × (persistent, child), then a pass that zeroes the child
//!   arguments for the next. While tasks remain the host submits again,
//!   carrying every state buffer over (`QueueState`): each submission runs at least one task
//!   (docs/queue.md), so the loop ends.
//! - **Two flavours, one kernel text.** Tasks run on *teams* (`wgsl/queue/lib/team.*.wgsl`):
//!   a subgroup with subgroup operations, or, without `Caps::subgroups`, one invocation (every
//!   invocation its own scheduler or worker, the broadcast and the sum identities). The
//!   persistent, child and ABA-probe kernels are the same files in both;
//!   [`Caps::flavor`](crate::Caps::flavor) picks.
//! - **Latency is counted, or timed by the device's clock** ([`latency`]): with
//!   [`QueuePolicy::latency`] a logical clock ticks on every push and every start; the host turns
//!   ticks into percentiles, and into ns only by the run's average rate. Off by default: the clock
//!   is one more contended global atomic per push and per start, so the bench times both ways.
//!   With [`QueuePolicy::device_clock`] as well, the two words of a task are the device clock's
//!   at its push and its start ([`ClockLatency`]; a device opened with its clock,
//!   `crate::gpu::clock`).
//! - Policies per adapter: [`QueuePolicy::for_caps`]; its big-GPU figures are unmeasured guesses.
//! - **One submission's plan is repeatable**: [`build`] with the state as the caller's buffers
//!   ([`QueuePlan::state_args`]) records on buffers a setup copy restores before each run, so a
//!   benchmark times repeated runs of one prepared plan (the CLI's bench does, and checks that
//!   each run counted exactly its own rounds).

use crate::context::Context;
use crate::error::{Error, Result};
use crate::plan::{BufferInit, Plan, Workgroups};
use crate::stages::queue::aba_probe;

pub mod latency;
mod state;
mod submission;

pub use latency::{ClockLatency, Latency, Spread};
pub use state::{loop_budget, QueueLayout, QueuePolicy, QueueProblem, QueueState};
pub use submission::{build, plan, QueuePlan};

/// The outcome of [`run`].
#[derive(Clone, Debug)]
pub struct QueueOutcome {
    /// The final state.
    pub state: QueueState,
    /// Submissions it took.
    pub submissions: u32,
    /// Findings of every submission (simulator only).
    pub findings: Vec<crate::finding::Finding>,
    /// Enqueue-to-start latency in clock ticks (with [`QueuePolicy::latency`], `None` with
    /// [`QueuePolicy::device_clock`]; no ns: `run` is
    /// not timed, and the ticks span every submission, without the host's time between them).
    pub latency: Option<Latency>,
    /// The same in the device clock's units (with [`QueuePolicy::device_clock`]).
    pub clock: Option<ClockLatency>,
}

/// Runs every task of `problem` on `ctx`: submits until all are done.
///
/// ```
/// use wgsimd::queue::{check, run, QueuePolicy, QueueProblem};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let problem = QueueProblem::random(40, 4, 2, 1); // 40 tasks, each spawning up to 2
/// let out = run(&ctx, &problem, &QueuePolicy { workgroups: 2, capacity: 8, ..Default::default() })?;
/// assert!(out.findings.is_empty());
/// check(&problem, &out.state).expect("every task ran once");
/// # Ok(()) }
/// ```
pub fn run(ctx: &Context, problem: &QueueProblem, policy: &QueuePolicy) -> Result<QueueOutcome> {
    problem.validate(ctx.caps(), policy)?;
    let layout = QueueLayout::of(ctx.caps().flavor())?;
    let mut state = QueueState::initial(&layout, problem.n_tasks, policy.capacity, policy.latency);
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
        let qp = plan(ctx.caps(), problem, policy, &state)?;
        let prepared = ctx.prepare(qp.plan.clone())?;
        let mut enc = ctx.encoder();
        prepared.record((&mut enc).into(), &[], None)?;
        findings.extend(ctx.submit(enc)?.findings);
        state = qp.read_state(ctx, &prepared)?;
        submissions += 1;
        if state.done() <= before {
            // every submission runs at least one task (docs/queue.md); if not, something is wrong
            return Err(Error::Gpu(format!(
                "work queue made no progress in a submission ({before} of {} done)",
                problem.n_tasks
            )));
        }
    }
    let gpu_err = |e: String| Error::Gpu(format!("latency clock: {e}"));
    let (latency, clock) = match (policy.latency, policy.device_clock) {
        (false, _) => (None, None),
        (true, false) => (Some(Latency::from_state(&state).map_err(gpu_err)?), None),
        (true, true) => (
            None,
            Some(ClockLatency::from_state(&state).map_err(gpu_err)?),
        ),
    };
    Ok(QueueOutcome {
        state,
        submissions,
        findings,
        latency,
        clock,
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
    if let Some(i) = state.ring[2..]
        .iter()
        .position(|&s| s != state.layout.s_empty)
    {
        return Err(format!(
            "ring slot {i} not empty at the end: {:#x}",
            state.ring[2 + i]
        ));
    }
    Ok(())
}

/// What [`aba_probe()`] observed (`wgsl/queue/aba_probe.wgsl`).
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

/// Runs the ABA probe kernel on a ring of `capacity` slots on `ctx`: a stale reader across a
/// wrap-around.
pub fn aba_probe(ctx: &Context, capacity: u32) -> Result<AbaProbe> {
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
    problem.validate(ctx.caps(), &policy)?;
    let k = aba_probe::STAGE.load(ctx.caps().flavor())?;
    let mut plan = Plan::new("queue aba probe");
    // Params padded to 32 bytes, a uniform struct's size (the probe has no rounds: parity 0)
    let params = plan.upload("params", &[0u32, 0, 1, capacity, 0, 0, 0, 0]);
    let layout = QueueLayout::of(ctx.caps().flavor())?;
    let ring = plan.upload(
        "ring",
        &QueueState::initial(&layout, 0, capacity, false).ring,
    );
    let probe = plan.buffer("probe", 32, BufferInit::Poison);
    plan.pass(
        "aba probe",
        &k,
        aba_probe::entry::main,
        &[(aba_probe::LATENCY, 0.0)],
        &[
            (aba_probe::bind::params, params),
            (aba_probe::bind::ring, ring),
            (aba_probe::bind::probe, probe),
        ],
        Workgroups::Direct([1, 1, 1]),
    )?;
    let prepared = ctx.prepare(plan)?;
    let mut enc = ctx.encoder();
    prepared.record((&mut enc).into(), &[], None)?;
    ctx.submit(enc)?.clean("the aba probe")?;
    let p: Vec<u32> = ctx.read_ref(&prepared.own(probe).expect("own buffer"))?;
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
