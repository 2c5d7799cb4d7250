//! Scans and reductions by an associative operator: the caller's, given as WGSL text, or a
//! built-in sum, minimum or maximum; [`crate::scan::Scanner::with_operator`] and
//! [`crate::reduce::Reducer::with_operator`] record them, and the runs' aggregates
//! ([`crate::runs`]) use the same operators.
//!
//! Rules:
//! - **An operator** is `fn op(a: T, b: T) -> T` over `T` = `u32`, `i32` or `f32`, associative,
//!   applied in input order (it need not commute), and where it has one `const IDENTITY: T`
//!   (op(IDENTITY, x) = x): exclusive scans and reductions need it (an exclusive scan's first
//!   element, the reduction of no elements), inclusive scans do not. The text is composed into
//!   every stage that combines values (in place of `wgsl/shared/operator.wgsl`, after `alias T =
//!   ...;`); it may define helpers of its own and must not redefine the stages' names. Text naga
//!   does not take is an [`Error::Shader`] when the operator is made.
//! - **Built-in operators** ([`Operator::sum`], [`Operator::min`], [`Operator::max`]): integer
//!   sums wrap; f32 sums are f32 additions; f32 minimum and maximum are the reduction's (a NaN
//!   wins, the first in input order; −0 below +0; compared on integer keys, so a compiler that
//!   assumes no NaN cannot change them).
//! - **Stages** (`wgsl/fold/`, on the rows of `fold/lib/rows.wgsl`): a reduction is one pass
//!   (`fold/reduce.wgsl`): each subgroup combines a contiguous segment of its workgroup's chunk a
//!   row of vec4s at a time with in-order shuffles, the workgroup its subgroups in order, and
//!   the workgroup arriving last every workgroup's total. A scan, where the device has
//!   subgroups, is the u32 sum's chained pass (`scan/chained.wgsl`, [`crate::scan`]) composed
//!   with the operator: 8 bytes an element ([`crate::scan::OperatorPolicy`]). Without subgroups
//!   it is two passes (`fold/scan.wgsl`): the reduction's pass with the last workgroup scanning
//!   the chunks' totals into carries, then a pass that scans each chunk from its carry a
//!   workgroup row at a time: input read twice and output written once, 12 bytes an element.
//!   Every combination keeps input order, and none puts a caller's identity on the right of a
//!   value.

use std::sync::Arc;

use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::kernel::{self, Flavor, Kernel};
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};
use crate::record::{Counting, HostArgs};
use crate::stages::fold::{prepare, reduce, scan};
use crate::stages::scan::chained;
use crate::stages::shared::grid;
use crate::stages::{Override, Stage};

/// An associative operator over 32-bit values (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operator {
    dtype: Dtype,
    /// What replaces `shared/operator.wgsl`: the type alias, the operator and `identity()`.
    text: String,
    identity: bool,
    label: String,
}

fn wgsl_type(dtype: Dtype, what: &'static str) -> Result<&'static str> {
    match dtype {
        Dtype::U32 => Ok("u32"),
        Dtype::I32 => Ok("i32"),
        Dtype::F32 => Ok("f32"),
        other => Err(Error::UnsupportedDtype {
            dtype: other.to_string(),
            op: what,
            supported: "u32, i32, f32",
        }),
    }
}

/// f32 minimum or maximum on order keys: a NaN wins (the first), −0 below +0.
const F32_ORDER: &str = "
fn op_is_nan(x: u32) -> bool { return (x & 0x7fffffffu) > 0x7f800000u; }
fn op_key(x: u32) -> u32 { return x ^ select(0x80000000u, 0xffffffffu, (x & 0x80000000u) != 0u); }
fn op_first(a: f32, b: f32, lesser: bool) -> f32 {
    let x = bitcast<u32>(a);
    let y = bitcast<u32>(b);
    if op_is_nan(x) { return a; }
    if op_is_nan(y) { return b; }
    return select(b, a, select(op_key(x) >= op_key(y), op_key(x) <= op_key(y), lesser));
}
";

impl Operator {
    /// The caller's operator over `dtype` (u32, i32, f32): WGSL text defining `fn op(a: T, b:
    /// T) -> T` and, for exclusive scans and reductions, `const IDENTITY: T`.
    ///
    /// ```
    /// use wgsimd::{dtype::Dtype, fold::Operator};
    /// // the larger magnitude, keeping the sign
    /// let op = Operator::wgsl(Dtype::F32, "fn op(a: T, b: T) -> T { return select(a, b, abs(b) > abs(a)); }
    ///                                      const IDENTITY: T = 0.0;")?;
    /// assert!(op.has_identity());
    /// # Ok::<(), wgsimd::Error>(())
    /// ```
    pub fn wgsl(dtype: Dtype, text: &str) -> Result<Operator> {
        let ty = wgsl_type(dtype, "an operator")?;
        let label = "operator";
        // parsed alone first, for its own diagnostics and to find IDENTITY
        let probe = format!("alias T = {ty};\n{text}\n");
        let module = naga::front::wgsl::parse_str(&probe).map_err(|e| Error::Shader {
            name: label.into(),
            message: e.emit_to_string_with_path(&probe, label),
        })?;
        let has = |name: &str, functions: bool| {
            if functions {
                module
                    .functions
                    .iter()
                    .any(|(_, f)| f.name.as_deref() == Some(name))
            } else {
                module
                    .constants
                    .iter()
                    .any(|(_, c)| c.name.as_deref() == Some(name))
            }
        };
        if !has("op", true) {
            return Err(Error::Shader {
                name: label.into(),
                message: "the operator's text defines no `fn op(a: T, b: T) -> T`".into(),
            });
        }
        let identity = has("IDENTITY", false);
        let tail = if identity {
            "fn identity() -> T { return IDENTITY; }"
        } else {
            // (never used: the objects that need an identity refuse an operator without one)
            "fn identity() -> T { return bitcast<T>(0u); }"
        };
        let op = Operator {
            dtype,
            text: format!("alias T = {ty};\n{text}\n{tail}\n{}", facts(false, false)),
            identity,
            label: format!("operator {:016x} over {ty}", hash(text)),
        };
        // composed into the stages now, so a clash with their names is an error here
        op.kernel(scan::STAGE)?;
        op.kernel_in(chained::STAGE, Flavor::Subgroup)?;
        Ok(op)
    }

    fn builtin(dtype: Dtype, name: &str, body: &str, identity: [&str; 3]) -> Result<Operator> {
        let ty = wgsl_type(dtype, "an operator")?;
        let id = match dtype {
            Dtype::U32 => identity[0],
            Dtype::I32 => identity[1],
            _ => identity[2],
        };
        let extra = if dtype == Dtype::F32 && name != "sum" {
            F32_ORDER
        } else {
            ""
        };
        Ok(Operator {
            dtype,
            text: format!(
                "alias T = {ty};\n{extra}fn op(a: T, b: T) -> T {{ return {body}; }}\n\
                 fn identity() -> T {{ return bitcast<T>({id}); }}\n{}",
                // every built-in identity is two-sided; the integer sums wrap
                facts(name == "sum" && dtype != Dtype::F32, true)
            ),
            identity: true,
            label: format!("{name} over {ty}"),
        })
    }

    /// The sum (integers wrap).
    pub fn sum(dtype: Dtype) -> Result<Operator> {
        // −0 for f32: −0 + x is x for every x, +0 included
        Self::builtin(dtype, "sum", "a + b", ["0u", "0u", "0x80000000u"])
    }

    /// The minimum (f32: a NaN wins, −0 below +0).
    pub fn min(dtype: Dtype) -> Result<Operator> {
        let body = if dtype == Dtype::F32 {
            "op_first(a, b, true)"
        } else {
            "min(a, b)"
        };
        Self::builtin(
            dtype,
            "min",
            body,
            ["0xffffffffu", "0x7fffffffu", "0x7f800000u"],
        )
    }

    /// The maximum (f32: a NaN wins, −0 below +0).
    pub fn max(dtype: Dtype) -> Result<Operator> {
        let body = if dtype == Dtype::F32 {
            "op_first(a, b, false)"
        } else {
            "max(a, b)"
        };
        Self::builtin(dtype, "max", body, ["0u", "0x80000000u", "0xff800000u"])
    }

    /// Its value type.
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// Whether it has an identity (`const IDENTITY`; the built-in ones do).
    pub fn has_identity(&self) -> bool {
        self.identity
    }

    /// Its name in labels: the built-in operator's, or the text's hash.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// `stage` composed with this operator in place of `shared/operator.wgsl` (the stages
    /// that use no subgroup operations).
    pub(crate) fn kernel(&self, stage: Stage) -> Result<Arc<Kernel>> {
        self.kernel_in(stage, Flavor::Emulated)
    }

    /// `stage` of `flavor` composed with this operator.
    pub(crate) fn kernel_in(&self, stage: Stage, flavor: Flavor) -> Result<Arc<Kernel>> {
        kernel::compose_replacing(
            stage.name(),
            flavor,
            crate::stages::shared::operator::HELPER,
            &self.text,
        )
    }

    /// An error unless it has an identity, which `what` needs.
    pub(crate) fn need_identity(&self, what: &str) -> Result<()> {
        if self.identity {
            return Ok(());
        }
        Err(Error::InvalidInput(format!(
            "{what} needs the operator's identity: define `const IDENTITY: T` in its text"
        )))
    }
}

/// `shared/operator.wgsl`'s two facts about an operator: whether it is the wrapping sum of
/// 32-bit integers, and whether its identity is two-sided.
fn facts(adds: bool, two_sided: bool) -> String {
    format!("const OPERATOR_ADDS: bool = {adds};\nconst OPERATOR_TWO_SIDED: bool = {two_sided};\n")
}

fn hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The grid of a chunked pass (`elements_grid` of `wgsl/shared/grid.wgsl`) for a count,
/// restated for the host's grids (`record.rs`); the simulator runs the prepare stage that
/// computes it at every run that dispatches it and fails on any difference.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkGrid {
    pub control: BufferId,
    /// Byte offset of the dispatch arguments in the control block.
    pub args_at: u64,
    pub max_count: u64,
    pub items: u64,
    pub max_workgroups: u64,
    /// Above this count the bound is `large_workgroups` (no fewer than `max_workgroups`).
    pub large_count: u64,
    pub large_workgroups: u64,
}

impl ChunkGrid {
    /// The grid of `policy` on a device of `caps` for up to `max_count` elements, its dispatch
    /// arguments at byte `args_at` of `control`; `max_items` bounds the elements an invocation
    /// takes (the stage's own limit).
    pub fn new(
        (control, args_at): (BufferId, u64),
        max_count: u64,
        policy: &ChunkPolicy,
        max_items: u32,
        caps: &crate::device::Caps,
    ) -> ChunkGrid {
        let bound = |w: u32| w.clamp(1, caps.max_workgroups_per_dim) as u64;
        ChunkGrid {
            control,
            args_at,
            max_count,
            items: policy.items.clamp(1, max_items.max(1)) as u64,
            max_workgroups: bound(policy.max_workgroups),
            large_count: policy.large_count as u64,
            large_workgroups: bound(policy.large_workgroups.max(policy.max_workgroups)),
        }
    }

    /// The bound on the workgroups of a count of `n`.
    fn bound(&self, n: u64) -> u64 {
        if n > self.large_count {
            self.large_workgroups
        } else {
            self.max_workgroups
        }
    }

    pub fn grid(&self, word: u32) -> u32 {
        let n = (word as u64).min(self.max_count);
        n.div_ceil(256 * self.items).clamp(1, self.bound(n)) as u32
    }

    /// The most workgroups any count up to the maximum gets (tables of one entry a workgroup
    /// are this long).
    pub fn most_workgroups(&self) -> u64 {
        self.bound(self.max_count)
    }

    pub fn args(&self, word: u32) -> (BufferId, u64, [u32; 3]) {
        (self.control, self.args_at, [self.grid(word), 1, 1])
    }

    /// The overrides every chunked stage takes (`wgsl/shared/grid.wgsl`).
    pub fn params(&self) -> Vec<(Override, f64)> {
        vec![
            (grid::MAX_COUNT, self.max_count as f64),
            (grid::ITEMS, self.items as f64),
            (grid::MAX_WORKGROUPS, self.max_workgroups as f64),
            (grid::LARGE_COUNT, self.large_count as f64),
            (grid::LARGE_WORKGROUPS, self.large_workgroups as f64),
        ]
    }

    /// The chunked stages' dispatch: from the arguments in the control block.
    pub fn workgroups(&self) -> Workgroups {
        Workgroups::Indirect {
            buffer: self.control,
            offset: self.args_at,
        }
    }

    /// The counting of a plan whose only dispatch arguments are this grid's: the stages compute
    /// their params from the head, the host dispatches `grid` for a count.
    pub fn counting(self) -> Counting {
        Counting {
            control: self.control,
            max: self.max_count,
            derived: true,
            marks: Vec::new(),
            args: Some(Box::new(move |n| -> HostArgs { vec![self.args(n)] })),
            blocks: None,
        }
    }

    /// Appends to `plan` the prepare stage that writes the grid's arguments for the head's count
    /// (`wgsl/fold/prepare.wgsl`), labelled `label`.
    pub fn append_prepare(&self, plan: &mut Plan, label: String) -> Result<()> {
        let prep = prepare::STAGE.load(Flavor::Emulated)?;
        let mut ov = self.params();
        ov.push((prepare::FOLD_ARGS, (self.args_at / 4) as f64));
        plan.pass(
            label,
            &prep,
            prepare::entry::main,
            &ov,
            &[(prepare::bind::control, self.control)],
            Workgroups::Direct([1, 1, 1]),
        )?;
        Ok(())
    }
}

/// The grid of a chunked pass (`wgsl/shared/grid.wgsl`): a workgroup per 256 × `items`
/// elements, at most `max_workgroups`, or `large_workgroups` above `large_count` elements. The
/// default is the fold's (scans and reductions by an
/// operator); reduce-by-key has its own ([`crate::runs::RUNS_POLICY`]), and a partition's tail
/// [`crate::select::SelectPolicy::tail`]. Figures: the lab's `prims_sweep --only fold` on the
/// H200 (2026-11-30, timestamps, every result checked), the two-pass inclusive max-scan / the
/// max-reduction of u32, ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkPolicy {
    /// Most workgroups up to `large_count` elements: 1024. At 2^24 0.0816 / 0.0300 against
    /// 0.0861–0.0940 / 0.0318–0.0365 at 2112 and 4096; at 2^26 0.2552 / 0.0773 against
    /// 0.2527–0.2546 / 0.0808–0.0833.
    pub max_workgroups: u32,
    /// Elements per invocation before the grid grows past one workgroup: 32. At 2^22 (512
    /// workgroups) 0.0254 / 0.0119 against 0.0272–0.0296 / 0.0123–0.0125 at 16 (1024
    /// workgroups) and 0.0288–0.0293 / 0.0136–0.0137 at 64 (256); where the bound holds the
    /// grid (2^24 up) it changes nothing.
    pub items: u32,
    /// The count above which `large_workgroups` bound the grid: 2^26, the largest measured
    /// where 1024 workgroups were fastest (2^27 was not measured).
    pub large_count: u32,
    /// Most workgroups above `large_count` (never fewer than `max_workgroups`): 4096. At 2^28
    /// 0.873 / 0.262 against 0.890 / 0.267 at 2112 and 0.968 / 0.301 at 1024.
    pub large_workgroups: u32,
}

impl ChunkPolicy {
    /// `items` an invocation and at most `max_workgroups` at every count (no larger bound).
    pub const fn flat(max_workgroups: u32, items: u32) -> ChunkPolicy {
        ChunkPolicy {
            max_workgroups,
            items,
            large_count: u32::MAX,
            large_workgroups: max_workgroups,
        }
    }
}

impl Default for ChunkPolicy {
    fn default() -> Self {
        ChunkPolicy {
            max_workgroups: 1024,
            items: 32,
            large_count: 1 << 26,
            large_workgroups: 4096,
        }
    }
}

/// A scan (`Some(inclusive)`) or reduction (`None`) by `op` of up to `max` elements of `input`
/// into `output`, appended to `plan` with its own control block; its counting.
#[allow(clippy::too_many_arguments)]
pub(crate) fn append(
    plan: &mut Plan,
    caps: &crate::device::Caps,
    op: &Operator,
    input: BufferId,
    output: BufferId,
    max: u64,
    inclusive: Option<bool>,
    policy: &ChunkPolicy,
) -> Result<Counting> {
    let bytes = 4 * max;
    caps.check_binding(bytes, || format!("a fold of {max} elements"))?;
    let control = crate::record::control(plan, 32);
    let grid = ChunkGrid::new((control, 16), max, policy, u32::MAX, caps);
    let Some(inclusive) = inclusive else {
        return append_reduce(plan, caps, op, (input, output), grid);
    };
    let k = op.kernel_in(scan::STAGE, caps.flavor())?;
    let state = plan.buffer(
        "chunk states",
        8 * grid.most_workgroups(),
        BufferInit::Poison,
    );
    let slots = fold_slots(plan, &grid);
    grid.append_prepare(plan, "scan prepare".into())?;
    let mut ov = grid.params();
    ov.push((scan::INCLUSIVE, inclusive as u32 as f64));
    let binds = [
        (scan::bind::count_word, control),
        (scan::bind::input, input),
        (scan::bind::input_words, input),
        (scan::bind::output, output),
        (scan::bind::output_words, output),
        (scan::bind::chunk_state, state),
        (scan::bind::fold_slots, slots),
    ];
    let stages = [
        ("scan totals", scan::entry::totals, grid.workgroups()),
        ("scan chunks", scan::entry::scan, grid.workgroups()),
    ];
    for (label, entry, workgroups) in stages {
        plan.pass(label, &k, entry, &ov, &binds, workgroups)?
            .range(scan::bind::count_word, 0, 16)?;
    }
    Ok(grid.counting())
}

/// The slots where the workgroups of `grid` publish their totals: the arrival counter, the
/// epoch, then two tagged words per workgroup (`wgsl/shared/last_workgroup.wgsl`).
fn fold_slots(plan: &mut Plan, grid: &ChunkGrid) -> BufferId {
    plan.buffer(
        "fold slots",
        (2 + 2 * grid.most_workgroups()) * 4,
        BufferInit::Zeroed,
    )
}

/// The reduction by `op` (`wgsl/fold/reduce.wgsl`: one pass, the last workgroup folding the
/// workgroups' totals) of up to `max` elements of `input` into `output`'s first word.
fn append_reduce(
    plan: &mut Plan,
    caps: &crate::device::Caps,
    op: &Operator,
    (input, output): (BufferId, BufferId),
    grid: ChunkGrid,
) -> Result<Counting> {
    let k = op.kernel_in(reduce::STAGE, caps.flavor())?;
    let control = grid.control;
    let slots = fold_slots(plan, &grid);
    grid.append_prepare(plan, "reduce prepare".into())?;
    plan.pass(
        "reduce",
        &k,
        reduce::entry::main,
        &grid.params(),
        &[
            (reduce::bind::count_word, control),
            (reduce::bind::input, input),
            (reduce::bind::input_words, input),
            (reduce::bind::result, output),
            (reduce::bind::fold_slots, slots),
        ],
        grid.workgroups(),
    )?
    .range(reduce::bind::count_word, 0, 16)?;
    Ok(grid.counting())
}
