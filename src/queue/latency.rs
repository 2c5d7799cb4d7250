//! Enqueue-to-start latency of the work queue, from a logical clock ([`Latency`]) or the
//! device's ([`ClockLatency`], below).
//!
//! WGSL has no clock. With [`super::QueuePolicy::latency`] on, the kernels keep one (the word
//! `ctl[ctl_clock]`, [`QueueLayout`](super::QueueLayout)): every child push and every task start takes a tick with `atomicAdd`, and
//! each task records its enqueue tick and its start tick (`ticks[2t]`, `ticks[2t + 1]`). The host
//! seeds task 0's enqueue as tick 0 and the clock at 1. So:
//!
//! - a complete run ends with the clock at exactly `2 · n_tasks` (one enqueue and one start per
//!   task), and the `2 · n_tasks` recorded ticks are a permutation of `0 .. 2 · n_tasks`;
//! - a task's latency in ticks is `start − enqueue` ≥ 1: how many queue events (pushes and starts,
//!   anywhere on the GPU) happened between its parent pushing it and a team starting it,
//!   including both. For a spilled child the enqueue is the push that spilled it and the start is
//!   in the child dispatch that ran it.
//! - ticks become nanoseconds only on average: `ns_per_tick = run time / ticks taken in the run`
//!   ([`Latency::with_run_ns`]). Events are not evenly spaced in time (a burst of starts at a
//!   dispatch boundary, idle polling at the end), so the ns figures are an average-rate conversion,
//!   not a measured time per task; the tick figures are exact. The run time is that of the
//!   passes up to the last round that ticked ([`active_ns`], from the clock marks each round's
//!   persistent pass leaves as it starts), so idle trailing rounds do not inflate it.
//!
//! [`Latency::from_state`] checks all of the above (it is what the tests assert; nothing in the
//! tests is timed). Ordering caveat: WGSL atomics are relaxed, so in principle a consumer's start
//! tick could be ordered before the producer's enqueue tick of the same task (the two ticks are on
//! one word, the hand-off on another); that would show as a task with `start <= enqueue`, which
//! `from_state` reports as an error rather than hide.

use super::state::QueueState;

/// Enqueue-to-start latency percentiles of one run (nearest-rank percentiles over all tasks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latency {
    /// Tasks measured.
    pub tasks: u32,
    /// Median latency, clock ticks.
    pub p50_ticks: u32,
    /// 99th percentile, clock ticks.
    pub p99_ticks: u32,
    /// Largest, clock ticks.
    pub max_ticks: u32,
    /// Ticks the GPU took (the clock's final value minus the host's seed tick).
    pub gpu_ticks: u32,
    /// Median in ns, average-rate conversion (only after [`Latency::with_run_ns`]).
    pub p50_ns: Option<f64>,
    /// 99th percentile in ns, average-rate conversion.
    pub p99_ns: Option<f64>,
}

/// Nearest-rank percentile `p` (0 < p ≤ 100) of sorted `v` (non-empty).
fn percentile(v: &[u32], p: u32) -> u32 {
    let rank = (v.len() * p as usize).div_ceil(100).max(1);
    v[rank - 1]
}

impl Latency {
    /// Reads and checks the clock of a complete run: the clock ends at `2 · n_tasks`, the ticks are
    /// a permutation of `0 .. 2 · n_tasks`, every start is after its enqueue.
    pub fn from_state(state: &QueueState) -> Result<Latency, String> {
        let n = state.runs.len();
        if state.ticks.len() != 2 * n {
            return Err(format!(
                "{} tick words for {n} tasks (latency clock off?)",
                state.ticks.len()
            ));
        }
        let clock = state.ctl.get(state.layout.ctl_clock).copied().unwrap_or(0);
        let want = 2 * n as u64;
        if clock as u64 != want {
            return Err(format!(
                "clock ended at {clock}, want {want} (an enqueue and a start per task)"
            ));
        }
        let mut seen = vec![false; 2 * n];
        for (i, &t) in state.ticks.iter().enumerate() {
            match seen.get_mut(t as usize) {
                Some(s) if !*s => *s = true,
                Some(_) => return Err(format!("tick {t} recorded twice (word {i})")),
                None => return Err(format!("tick word {i} is {t:#x}, past the clock")),
            }
        }
        let mut lat = Vec::with_capacity(n);
        for t in 0..n {
            let (enq, start) = (state.ticks[2 * t], state.ticks[2 * t + 1]);
            if start <= enq {
                return Err(format!(
                    "task {t} started at tick {start}, enqueued at {enq}"
                ));
            }
            lat.push(start - enq);
        }
        lat.sort_unstable();
        let (p50, p99, max) = if n == 0 {
            (0, 0, 0)
        } else {
            (percentile(&lat, 50), percentile(&lat, 99), lat[n - 1])
        };
        Ok(Latency {
            tasks: n as u32,
            p50_ticks: p50,
            p99_ticks: p99,
            max_ticks: max,
            gpu_ticks: clock.saturating_sub(1),
            p50_ns: None,
            p99_ns: None,
        })
    }

    /// Adds ns figures for a run from the initial state that took `run_ns` of GPU time:
    /// `ns_per_tick = run_ns / gpu_ticks` (average rate; see the module text).
    pub fn with_run_ns(self, run_ns: f64) -> Latency {
        let per_tick = run_ns / self.gpu_ticks.max(1) as f64;
        Latency {
            p50_ns: Some(self.p50_ticks as f64 * per_tick),
            p99_ns: Some(self.p99_ticks as f64 * per_tick),
            ..self
        }
    }
}

/// GPU time of one submission up to the last round that advanced the clock: `pass_ns` are the
/// submission's pass times in plan order (persistent r, child r, for `rounds` rounds, then the
/// pass that zeroes the child arguments). The first round `r` whose mark (the clock as its
/// persistent pass started) is the clock's final value ends the window (that persistent pass
/// included: its other workgroups may have ticked before the mark); without one (a later round
/// ticked, or more rounds than the layout marks) the window is every pass. `None` if `pass_ns`
/// does not have 2 finite pass times per round and the last (host timing has none: the caller
/// then uses the total).
pub fn active_ns(state: &QueueState, rounds: u32, pass_ns: &[f64]) -> Option<f64> {
    let timed = pass_ns.iter().all(|ns| ns.is_finite());
    let l = &state.layout;
    if !timed
        || pass_ns.len() != 2 * rounds as usize + 1
        || state.ctl.len() < l.ctl_marks + l.ctl_marks_len
    {
        return None;
    }
    let end = state.ctl[l.ctl_clock];
    let marked = (rounds as usize).min(l.ctl_marks_len);
    let last = (0..marked)
        .find(|&r| state.ctl[l.ctl_marks + r] == end)
        .map_or(pass_ns.len(), |r| 2 * r + 1);
    Some(pass_ns[..last].iter().sum())
}

/// Percentiles of a set of latencies (nearest rank), in the units they were given in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spread {
    /// Samples.
    pub samples: u32,
    /// Median.
    pub p50: u32,
    /// 99th percentile.
    pub p99: u32,
    /// Largest.
    pub max: u32,
}

impl Spread {
    /// The spread of `v` (any order); all zero for none.
    pub fn of(mut v: Vec<u32>) -> Spread {
        if v.is_empty() {
            return Spread::default();
        }
        v.sort_unstable();
        Spread {
            samples: v.len() as u32,
            p50: percentile(&v, 50),
            p99: percentile(&v, 99),
            max: v[v.len() - 1],
        }
    }
}

/// Enqueue-to-start latency read from the device clock ([`super::QueuePolicy::device_clock`]):
/// each task's two words are the clock's low words at its push and at its start, so a latency
/// is their difference modulo 2^32 (runs shorter than 2^31 clock units; 2.1 s where the clock
/// counts ns). Tasks are told apart by the way they reached a team: through the ring (started
/// by a persistent pass) or spilled (started by a child dispatch). Task 0 is the host's: its push is the submission, not on the device's
/// clock, so it is left out (its start is [`ClockLatency::root_start`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockLatency {
    /// Tasks that went through the ring.
    pub ring: Spread,
    /// Tasks that were spilled.
    pub spilled: Spread,
    /// Task 0's start, the clock's low word.
    pub root_start: u32,
}

impl ClockLatency {
    /// The latencies of the tasks after task 0, (through the ring, spilled), in clock units, of
    /// a complete run (every task ran once: a task that did not has no start). A start before
    /// its push (modulo 2^32) is an error: a device-scope clock is one clock for the device.
    pub fn samples(state: &QueueState) -> Result<(Vec<u32>, Vec<u32>), String> {
        let n = state.runs.len();
        if state.ticks.len() != 2 * n {
            return Err(format!(
                "{} clock words for {n} tasks (latency clock off?)",
                state.ticks.len()
            ));
        }
        if let Some(t) = state.runs.iter().position(|&r| r != 1) {
            return Err(format!(
                "task {t} ran {} times: not a complete run",
                state.runs[t]
            ));
        }
        let spilled_words = state.ctl.get(state.layout.ctl_spill).copied();
        let spills = (spilled_words.ok_or("no control words")? as usize).min(state.spill.len());
        let mut spilled = vec![false; n];
        for &t in &state.spill[..spills] {
            if let Some(s) = spilled.get_mut(t as usize) {
                *s = true;
            }
        }
        let (mut ring, mut spill) = (Vec::new(), Vec::new());
        for (t, &was_spilled) in spilled.iter().enumerate().skip(1) {
            let (push, start) = (state.ticks[2 * t], state.ticks[2 * t + 1]);
            let d = start.wrapping_sub(push);
            if d >= 1 << 31 {
                return Err(format!(
                    "task {t} started at clock {start:#x}, before its push at {push:#x}"
                ));
            }
            if was_spilled { &mut spill } else { &mut ring }.push(d);
        }
        Ok((ring, spill))
    }

    /// The spreads of a complete run's state ([`ClockLatency::samples`]).
    pub fn from_state(state: &QueueState) -> Result<ClockLatency, String> {
        let (ring, spilled) = Self::samples(state)?;
        Ok(ClockLatency {
            ring: Spread::of(ring),
            spilled: Spread::of(spilled),
            root_start: state.ticks.get(1).copied().unwrap_or(0),
        })
    }
}
