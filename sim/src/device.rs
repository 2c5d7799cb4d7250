//! The simulator as a device: buffers, plans made ready once, encoders that record them, and
//! submissions that run them on simulated lanes with every checker on.
//!
//! Rules:
//! - **The same calls as on a GPU.** Algorithms record into a [`SimEncoder`] exactly what they
//!   record into a wgpu command encoder (plan runs and buffer copies); [`Simulator::submit`]
//!   runs them in order, as a queue submission would, and returns the findings.
//! - **Queue writes** ([`Simulator::write_buffer`]) take effect at the next submission, before
//!   its commands, as `wgpu::Queue::write_buffer` does.
//! - **Undefined stays undefined.** A buffer made with [`Simulator::uninit`] holds
//!   [`POISON_WORD`]s and is an output: a word of it no pass wrote by the end of the next
//!   submission is an `unwritten-output` finding. A plan's `Poison` scratch is undefined again
//!   at the start of every recorded run (refilled with poison; a read before a pass wrote it is an
//!   `uninitialized-read`), since a device keeps whatever the last run left there.
//! - **One run per submission** for the checkers: every command of a submission is one run, so
//!   races and initialization are tracked across its passes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::checks;
use super::events::Bound;
use super::events::{BufferMeta, Findings};
use super::interp::{Budget, Hooks, Interp, Turns};
use super::layout;
use super::mask::MAX_LANES;
use super::program::Program;
use super::rng::SplitMix;
use super::schedule::{Schedule, THREADED_WORKGROUPS};
use crate::caps::{Caps, CoopShape};
use crate::error::{Error, Result};
use crate::finding::{Finding, FindingKind, Party, Report};
use crate::plan::{BufferId, BufferInit, Plan, RunSpec, Workgroups, POISON_WORD};

/// The words of a plan's read-back buffers, by buffer ([`Simulator::run_plan`]).
pub type ReadBack = HashMap<BufferId, Vec<u32>>;

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

static NEXT_BUFFER: AtomicU64 = AtomicU64::new(1);

struct BufferInner {
    id: u64,
    label: String,
    /// Its size in words, fixed: a submission takes `words` out while it runs, and another
    /// thread may ask the size meanwhile (a queue write from a recording of its own).
    len: usize,
    words: Mutex<Vec<u32>>,
    /// Made undefined and not yet through a submission: its unwritten words are findings.
    output: AtomicBool,
    /// A plan's own buffer that is not read back: its contents are the plan's business, and
    /// schedules may leave different ones.
    scratch: AtomicBool,
}

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

/// A buffer of the simulator: 32-bit words, shared by every handle to it.
#[derive(Clone)]
pub struct SimBuffer {
    inner: Arc<BufferInner>,
}

impl std::fmt::Debug for SimBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SimBuffer({} `{}`, {} bytes)",
            self.inner.id,
            self.inner.label,
            self.size()
        )
    }
}

impl SimBuffer {
    fn new(label: &str, words: Vec<u32>, output: bool) -> SimBuffer {
        SimBuffer {
            inner: Arc::new(BufferInner {
                id: NEXT_BUFFER.fetch_add(1, Ordering::Relaxed),
                label: label.to_string(),
                len: words.len(),
                words: Mutex::new(words),
                output: AtomicBool::new(output),
                scratch: AtomicBool::new(false),
            }),
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.inner.len as u64 * 4
    }

    /// The contents as `T`s.
    pub fn read<T: bytemuck::Pod>(&self) -> Vec<T> {
        bytemuck::pod_collect_to_vec(&self.inner.words.lock().unwrap()[..])
    }

    /// Its label.
    pub fn label(&self) -> &str {
        &self.inner.label
    }

    /// Whether `other` is a handle to this buffer.
    pub fn same(&self, other: &SimBuffer) -> bool {
        self.inner.id == other.inner.id
    }
}

/// A byte range of a simulator buffer.
#[derive(Clone, Copy, Debug)]
pub struct SimSlice<'a> {
    /// The buffer.
    pub buffer: &'a SimBuffer,
    /// First byte (a multiple of 4).
    pub offset: u64,
    /// Bytes; `None`: to the end.
    pub size: Option<u64>,
}

impl<'a> SimSlice<'a> {
    /// All of `buffer`.
    pub fn whole(buffer: &'a SimBuffer) -> SimSlice<'a> {
        SimSlice {
            buffer,
            offset: 0,
            size: None,
        }
    }

    /// Bytes from the offset to the end of the range.
    pub fn len(&self) -> u64 {
        self.size
            .unwrap_or_else(|| self.buffer.size().saturating_sub(self.offset))
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A plan ready to record on the simulator: its own buffers, made once.
pub struct SimPlan {
    plan: Arc<Plan>,
    buffers: Vec<Option<SimBuffer>>,
    caps: Caps,
}

impl SimPlan {
    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The simulated device's caps.
    pub fn caps(&self) -> &Caps {
        &self.caps
    }

    /// The plan's own buffer `id` (`None` for the caller's).
    pub fn buffer(&self, id: BufferId) -> Option<&SimBuffer> {
        self.buffers.get(id.0)?.as_ref()
    }
}

enum Command {
    Copy {
        src: SimBuffer,
        src_at: u64,
        dst: SimBuffer,
        dst_at: u64,
        size: u64,
    },
    Run {
        plan: Arc<Plan>,
        /// Every plan buffer, with the word it starts at (the caller's at their offsets).
        buffers: Vec<(SimBuffer, usize, usize)>,
        /// Per pass, the grid the host computed for an indirect pass (checked against the
        /// arguments its prepare pass wrote, then dispatched as a GPU would).
        grids: Option<Vec<Option<[u32; 3]>>>,
        /// The grids bound the prepare passes' rather than equal them.
        grids_bound: bool,
        /// The prepare passes are skipped (the host wrote what they would).
        skip_prepare: bool,
    },
}

/// Commands recorded for one submission.
#[derive(Default)]
pub struct SimEncoder {
    commands: Vec<Command>,
    /// Held until the encoder is submitted (and its work done) or dropped: what a recording
    /// keeps in use until then (a control block's copy, `count.rs`).
    holds: Vec<Box<dyn std::any::Any + Send>>,
}

impl SimEncoder {
    /// A new, empty encoder.
    pub fn new() -> SimEncoder {
        SimEncoder::default()
    }

    /// Copies `size` bytes (multiples of 4, as the offsets) from `src` to `dst`.
    pub fn copy_buffer_to_buffer(
        &mut self,
        src: &SimBuffer,
        src_at: u64,
        dst: &SimBuffer,
        dst_at: u64,
        size: u64,
    ) -> Result<()> {
        if !size.is_multiple_of(4) || !src_at.is_multiple_of(4) || !dst_at.is_multiple_of(4) {
            return Err(Error::InvalidInput(format!(
                "copy of {size} bytes from {src_at} to {dst_at}: offsets and size must be \
                 multiples of 4"
            )));
        }
        if src_at.saturating_add(size) > src.size() || dst_at.saturating_add(size) > dst.size() {
            return Err(Error::InvalidInput(format!(
                "copy of {size} bytes from byte {src_at} of `{}` ({} bytes) to byte {dst_at} of \
                 `{}` ({} bytes) lies outside a buffer",
                src.label(),
                src.size(),
                dst.label(),
                dst.size()
            )));
        }
        self.commands.push(Command::Copy {
            src: src.clone(),
            src_at,
            dst: dst.clone(),
            dst_at,
            size,
        });
        Ok(())
    }

    /// Records a run of `prepared` with its `Arg` buffers bound to `args`, as `run` says (the
    /// copy of its slotted buffers, skipped prepare passes, grids that replace indirect
    /// dispatches: see `record.rs`).
    pub fn record(
        &mut self,
        prepared: &SimPlan,
        args: &[(BufferId, SimSlice)],
        run: &RunSpec,
    ) -> Result<()> {
        self.record_after(prepared, args, run, None, &[])
    }

    /// [`SimEncoder::record`] after `pre` (copies between ranges) and `copy_in` (a caller's
    /// range copied into the run's copy of one of the plan's own buffers at a byte offset: a
    /// GPU count into its control block). Everything that can fail is checked before a command
    /// is added.
    pub fn record_after(
        &mut self,
        prepared: &SimPlan,
        args: &[(BufferId, SimSlice)],
        run: &RunSpec,
        copy_in: Option<SimCopyIn>,
        pre: &[(SimSlice, SimSlice, u64)],
    ) -> Result<()> {
        for (s, d, size) in pre {
            let inside = |r: &SimSlice| r.offset.saturating_add(*size) <= r.buffer.size();
            if size % 4 != 0 || s.offset % 4 != 0 || d.offset % 4 != 0 || !inside(s) || !inside(d) {
                return Err(Error::InvalidInput(format!(
                    "a copy of {size} bytes from byte {} of `{}` to byte {} of `{}`",
                    s.offset,
                    s.buffer.label(),
                    d.offset,
                    d.buffer.label()
                )));
            }
        }
        let mut buffers = Vec::with_capacity(prepared.buffers.len());
        for (i, own) in prepared.buffers.iter().enumerate() {
            let decl = &prepared.plan.buffers[i];
            match own {
                Some(b) if decl.slots > 1 => {
                    if run.slot >= decl.slots {
                        return Err(Error::Plan(format!(
                            "copy {} of `{}`, which has {}",
                            run.slot, decl.label, decl.slots
                        )));
                    }
                    let first = (decl.slot_stride() * run.slot as u64 / 4) as usize;
                    buffers.push((b.clone(), first, (decl.size / 4) as usize));
                }
                Some(b) => {
                    let words = (b.size() / 4) as usize;
                    buffers.push((b.clone(), 0, words));
                }
                None => {
                    let label = &prepared.plan.buffers[i].label;
                    let Some((_, s)) = args.iter().find(|(id, _)| id.0 == i) else {
                        return Err(Error::InvalidInput(format!(
                            "no buffer given for `{label}`"
                        )));
                    };
                    if s.offset % 4 != 0 || s.offset.saturating_add(s.len()) > s.buffer.size() {
                        return Err(Error::InvalidInput(format!(
                            "`{label}`: bytes {}..{} are not whole words inside its {}-byte \
                             buffer",
                            s.offset,
                            s.offset.saturating_add(s.len()),
                            s.buffer.size()
                        )));
                    }
                    buffers.push((
                        s.buffer.clone(),
                        (s.offset / 4) as usize,
                        (s.len() / 4) as usize,
                    ));
                }
            }
        }
        for (s, d, size) in pre {
            self.commands.push(Command::Copy {
                src: s.buffer.clone(),
                src_at: s.offset,
                dst: d.buffer.clone(),
                dst_at: d.offset,
                size: *size,
            });
        }
        if let Some(c) = copy_in {
            let (own, first, len) = buffers
                .get(c.dst.0)
                .ok_or_else(|| Error::Plan(format!("a copy into buffer {}", c.dst.0)))?;
            if c.at.saturating_add(c.size) > 4 * *len as u64 || c.src.len() < c.size {
                return Err(Error::Plan(format!(
                    "a copy of {} bytes into `{}` at byte {}",
                    c.size,
                    own.label(),
                    c.at
                )));
            }
            let own = own.clone();
            let dst_at = 4 * *first as u64 + c.at;
            self.copy_buffer_to_buffer(c.src.buffer, c.src.offset, &own, dst_at, c.size)?;
        }
        self.commands.push(Command::Run {
            plan: prepared.plan.clone(),
            buffers,
            grids: run.grids.map(<[_]>::to_vec),
            grids_bound: run.grids_bound,
            skip_prepare: run.skip_prepare,
        });
        Ok(())
    }

    /// Keeps `what` until the encoder's submission has run, or the encoder is dropped.
    pub fn hold(&mut self, what: Box<dyn std::any::Any + Send>) {
        self.holds.push(what);
    }
}

/// A caller's range copied into a plan's own buffer before a run ([`SimEncoder::record_after`]).
#[derive(Clone, Copy, Debug)]
pub struct SimCopyIn<'a> {
    /// The caller's range.
    pub src: SimSlice<'a>,
    /// The plan's buffer.
    pub dst: BufferId,
    /// Byte offset within the run's copy of it.
    pub at: u64,
    /// Bytes.
    pub size: u64,
}

/// What a submission runs, for each schedule.
struct Run<'r> {
    commands: &'r [Command],
    /// Per command, the table index of each plan buffer (runs) or of src and dst (copies).
    slots: &'r [Vec<usize>],
    pending: &'r [(SimBuffer, u64, Vec<u8>)],
    index: &'r HashMap<u64, usize>,
    metas: &'r [BufferMeta],
    /// Schedules that may run at once within the memory budget.
    parallel: usize,
}

/// Adds `more` (another schedule's findings and notes) to `into`, each kind and place once.
fn merge_report(into: &mut Report, more: Report) {
    merge_findings(&mut into.findings, more.findings);
    merge_findings(&mut into.notes, more.notes);
}

/// Adds `more` to `into`, each kind and place once.
fn merge_findings(into: &mut Vec<Finding>, more: Vec<Finding>) {
    // A finding without a place is about a buffer, named before its message's first ": "
    // (`unwritten-output`); the counts after it may differ between schedules, and the first
    // schedule's is kept.
    fn subject(m: &str) -> &str {
        m.split_once(": ").map_or(m, |(s, _)| s)
    }
    for f in more {
        let known = into.iter().any(|g| {
            g.kind == f.kind
                && match (&g.loc, &f.loc) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => subject(&g.message) == subject(&f.message),
                    _ => false,
                }
        });
        if !known {
            into.push(f);
        }
    }
}

/// The simulator (see the module docs).
pub struct Simulator {
    caps: Caps,
    config: SimConfig,
    stats: Mutex<SimStats>,
    programs: Mutex<HashMap<(usize, String), Arc<Program>>>,
    pending: Mutex<Vec<(SimBuffer, u64, Vec<u8>)>>,
    /// Held by a submission from taking the pending queue writes until it holds every buffer
    /// it binds: a submission that takes another thread's write to a buffer locks that buffer
    /// before the other submission can run on it without the write.
    starting: Mutex<()>,
}

impl Simulator {
    /// A simulator with `config`.
    pub fn new(config: SimConfig) -> Result<Simulator> {
        let s = config.subgroup_size;
        if !s.is_power_of_two() || !(4..=128).contains(&s) {
            return Err(Error::InvalidInput(format!(
                "subgroup size {s} is not a power of two in 4..=128"
            )));
        }
        Ok(Simulator {
            caps: config.caps()?,
            config,
            stats: Mutex::new(SimStats::default()),
            programs: Mutex::new(HashMap::new()),
            pending: Mutex::new(Vec::new()),
            starting: Mutex::new(()),
        })
    }

    /// The caps of the device it simulates.
    pub fn caps(&self) -> &Caps {
        &self.caps
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Work done so far (for lane-operations per second).
    pub fn stats(&self) -> SimStats {
        *self.stats.lock().unwrap()
    }

    /// A buffer holding `data` (padded with zeros to whole words).
    pub fn upload<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> SimBuffer {
        let bytes = bytemuck::cast_slice::<T, u8>(data);
        let mut words = vec![0u32; bytes.len().div_ceil(4).max(1)];
        bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        SimBuffer::new(label, words, false)
    }

    /// A buffer of `bytes` (rounded up to whole words) of zeros.
    pub fn zeroed(&self, label: &str, bytes: u64) -> SimBuffer {
        SimBuffer::new(label, vec![0; bytes.div_ceil(4).max(1) as usize], false)
    }

    /// An output buffer of `bytes` holding [`POISON_WORD`]s: a word no pass wrote by the end of
    /// the next submission is an `unwritten-output` finding.
    pub fn uninit(&self, label: &str, bytes: u64) -> SimBuffer {
        SimBuffer::new(
            label,
            vec![POISON_WORD; bytes.div_ceil(4).max(1) as usize],
            true,
        )
    }

    /// Writes `bytes` (whole words) into `buffer` from byte `at` at the start of the next
    /// submission.
    pub fn write_buffer(&self, buffer: &SimBuffer, at: u64, bytes: &[u8]) -> Result<()> {
        if !at.is_multiple_of(4)
            || !bytes.len().is_multiple_of(4)
            || at.saturating_add(bytes.len() as u64) > buffer.size()
        {
            return Err(Error::InvalidInput(format!(
                "write of {} bytes at byte {at} of `{}` ({} bytes): not whole words inside it",
                bytes.len(),
                buffer.label(),
                buffer.size()
            )));
        }
        self.pending
            .lock()
            .unwrap()
            .push((buffer.clone(), at, bytes.to_vec()));
        Ok(())
    }

    /// Makes `plan` ready to record: creates its own buffers with their initial contents.
    pub fn prepare(&self, plan: Plan) -> Result<SimPlan> {
        plan.validate()?;
        let mut buffers = Vec::with_capacity(plan.buffers.len());
        for b in &plan.buffers {
            if b.allocated() > self.caps.max_buffer {
                return Err(Error::TooLarge(format!(
                    "buffer {} needs {} bytes; the device's largest buffer is {}",
                    b.label,
                    b.allocated(),
                    self.caps.max_buffer
                )));
            }
            let words = (b.allocated() / 4) as usize;
            let own = match &b.init {
                BufferInit::Arg => None,
                BufferInit::Zeroed => Some(SimBuffer::new(&b.label, vec![0; words], false)),
                BufferInit::Poison => {
                    Some(SimBuffer::new(&b.label, vec![POISON_WORD; words], false))
                }
                BufferInit::Bytes(bytes) => {
                    let mut v = vec![0u32; words];
                    bytemuck::cast_slice_mut::<u32, u8>(&mut v)[..bytes.len()]
                        .copy_from_slice(bytes);
                    Some(SimBuffer::new(&b.label, v, false))
                }
            };
            if let Some(o) = &own {
                o.inner.scratch.store(!b.readback, Ordering::Relaxed);
            }
            buffers.push(own);
        }
        Ok(SimPlan {
            plan: Arc::new(plan),
            buffers,
            caps: self.caps.clone(),
        })
    }

    fn program(&self, spec: Arc<crate::kernel::Specialized>, entry: &str) -> Result<Arc<Program>> {
        let key = (Arc::as_ptr(&spec) as usize, entry.to_string());
        if let Some(p) = self.programs.lock().unwrap().get(&key) {
            return Ok(p.clone());
        }
        // the memory the module's types ask for, before any table is built
        let lanes = spec
            .workgroup_size
            .iter()
            .map(|&d| d as u64)
            .product::<u64>();
        super::program::check_memory(
            &spec,
            entry,
            self.caps.max_workgroup_storage as u64,
            lanes.min(MAX_LANES as u64) * (self.config.residency.max(1) as u64 + 1),
            self.config.memory_budget,
        )?;
        let p = Arc::new(Program::new(spec, entry)?);
        self.programs.lock().unwrap().insert(key, p.clone());
        Ok(p)
    }

    fn order(&self, total: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (0..total).collect();
        match &self.config.scheduler {
            Scheduler::InOrder => {}
            Scheduler::Shuffled(seed) => SplitMix::new(*seed).shuffle(&mut v),
            Scheduler::Unfair { starved } => {
                let mut late: Vec<u32> =
                    v.iter().copied().filter(|i| starved.contains(i)).collect();
                late.reverse();
                v.retain(|i| !starved.contains(i));
                v.extend(late);
            }
        }
        v
    }

    fn lanes(&self, n: usize) -> Vec<u32> {
        let mut v: Vec<u32> = (0..n as u32).collect();
        if let Some(seed) = self.config.shuffle_lanes {
            SplitMix::new(seed).shuffle(&mut v);
        }
        v
    }

    /// Runs the pending queue writes, then `enc`'s commands in order, as one run of the
    /// checkers; returns their findings.
    pub fn submit(&self, enc: SimEncoder) -> Result<Report> {
        let starting = self.starting.lock().unwrap_or_else(|e| e.into_inner());
        let pending = std::mem::take(&mut *self.pending.lock().unwrap());
        // the buffers of this submission, each once, in a table the interpreter indexes
        let mut table: Vec<SimBuffer> = Vec::new();
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut slot = |b: &SimBuffer, table: &mut Vec<SimBuffer>| -> usize {
            *index.entry(b.inner.id).or_insert_with(|| {
                table.push(b.clone());
                table.len() - 1
            })
        };
        for (b, _, _) in &pending {
            slot(b, &mut table);
        }
        // per command, the table index of each plan buffer (runs) or of src and dst (copies)
        let mut slots: Vec<Vec<usize>> = Vec::new();
        for c in &enc.commands {
            slots.push(match c {
                Command::Copy { src, dst, .. } => {
                    vec![slot(src, &mut table), slot(dst, &mut table)]
                }
                Command::Run { buffers, .. } => buffers
                    .iter()
                    .map(|(b, _, _)| slot(b, &mut table))
                    .collect(),
            });
        }
        let metas: Vec<BufferMeta> = table
            .iter()
            .map(|b| {
                let output = b.inner.output.load(Ordering::Relaxed);
                BufferMeta {
                    label: b.inner.label.clone(),
                    words: b.inner.len,
                    poison: output,
                    readback: output,
                }
            })
            .collect();
        // (before any buffer's words are taken: an error leaves them, and the queue writes
        // this submission took, in place)
        let parallel = match self.memory_plan(&enc.commands, &table, &slots, &metas) {
            Ok(p) => p,
            Err(e) => {
                let mut queued = self.pending.lock().unwrap();
                let later = std::mem::replace(&mut *queued, pending);
                queued.extend(later);
                return Err(e);
            }
        };
        // every buffer of the submission held for its whole run, locked in one order (by id),
        // so that submissions from other threads sharing a buffer (a queue write of one
        // recording is applied by whichever submission comes next) wait rather than find its
        // words taken, and no two wait on each other
        let mut by_id: Vec<usize> = (0..table.len()).collect();
        by_id.sort_by_key(|&i| table[i].inner.id);
        let mut guards: Vec<Option<std::sync::MutexGuard<'_, Vec<u32>>>> =
            (0..table.len()).map(|_| None).collect();
        for i in by_id {
            guards[i] = Some(table[i].inner.words.lock().unwrap());
        }
        drop(starting);
        let mut words: Vec<Vec<u32>> = guards
            .iter_mut()
            .flatten()
            .map(|g| std::mem::take(&mut **g))
            .collect();
        let run = Run {
            commands: &enc.commands,
            slots: &slots,
            pending: &pending,
            index: &index,
            metas: &metas,
            parallel,
        };
        // a plan's scratch and the buffers a plan binds as order-dependent are not compared
        let mut compared: Vec<bool> = table
            .iter()
            .map(|b| !b.inner.scratch.load(Ordering::Relaxed))
            .collect();
        for (c, s) in enc.commands.iter().zip(&slots) {
            if let Command::Run { plan, .. } = c {
                for (d, &b) in plan.buffers.iter().zip(s) {
                    compared[b] &= !d.order_dependent;
                }
            }
        }
        let result = self.explore(&run, &compared, &mut words);
        // the words go back whatever happened
        for ((b, g), w) in table.iter().zip(guards.iter_mut().flatten()).zip(words) {
            **g = w;
            b.inner.output.store(false, Ordering::Relaxed);
        }
        drop(guards);
        self.stats.lock().unwrap().runs += 1;
        let report = result?;
        if self.config.fail_on_step_limit {
            if let Some(f) = report
                .findings
                .iter()
                .find(|f| f.kind == FindingKind::StepLimit)
            {
                return Err(Error::Sim(f.to_string()));
            }
        }
        Ok(report)
    }

    /// The memory a submission of `commands` over `table` (the commands binding `slots`)
    /// needs, against [`SimConfig::memory_budget`]: its buffers, once more for the starting
    /// contents and once for each other schedule's results where several schedules run, and
    /// per run at once the checkers' records (the cross-workgroup race check's 28 bytes a word
    /// of a buffer a pass binds read-write, its table grown to a power of two; the
    /// initialization check's byte a word of an output). Returns how many schedules may run
    /// at once; an `Error::TooLarge` where one run at a time is too many.
    fn memory_plan(
        &self,
        commands: &[Command],
        table: &[SimBuffer],
        slots: &[Vec<usize>],
        metas: &[BufferMeta],
    ) -> Result<usize> {
        let buffers: u64 = table.iter().map(|b| b.size()).sum();
        let mut written = vec![false; table.len()];
        for (c, s) in commands.iter().zip(slots) {
            if let Command::Run { plan, .. } = c {
                for (i, &t) in s.iter().enumerate() {
                    written[t] |= plan.passes.iter().any(|p| p.binds_read_write(BufferId(i)));
                }
            }
        }
        let per_run: u64 = table
            .iter()
            .zip(&written)
            .zip(metas)
            .map(|((b, &w), m)| {
                let words = b.inner.len as u64;
                let race = if w {
                    words.next_power_of_two() * RACE_BYTES_PER_WORD
                } else {
                    0
                };
                race + if m.poison { words } else { 0 }
            })
            .sum();
        let bound_words: u64 = table
            .iter()
            .zip(&written)
            .filter(|(_, w)| **w)
            .map(|(b, _)| b.inner.len as u64)
            .sum();
        let schedules = self.config.schedules.len().max(1) as u64;
        let copies = if schedules > 1 { schedules + 1 } else { 1 };
        let fixed = buffers.saturating_mul(copies);
        let budget = self.config.memory_budget;
        let need = fixed.saturating_add(per_run);
        if need > budget {
            return Err(Error::TooLarge(format!(
                "the run needs up to {need} bytes ({buffers} bytes of buffers, held {copies} \
                 time(s) under {schedules} schedule(s), and {per_run} bytes of checker records \
                 for the {bound_words} words its passes write); the memory budget is {budget} \
                 (SimConfig::memory_budget, --memory-budget; fewer schedules hold fewer copies)"
            )));
        }
        let parallel = match per_run {
            0 => usize::MAX,
            p => usize::try_from(1 + (budget - need) / p).unwrap_or(usize::MAX),
        };
        Ok(parallel)
    }

    /// Runs `run` under every schedule of the settings, each from the same contents: `words`
    /// ends as the first schedule left it; an output word (a buffer of `compared`) that another
    /// schedule computed differently is a `schedule-divergence` finding, naming the first such
    /// word, both schedules and the invocation that last wrote it under each (the two runs
    /// again, watching that word). A first run that stops (a step budget ran out) is not
    /// explored further.
    fn explore(&self, run: &Run, compared: &[bool], words: &mut [Vec<u32>]) -> Result<Report> {
        let schedules: &[Schedule] = if self.config.schedules.is_empty() {
            &[Schedule::Lockstep]
        } else {
            &self.config.schedules
        };
        let start: Option<Vec<Vec<u32>>> = (schedules.len() > 1).then(|| words.to_vec());
        let (first_run, others) = self.run_schedules(run, words, schedules, start.as_deref());
        let (mut report, stopped) = first_run?;
        let Some(start) = start.filter(|_| !stopped) else {
            return Ok(report);
        };
        // the first difference (schedule, buffer, word, its value there), and how many
        // schedules differ
        let mut first: Option<(Schedule, usize, usize, u32)> = None;
        let mut differ = 0;
        for (&other, result) in schedules[1..].iter().zip(others) {
            let Some(result) = result else { continue };
            let (more, stopped, w) = result?;
            merge_report(&mut report, more);
            if stopped {
                // a hang under this schedule (its step-limit finding says where): its
                // outputs are partial
                continue;
            }
            let diff = (0..words.len()).filter(|&b| compared[b]).find_map(|b| {
                let i = words[b].iter().zip(&w[b]).position(|(x, y)| x != y)?;
                Some((b, i, w[b][i]))
            });
            if let Some((b, i, v)) = diff {
                differ += 1;
                first.get_or_insert((other, b, i, v));
            }
        }
        let Some((other, b, i, v)) = first else {
            return Ok(report);
        };
        let writer = |schedule: Schedule| -> Result<Option<(Party, usize)>> {
            let watch = checks::LastWriter::new(b, i);
            let last = watch.last.clone();
            self.run_commands(run, &mut start.clone(), schedule, Some(Box::new(watch)))?;
            let party = last.borrow_mut().take();
            Ok(party)
        };
        let (ours, theirs) = (writer(schedules[0])?, writer(other)?);
        let pass = ours.as_ref().or(theirs.as_ref()).map(|(_, p)| *p);
        let (ours, theirs) = (ours.map(|(p, _)| p), theirs.map(|(p, _)| p));
        let label = &run.metas[b].label;
        let u = words[b][i];
        let by = |p: &Option<Party>| match p {
            Some(p) => match &p.loc {
                Some(l) => format!("written last at {l}"),
                None => "written last by a pass".to_string(),
            },
            None => "not written by any pass".to_string(),
        };
        report.findings.push(Finding {
            kind: FindingKind::ScheduleDivergence,
            message: format!(
                "word {i} of `{label}` is {u} ({u:#x}) under {} ({}) but {v} ({v:#x}) under \
                 {other} ({}); {differ} of {} other schedules differ: the result depends on \
                 how subgroups and workgroups interleave (a missing barrier, a race, or an \
                 order of arrival)",
                schedules[0],
                by(&ours),
                by(&theirs),
                schedules.len() - 1
            ),
            loc: ours
                .as_ref()
                .or(theirs.as_ref())
                .and_then(|p| p.loc.clone()),
            parties: ours.into_iter().chain(theirs).collect(),
            pass,
            invocations: None,
        });
        Ok(report)
    }

    /// Runs `run` under each of `schedules`: the first over `words`, each other over a copy of
    /// `start` (none without it), and returns their results in order (`None`: not run, the
    /// first one stopped). The runs share nothing, so they run on [`SimConfig::threads`]
    /// threads: this one runs the first, then takes the next schedule not taken, as each
    /// helper thread does.
    #[allow(clippy::type_complexity)]
    fn run_schedules(
        &self,
        run: &Run,
        words: &mut [Vec<u32>],
        schedules: &[Schedule],
        start: Option<&[Vec<u32>]>,
    ) -> (
        Result<(Report, bool)>,
        Vec<Option<Result<(Report, bool, Vec<Vec<u32>>)>>>,
    ) {
        type Other = Option<Result<(Report, bool, Vec<Vec<u32>>)>>;
        let rest = if start.is_some() {
            &schedules[1..]
        } else {
            &[]
        };
        let results: Vec<Mutex<Other>> = rest.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicU64::new(0);
        // set when the first run stopped: the others are not wanted
        let skip = AtomicBool::new(false);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed) as usize;
            let Some(start) = start.filter(|_| i < rest.len() && !skip.load(Ordering::Relaxed))
            else {
                break;
            };
            let mut w = start.to_vec();
            let r = self
                .run_commands(run, &mut w, rest[i], None)
                .map(|(f, stopped)| (f, stopped, w));
            *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        };
        let threads = match self.config.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            t => t,
        };
        // (as many runs at once as the memory budget holds)
        let helpers = threads
            .saturating_sub(1)
            .min(rest.len())
            .min(run.parallel.saturating_sub(1));
        let first = std::thread::scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(work);
            }
            let first = self.run_commands(run, words, schedules[0], None);
            if !matches!(first, Ok((_, false))) {
                skip.store(true, Ordering::Relaxed);
            } else {
                work();
            }
            first
        });
        let others = results
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        (first, others)
    }

    /// Runs the pending queue writes, then the commands, under `schedule`, as one run of fresh
    /// checkers; returns their findings and notes and whether a step budget ran out (the run
    /// stopped).
    fn run_commands(
        &self,
        run: &Run,
        words: &mut [Vec<u32>],
        schedule: Schedule,
        extra: Option<Box<dyn super::events::Checker>>,
    ) -> Result<(Report, bool)> {
        let Run {
            commands,
            slots,
            pending,
            index,
            metas,
            ..
        } = *run;
        for (b, at, bytes) in pending {
            let w = &mut words[index[&b.inner.id]];
            let first = (*at / 4) as usize;
            let data: Vec<u32> = bytemuck::pod_collect_to_vec(bytes);
            w[first..first + data.len()].copy_from_slice(&data);
        }
        let mut checkers = checks::all_with(self.config.loop_limit, self.config.checks);
        checkers.extend(extra);
        let mut findings = Findings::default();
        for c in checkers.iter_mut() {
            c.run_start(metas);
        }
        let mut pass_index = 0;
        // steps of the run so far, against `max_run_steps`
        let mut steps = 0u64;
        for (c, s) in commands.iter().zip(slots) {
            match c {
                Command::Copy {
                    src_at,
                    dst_at,
                    size,
                    ..
                } => {
                    let (src, dst) = (s[0], s[1]);
                    let (a, d, n) = (
                        (*src_at / 4) as usize,
                        (*dst_at / 4) as usize,
                        (*size / 4) as usize,
                    );
                    let data = words[src][a..a + n].to_vec();
                    words[dst][d..d + n].copy_from_slice(&data);
                    for ch in checkers.iter_mut() {
                        ch.host_write(dst, d, n);
                    }
                }
                Command::Run {
                    plan,
                    buffers,
                    grids,
                    grids_bound,
                    skip_prepare,
                } => {
                    // the plan's scratch is undefined again at every run
                    for (i, decl) in plan.buffers.iter().enumerate() {
                        if decl.init == BufferInit::Poison {
                            words[s[i]].fill(POISON_WORD);
                            for ch in checkers.iter_mut() {
                                ch.invalidate(s[i], &format!("the start of `{}`", plan.label));
                            }
                        }
                    }
                    let stopped = self.run_plan_passes(
                        (
                            plan,
                            &RunSpec {
                                slot: 0,
                                skip_prepare: *skip_prepare,
                                grids: grids.as_deref(),
                                grids_bound: *grids_bound,
                            },
                        ),
                        buffers,
                        s,
                        words,
                        &mut checkers,
                        &mut findings,
                        (&mut pass_index, &mut steps),
                        schedule,
                    )?;
                    if stopped {
                        return Ok((findings.into_report(), true));
                    }
                }
            }
        }
        findings.set_pass(None);
        for c in checkers.iter_mut() {
            c.run_end(metas, &mut findings);
        }
        Ok((findings.into_report(), false))
    }

    /// Runs `plan`'s passes over the table (`slot[i]`: plan buffer i's table index; `at`: where
    /// each starts and how long it is, in words). Returns whether a workgroup ran out of steps.
    #[allow(clippy::too_many_arguments)]
    fn run_plan_passes(
        &self,
        (plan, run): (&Plan, &RunSpec),
        at: &[(SimBuffer, usize, usize)],
        slot: &[usize],
        words: &mut [Vec<u32>],
        checkers: &mut [Box<dyn super::events::Checker>],
        findings: &mut Findings,
        (pass_index, steps): (&mut usize, &mut u64),
        schedule: Schedule,
    ) -> Result<bool> {
        // where the host skipped the prepare passes and gave grids of its own, what the
        // prepare passes would have asked for: each host grid is checked against it
        let oracle = if run.skip_prepare && run.grids.is_some() {
            self.prepare_run(plan, &|b| {
                let (_, base, len) = at[b];
                words[slot[b]][base..base + len].to_vec()
            })?
            .0
        } else {
            HashMap::new()
        };
        for (i, pass) in plan.passes.iter().enumerate() {
            if !run.runs(pass) {
                continue;
            }
            let pi = *pass_index;
            *pass_index += 1;
            // an invalidation: poison the buffer as the GPU's fill would, without running the
            // fill, and let the checkers forget what was written to it
            if let Some(target) = pass.invalidates {
                let (_, base, len) = at[target.0];
                // the fill's `words` (util/words.wgsl): all of the buffer, or the count a
                // prepare pass left in its params
                let count = pass
                    .bindings
                    .iter()
                    .find(|b| b.name == "params")
                    .map(|b| {
                        let (_, pbase, _) = at[b.buffer.0];
                        words[slot[b.buffer.0]][pbase + (b.offset / 4) as usize] as usize
                    })
                    .unwrap_or(len);
                words[slot[target.0]][base..base + count.min(len)].fill(POISON_WORD);
                for c in checkers.iter_mut() {
                    c.invalidate(slot[target.0], &pass.label);
                }
                continue;
            }
            let spec = pass.kernel.specialize(&pass.entry, &pass.overrides)?;
            let prog = self.program(spec, &pass.entry)?;
            let counts = match pass.workgroups {
                Workgroups::Direct(c) => c,
                Workgroups::Indirect { buffer, offset } => {
                    let args = match oracle.get(&(buffer.0, offset)) {
                        Some(&a) => a,
                        None => {
                            let (_, base, _) = at[buffer.0];
                            let w = base + (offset / 4) as usize;
                            let b = &words[slot[buffer.0]];
                            [b[w], b[w + 1], b[w + 2]]
                        }
                    };
                    // a grid the host computed must be the one the prepare pass computes, or
                    // hold as many workgroups at least where it is a bound; it is what a GPU
                    // dispatches
                    let size = |g: [u32; 3]| g.iter().map(|&c| c as u64).product::<u64>();
                    match run.grid(i) {
                        Some(host)
                            if (run.grids_bound && size(host) < size(args))
                                || (!run.grids_bound && host != args) =>
                        {
                            return Err(Error::Plan(format!(
                                "pass {}: the host's grid {host:?} does not match the \
                                 arguments {args:?} its prepare pass computes",
                                pass.label
                            )));
                        }
                        Some(host) => host,
                        None => args,
                    }
                }
            };
            if counts.contains(&0) {
                continue;
            }
            if counts.iter().any(|&c| c > self.caps.max_workgroups_per_dim) {
                return Err(Error::Plan(format!(
                    "pass {}: workgroup count {counts:?} exceeds {} per dimension",
                    pass.label, self.caps.max_workgroups_per_dim
                )));
            }
            // (in 64 bits: 4096 x 4096 x 256 is 0 in 32)
            let total = counts.iter().map(|&c| c as u64).product::<u64>();
            if total > MAX_DISPATCH_WORKGROUPS {
                return Err(Error::Sim(format!(
                    "pass {}: {}x{}x{} = {total} workgroups; the simulator runs at most \
                     {MAX_DISPATCH_WORKGROUPS} in a dispatch",
                    pass.label, counts[0], counts[1], counts[2]
                )));
            }
            if prog.wg_bytes > self.caps.max_workgroup_storage as u64 {
                return Err(Error::TooLarge(format!(
                    "pass {}: {} bytes of workgroup memory (limit {})",
                    pass.label, prog.wg_bytes, self.caps.max_workgroup_storage
                )));
            }
            // (an override may make any size: the product is taken in u64)
            let n = prog.wg_size.iter().map(|&d| d as u64).product::<u64>();
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if n == 0 || n > MAX_LANES {
                return Err(Error::Sim(format!(
                    "pass {}: {n} invocations per workgroup (simulator limit {MAX_LANES})",
                    pass.label
                )));
            }
            // the interpreter's memories: registers, locals and private memory per invocation
            // and workgroup memory, for each resident workgroup and the image they start from
            let per_lane: u64 = prog
                .funcs
                .iter()
                .map(|f| f.reg_words as u64 + f.local_words as u64)
                .sum::<u64>()
                + prog.private_words as u64;
            let resident = if schedule.interleaves() {
                self.config.residency.max(1) as u64 + 1
            } else {
                1
            };
            let interp = (per_lane * n as u64 + prog.wg_words as u64) * 4 * resident;
            if interp > self.config.memory_budget {
                return Err(Error::TooLarge(format!(
                    "pass {}: the registers and memories of {resident} workgroup(s) of {n} \
                     invocations take {interp} bytes; the memory budget is {}",
                    pass.label, self.config.memory_budget
                )));
            }
            findings.set_pass(Some(pi));
            let module = &prog.spec.module;
            let used = prog.spec.info.get_entry_point(prog.entry_index);
            let mut bound = vec![None; prog.globals.len()];
            for ((gi, g), (h, var)) in prog
                .globals
                .iter()
                .enumerate()
                .zip(module.global_variables.iter())
            {
                let Some(gb) = g.binding else { continue };
                let Some(b) = pass.bindings.iter().find(|b| (b.group, b.binding) == gb) else {
                    continue;
                };
                let (buffer, base, len) = &at[b.buffer.0];
                let (base, len) = (*base, *len);
                let first = (b.offset / 4) as usize;
                let avail = len.saturating_sub(first);
                let mut bytes = b.size.map_or(avail as u64 * 4, |s| s.min(avail as u64 * 4));
                // a caller's buffer: whole elements of the variable's array, or the filler
                // (BufferInit::Arg), here an empty range
                let filler = plan.buffers[b.buffer.0].init == BufferInit::Arg && {
                    let shape = layout::binding_shape(module, var.ty);
                    bytes = crate::plan::arg_binding_bytes(avail as u64 * 4, b.size, shape);
                    bytes == 0
                };
                let words_bound = (bytes / 4) as usize;
                // WebGPU's minimum binding size: the type's (a runtime-sized array counting
                // one element), for a variable the entry point uses
                let need = module.types[var.ty].inner.try_size(module.to_ctx());
                if let Some(need) = need
                    .map(u64::from)
                    .filter(|&n| bytes < n && !filler && !used[h].is_empty())
                {
                    let runtime = if layout::runtime_sized(module, var.ty) {
                        " (its fixed part and one element of its runtime-sized array)"
                    } else {
                        ""
                    };
                    findings.report_declaration(
                        FindingKind::BindingTooSmall,
                        &pass.kernel,
                        module.global_variables.get_span(h),
                        format!(
                            "`{}` (@group({}) @binding({})) is bound to {bytes} bytes of `{}` \
                             from byte {}, less than the {need} bytes of its type{runtime}: \
                             WebGPU refuses the binding",
                            var.name.as_deref().unwrap_or("?"),
                            gb.0,
                            gb.1,
                            buffer.label(),
                            b.offset
                        ),
                    );
                }
                bound[gi] = Some(Bound {
                    buffer: slot[b.buffer.0],
                    base: base + first,
                    len: words_bound,
                    uniform: g.space == naga::AddressSpace::Uniform,
                    read_only: matches!(g.space, naga::AddressSpace::Storage { access }
                        if !access.contains(naga::StorageAccess::STORE)),
                });
            }
            let hooks = Hooks {
                checkers: &mut *checkers,
                findings: &mut *findings,
            };
            let mut it = Interp::new(
                &prog,
                &pass.kernel,
                pi,
                self.config.subgroup_size,
                self.lanes(n),
                bound,
                words,
                counts,
                Budget {
                    thread: self.config.max_steps,
                    run: self.config.max_run_steps,
                    run_left: self.config.max_run_steps.saturating_sub(*steps),
                },
                self.config.seed ^ (pi as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                hooks,
            )?;
            let [x, y, z] = counts;
            let turns = Turns {
                schedule,
                residency: self.config.residency as usize,
                spin_limit: self.config.spin_limit,
                threaded: self.config.threaded_workgroups.map(|t| t as usize),
                seed: schedule.seed() ^ (pi as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407),
            };
            // (at most MAX_DISPATCH_WORKGROUPS: checked above)
            let (done, goes_on) = it.run_dispatch(&self.order(x * y * z), &turns)?;
            let stopped = !goes_on;
            {
                let mut st = self.stats.lock().unwrap();
                st.workgroups += done;
                st.statements += it.statements;
                st.lane_ops += it.lane_ops;
            }
            *steps += it.statements;
            if stopped {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// What `plan`'s prepare passes compute from the words `initial` gives for each buffer they
    /// bind (by index; one copy of a slotted buffer), found by running those passes alone on a
    /// simulator of this one's device: the dispatch arguments, by (plan buffer, byte offset),
    /// and the words each bound buffer holds after them. The oracle that holds the grids and
    /// blocks a host computes for a count (`record.rs`) to the kernels' own arithmetic. Empty
    /// without prepare passes.
    #[allow(clippy::type_complexity)]
    pub fn prepare_run(
        &self,
        plan: &Plan,
        initial: &dyn Fn(usize) -> Vec<u32>,
    ) -> Result<(HashMap<(usize, u64), [u32; 3]>, HashMap<usize, Vec<u32>>)> {
        let mut mini = Plan::new(format!("{} prepare", plan.label));
        let mut map: HashMap<usize, BufferId> = HashMap::new();
        for pass in plan.passes.iter().filter(|p| p.is_prepare()) {
            let mut copy = pass.clone();
            for b in &mut copy.bindings {
                let id = *map.entry(b.buffer.0).or_insert_with(|| {
                    let region = initial(b.buffer.0);
                    let bytes = bytemuck::cast_slice::<u32, u8>(&region).to_vec();
                    let label = plan.buffers[b.buffer.0].label.clone();
                    let id = mini.buffer(label, bytes.len() as u64, BufferInit::Bytes(bytes));
                    mini.read_back(id);
                    id
                });
                b.buffer = id;
            }
            mini.passes.push(copy);
        }
        if mini.passes.is_empty() {
            return Ok((HashMap::new(), HashMap::new()));
        }
        let mut config = SimConfig::for_profile(self.caps.clone());
        config.fail_on_step_limit = true;
        // the arguments depend on the count alone, under any schedule
        config.schedules = vec![Schedule::Lockstep];
        let (read, report) = Simulator::new(config)?.run_plan(&mini)?;
        if let Some(f) = report.findings.first() {
            return Err(Error::Sim(format!("{}: {f}", mini.label)));
        }
        let mut args = HashMap::new();
        for p in &plan.passes {
            if let Workgroups::Indirect { buffer, offset } = p.workgroups {
                let Some(w) = map.get(&buffer.0).and_then(|id| read.get(id)) else {
                    continue;
                };
                let first = (offset / 4) as usize;
                if let Some(&[x, y, z]) = w.get(first..first + 3) {
                    args.insert((buffer.0, offset), [x, y, z]);
                }
            }
        }
        let words = map
            .iter()
            .filter_map(|(&b, id)| read.get(id).map(|w| (b, w.clone())))
            .collect();
        Ok((args, words))
    }

    /// Runs a self-contained plan (no `Arg` buffers) once and returns the contents of its
    /// buffers marked read-back, by buffer, with the findings and notes: the engine of
    /// `wgsimd check`.
    /// `Poison` buffers marked read-back are outputs (their unwritten words are findings).
    pub fn run_plan(&self, plan: &Plan) -> Result<(ReadBack, Report)> {
        let mut own = plan.clone();
        let mut args = Vec::new();
        let mut outputs = Vec::new();
        for (i, b) in plan.buffers.iter().enumerate() {
            if b.readback && b.init == BufferInit::Poison {
                let out = self.uninit(&b.label, b.size);
                own.buffers[i].init = BufferInit::Arg;
                args.push((BufferId(i), out));
            } else if b.readback {
                outputs.push(i);
            }
        }
        let prepared = self.prepare(own)?;
        let slices: Vec<(BufferId, SimSlice)> = args
            .iter()
            .map(|(id, b)| (*id, SimSlice::whole(b)))
            .collect();
        let mut enc = SimEncoder::new();
        enc.record(&prepared, &slices, &RunSpec::default())?;
        let report = self.submit(enc)?;
        let mut read = HashMap::new();
        for (id, b) in &args {
            read.insert(*id, b.read::<u32>());
        }
        for i in outputs {
            if let Some(b) = prepared.buffer(BufferId(i)) {
                read.insert(BufferId(i), b.read::<u32>());
            }
        }
        Ok((read, report))
    }
}
