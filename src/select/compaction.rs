//! The three-step compaction: each element's mark, the marks' exclusive scan (each marked
//! element's place, [`crate::scan`]'s passes), the scatter. The runs ([`crate::runs`]) build
//! on it: a run's index is its head's place. The selection itself takes the single pass
//! (`single.rs`).

use crate::context::Context;
use crate::error::{Error, Result};
use crate::fold::{ChunkGrid, ChunkPolicy};
use crate::kernel::Flavor;
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};
use crate::record::{Counting, HostArgs};
use crate::scan::{self, ScanArgs, ScanPolicy};
use crate::stages::select::{marks, scatter};
use crate::stages::Override;

/// The host's grids for a count: the scan's, then the selection's (`ChunkGrid`).
#[derive(Clone, Copy, Debug)]
struct SelectArgs {
    grid: ChunkGrid,
    scan: ScanArgs,
}

impl SelectArgs {
    fn for_count(&self, word: u32) -> HostArgs {
        let mut args = self.scan.for_count(word);
        args.push(self.grid.args(word));
        args
    }
}

/// A compaction's plan over runs' heads: the marks (1 where a run of equal words begins), their
/// exclusive scan (`places`: each element's run) and the scatter of the heads, with the run
/// count; the runs module appends its passes to it.
pub(crate) struct Compaction {
    pub plan: Plan,
    pub control: BufferId,
    pub input: BufferId,
    pub output: BufferId,
    pub selected: BufferId,
    pub marks: BufferId,
    pub places: BufferId,
    /// The params every selection stage takes (`shared/grid.wgsl`).
    pub params: Vec<(Override, f64)>,
    /// The marks and scatter stages' grid (from the control block).
    pub grid: Workgroups,
    /// Most workgroups of that grid.
    pub max_workgroups: u32,
    args: SelectArgs,
    max: u64,
    scan_marks: Vec<(u64, u32)>,
}

impl Compaction {
    pub fn build(
        ctx: &Context,
        label: String,
        tag: &str,
        max_count: u64,
        policy: &ChunkPolicy,
    ) -> Result<Compaction> {
        let caps = ctx.caps();
        let max = checked_max(caps, &label, max_count)?;
        let bytes = scan::padded_bytes(max);
        let marks_k = marks::STAGE.load(Flavor::Emulated)?;
        let scatter_k = scatter::STAGE.load(Flavor::Emulated)?;
        let mut plan = Plan::new(label.clone());
        let scan_bytes = scan::control_size(caps)?;
        let control = crate::record::control(&mut plan, scan_bytes + 16);
        let input = plan.arg("input", 4 * max);
        let output = plan.arg("output", 4 * max);
        let selected = plan.arg("selected", 4);
        let marks_buf = plan.buffer("marks", bytes, BufferInit::Poison);
        let places = plan.buffer("places", bytes, BufferInit::Poison);
        let max_wg = policy.max_workgroups.clamp(1, caps.max_workgroups_per_dim);
        let select_args = scan_bytes / 4;
        // the selection's dispatch arguments past the scan's control layout
        let chunk_grid = ChunkGrid {
            control,
            args_at: 4 * select_args,
            max_count: max,
            items: policy.items.max(1) as u64,
            max_workgroups: max_wg as u64,
        };
        let params = chunk_grid.params();
        let grid = chunk_grid.workgroups();
        chunk_grid.append_prepare(&mut plan, format!("{tag} prepare"))?;
        plan.pass(
            format!("{tag} marks"),
            &marks_k,
            marks::entry::main,
            &params,
            &[
                (marks::bind::count_word, control),
                (marks::bind::input, input),
                (marks::bind::marks, marks_buf),
            ],
            grid,
        )?
        .range(marks::bind::count_word, 0, 16)?;
        let scan_policy = ScanPolicy::for_caps(caps);
        scan::append(
            &mut plan,
            caps,
            Some(control),
            marks_buf,
            places,
            max,
            false,
            &scan_policy,
            tag,
        )?;
        plan.pass(
            format!("{tag} scatter"),
            &scatter_k,
            scatter::entry::main,
            &params,
            &[
                (scatter::bind::count_word, control),
                (scatter::bind::input, input),
                (scatter::bind::marks, marks_buf),
                (scatter::bind::places, places),
                (scatter::bind::output, output),
                (scatter::bind::selected, selected),
            ],
            grid,
        )?
        .range(scatter::bind::count_word, 0, 16)?;
        let args = SelectArgs {
            grid: chunk_grid,
            scan: ScanArgs::new(caps, max, &scan_policy, control)?,
        };
        Ok(Compaction {
            plan,
            control,
            input,
            output,
            selected,
            marks: marks_buf,
            places,
            params,
            grid,
            max_workgroups: max_wg,
            args,
            max,
            scan_marks: scan::derive_marks(caps)?,
        })
    }

    /// The most elements it takes.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The plan's counting: the scan's marks, the host's grids.
    pub fn counting(&self) -> Result<Counting> {
        let args = self.args;
        Ok(Counting {
            control: self.control,
            max: self.max,
            derived: true,
            marks: self.scan_marks.clone(),
            args: Some(Box::new(move |n| args.for_count(n))),
            blocks: None,
        })
    }
}

/// `max_count` at least 1, or the error for a compaction (`label`) of more elements than a
/// storage binding or a u32 count takes.
pub(crate) fn checked_max(caps: &crate::device::Caps, label: &str, max_count: u64) -> Result<u64> {
    let max = max_count.max(1);
    if max > u32::MAX as u64 {
        return Err(Error::TooLarge(format!(
            "{max} elements: {label} takes fewer than 2^32"
        )));
    }
    let bytes = scan::padded_bytes(max);
    caps.check_buffer(bytes, || format!("{label} of {max} elements"))?;
    if bytes > caps.max_storage_binding {
        return Err(Error::Limit {
            limit: "max_storage_buffer_binding_size",
            needed: bytes,
            available: caps.max_storage_binding,
            needed_for: format!("{label} of {max} elements"),
        });
    }
    Ok(max)
}
