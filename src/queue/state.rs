//! What the work queue's host side knows: the state layout the kernels declare
//! ([`QueueLayout`]), the policy ([`QueuePolicy`]), a problem and its checks ([`QueueProblem`]),
//! and the state carried from one submission to the next ([`QueueState`]).

use crate::device::Caps;
use crate::error::{Error, Result};
use crate::kernel;
use crate::plan::POISON_WORD;
use crate::stages::queue::persistent;

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
    /// Keep the logical latency clock ([`latency`](super::latency)); costs two global atomics
    /// per task.
    pub latency: bool,
    /// With `latency`, record the device's clock instead of the logical one (no atomics; each
    /// task's two words are the clock's low words at its push and its start:
    /// [`ClockLatency`](super::ClockLatency)).
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
    ///   the H200 it drains a tree of 2^20 tasks in 9.2–9.7 ms (2026-11-30, docs/queue.md);
    ///   CUDA's seed used one block per SM;
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

    pub(super) fn validate(&self, caps: &Caps, policy: &QueuePolicy) -> Result<()> {
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
