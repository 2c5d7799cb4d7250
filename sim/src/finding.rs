//! Typed findings: what the simulator's checkers report.
//!
//! A finding has a [`FindingKind`] (the kinds of `docs/simulator.md`, with fixed names that the
//! CLI prints and tests match), a message, the source location of the statement that
//! triggered it, and the coordinates of each party involved (for a race: both accesses).

use std::fmt;

use crate::error::{Error, Result};

/// The kinds of porting bug the simulator reports. `name()` gives the stable kebab-case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// A subgroup operation ran while some live lanes of the subgroup were inactive.
    NonUniformSubgroupOp,
    /// Invocations of one workgroup reached different barriers (or some none).
    BarrierDivergence,
    /// Two invocations touched one workgroup-memory word between barriers, one a non-atomic write.
    WorkgroupRace,
    /// Two invocations of one workgroup touched one storage word between storage barriers, one
    /// a non-atomic write.
    StorageRace,
    /// Two workgroups of one dispatch touched one storage word, one access a non-atomic write.
    CrossWorkgroupRace,
    /// An index past an array's end.
    OutOfBounds,
    /// Workgroup memory read before written in that workgroup, or host-uninit storage read.
    UninitializedRead,
    /// Host-marked uninit output elements that no invocation wrote.
    UnwrittenOutput,
    /// The step budget ran out (a hang, or a wait on another workgroup).
    StepLimit,
    /// One subgroup took more loop iterations, over all loops of one invocation, than lavapipe
    /// runs before it ends every loop early (65535, one counter per row of lanes).
    LoopLimit,
    /// A shuffle or broadcast named a source lane (or a mask or delta) at or past the subgroup
    /// size: the kernel assumes larger subgroups than it runs with.
    ShuffleOutOfRange,
    /// Lanes at or past 32 voted in a `subgroupBallot` whose words holding them the kernel
    /// never reads (only `.x`): it assumes subgroups of at most 32.
    BallotHighLanes,
    /// A shift by at least the operand's bit width (WGSL takes the amount modulo the width;
    /// CUDA and MSL leave it undefined).
    ShiftOverflow,
    /// A subgroup id or lane computed as `local_invocation_index / subgroup_size` (or `%`): WGSL
    /// does not promise that subgroups are formed from consecutive local indices.
    LaneLayoutAssumption,
    /// An out-of-bounds or uninitialized read whose value a `select` discards in that lane
    /// (off unless asked for: WGSL evaluates both arms, and robust access makes the read safe).
    DiscardedRead,
    /// An output word came out differently under two of the schedules explored (how subgroups
    /// and workgroups interleave): a missing barrier, a race, or an order of arrival.
    ScheduleDivergence,
    /// A workgroup spun, re-reading memory nobody changed, while the only workgroup that could
    /// change it was suspended (after taking a ticket): it waits for another workgroup without
    /// a fallback.
    ForwardProgress,
    /// A float operation gave NaN or an infinity from finite operands (off unless asked for):
    /// WGSL lets implementations assume no such value occurs, so later results differ between
    /// devices.
    NonFinite,
    /// An atomic written by a plain assignment (`a[i] = 0u` on an atomic array), not
    /// `atomicStore`: WGSL forbids it; naga takes it.
    PlainAtomicAccess,
    /// A storage or uniform binding smaller than its variable's type (for a runtime-sized
    /// array, its fixed part and one element): WebGPU refuses such a binding.
    BindingTooSmall,
}

impl FindingKind {
    /// Every kind, in catalogue order.
    pub const ALL: [FindingKind; 20] = [
        FindingKind::NonUniformSubgroupOp,
        FindingKind::BarrierDivergence,
        FindingKind::WorkgroupRace,
        FindingKind::StorageRace,
        FindingKind::CrossWorkgroupRace,
        FindingKind::OutOfBounds,
        FindingKind::UninitializedRead,
        FindingKind::UnwrittenOutput,
        FindingKind::StepLimit,
        FindingKind::LoopLimit,
        FindingKind::ShuffleOutOfRange,
        FindingKind::BallotHighLanes,
        FindingKind::ShiftOverflow,
        FindingKind::LaneLayoutAssumption,
        FindingKind::DiscardedRead,
        FindingKind::ScheduleDivergence,
        FindingKind::ForwardProgress,
        FindingKind::NonFinite,
        FindingKind::PlainAtomicAccess,
        FindingKind::BindingTooSmall,
    ];

    /// The stable name printed by `wgsimd check` and matched by tests.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::NonUniformSubgroupOp => "non-uniform-subgroup-op",
            FindingKind::BarrierDivergence => "barrier-divergence",
            FindingKind::WorkgroupRace => "workgroup-race",
            FindingKind::StorageRace => "storage-race",
            FindingKind::CrossWorkgroupRace => "cross-workgroup-race",
            FindingKind::OutOfBounds => "out-of-bounds",
            FindingKind::UninitializedRead => "uninitialized-read",
            FindingKind::UnwrittenOutput => "unwritten-output",
            FindingKind::StepLimit => "step-limit",
            FindingKind::LoopLimit => "loop-limit",
            FindingKind::ShuffleOutOfRange => "shuffle-out-of-range",
            FindingKind::BallotHighLanes => "ballot-high-lanes",
            FindingKind::ShiftOverflow => "shift-overflow",
            FindingKind::LaneLayoutAssumption => "lane-layout-assumption",
            FindingKind::DiscardedRead => "discarded-read",
            FindingKind::ScheduleDivergence => "schedule-divergence",
            FindingKind::ForwardProgress => "forward-progress",
            FindingKind::NonFinite => "non-finite",
            FindingKind::PlainAtomicAccess => "plain-atomic-access",
            FindingKind::BindingTooSmall => "binding-too-small",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A position in a kernel's composed WGSL source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLoc {
    /// Kernel name or file path.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// One invocation involved in a finding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Party {
    /// Workgroup id (x, y, z).
    pub workgroup: [u32; 3],
    /// Local invocation index within the workgroup.
    pub local_index: u32,
    /// Subgroup id within the workgroup and lane within the subgroup.
    pub subgroup: u32,
    /// Lane within the subgroup.
    pub lane: u32,
    /// Where this party was when it was involved.
    pub loc: Option<SourceLoc>,
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(
            f,
            "workgroup ({x},{y},{z}) invocation {} (subgroup {} lane {})",
            self.local_index, self.subgroup, self.lane
        )?;
        if let Some(loc) = &self.loc {
            write!(f, " at {loc}")?;
        }
        Ok(())
    }
}

/// A typed report of a porting bug.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What kind of bug.
    pub kind: FindingKind,
    /// Human-readable detail.
    pub message: String,
    /// Where (the statement that triggered it).
    pub loc: Option<SourceLoc>,
    /// The invocations involved (one or two).
    pub parties: Vec<Party>,
    /// Index of the pass it was first seen in, counted over the passes of its submission
    /// (`None` for findings about the whole run, such as `unwritten-output`).
    pub pass: Option<usize>,
    /// In how many invocations it happened, summed over the run: each time a lane executes
    /// the statement and does the bad thing counts one, so a lane that runs it again counts
    /// again (which lanes count, per kind: `docs/simulator.md`). Under several schedules, the
    /// count of the first that found it. `None` for findings about a buffer or the whole run
    /// rather than a statement (`unwritten-output`, `schedule-divergence`).
    pub invocations: Option<u64>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        if let Some(loc) = &self.loc {
            write!(f, " [{loc}]")?;
        }
        for p in &self.parties {
            write!(f, "\n    {p}")?;
        }
        Ok(())
    }
}

/// What a submission found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Findings of the checkers (empty on a device).
    pub findings: Vec<Finding>,
    /// Notes: what would be a finding but for the author's word in the kernel (a subgroup
    /// operation run with lanes missing under a `subgroup_uniformity` diagnostic filter of any
    /// severity but `error`). They fail nothing.
    pub notes: Vec<Finding>,
}

impl Report {
    /// `Error::Sim` naming `what`, the number of findings and the first, where there are any
    /// (notes are not findings).
    pub fn clean(&self, what: &str) -> Result<()> {
        match self.findings.first() {
            None => Ok(()),
            Some(f) => Err(Error::Sim(format!(
                "{what} reported {} finding(s), the first: {f}",
                self.findings.len()
            ))),
        }
    }
}
