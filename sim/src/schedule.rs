//! Schedules: how the simulator interleaves the subgroups of a workgroup and the workgroups of a
//! dispatch. A submission runs under each schedule of
//! [`SimConfig::schedules`](super::SimConfig::schedules), from the same starting contents; the
//! first schedule's results are kept, and an output word that another schedule computes
//! differently is a `schedule-divergence` finding.
//!
//! Rules every schedule keeps (they are the model, not choices):
//! - **Subgroups are threads.** Between two barriers the subgroups of a workgroup run
//!   independently, each in statement-sized steps; the lanes of one subgroup stay in lockstep
//!   under their mask, and a subgroup operation involves its own subgroup only.
//!   `workgroupBarrier`, `storageBarrier` and `workgroupUniformLoad` wait for every live
//!   subgroup of the workgroup.
//! - **Memory is sequentially consistent per word**: a step's accesses land in lane order before
//!   the next step runs.
//! - **Workgroups are admitted** in the order [`super::Scheduler`] gives, up to
//!   [`SimConfig::residency`](super::SimConfig::residency) of them resident at once (one under
//!   [`Schedule::Lockstep`]).
//!
//! What the schedules choose:
//!
//! | schedule | subgroups of a workgroup | resident workgroups |
//! |---|---|---|
//! | `lockstep` | all in lockstep (one thread) | one at a time, each to completion |
//! | `round-robin` | [`MAX_THREADS`] threads of consecutive subgroups, in turn, [`QUANTUM`] steps each | in turn; the workgroup that takes the dispatch's first ticket is suspended |
//! | `random:SEED` | 2..=[`MAX_THREADS`] threads cut at random subgroups (anew at every barrier), a random one for 1..=2·[`QUANTUM`] steps at a time | a random one at a time; the taker of one of the first four tickets is suspended |
//! | `run-ahead:SEED` | after each barrier one random subgroup runs alone until it blocks, then the subgroups before it and those after it, in turn | each runs until it blocks (finished, or every thread waiting or spinning) |
//!
//! A **ticket** is an atomic read-modify-write on storage whose result the invocation uses (the
//! `atomicAdd` that hands out tile indices in order of start). A suspended workgroup runs again
//! only when no other resident workgroup can progress: all finished, or all spinning (a loop
//! whose last [`SimConfig::spin_limit`] iterations each read the same memory words with the
//! same values and changed no memory word, not even a variable: it can end only when another
//! invocation writes what it reads; a bounded poll changes its counter, so it never spins).
//! Spinning while the suspended workgroup is the only one that could run is a
//! `forward-progress` finding: a GPU without forward-progress guarantees between resident
//! workgroups (Apple's, ARM's) need not resume it.
//!
//! Independent subgroups are cut in at most [`MAX_THREADS`] contiguous groups (so a workgroup of
//! 64 subgroups of 4 runs as 4 threads of 16 subgroups): each thread costs a statement dispatch
//! per step, the lanes are shared. Round-robin keeps its threads from barrier to barrier; the
//! others merge them at every barrier and cut anew.
//!
//! **Threaded workgroups.** Only [`SimConfig::threaded_workgroups`] workgroups of a dispatch
//! ([`THREADED_WORKGROUPS`] by default) run their subgroups as threads; the others keep theirs
//! in lockstep (one thread, a round-robin turn as long as the threads' together) and still
//! interleave with the other resident workgroups, take tickets and are suspended like any. The
//! threaded ones are the first half of the bound in admission order (resident together at the
//! start: they take the first tickets, the suspended workgroup's among them), the last admitted
//! and the one of the highest linear index (a partial tile), then others drawn with the
//! schedule's seed. A dispatch of at most that many workgroups is threaded whole.
//!
//! [`SimConfig::threaded_workgroups`]: super::SimConfig::threaded_workgroups
//!
//! [`SimConfig::spin_limit`]: super::SimConfig::spin_limit

use crate::error::{Error, Result};

/// Steps a subgroup runs before the round-robin scheduler moves on (the random scheduler draws
/// 1..=2·QUANTUM).
pub const QUANTUM: u64 = 8;

/// At most this many independent threads of subgroups per workgroup. Each thread pays the
/// statement dispatch the whole workgroup paid once under lockstep: at 8 the interleaving
/// schedules cost about 3 lockstep runs each on the sort at subgroups of 32, at 4 about 2.
pub const MAX_THREADS: usize = 4;

/// Workgroups per dispatch whose subgroups run as independent threads under the default
/// settings ([`SimConfig::threaded_workgroups`](super::SimConfig::threaded_workgroups)); the
/// others keep their subgroups in lockstep. Eight bounds an interleaving schedule's cost near
/// one lockstep run on large dispatches (a 2^20-key OneSweep pass has 128 workgroups) while a
/// small dispatch, as the tests and `wgsimd check` run, is threaded whole.
pub const THREADED_WORKGROUPS: u32 = 8;

/// One way of interleaving subgroups and workgroups (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// Every subgroup of a workgroup in lockstep; workgroups one after another, to completion.
    Lockstep,
    /// Subgroups and resident workgroups in turn; the first ticket's taker suspended.
    RoundRobin,
    /// Random groups of subgroups, random turns and steps, one of the first four tickets' takers
    /// suspended; seeded.
    Random(u64),
    /// One random subgroup runs ahead until it blocks, then the rest; each workgroup runs until
    /// it blocks; seeded.
    RunAhead(u64),
}

impl Schedule {
    /// The default exploration: lockstep (the reference), then one schedule of each
    /// interleaving kind. With [`THREADED_WORKGROUPS`] threaded workgroups, each interleaving
    /// schedule of a large dispatch costs 1.2 to 1.4 times a lockstep run, one of at most that
    /// many workgroups up to about 2.7 times, so the four cost at most about 9 runs
    /// (`docs/simulator.md`).
    pub const DEFAULT: [Schedule; 4] = [
        Schedule::Lockstep,
        Schedule::RoundRobin,
        Schedule::Random(1),
        Schedule::RunAhead(1),
    ];

    /// The first `n` schedules of the exploration sequence: [`Schedule::DEFAULT`], then random
    /// and run-ahead schedules of further seeds, alternating (at least lockstep).
    pub fn first(n: usize) -> Vec<Schedule> {
        let mut v: Vec<Schedule> = Schedule::DEFAULT.iter().copied().take(n.max(1)).collect();
        let mut seed = 2;
        while v.len() < n {
            v.push(Schedule::Random(seed));
            if v.len() < n {
                v.push(Schedule::RunAhead(seed));
            }
            seed += 1;
        }
        v
    }

    /// `N` (the first N of the exploration sequence, [`Schedule::first`]) or a comma-separated
    /// list of schedules (`lockstep,random:7`).
    pub fn parse_list(s: &str) -> Result<Vec<Schedule>> {
        if let Ok(n) = s.trim().parse::<usize>() {
            if n == 0 || n > 1000 {
                return Err(Error::InvalidInput(format!(
                    "schedules {s:?}: a count must be in 1..=1000"
                )));
            }
            return Ok(Schedule::first(n));
        }
        s.split(',').map(|x| x.trim().parse()).collect()
    }

    /// Whether its subgroups run as independent threads and its workgroups overlap.
    pub fn interleaves(self) -> bool {
        self != Schedule::Lockstep
    }

    /// The seed of its random choices.
    pub(crate) fn seed(self) -> u64 {
        match self {
            Schedule::Lockstep | Schedule::RoundRobin => 0,
            Schedule::Random(s) | Schedule::RunAhead(s) => s,
        }
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Schedule::Lockstep => f.write_str("lockstep"),
            Schedule::RoundRobin => f.write_str("round-robin"),
            Schedule::Random(s) => write!(f, "random:{s}"),
            Schedule::RunAhead(s) => write!(f, "run-ahead:{s}"),
        }
    }
}

impl std::str::FromStr for Schedule {
    type Err = Error;
    /// `lockstep`, `round-robin`, `random:SEED` or `run-ahead:SEED`.
    fn from_str(s: &str) -> Result<Schedule> {
        let bad = || {
            Error::InvalidInput(format!(
                "schedule {s:?}: expected lockstep, round-robin, random:SEED or run-ahead:SEED"
            ))
        };
        let seed = |x: &str| x.parse::<u64>().map_err(|_| bad());
        match s {
            "lockstep" => Ok(Schedule::Lockstep),
            "round-robin" => Ok(Schedule::RoundRobin),
            _ => {
                if let Some(x) = s.strip_prefix("random:") {
                    Ok(Schedule::Random(seed(x)?))
                } else if let Some(x) = s.strip_prefix("run-ahead:") {
                    Ok(Schedule::RunAhead(seed(x)?))
                } else {
                    Err(bad())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Schedule::first(9) {
            assert_eq!(s.to_string().parse::<Schedule>().unwrap(), s);
        }
        assert_eq!(Schedule::first(1), vec![Schedule::Lockstep]);
        assert_eq!(Schedule::first(4), Schedule::DEFAULT.to_vec());
        assert_eq!(
            Schedule::first(6)[4..],
            [Schedule::Random(2), Schedule::RunAhead(2)]
        );
        assert_eq!(
            Schedule::parse_list("lockstep, random:7").unwrap(),
            vec![Schedule::Lockstep, Schedule::Random(7)]
        );
        assert!(Schedule::parse_list("0").is_err());
        assert!(Schedule::parse_list("random").is_err());
    }
}
