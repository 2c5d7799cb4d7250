//! One submission of the work queue, built ([`build`], [`plan`]): `rounds` × (persistent pass,
//! child dispatch), then the pass that zeroes the child dispatches' arguments, on the state
//! buffers of a [`QueueState`] or the caller's ([`QueuePlan`]). The two round parities, their
//! `Params` and what each pass writes: `docs/queue.md`, child launches.

use std::sync::Arc;

use super::state::{loop_budget, QueueLayout, QueuePolicy, QueueProblem, QueueState};
use crate::context::{Context, Prepared};
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::plan::{BufferId, BufferInit, Fills, Plan, Workgroups};
use crate::stages::queue::{child, persistent};
use crate::stages::Resource;

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
