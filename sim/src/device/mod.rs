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

use crate::caps::Caps;
use crate::error::{Error, Result};
use crate::events::BufferMeta;
use crate::finding::{Finding, Report};
use crate::mask::MAX_LANES;
use crate::plan::{BufferId, BufferInit, Plan, RunSpec, POISON_WORD};
use crate::program::Program;
use crate::rng::SplitMix;

mod config;
mod passes;
mod run;

pub use config::{
    Scheduler, SimConfig, SimStats, MAX_DISPATCH_WORKGROUPS, MAX_RUN_STEPS, MEMORY_BUDGET,
    RACE_BYTES_PER_WORD,
};

/// The words of a plan's read-back buffers, by buffer ([`Simulator::run_plan`]).
pub type ReadBack = HashMap<BufferId, Vec<u32>>;
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
}
