//! Top-k by radix select (`wgsl/topk/`): the k-th largest key of each row found digit by digit,
//! then the k keys that reach it gathered and ranked.
//!
//! Rules:
//! - **Keys.** Element i of a row has the 64-bit key (its value's order-preserving u32, the
//!   sort's, complemented for the smallest; `cols - 1 - i`): unique in the row, so the k
//!   largest keys are the answer, ties broken by the lower index, and exactly k keys reach the
//!   k-th (`wgsl/topk/lib/keys.wgsl`).
//! - **Rounds.** Each fixes one 8-bit digit of the k-th key from the top (4 of the value's,
//!   then as many of the index's as `cols - 1` has): the candidates' digit counted, the bucket
//!   of the needed-th largest candidate chosen; a row is done when that bucket is all needed, at
//!   the latest after its last digit. Rows that are done skip the remaining rounds.
//! - **Two plans**, both counted by rows (the recording protocol, `record.rs`; a run's rows in
//!   the head of its control block): `row`, one workgroup per row doing every round, the gather
//!   and the ranking in workgroup memory (no scratch), for rows shorter than
//!   [`TopKPolicy::wide_cols`](super::TopKPolicy) or more of them than the wide plan holds; and
//!   `wide`, for long rows, a round as two dispatches (the counts over a grid of workgroups per
//!   row, then one workgroup per row choosing), then a gather of the k keys into the outputs in
//!   any order and one workgroup per row ranking them in place. Its scratch per row: the digit
//!   counts (256 words, zero between runs), the selection (8 words), the gather's counter.
//! - **Limits.** k at most [`MAX_K`] (the ranked keys in workgroup memory); the rows fit one
//!   storage binding (`InvalidInput` past it).

use crate::context::{BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::error::Result;
use crate::plan::{BufferId, Plan, Workgroups};
use crate::record::{Arg, Counting, HostArgs, Recorder};
use crate::stages::shared::order;
use crate::stages::topk::{
    lib::keys, prepare, row, wide_choose, wide_count, wide_gather, wide_order,
};

use super::{TopKConfig, TopKPolicy};

/// The most k the select takes (`MAX_K` of `wgsl/topk/lib/rank.wgsl`).
pub const MAX_K: u32 = 1024;

/// The grids of a run of `rows` rows: `rows_grid` and `chunks_grid` of
/// `wgsl/topk/lib/keys.wgsl`, restated for the host's grids (`record.rs`); the simulator runs
/// the prepare stage at every run that dispatches them and fails on any difference.
#[derive(Clone, Copy, Debug)]
struct SelectArgs {
    control: BufferId,
    rows_at: u64,
    chunks_at: u64,
    max_rows: u32,
    max_dim: u32,
    chunks: u32,
    workgroups: u32,
}

impl SelectArgs {
    fn for_count(&self, word: u32) -> HostArgs {
        let r = word.min(self.max_rows).clamp(1, self.max_dim);
        let g = (self.workgroups.max(r) as u64)
            .min(r as u64 * self.chunks as u64)
            .min(self.max_dim as u64) as u32;
        vec![
            (self.control, self.rows_at, [r, 1, 1]),
            (self.control, self.chunks_at, [g, 1, 1]),
        ]
    }
}

/// The select's plans for one configuration.
pub(super) struct Select {
    row: Recorder,
    /// For rows of at least `wide_cols`.
    wide: Option<Recorder>,
    wide_max_rows: u32,
}

impl Select {
    /// The plans for `config`, taking at most `max_rows` rows (> 0) a run.
    pub fn new(
        ctx: &Context,
        config: &TopKConfig,
        policy: &TopKPolicy,
        max_rows: u32,
    ) -> Result<Select> {
        let wide_max_rows = max_rows
            .min(policy.wide_max_rows.max(1))
            .min(ctx.caps().max_workgroups_per_dim.max(1));
        let wide = if config.cols >= policy.wide_cols {
            Some(plan(ctx, config, policy, wide_max_rows, true)?)
        } else {
            None
        };
        Ok(Select {
            row: plan(ctx, config, policy, max_rows, false)?,
            wide,
            wide_max_rows,
        })
    }

    /// Records `rows` rows of `input` into `values` and `indices`: the wide plan where it
    /// holds them, else the row plan (every check of the protocol before anything is recorded).
    pub fn record<'a>(
        &self,
        enc: EncoderRef<'a>,
        bufs: [BufferRef<'a>; 3],
        rows: u32,
    ) -> Result<()> {
        let rec = match &self.wide {
            Some(w) if rows <= self.wide_max_rows => w,
            _ => &self.row,
        };
        rec.record(enc, &bufs, Some(Count::Host(rows)), None)
    }

    /// Whether a run of `rows` rows takes the wide plan.
    #[cfg(test)]
    pub fn is_wide(&self, rows: u32) -> bool {
        self.wide.is_some() && rows <= self.wide_max_rows
    }
}

/// The row plan (`wide` false) or the wide plan for `config`, at most `max_rows` rows a run.
fn plan(
    ctx: &Context,
    config: &TopKConfig,
    policy: &TopKPolicy,
    max_rows: u32,
    wide: bool,
) -> Result<Recorder> {
    let caps = ctx.caps();
    let flavor = caps.flavor();
    let (k, cols) = (config.k, config.cols);
    let lo_digits = if cols <= 1 {
        0
    } else {
        (32 - (cols - 1).leading_zeros()).div_ceil(8)
    };
    let key_type = crate::sort::key_type(config.dtype)? as f64;
    // (at most the row: a step past it would wrap the stages' `COLS + CHUNK - 1`)
    let chunk = policy.chunk.clamp(1, cols.max(1));
    let workgroups = policy.wide_workgroups.max(1);
    let max_dim = caps.max_workgroups_per_dim.max(1);
    let common = [
        (keys::MAX_ROWS, max_rows as f64),
        (order::KEY_TYPE, key_type),
        (order::DESCENDING, if config.smallest { 1.0 } else { 0.0 }),
        (keys::COLS, cols as f64),
        (keys::K, k as f64),
        (keys::LO_DIGITS, lo_digits as f64),
        (keys::CHUNK, chunk as f64),
        (keys::WIDE_WORKGROUPS, workgroups as f64),
        (keys::MAX_DIM, max_dim as f64),
    ];
    let prep = prepare::STAGE.load(flavor)?;
    let name = if wide { "wide" } else { "rows" };
    let mut plan = Plan::new(format!("top-k {} k {k} of {cols} ({name})", config.dtype));
    let control =
        crate::record::control(&mut plan, 4 * prep.constant(prepare::CONTROL_WORDS)? as u64);
    let (in_bytes, out_bytes) = (
        4 * max_rows as u64 * cols as u64,
        4 * max_rows as u64 * k as u64,
    );
    let input = plan.arg("input", in_bytes);
    let values = plan.arg("values", out_bytes);
    let indices = plan.arg("indices", out_bytes);
    plan.pass(
        "top-k prepare",
        &prep,
        prepare::entry::main,
        &common,
        &[(prepare::bind::control, control)],
        Workgroups::Direct([1, 1, 1]),
    )?;
    let rows_at = 4 * prep.constant(prepare::ROWS_AT)? as u64;
    let chunks_at = 4 * prep.constant(prepare::CHUNKS_AT)? as u64;
    let per_row = Workgroups::Indirect {
        buffer: control,
        offset: rows_at,
    };
    let over_chunks = Workgroups::Indirect {
        buffer: control,
        offset: chunks_at,
    };
    if wide {
        let rows = max_rows as u64;
        let hist = plan.buffer(
            "top-k digit counts",
            4 * 256 * rows,
            crate::plan::BufferInit::Zeroed,
        );
        let state = plan.buffer(
            "top-k selections",
            32 * rows,
            crate::plan::BufferInit::Poison,
        );
        let taken = plan.buffer("top-k taken", 4 * rows, crate::plan::BufferInit::Zeroed);
        let (count_k, choose_k) = (
            wide_count::STAGE.load(flavor)?,
            wide_choose::STAGE.load(flavor)?,
        );
        for round in 0..4 + lo_digits {
            let mut o = common.to_vec();
            o.push((wide_count::ROUND, round as f64));
            plan.pass(
                format!("top-k count {round}"),
                &count_k,
                wide_count::entry::main,
                &o,
                &[
                    (wide_count::bind::count_word, control),
                    (wide_count::bind::input, input),
                    (wide_count::bind::state, state),
                    (wide_count::bind::hist, hist),
                ],
                over_chunks,
            )?
            .range(wide_count::bind::count_word, 0, 16)?;
            let mut o = common.to_vec();
            o.push((wide_choose::ROUND, round as f64));
            plan.pass(
                format!("top-k choose {round}"),
                &choose_k,
                wide_choose::entry::main,
                &o,
                &[
                    (wide_choose::bind::count_word, control),
                    (wide_choose::bind::state, state),
                    (wide_choose::bind::hist, hist),
                ],
                per_row,
            )?
            .range(wide_choose::bind::count_word, 0, 16)?;
        }
        let mut o = common.to_vec();
        o.push((wide_gather::ROUND, (4 + lo_digits) as f64));
        plan.pass(
            "top-k gather",
            &wide_gather::STAGE.load(flavor)?,
            wide_gather::entry::main,
            &o,
            &[
                (wide_gather::bind::count_word, control),
                (wide_gather::bind::input, input),
                (wide_gather::bind::state, state),
                (wide_gather::bind::taken, taken),
                (wide_gather::bind::values, values),
                (wide_gather::bind::indices, indices),
            ],
            over_chunks,
        )?
        .range(wide_gather::bind::count_word, 0, 16)?;
        plan.pass(
            "top-k order",
            &wide_order::STAGE.load(flavor)?,
            wide_order::entry::main,
            &common,
            &[
                (wide_order::bind::count_word, control),
                (wide_order::bind::taken, taken),
                (wide_order::bind::values, values),
                (wide_order::bind::indices, indices),
            ],
            per_row,
        )?
        .range(wide_order::bind::count_word, 0, 16)?;
    } else {
        plan.pass(
            "top-k rows",
            &row::STAGE.load(flavor)?,
            row::entry::main,
            &common,
            &[
                (row::bind::count_word, control),
                (row::bind::input, input),
                (row::bind::values, values),
                (row::bind::indices, indices),
            ],
            per_row,
        )?
        .range(row::bind::count_word, 0, 16)?;
    }
    let chunks = cols.div_ceil(chunk);
    let grid = SelectArgs {
        control,
        rows_at,
        chunks_at,
        max_rows,
        max_dim,
        chunks,
        workgroups,
    };
    let counting = Counting {
        control,
        max: max_rows as u64,
        derived: true,
        marks: Vec::new(),
        args: Some(Box::new(move |n| grid.for_count(n))),
        blocks: None,
    };
    let args = vec![
        Arg::counted(input, "rows", 4 * cols as u64),
        Arg::counted(values, "rows of values", 4 * k as u64),
        Arg::counted(indices, "rows of indices", 4 * k as u64),
    ];
    Recorder::new(ctx, plan, args, Some(counting))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;

    /// The host's grids are the prepare stage's at row counts around the grid's steps, for
    /// both plans, and the plans are taken as the policy says.
    #[test]
    fn host_grids_are_the_prepare_stages() {
        let ctx = Context::simulator(Default::default()).unwrap();
        let policy = TopKPolicy {
            wide_cols: 64,
            wide_max_rows: 100,
            chunk: 64,
            wide_workgroups: 5,
            ..Default::default()
        };
        for cols in [1u32, 64, 65, 1000] {
            let config = TopKConfig::largest(Dtype::F32, 1, cols);
            let s = Select::new(&ctx, &config, &policy, 200).unwrap();
            let counts = [0, 1, 2, 3, 4, 5, 6, 15, 16, 17, 99, 100, 101, 200];
            crate::record::assert_host_grids(&s.row, &counts);
            assert_eq!(s.wide.is_some(), cols >= 64);
            if let Some(w) = &s.wide {
                crate::record::assert_host_grids(w, &counts);
                assert!(s.is_wide(100) && !s.is_wide(101));
            }
        }
    }
}
