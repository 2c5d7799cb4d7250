//! Element counts of a recording: given on the host, or read from a GPU buffer a pass of the
//! caller's wrote (a culling pass's visible count, say).
//!
//! Rules:
//! - A counted plan keeps its params and dispatch arguments in **control blocks**: buffers
//!   declared with [`COPIES`] copies side by side ([`Plan::slotted`]); each recording binds one
//!   copy (a dynamic offset on a device), so recordings with different counts can share a
//!   submission and recording allocates nothing.
//! - **GPU counts** are one u32 at the given offset (a multiple of 4) of a buffer with
//!   `COPY_SRC`, copied into word 0 of copy 0 of the control buffer before the passes. The
//!   passes are dispatched directly with the grids of the object's maximum count, and the
//!   workgroups past the count leave at once: an indirect dispatch waits for the command
//!   processor to fetch its arguments, about 1.7 µs a pass on the H200 (2026-11-27), 10 µs of
//!   a 2^20-key sort's 100, while a workgroup with nothing to do costs nanoseconds. A count
//!   above the object's maximum is clamped to it.
//! - Where the object's stages can compute their params from the count word themselves
//!   (`CountInput::derive`), copy 0 holds the maximum count's blocks, written once, with
//!   marks that tell the stages to do so, and the prepare passes do not run: that dispatch and
//!   the wait for it cost 7 µs, half of a 2^20-element reduction (H200, 2026-11-27). The
//!   reduction's and the chained scan's stages each compute their chunk's params; OneSweep's
//!   histogram stage, the sort's first, writes the whole control block (its later stages, at 128
//!   registers, read the params as before: computing them there measured 4% slower at 2^24 on
//!   the H100). Elsewhere (the reduce-then-scan sort) the plan's one-invocation `prepare`
//!   passes turn the count word into params first.
//! - **Host counts** take the next of the other [`RING_SLOTS`] copies (a count equal to the
//!   last one keeps its copy, which still holds its blocks, and writes nothing) and skip the
//!   prepare passes: the host writes, through the queue, the blocks those passes would write, and
//!   dispatches the grids they would compute directly. The blocks come from running the
//!   prepare passes on the simulator once per count (the last [`MEMO`] counts are kept), so no
//!   kernel's arithmetic is restated here, and the GPU-count path runs the very same passes.
//!   A prepare pass that also kept state between runs for other passes would run on the
//!   device, on the count the host wrote into the recording's copy, with only the grids from
//!   the host; no plan's does (the chained scan's books are kept by its own tiles).
//!   What a host count saves is a buffer copy, a dispatch and an indirect dispatch's wait for
//!   its arguments per pass: about 10 µs of a recording (H200, 2026-11-27).
//!   `Queue::write_buffer` lands before the next submission's commands, so up to
//!   [`RING_SLOTS`] recordings of one object with host counts may share a submission.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use crate::context::{BufferRef, Context, CountedRun, EncoderRef, Prepared};
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::kernel::BindingKind;
use crate::plan::{BufferId, BufferInit, Pass, Plan, Workgroups};

/// How many elements a recording processes.
#[derive(Clone, Debug)]
pub enum Count<'a> {
    /// Known on the host.
    Host(u32),
    /// A u32 at the start of this range, read when the work runs.
    Gpu(BufferRef<'a>),
}

/// Copies of a control block for host counts: recordings with host counts one object may
/// make per submission.
pub const RING_SLOTS: u32 = 256;

/// Copies of every control block: copy 0 for GPU counts, then the host counts' ring.
pub const COPIES: u32 = RING_SLOTS + 1;

/// Host counts whose control blocks are kept.
pub const MEMO: usize = 8;

/// What a plan's prepare passes write for one count: the contents of each control block, and
/// per pass the grid of an indirect pass (`None`: dispatched as planned).
pub(crate) struct HostState {
    blocks: Vec<(BufferId, Vec<u8>)>,
    grids: Vec<Option<[u32; 3]>>,
    /// Whether the blocks are all the prepare passes leave for the others: false where they
    /// also keep state another pass uses, and must run every recording.
    skip_prepare: bool,
}

/// A recording's count, once recorded: the copy of the control blocks it uses, and for a
/// host count what replaces the prepare passes.
pub(crate) struct Recorded {
    slot: u32,
    /// A host count's blocks and grids (its prepare passes are skipped).
    state: Option<Arc<HostState>>,
    /// A GPU count's grids: the maximum count's.
    bound: Option<Arc<HostState>>,
    /// A GPU count whose stages compute their params (its prepare passes are skipped).
    derived: bool,
}

impl Recorded {
    /// How the plan's passes are recorded.
    pub fn run(&self) -> CountedRun<'_> {
        let grids = self.state.as_ref().or(self.bound.as_ref());
        CountedRun {
            slot: self.slot,
            skip_prepare: self.derived || self.state.as_ref().is_some_and(|s| s.skip_prepare),
            grids: grids.map(|s| s.grids.as_slice()),
            grids_bound: self.bound.is_some(),
        }
    }
}

/// The control buffer of a plan, the next ring copy, and the control blocks of the last host
/// counts.
pub(crate) struct CountInput {
    /// Word 0: the count; the rest as the algorithm's prepare stage lays it out.
    pub control: BufferId,
    next: AtomicU32,
    /// The last host count and its copy, which still holds that count's blocks: a recording
    /// with the same count reuses it and writes nothing.
    last: Mutex<Option<(u32, u32)>>,
    states: Mutex<VecDeque<(u32, Option<Arc<HostState>>)>>,
    /// Words of the control block (byte offset, value) that make the stages compute their
    /// params from the count word; empty where they cannot.
    marks: Vec<(u64, u32)>,
    /// Whether copy 0 holds the maximum count's marked blocks.
    marked: std::sync::atomic::AtomicBool,
}

impl CountInput {
    /// Declares a control buffer of `control_bytes` (in [`COPIES`] copies) in `plan`.
    pub fn declare(plan: &mut Plan, control_bytes: u64) -> CountInput {
        CountInput {
            control: plan.slotted("control", control_bytes, COPIES),
            next: AtomicU32::new(0),
            last: Mutex::new(None),
            states: Mutex::new(VecDeque::new()),
            marks: Vec::new(),
            marked: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Declares that the stages compute their params from the count word where the control
    /// block holds `marks` (byte offset, value): GPU counts then skip the prepare passes.
    pub fn derive(&mut self, marks: Vec<(u64, u32)>) {
        self.marks = marks;
    }

    /// What the prepare passes of `prepared` write for a host count `n` (memoized), `None`
    /// where it cannot be had on the host.
    fn state_for(&self, prepared: &Prepared, n: u32) -> Option<Arc<HostState>> {
        let mut memo = self.states.lock().unwrap();
        if let Some((_, g)) = memo.iter().find(|(c, _)| *c == n) {
            return g.clone();
        }
        let derives = !self.marks.is_empty();
        let g = simulate_prepare(prepared.plan(), prepared.caps(), self.control, n, derives)
            .ok()
            .map(Arc::new);
        if memo.len() == MEMO {
            memo.pop_front();
        }
        memo.push_back((n, g.clone()));
        g
    }

    /// Records what the count needs before the plan's passes: for a GPU count the copy into
    /// the control word, for a host count the queue writes of its control blocks (or of the
    /// count alone where they cannot be had). `max`: the object's maximum, which a host count
    /// may not exceed.
    pub fn record(
        &self,
        ctx: &Context,
        prepared: &Prepared,
        enc: &mut EncoderRef,
        count: &Count,
        max: u64,
    ) -> Result<Recorded> {
        let own = |id: BufferId| prepared.own(id).expect("own buffer");
        match count {
            Count::Host(n) => {
                if *n as u64 > max {
                    return Err(Error::InvalidInput(format!(
                        "count {n} exceeds the maximum {max} this object was made for"
                    )));
                }
                let state = self.state_for(prepared, *n);
                let mut last = self.last.lock().unwrap();
                if let Some((c, slot)) = *last {
                    if c == *n {
                        return Ok(Recorded {
                            slot,
                            state,
                            bound: None,
                            derived: false,
                        });
                    }
                }
                let slot = 1 + self.next.fetch_add(1, Ordering::Relaxed) % RING_SLOTS;
                // (forgotten until the blocks are written)
                *last = None;
                let copy = |id: BufferId, bytes: &[u8]| {
                    let decl = &prepared.plan().buffers[id.0];
                    let at = decl.slot_stride() * slot as u64;
                    ctx.write_buffer(&own(id).range(at, bytes.len() as u64), bytes)
                };
                match &state {
                    Some(s) if s.skip_prepare => {
                        for (id, bytes) in &s.blocks {
                            copy(*id, bytes)?;
                        }
                    }
                    _ => copy(self.control, &n.to_le_bytes())?,
                }
                *last = Some((*n, slot));
                Ok(Recorded {
                    slot,
                    state,
                    bound: None,
                    derived: false,
                })
            }
            Count::Gpu(src) => {
                if src.offset() % 4 != 0 || src.len() < 4 {
                    return Err(Error::InvalidInput(format!(
                        "a GPU count is a u32 at an offset that is a multiple of 4; got {} \
                         bytes at offset {}",
                        src.len(),
                        src.offset()
                    )));
                }
                let bound = u32::try_from(max)
                    .ok()
                    .and_then(|m| self.state_for(prepared, m));
                let derived = match &bound {
                    Some(b) if b.skip_prepare && !self.marks.is_empty() => {
                        self.mark(ctx, prepared, b)?;
                        true
                    }
                    _ => false,
                };
                enc.copy(src, &own(self.control).range(0, 4), 4)?;
                Ok(Recorded {
                    slot: 0,
                    state: None,
                    bound,
                    derived,
                })
            }
        }
    }
}

impl CountInput {
    /// Writes copy 0 of the control blocks once: the maximum count's blocks (`bound`), the
    /// marks set, so every GPU-count recording finds the grids' params and computes its own.
    fn mark(&self, ctx: &Context, prepared: &Prepared, bound: &HostState) -> Result<()> {
        if self.marked.load(Ordering::Acquire) {
            return Ok(());
        }
        for (id, bytes) in &bound.blocks {
            let mut bytes = bytes.clone();
            if *id == self.control {
                for &(at, v) in &self.marks {
                    let at = at as usize;
                    if let Some(w) = bytes.get_mut(at..at + 4) {
                        w.copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
            let own = prepared.own(*id).expect("own buffer");
            ctx.write_buffer(&own.range(0, bytes.len() as u64), &bytes)?;
        }
        self.marked.store(true, Ordering::Release);
        Ok(())
    }
}

/// Whether `pass` is a prepare stage (`wgsl/<algo>/prepare.wgsl`).
pub(crate) fn is_prepare(pass: &Pass) -> bool {
    pass.kernel.name.ends_with("/prepare")
}

/// The buffers `pass` binds read-write.
fn written(pass: &Pass) -> impl Iterator<Item = usize> + '_ {
    let entry = pass.kernel.entry(&pass.entry);
    pass.bindings.iter().filter_map(move |b| {
        let kind = entry?
            .bindings
            .iter()
            .find(|r| r.binding == b.binding)?
            .kind;
        (kind == BindingKind::StorageReadWrite).then_some(b.buffer.0)
    })
}

/// Runs `plan`'s prepare passes on the simulator with `n` in word 0 of `control` and reads
/// what they write into control blocks (slotted buffers no other pass writes) and the grids of
/// the passes whose dispatch arguments lie there. Where they also write state another pass
/// reads, that state starts zeroed here, so only the grids (which depend on the count alone)
/// serve, and the prepare passes run on the device. `derives`: the stages write the control
/// blocks themselves in the marked copy 0 only ([`CountInput::derive`]), so their writes of
/// `control` leave the host's copies alone.
fn simulate_prepare(
    plan: &Plan,
    caps: &Caps,
    control: BufferId,
    n: u32,
    derives: bool,
) -> Result<HostState> {
    let prepares = || plan.passes.iter().filter(|p| is_prepare(p));
    let others: HashSet<usize> = plan
        .passes
        .iter()
        .filter(|p| !is_prepare(p))
        .flat_map(written)
        .filter(|&b| !(derives && b == control.0))
        .collect();
    // what the prepare passes write that another pass reads (a buffer only prepare passes
    // bind, like the sort's unused scan control, needs no block)
    let read: HashSet<usize> = plan
        .passes
        .iter()
        .filter(|p| !is_prepare(p))
        .flat_map(|p| p.bindings.iter().map(|b| b.buffer.0))
        .chain(plan.passes.iter().filter_map(|p| match p.workgroups {
            Workgroups::Indirect { buffer, .. } => Some(buffer.0),
            Workgroups::Direct(_) => None,
        }))
        .collect();
    let (blocks, state): (HashSet<usize>, HashSet<usize>) = prepares()
        .flat_map(written)
        .filter(|b| read.contains(b))
        .partition(|&b| !others.contains(&b) && plan.buffers[b].slots > 1);
    let mut mini = Plan::new(format!("{} prepare", plan.label));
    let mut map: HashMap<usize, BufferId> = HashMap::new();
    for pass in prepares() {
        let mut copy = pass.clone();
        for b in &mut copy.bindings {
            let decl = &plan.buffers[b.buffer.0];
            let init = match &decl.init {
                BufferInit::Arg => {
                    return Err(Error::Plan(format!(
                        "{} binds a caller's buffer",
                        pass.label
                    )));
                }
                _ if b.buffer == control => BufferInit::Bytes(n.to_le_bytes().to_vec()),
                other => other.clone(),
            };
            let id = *map
                .entry(b.buffer.0)
                .or_insert_with(|| mini.buffer(decl.label.clone(), decl.size, init));
            b.buffer = id;
        }
        mini.passes.push(copy);
    }
    for b in &blocks {
        mini.read_back(map[b]);
    }
    let mut config = crate::sim::SimConfig::for_profile(caps.clone());
    config.fail_on_step_limit = true;
    // the grids are what the prepare passes compute, under any schedule: one run is enough
    config.schedules = vec![crate::sim::Schedule::Lockstep];
    let sim = crate::sim::Simulator::new(config)?;
    let (words, findings) = sim.run_plan(&mini)?;
    if let Some(f) = findings.first() {
        return Err(Error::Sim(format!("the prepare passes: {f}")));
    }
    let mut grids = Vec::with_capacity(plan.passes.len());
    for p in &plan.passes {
        grids.push(match p.workgroups {
            Workgroups::Direct(_) => None,
            _ if is_prepare(p) => None,
            // arguments another pass writes stay indirect
            Workgroups::Indirect { buffer, .. } if !blocks.contains(&buffer.0) => None,
            Workgroups::Indirect { buffer, offset } => {
                let w = &words[&map[&buffer.0]];
                let at = (offset / 4) as usize;
                Some(
                    w.get(at..at + 3)
                        .and_then(|a| a.try_into().ok())
                        .ok_or_else(|| Error::Plan(format!("{}: arguments", p.label)))?,
                )
            }
        });
    }
    let mut ids: Vec<usize> = blocks.into_iter().collect();
    ids.sort();
    let blocks = ids
        .into_iter()
        .map(|b| {
            let w = &words[&map[&b]];
            (BufferId(b), bytemuck::cast_slice::<u32, u8>(w).to_vec())
        })
        .collect();
    Ok(HostState {
        blocks,
        grids,
        skip_prepare: state.is_empty(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;

    /// The plan's control buffer.
    fn control_of(plan: &Plan) -> BufferId {
        BufferId(
            plan.buffers
                .iter()
                .position(|b| b.label == "control")
                .expect("a control buffer"),
        )
    }

    /// Every indirect pass of a sort (both strategies), a reduction and a scan gets its grid
    /// from the simulated prepare passes, and the grids follow the count.
    #[test]
    fn host_counts_get_a_grid_for_every_indirect_pass() {
        let ctx = Context::simulator(Default::default()).unwrap();
        let sorts = [
            crate::sort::Strategy::OneSweep,
            crate::sort::Strategy::ReduceThenScan,
        ]
        .map(|s| {
            let c = crate::sort::SortConfig::keys(Dtype::U32, 1 << 20).strategy(s);
            crate::sort::Sorter::new(&ctx, c).unwrap().plan().clone()
        });
        let reduce =
            crate::reduce::Reducer::new(&ctx, crate::reduce::ReduceOp::Sum, Dtype::U32, 1 << 20)
                .unwrap()
                .plan()
                .clone();
        let scan = crate::scan::Scanner::new(&ctx, false, 1 << 20)
            .unwrap()
            .plan()
            .clone();
        for plan in sorts.iter().chain([&reduce, &scan]) {
            let control = control_of(plan);
            // OneSweep's histogram stage writes the control blocks of GPU counts
            let derives = plan
                .passes
                .iter()
                .any(|p| p.kernel.name == "sort/onesweep_histogram");
            let state = simulate_prepare(plan, ctx.caps(), control, 5000, derives).unwrap();
            // no prepare pass keeps state: a host count skips them all
            assert!(state.skip_prepare, "{}", plan.label);
            let small = state.grids;
            let large = simulate_prepare(plan, ctx.caps(), control, 1 << 20, derives)
                .unwrap()
                .grids;
            for ((p, s), l) in plan.passes.iter().zip(&small).zip(&large) {
                let indirect = matches!(p.workgroups, Workgroups::Indirect { .. });
                assert_eq!(indirect, s.is_some(), "{}: {}", plan.label, p.label);
                if let (Some(s), Some(l)) = (s, l) {
                    assert!(
                        s[0] * s[1] * s[2] <= l[0] * l[1] * l[2],
                        "{}: {s:?} {l:?}",
                        p.label
                    );
                }
            }
            assert!(small.iter().any(Option::is_some), "{}", plan.label);
        }
    }

    /// OneSweep's histogram grid (`hist_workgroups` in `wgsl/sort/lib/control.wgsl`): four of
    /// its tiles per workgroup, between a quarter of the policy's cap and the cap, never more
    /// workgroups than tiles, never none.
    #[test]
    fn the_sort_histogram_grid_follows_its_rule() {
        let ctx = Context::simulator(Default::default()).unwrap();
        let policy = crate::sort::SortPolicy {
            histogram_workgroups: 16,
            ..Default::default()
        };
        let c = crate::sort::SortConfig::keys(Dtype::U32, 1 << 20)
            .strategy(crate::sort::Strategy::OneSweep)
            .policy(policy);
        let plan = crate::sort::Sorter::new(&ctx, c).unwrap().plan().clone();
        let control = control_of(&plan);
        let hist = plan
            .passes
            .iter()
            .position(|p| p.kernel.name == "sort/onesweep_histogram")
            .expect("a histogram pass");
        // (keys, workgroups): tiles of 5120 keys
        for (n, want) in [
            (0, 1),
            (1, 1),
            (5120 * 2, 2),
            (5120 * 10, 4),
            (5120 * 40 + 1, 10),
            (5120 * 64, 16),
            (1 << 20, 16),
        ] {
            let state = simulate_prepare(&plan, ctx.caps(), control, n, true).unwrap();
            assert_eq!(state.grids[hist], Some([want, 1, 1]), "{n} keys");
        }
    }
}
