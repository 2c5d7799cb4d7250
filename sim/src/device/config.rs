//! The simulator's configuration: which device it models, its schedules, its budgets; and the
//! work counters it keeps.

use crate::caps::{Caps, CoopShape};
use crate::checks;
use crate::error::{Error, Result};
use crate::schedule::{Schedule, THREADED_WORKGROUPS};

/// The most workgroups one simulated dispatch runs: 2^24. Every workgroup is interpreted (a
/// 2^28-element reduction dispatches 4096, a 2^20-key sort a few hundred a pass), so a grid past
/// this would not finish; it is refused before any of it runs rather than run in part.
pub const MAX_DISPATCH_WORKGROUPS: u64 = 1 << 24;

/// The default step budget of a run ([`SimConfig::max_run_steps`]): 10^9 steps. A 2^20-key
/// sort takes about 1.1·10^7 (a hundredth of it); the simulator runs 10^6 to 10^7 steps a
/// second, so a run that spends it all ends within minutes rather than days.
pub const MAX_RUN_STEPS: u64 = 1_000_000_000;

/// The default memory budget of a run ([`SimConfig::memory_budget`]): 4 GiB.
pub const MEMORY_BUDGET: u64 = 4 << 30;

/// What the cross-workgroup race check keeps per word of a buffer a pass binds read-write,
/// for the memory budget ([`SimConfig::memory_budget`]).
pub const RACE_BYTES_PER_WORD: u64 = 28;

/// Order in which a dispatch's workgroups run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// Linear workgroup index order (x fastest).
    #[default]
    InOrder,
    /// A random permutation from this seed.
    Shuffled(u64),
    /// The listed linear workgroup indices are starved: they run only after every other
    /// workgroup finished, in reverse order.
    Unfair {
        /// Linear indices of the starved workgroups.
        starved: Vec<u32>,
    },
}

impl std::str::FromStr for Scheduler {
    type Err = Error;
    /// `in-order`, `shuffled:SEED` or `unfair:I[,J...]` (linear workgroup indices starved).
    fn from_str(s: &str) -> Result<Scheduler> {
        let bad = || {
            Error::InvalidInput(format!(
                "schedule {s:?}: expected in-order, shuffled:SEED or unfair:I[,J...]"
            ))
        };
        if s == "in-order" {
            return Ok(Scheduler::InOrder);
        }
        if let Some(seed) = s.strip_prefix("shuffled:") {
            return Ok(Scheduler::Shuffled(seed.parse().map_err(|_| bad())?));
        }
        if let Some(list) = s.strip_prefix("unfair:") {
            let starved: std::result::Result<Vec<u32>, _> =
                list.split(',').map(|x| x.trim().parse()).collect();
            return Ok(Scheduler::Unfair {
                starved: starved.map_err(|_| bad())?,
            });
        }
        Err(bad())
    }
}

/// Simulator settings.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The device simulated ([`Caps::profile`]): algorithms plan for its caps, with the subgroup
    /// size replaced by `subgroup_size` (where it has subgroups). Cooperative matrices are offered
    /// where the profile has them and the simulator runs them ([`SimConfig::coop_shapes`]).
    pub profile: Caps,
    /// Lanes per subgroup, a power of two in 4..=128.
    pub subgroup_size: u32,
    /// Permute the lane layout with this seed.
    pub shuffle_lanes: Option<u64>,
    /// Workgroup order (the order workgroups are admitted in, under every schedule).
    pub scheduler: Scheduler,
    /// The schedules each submission runs under ([`Schedule`]; `sim::schedule` has the model):
    /// the first one's results are kept, every other's outputs compared with them
    /// (`schedule-divergence`). Empty means lockstep alone. [`SimConfig::for_profile`] gives
    /// [`Schedule::DEFAULT`].
    pub schedules: Vec<Schedule>,
    /// Workgroups resident at once under the interleaving schedules (lockstep runs one at a
    /// time).
    pub residency: u32,
    /// Under the interleaving schedules, the workgroups of a dispatch whose subgroups run as
    /// independent threads (`None`: all): each costs up to 2.7 times its lockstep run, the
    /// others keep their subgroups in lockstep and still interleave with the other workgroups.
    /// [`SimConfig::for_profile`] gives [`THREADED_WORKGROUPS`]; which ones, `sim::schedule`
    /// says.
    pub threaded_workgroups: Option<u32>,
    /// Iterations in a row that read the same memory words with the same values and change
    /// no memory word (not even a variable: a bounded poll's counter), after which a loop
    /// spins: it can end only when another invocation changes what it reads
    /// (`forward-progress`, while the workgroup it waits on is suspended).
    pub spin_limit: u32,
    /// Step budget per thread of subgroups (statements and loop back-edges it runs, each
    /// counted once whatever its active lanes; a whole workgroup under lockstep).
    pub max_steps: u64,
    /// Step budget of a run: the steps of every thread of every workgroup of every pass of a
    /// submission, under one schedule (each schedule's run has its own). Running out stops the
    /// run with a `step-limit` finding, as a thread's budget does. [`SimConfig::for_profile`]
    /// gives [`MAX_RUN_STEPS`].
    pub max_run_steps: u64,
    /// OS threads the schedules of a submission run on at once (0: one per core,
    /// `std::thread::available_parallelism`; 1: one after another). Their runs share nothing;
    /// where cores are free, more threads shorten the elapsed time, where they are not, the
    /// runs contend for the cache and cost more CPU time.
    pub threads: usize,
    /// Seed of the poison generator.
    pub seed: u64,
    /// The most memory a run may take, in bytes: the submission's buffers with the copies the
    /// schedules keep, the checkers' records of the words passes bind (up to
    /// [`RACE_BYTES_PER_WORD`] a word written), and the interpreter's tables and per-invocation
    /// memories. A run that would need more is an `Error::TooLarge` before it starts;
    /// schedules run on fewer threads where that keeps a run within it.
    /// [`SimConfig::for_profile`] gives [`MEMORY_BUDGET`].
    pub memory_budget: u64,
    /// Turn a `step-limit` finding into `Error::Sim` (so no partial result is returned).
    pub fail_on_step_limit: bool,
    /// Report `loop-limit` (lavapipe ends every loop of an invocation after 65535 back-edges);
    /// on where the profile is a CPU device.
    pub loop_limit: bool,
    /// The checkers' options (findings off by default).
    pub checks: checks::CheckOptions,
}

impl SimConfig {
    /// The cooperative-matrix shapes the simulator runs: f16 × f16 → f32 at 16×16×16 and 8×8×8.
    pub fn coop_shapes() -> Vec<CoopShape> {
        vec![CoopShape::f16_f32(16), CoopShape::f16_f32(8)]
    }

    /// Settings that simulate `profile` at its own subgroup size (32 where it has none).
    pub fn for_profile(profile: Caps) -> SimConfig {
        SimConfig {
            subgroup_size: if profile.subgroups {
                profile.subgroup_max
            } else {
                32
            },
            loop_limit: profile.is_cpu(),
            profile,
            shuffle_lanes: None,
            scheduler: Scheduler::InOrder,
            schedules: Schedule::DEFAULT.to_vec(),
            residency: 4,
            threaded_workgroups: Some(THREADED_WORKGROUPS),
            spin_limit: 32,
            max_steps: 20_000_000,
            max_run_steps: MAX_RUN_STEPS,
            threads: 0,
            seed: 0x5eed,
            memory_budget: MEMORY_BUDGET,
            fail_on_step_limit: false,
            checks: checks::CheckOptions::default(),
        }
    }

    /// The caps a simulator with these settings reports.
    pub fn caps(&self) -> Result<Caps> {
        let mut caps = if self.profile.subgroups {
            self.profile
                .clone()
                .with_subgroup_size(self.subgroup_size)?
        } else {
            self.profile.clone()
        };
        let runs = Self::coop_shapes();
        caps.cooperative_matrix.retain(|s| runs.contains(s));
        Ok(caps)
    }
}

impl Default for SimConfig {
    /// The H100 profile at subgroups of 32.
    fn default() -> Self {
        SimConfig::for_profile(Caps::h100())
    }
}

/// Work counters, summed over every submission of a simulator.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimStats {
    /// Submissions.
    pub runs: u64,
    /// Workgroups executed.
    pub workgroups: u64,
    /// Statements executed (each once per workgroup, whatever its active lanes).
    pub statements: u64,
    /// Lane-operations: active lanes summed over every evaluated expression.
    pub lane_ops: u64,
}
