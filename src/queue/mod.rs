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
//!   persistent, child and ABA-probe kernels are the same files in both; [`Caps::flavor`] picks.
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

use std::sync::Arc;

use crate::context::{Context, Prepared};
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::kernel::{self, Kernel};
use crate::plan::{BufferId, BufferInit, Fills, Plan, Workgroups, POISON_WORD};
use crate::stages::queue::{aba_probe, child, persistent};
use crate::stages::Resource;

pub mod latency;

pub use latency::{ClockLatency, Latency, Spread};

/// The state layout the queue kernels declare (`wgsl/queue/lib/ring.wgsl` and the flavour's
/// team file), read from the persistent kernel: the host builds and decodes state with it and
/// never restates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueLayout {
    /// Index bits of a packed head/tail (the version takes the rest): the ring holds at most
    /// `1 << idx_bits` slots.
    pub idx_bits: u32,
    /// Slot states (`payload << 2 | state`).
    pub s_empty: u32,
    /// A slot holding a task.
    pub s_full: u32,
    /// Words of `ctl`.
    pub ctl_words: usize,
    /// `ctl[ctl_done]`: tasks done.
    pub ctl_done: usize,
    /// `ctl[ctl_spill]`: tasks spilled so far (the used length of `spill`).
    pub ctl_spill: usize,
    /// `ctl[ctl_end + p]`: the spill list's end as the child dispatch of the last round of
    /// parity `p` took it.
    pub ctl_end: usize,
    /// `ctl[ctl_clock]`: the latency clock.
    pub ctl_clock: usize,
    /// `ctl[ctl_round]`: rounds of the current submission so far (zeroed by the host).
    pub ctl_round: usize,
    /// `ctl[ctl_marks + r]`: the clock as round `r`'s persistent pass starts, for the first
    /// `ctl_marks_len` rounds.
    pub ctl_marks: usize,
    /// See `ctl_marks`.
    pub ctl_marks_len: usize,
    /// Attempts at enqueueing a child before it is spilled.
    pub enq_tries: u32,
    /// Spilled tasks per child-dispatch workgroup (a block).
    pub child_block: u32,
    /// Most spilled tasks one child-kernel team runs of a block.
    pub child_team_tasks: u32,
}

impl QueueLayout {
    /// The layout of the `flavor`'s kernels.
    pub fn of(flavor: kernel::Flavor) -> Result<QueueLayout> {
        let k = persistent::STAGE.load(flavor)?;
        let c = |name| k.constant(name);
        Ok(QueueLayout {
            idx_bits: c(persistent::IDX_BITS)?,
            s_empty: c(persistent::S_EMPTY)?,
            s_full: c(persistent::S_FULL)?,
            ctl_words: c(persistent::CTL_WORDS)? as usize,
            ctl_done: c(persistent::CTL_DONE)? as usize,
            ctl_spill: c(persistent::CTL_SPILL)? as usize,
            ctl_end: c(persistent::CTL_END)? as usize,
            ctl_clock: c(persistent::CTL_CLOCK)? as usize,
            ctl_round: c(persistent::CTL_ROUND)? as usize,
            ctl_marks: c(persistent::CTL_MARKS)? as usize,
            ctl_marks_len: c(persistent::CTL_MARKS_LEN)? as usize,
            enq_tries: c(persistent::ENQ_TRIES)?,
            child_block: c(persistent::CHILD_BLOCK)?,
            child_team_tasks: c(persistent::CHILD_TEAM_TASKS)?,
        })
    }

    /// The largest ring.
    pub fn max_capacity(&self) -> u32 {
        1 << self.idx_bits
    }
}

/// Loop back-edges one invocation of a queue kernel may take, over all its loops (the
/// persistent kernel's `LOOP_BUDGET`), or `None` for no limit. lavapipe/llvmpipe (gallivm) keep
/// one iteration counter per shader invocation, shared by every loop, and end every loop after
/// 65535 back-edges, silently: a persistent kernel that runs thousands of tasks on one row of
/// lanes would have a task's sum loop stop half way. The simulator stands in
/// for lavapipe and gets the same budget (its `loop-limit` check would report the overrun).
/// Margin below 65535: naga/NIR may add a loop of its own.
pub fn loop_budget(caps: &Caps) -> Option<u32> {
    let name = caps.name.to_lowercase();
    let gallivm = ["llvmpipe", "lavapipe"].iter().any(|n| name.contains(n));
    gallivm.then_some(60_000)
}

/// Upper bound on the loop back-edges one invocation takes running one task (`task_steps` in
/// `wgsl/queue/lib/ring.wgsl` with one-lane teams, the worst case).
fn task_steps(problem: &QueueProblem, layout: &QueueLayout) -> u64 {
    problem.words_per_task as u64 + 2 + problem.fanout as u64 * (layout.enq_tries as u64 + 2)
}

/// Tuning of the work queue.
#[derive(Clone, Copy, Debug)]
pub struct QueuePolicy {
    /// Persistent workgroups (64 invocations each). See [`QueuePolicy::for_caps`]; the tests
    /// set their own.
    pub workgroups: u32,
    /// Ring slots, a power of two up to [`QueueLayout::max_capacity`] (4096). Small on purpose in
    /// tests (contention, spills); not tuned.
    pub capacity: u32,
    /// (persistent, child) rounds per submission.
    pub rounds: u32,
    /// Most submissions before giving up with an error (each runs at least one task).
    pub max_submissions: u32,
    /// Keep the logical latency clock ([`latency`]); costs two global atomics per task.
    pub latency: bool,
    /// With `latency`, record the device's clock instead of the logical one (no atomics; each
    /// task's two words are the clock's low words at its push and its start: [`ClockLatency`]).
    /// Needs a device opened with its clock (`GpuContext::open_with_clock`); elsewhere the plan
    /// fails when it is prepared.
    pub device_clock: bool,
    /// Spill every child to the child dispatch, none through the ring: each child is a child
    /// launch (the bench times one on an otherwise idle queue). Not for speed.
    pub spill_all: bool,
    /// Most workgroups of a child dispatch (1..=65535, the API's limit per dimension); with more
    /// spilled tasks each workgroup runs several blocks of them. The tests lower it.
    pub child_workgroups: u32,
}

impl Default for QueuePolicy {
    fn default() -> Self {
        QueuePolicy {
            workgroups: 8,
            capacity: 64,
            rounds: 2,
            max_submissions: 100_000,
            latency: false,
            device_clock: false,
            spill_all: false,
            child_workgroups: 65535,
        }
    }
}

impl QueuePolicy {
    /// A policy for an adapter. Caps has no SM/CU count, so the kind of device is guessed:
    /// - CPU adapters (lavapipe, SwiftShader, WARP): 8 workgroups (lavapipe runs workgroups on its
    ///   threads; 8 keeps a few CPUs busy), 256 slots. Not tuned: the lavapipe tests pass and run
    ///   in well under a second with it;
    /// - a big discrete GPU (a storage binding of 1 GiB or more, as on the H100's 2 GiB): 264
    ///   workgroups (2 per SM of a 132-SM H100) and the largest ring, 4096 slots. Not swept: on
    ///   the H200 it drains a tree of 2^20 tasks in 9.2–9.7 ms (2026-11-30, docs/queue.md); CUDA's seed used one
    ///   block per SM;
    /// - anything else (integrated GPUs): 32 workgroups, 1024 slots, unmeasured.
    pub fn for_caps(caps: &Caps) -> QueuePolicy {
        let (workgroups, capacity) = if caps.is_cpu() {
            (8, 256)
        } else if caps.max_storage_binding >= 1 << 30 {
            (264, 4096)
        } else {
            (32, 1024)
        };
        QueuePolicy {
            workgroups: workgroups.min(caps.max_workgroups_per_dim),
            capacity,
            ..QueuePolicy::default()
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
        if self.n_tasks >= 1 << 30 || self.n_tasks as u64 * self.fanout as u64 >= 1 << 32 {
            return bad(format!(
                "{} tasks × fanout {} too many",
                self.n_tasks, self.fanout
            ));
        }
        if self.fanout == 0 {
            return bad("fanout must be at least 1".into());
        }
        if policy.device_clock && !policy.latency {
            return bad("the device clock times the latency: set latency too".into());
        }
        if self.input.len() as u64 != self.n_tasks as u64 * self.words_per_task as u64 {
            return bad(format!(
                "input has {} words, want {} tasks × {}",
                self.input.len(),
                self.n_tasks,
                self.words_per_task
            ));
        }
        caps.check_binding(self.input.len() as u64 * 4, || {
            format!("a queue's input of {} words", self.input.len())
        })?;
        let layout = QueueLayout::of(caps.flavor())?;
        let c = policy.capacity;
        let max = layout.max_capacity();
        if !c.is_power_of_two() || !(2..=max).contains(&c) {
            return bad(format!("capacity {c} not a power of two in 2..={max}"));
        }
        let widest = caps.max_workgroups_per_dim.min(65535);
        if policy.child_workgroups == 0 || policy.child_workgroups > widest {
            return bad(format!(
                "{} child workgroups: want 1..={widest}",
                policy.child_workgroups
            ));
        }
        if let Some(budget) = loop_budget(caps) {
            // a child team needs child_team_tasks tasks' loops (+ 1 each for its own loop) for
            // each block its workgroup strides over (+ 1 for that loop): at least three, which
            // is what a persistent team's one poll (two tasks) and drain (a third) need
            let steps = task_steps(self, &layout);
            let block = layout.child_block as u64 * policy.child_workgroups as u64;
            let strides = (self.n_tasks as u64).div_ceil(block).max(1);
            let per_team = (layout.child_team_tasks as u64 + 1) * strides + strides;
            if per_team * (steps + 1) > budget as u64 {
                return bad(format!(
                    "a task of {} words and fanout {} takes {steps} loop steps: more than this \
                     adapter runs in one invocation ({budget} in all, over {} tasks)",
                    self.words_per_task, self.fanout, per_team
                ));
            }
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
    /// The layout the kernels write it in.
    pub layout: QueueLayout,
    /// Per task: its result (`POISON_WORD` until it ran).
    pub results: Vec<u32>,
    /// Per task: how many times it ran.
    pub runs: Vec<u32>,
    /// Packed head, packed tail, then the slots.
    pub ring: Vec<u32>,
    /// done, spill count, the spill list's ends per round parity, the clock, the round count and
    /// marks (the words `QueueLayout` names).
    pub ctl: Vec<u32>,
    /// Spilled task ids.
    pub spill: Vec<u32>,
    /// Per task: enqueue tick, start tick (`POISON_WORD` until taken); empty without the latency
    /// clock.
    pub ticks: Vec<u32>,
}

impl QueueState {
    /// The initial state in `layout`: task 0 in slot 0 (none for zero tasks); with `latency`,
    /// task 0's enqueue is tick 0 and the clock is at 1.
    pub fn initial(layout: &QueueLayout, n_tasks: u32, capacity: u32, latency: bool) -> Self {
        let n = n_tasks as usize;
        let mut ring = vec![layout.s_empty; 2 + capacity as usize];
        ring[0] = 0;
        let mut ctl = vec![0u32; layout.ctl_words];
        let mut ticks = Vec::new();
        if latency {
            ticks = vec![POISON_WORD; 2 * n];
        }
        if n_tasks > 0 {
            ring[1] = 1; // tail: version 0, index 1
            ring[2] = layout.s_full; // task 0
            if latency {
                ticks[0] = 0;
                ctl[layout.ctl_clock] = 1;
            }
        }
        QueueState {
            layout: *layout,
            results: vec![POISON_WORD; n],
            runs: vec![0; n],
            ring,
            ctl,
            spill: vec![0; n],
            ticks,
        }
    }

    /// Tasks done so far.
    pub fn done(&self) -> u32 {
        self.ctl[self.layout.ctl_done]
    }
}

/// One submission, built: run `plan`, then read the state back ([`QueuePlan::read_state`]).
pub struct QueuePlan {
    /// The passes.
    pub plan: Plan,
    ids: [BufferId; 5],
    ticks: Option<BufferId>,
    /// Words of results, runs, ring, ctl, spill, ticks (buffers may be padded).
    lens: [usize; 6],
    layout: QueueLayout,
}

impl QueuePlan {
    /// The state after a run of `prepared` (this plan, made ready on `ctx`); waits for it.
    pub fn read_state(&self, ctx: &Context, prepared: &Prepared) -> Result<QueueState> {
        let words = self
            .state_args()
            .into_iter()
            .map(|id| {
                let own = prepared.own(id).ok_or_else(|| {
                    Error::Plan("this queue plan's state is the caller's buffers".into())
                })?;
                ctx.read_ref::<u32>(&own)
            })
            .collect::<Result<Vec<_>>>()?;
        self.state_from(words)
    }

    /// The state buffers: results, runs, ring, ctl, spill, and ticks with the latency clock
    /// (the caller's where the plan was built without a state).
    pub fn state_args(&self) -> Vec<BufferId> {
        self.ids.iter().copied().chain(self.ticks).collect()
    }

    /// Words of each of [`QueuePlan::state_args`].
    pub fn state_lens(&self) -> &[usize] {
        &self.lens[..self.state_args().len()]
    }

    /// What to fill the caller's state buffers ([`QueuePlan::state_args`], in order) with for a
    /// submission starting from `state`: each buffer's words, padded to at least one, the round
    /// marks cleared (as [`plan`] does). A state of another problem or policy is an
    /// [`Error::InvalidInput`].
    pub fn state_words(&self, state: &QueueState) -> Result<Vec<Vec<u32>>> {
        submission_words(state, &self.layout)
            .into_iter()
            .zip(self.state_lens())
            .map(|(mut w, &len)| {
                if w.len() != len {
                    return Err(Error::InvalidInput(
                        "queue state does not match the plan's problem / policy".into(),
                    ));
                }
                w.resize(len.max(1), 0);
                Ok(w)
            })
            .collect()
    }

    /// The state from the words of [`QueuePlan::state_args`], as read back.
    pub fn state_from(&self, words: Vec<Vec<u32>>) -> Result<QueueState> {
        let mut it = words.into_iter().zip(self.lens).map(|(mut v, len)| {
            if v.len() < len {
                return Err(Error::Gpu("queue state missing".into()));
            }
            v.truncate(len);
            Ok(v)
        });
        let mut next = || it.next().unwrap_or_else(|| Ok(Vec::new()));
        Ok(QueueState {
            layout: self.layout,
            results: next()?,
            runs: next()?,
            ring: next()?,
            ctl: next()?,
            spill: next()?,
            ticks: next()?,
        })
    }
}

/// `state`'s words in the order of the state buffers (results, runs, ring, ctl, spill, ticks),
/// the round marks cleared: they count one submission's rounds. Both parities' ends become the
/// later one: the submission's first round (even) takes the odd word as what was launched, and
/// the last round before may have been either.
fn submission_words(state: &QueueState, layout: &QueueLayout) -> [Vec<u32>; 6] {
    let mut ctl = state.ctl.clone();
    ctl[layout.ctl_round] = 0;
    let end = ctl[layout.ctl_end].max(ctl[layout.ctl_end + 1]);
    ctl[layout.ctl_end..layout.ctl_end + 2].fill(end);
    [
        state.results.clone(),
        state.runs.clone(),
        state.ring.clone(),
        ctl,
        state.spill.clone(),
        state.ticks.clone(),
    ]
}

fn kernels(caps: &Caps) -> Result<[Arc<Kernel>; 2]> {
    // one text per kernel; the team helpers (shared/queue_team) carry the flavour
    let f = caps.flavor();
    Ok([persistent::STAGE.load(f)?, child::STAGE.load(f)?])
}

/// Builds one submission starting from `state`.
pub fn plan(
    caps: &Caps,
    problem: &QueueProblem,
    policy: &QueuePolicy,
    state: &QueueState,
) -> Result<QueuePlan> {
    build(caps, problem, policy, Some(state))
}

/// [`plan`]; with `state` `None`, the state buffers are the caller's instead (`Arg`s, in the
/// order of [`QueuePlan::state_args`], each [`QueuePlan::state_lens`] words), so a benchmark
/// can restore them between runs of one prepared plan. Fill them from
/// [`QueuePlan::state_words`] before each run: a run leaves the spill list's two round-parity
/// ends as it left them, and after an odd number of rounds the next run's first round would read
/// the older one as what was launched and run the last round's spilled children again.
pub fn build(
    caps: &Caps,
    problem: &QueueProblem,
    policy: &QueuePolicy,
    state: Option<&QueueState>,
) -> Result<QueuePlan> {
    problem.validate(caps, policy)?;
    let layout = QueueLayout::of(caps.flavor())?;
    let n = problem.n_tasks as usize;
    if let Some(state) = state {
        if state.runs.len() != n
            || state.ctl.len() != layout.ctl_words
            || (policy.latency && state.ticks.len() != 2 * n)
        {
            return Err(Error::InvalidInput(
                "queue state does not match the problem / policy".into(),
            ));
        }
    }
    let lens = [
        n,
        n,
        2 + policy.capacity as usize,
        layout.ctl_words,
        n,
        if policy.latency { 2 * n } else { 0 },
    ];
    let [persistent, child] = kernels(caps)?;
    let mut plan = Plan::new("queue");
    // one Params for the even rounds and one for the odd (its `parity`; padded to 32 bytes, a
    // uniform struct's size)
    let params = [0, 1].map(|parity| {
        plan.upload(
            ["params (even rounds)", "params (odd rounds)"][parity as usize],
            &[
                problem.n_tasks,
                problem.words_per_task,
                problem.fanout,
                policy.capacity,
                parity,
                0,
                0,
                0,
            ],
        )
    });
    let input = plan.upload("input", &problem.input);
    let state_buf = |plan: &mut Plan, i: usize, label: &str, data: Option<&[u32]>| match data {
        Some(d) => plan.upload(label, d),
        None => plan.arg(label, (lens[i].max(1) * 4) as u64),
    };
    let words = state.map(|s| submission_words(s, &layout));
    let word = |i: usize| words.as_ref().map(|w| &w[i][..]);
    let results = state_buf(&mut plan, 0, "results", word(0));
    let runs = state_buf(&mut plan, 1, "runs", word(1));
    let ring = state_buf(&mut plan, 2, "ring", word(2));
    let ctl = state_buf(&mut plan, 3, "ctl", word(3));
    let spill = state_buf(&mut plan, 4, "spill", word(4));
    // without the clock the kernels never touch `ticks`, but the binding is still declared
    let ticks = if policy.latency {
        state_buf(&mut plan, 5, "ticks", word(5))
    } else {
        plan.buffer("ticks (unused)", 4, BufferInit::Zeroed)
    };
    // which tasks went through the ring, which waited in the spill list and when each started
    // depend on timing; every task's result and run count do not
    for b in [ring, ctl, spill, ticks] {
        plan.order_dependent(b);
    }
    // the child dispatches' arguments, a triple and a spare word per round parity (16 bytes, so
    // an indirect offset); how many blocks spilled depends on timing
    let args = plan.buffer("child args", 32, BufferInit::Zeroed);
    plan.order_dependent(args);
    let all = [
        (persistent::bind::input, input),
        (persistent::bind::results, results),
        (persistent::bind::runs, runs),
        (persistent::bind::ring, ring),
        (persistent::bind::ctl, ctl),
        (persistent::bind::spill, spill),
        (persistent::bind::args, args),
        (persistent::bind::ticks, ticks),
    ];
    // each stage binds what it declares (`args` is the persistent stage's alone), and the
    // round's Params
    let binds = |k: &Kernel, parity: usize| -> Vec<(Resource, BufferId)> {
        all.iter()
            .copied()
            .chain([(persistent::bind::params, params[parity])])
            .filter(|(name, _)| k.binding_of(name.name()).is_some())
            .collect()
    };
    let flag = |on: bool| if on { 1.0 } else { 0.0 };
    let clocked = [
        (child::LATENCY, flag(policy.latency)),
        (child::DEVICE_CLOCK, flag(policy.device_clock)),
        (child::SPILL_ALL, flag(policy.spill_all)),
    ];
    let budget = loop_budget(caps).unwrap_or(u32::MAX) as f64;
    let persistent_overrides = [
        (persistent::LATENCY, flag(policy.latency)),
        (persistent::DEVICE_CLOCK, flag(policy.device_clock)),
        (persistent::SPILL_ALL, flag(policy.spill_all)),
        (persistent::LOOP_BUDGET, budget),
        (
            persistent::MAX_CHILD_WORKGROUPS,
            policy.child_workgroups as f64,
        ),
    ];
    for r in 0..policy.rounds.max(1) {
        let parity = r as usize % 2;
        plan.pass(
            format!("persistent {r}"),
            &persistent,
            persistent::entry::main,
            &persistent_overrides,
            &binds(&persistent, parity),
            Workgroups::Direct([policy.workgroups, 1, 1]),
        )?;
        plan.pass(
            format!("child {r}"),
            &child,
            child::entry::main,
            &clocked,
            &binds(&child, parity),
            Workgroups::Indirect {
                buffer: args,
                offset: 16 * parity as u64,
            },
        )?;
    }
    // the next run of this plan starts from zeroed counts (the last round leaves its own)
    plan.fill("child args for the next run", args, 0)?;
    let ids = [results, runs, ring, ctl, spill];
    let ticks = policy.latency.then_some(ticks);
    plan.validate()?;
    Ok(QueuePlan {
        plan,
        ids,
        ticks,
        lens,
        layout,
    })
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
