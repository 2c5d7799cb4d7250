//! The selection's plan: one pass on the scan's chain of tiles (`wgsl/select/compact.wgsl`),
//! and for a partition a second that moves the others after the selected ones
//! (`wgsl/select/tail.wgsl`); for runs' heads with their lengths, a second that takes each
//! run's length from the heads' positions (`wgsl/select/lengths.wgsl`).
//!
//! The compact pass reads the elements and flags once and writes the selected elements once:
//! each tile marks its elements, publishes their count, looks back for the count before it
//! (`scan::Chain`) and moves its selected elements to their places; the tile that ends the run
//! writes the selected count. A partition's others go in order to a buffer of the object's and
//! then, once the count is known, after the selected ones: 4 bytes read and written again per
//! element not selected (CUB's `DevicePartition` writes them reversed from the end in its one
//! pass; ours keeps them in input order).

use std::sync::Arc;

use crate::context::Context;
use crate::error::Result;
use crate::fold::ChunkGrid;
use crate::kernel::Kernel;
use crate::plan::{BufferId, BufferInit, Plan};
use crate::record::{Counting, HostArgs};
use crate::scan::{self, Chain, ScanArgs};
use crate::stages::select::{compact, lengths, tail};

use super::{checked_max, SelectPolicy};

/// Tiles the chain has at least: one, whose workgroup writes the selected count of an empty run
/// (the chain's prepare stage and the host's grids alike).
const MIN_TILES: u32 = 1;

/// What the compact stage marks by (its KIND).
pub(crate) enum MarkBy {
    /// A nonzero byte flag (four to a word).
    FlagBytes,
    /// A nonzero u32 flag.
    FlagWords,
    /// The stage composed with the caller's predicate.
    Predicate(Arc<Kernel>),
    /// The first element and each that differs from the one before it (as words): the heads
    /// of runs (unique).
    Heads,
}

/// What follows the selected elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Then {
    /// Nothing: a selection.
    Nothing,
    /// The others, in order (a partition): the tail pass.
    Others,
    /// The runs' lengths, for a selection of runs' heads: each head's position written beside
    /// it, then the lengths pass into the `aggregates` argument.
    Lengths,
}

/// The host's grids for a count: the chain's, then (a partition, run lengths) the tail's.
#[derive(Clone, Copy, Debug)]
struct SingleArgs {
    chain: ScanArgs,
    tail: Option<ChunkGrid>,
}

impl SingleArgs {
    fn for_count(&self, word: u32) -> HostArgs {
        let mut args = self.chain.for_count(word);
        args.extend(self.tail.map(|t| t.args(word)));
        args
    }
}

/// A selection's plan and the buffers a recording binds.
pub(crate) struct SinglePass {
    pub plan: Plan,
    pub control: BufferId,
    pub input: BufferId,
    /// The flags buffer and its bytes per flag.
    pub flags: Option<(BufferId, u64)>,
    pub output: BufferId,
    pub selected: BufferId,
    /// The runs' lengths ([`Then::Lengths`]).
    pub aggregates: Option<BufferId>,
    args: SingleArgs,
    max: u64,
    scan_marks: Vec<(u64, u32)>,
}

impl SinglePass {
    /// The plan of a selection labelled `label` of up to `max_count` elements marked `by`,
    /// followed by `then`, by `policy`.
    pub(crate) fn build(
        ctx: &Context,
        label: String,
        by: MarkBy,
        then: Then,
        max_count: u64,
        policy: &SelectPolicy,
    ) -> Result<SinglePass> {
        let caps = ctx.caps();
        let max = checked_max(caps, &label, max_count)?;
        let (k, kind, flag_bytes) = match by {
            MarkBy::FlagBytes => (compact::STAGE.load(caps.flavor())?, 0.0, 1),
            MarkBy::FlagWords => (compact::STAGE.load(caps.flavor())?, 1.0, 4),
            MarkBy::Predicate(k) => (k, 2.0, 0),
            MarkBy::Heads => (compact::STAGE.load(caps.flavor())?, 3.0, 0),
        };
        let mut plan = Plan::new(label);
        let scan_bytes = scan::control_size(caps)?;
        let control = crate::record::control(&mut plan, scan_bytes + 16);
        let input = plan.arg("input", 4 * max);
        let flags = match flag_bytes {
            0 => None,
            b => Some((plan.arg("flags", (b * max).div_ceil(4) * 4), b)),
        };
        let output = plan.arg("output", 4 * max);
        let selected = plan.arg("selected", 4);
        let aggregates = (then == Then::Lengths).then(|| plan.arg("aggregates", 4 * max));
        // the others (a partition) or the heads' positions (run lengths)
        let rejects = match then {
            Then::Nothing => None,
            Then::Others => Some(plan.buffer("rejects", 4 * max, BufferInit::Poison)),
            Then::Lengths => Some(plan.buffer("positions", 4 * max, BufferInit::Poison)),
        };
        // one chunk (checked_max: the elements fit one binding), at least one tile, whose
        // workgroup writes the selected count of an empty run
        let chain = Chain::append(
            &mut plan,
            caps,
            Some(control),
            max,
            &policy.tiles,
            MIN_TILES,
            "select",
        )?;
        let mut ov = chain.overrides.clone();
        ov.extend([
            (compact::KIND, kind),
            (compact::PARTITION, (then == Then::Others) as u32 as f64),
            (compact::POSITIONS, (then == Then::Lengths) as u32 as f64),
        ]);
        let (params_at, params_bytes) = chain.params_block(0);
        plan.pass(
            "select",
            &k,
            compact::entry::main,
            &ov,
            &[
                (compact::bind::params_block, control),
                (compact::bind::count_word, control),
                (compact::bind::input, input),
                (compact::bind::input_words, input),
                (compact::bind::flags, flags.map_or(input, |f| f.0)),
                (compact::bind::output, output),
                (compact::bind::rejects, rejects.unwrap_or(output)),
                (compact::bind::state, chain.state),
                (compact::bind::selected, selected),
            ],
            chain.workgroups(0),
        )?
        .range(compact::bind::params_block, params_at, params_bytes)?
        .range(compact::bind::count_word, 0, 16)?;
        let tail = match rejects {
            None => None,
            Some(rejects) => {
                // the tail's dispatch arguments past the chain's control layout
                let grid = ChunkGrid::new((control, scan_bytes), max, &policy.tail, u32::MAX, caps);
                grid.append_prepare(&mut plan, "select tail prepare".into())?;
                let emulated = crate::kernel::Flavor::Emulated;
                match aggregates {
                    None => {
                        plan.pass(
                            "select tail",
                            &tail::STAGE.load(emulated)?,
                            tail::entry::main,
                            &grid.params(),
                            &[
                                (tail::bind::count_word, control),
                                (tail::bind::selected, selected),
                                (tail::bind::rejects, rejects),
                                (tail::bind::output, output),
                            ],
                            grid.workgroups(),
                        )?
                        .range(tail::bind::count_word, 0, 16)?;
                    }
                    Some(lengths_out) => {
                        plan.pass(
                            "runs lengths",
                            &lengths::STAGE.load(emulated)?,
                            lengths::entry::main,
                            &grid.params(),
                            &[
                                (lengths::bind::count_word, control),
                                (lengths::bind::selected, selected),
                                (lengths::bind::positions, rejects),
                                (lengths::bind::lengths, lengths_out),
                            ],
                            grid.workgroups(),
                        )?
                        .range(lengths::bind::count_word, 0, 16)?;
                    }
                }
                Some(grid)
            }
        };
        Ok(SinglePass {
            plan,
            control,
            input,
            flags,
            output,
            selected,
            aggregates,
            args: SingleArgs {
                chain: ScanArgs::new(caps, max, &policy.tiles, control)?.with_min_tiles(MIN_TILES),
                tail,
            },
            max,
            scan_marks: scan::derive_marks(caps)?,
        })
    }

    /// The plan's counting: the chain's marks, the host's grids.
    pub(crate) fn counting(&self) -> Counting {
        let args = self.args;
        Counting {
            control: self.control,
            max: self.max,
            derived: true,
            marks: self.scan_marks.clone(),
            args: Some(Box::new(move |n| args.for_count(n))),
            blocks: None,
        }
    }
}
