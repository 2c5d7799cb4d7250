//! Reductions: sum, min, max over u32, i32 and f32, with numpy's semantics.
//!
//! Rules:
//! - **Recorded once, run for any count.** A [`Reducer`] is made for one operation, element type
//!   and maximum count; [`Reducer::record`] records the reduction of the caller's input into the
//!   caller's output buffer, the count given on the host or read from a GPU buffer
//!   ([`Count`]).
//! - **The result's layout** ([`Reducer::result_bytes`]): u32 sum: the u64, low word first;
//!   i32 sum: the i64 (two's complement), low word first; f32 sum: two f32, the sum rounded to
//!   f32 and what that rounding left out; min/max: one element. An empty input leaves the
//!   identity: 0 for sums, the type's largest (min) or smallest (max) value for integers, NaN for
//!   f32 min/max. The host-slice [`reduce`] makes an empty min/max an error.
//! - Integer sums are exact and widened. i32 runs the u32 kernel on `x ^ 0x8000_0000` and
//!   subtracts `count · 2^31` at the end.
//! - f32 sums are double-float on the device: deterministic for a given count, within
//!   ~2^-44 · Σ|x| of the exact sum. A device may flush f32 subnormals to zero (WGSL allows it;
//!   NVIDIA's Vulkan driver does): there subnormal inputs count as zero, and an addition whose
//!   result falls below 2^-126 may lose that much (`reference::reduce::SumF32` is the bound the
//!   tests hold every device to). Where running sums overflow f32 although every input is finite,
//!   the result is ±inf; the host-slice [`reduce`] then runs again with the inputs scaled by
//!   2^-64, so from it ±inf means the exact sum is beyond f32.
//! - min/max go through order-preserving u32 keys; any NaN wins.
//! - One dispatch per binding-sized chunk of the input: a capped grid of workgroups
//!   ([`ReducePolicy`]) publishes one partial each, and the workgroup that arrives last over all
//!   chunks folds them (`wgsl/shared/last_workgroup.wgsl`: atomic words tagged with the run's
//!   epoch, so no fence is needed). The slots live in a buffer created zeroed, and the folder resets the
//!   counter and advances the epoch, so a reducer records any number of runs.

use std::sync::Arc;

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::kernel::Kernel;
// (the three reduce stages declare the same entry point and resource variables; the plan
// checks each against the stage it binds)
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};
use crate::record::{Arg, Counting, Recorder, Timestamps};
use crate::stages::reduce::sum_u64::{bind, entry};
use crate::stages::reduce::{minmax, prepare, sum_f32, sum_u64};
use crate::stages::Override;

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum.
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

impl std::str::FromStr for ReduceOp {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "sum" => Ok(ReduceOp::Sum),
            "min" => Ok(ReduceOp::Min),
            "max" => Ok(ReduceOp::Max),
            _ => Err(Error::InvalidInput(format!(
                "unknown reduce op {s:?} (sum, min, max)"
            ))),
        }
    }
}

/// A reduction's result, typed as numpy types it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// Sum of u32.
    U64(u64),
    /// Sum of i32.
    I64(i64),
    /// min/max of u32.
    U32(u32),
    /// min/max of i32.
    I32(i32),
    /// Sum, min or max of f32.
    F32(f32),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::U64(v) => write!(f, "{v}"),
            Scalar::I64(v) => write!(f, "{v}"),
            Scalar::U32(v) => write!(f, "{v}"),
            Scalar::I32(v) => write!(f, "{v}"),
            Scalar::F32(v) if v.is_nan() => write!(f, "nan"),
            Scalar::F32(v) if v.is_infinite() => {
                write!(f, "{}", if *v > 0.0 { "inf" } else { "-inf" })
            }
            Scalar::F32(v) => write!(f, "{v:?}"),
        }
    }
}

/// Tuning of the reduction.
#[derive(Clone, Copy, Debug)]
pub struct ReducePolicy {
    /// Most workgroups per chunk: 4096, the best of 528..4096 at 2^28 elements (3062 / 2999
    /// GB/s for sum u32 / f32 against 3031 / 3006 at 1056 and 2804 / 2773 at 528; H100,
    /// 2026-11-22). The fold reads two atomic words per partial in one workgroup, so more
    /// workgroups cost the fold little there.
    pub max_workgroups: u32,
    /// Most workgroups per chunk for a run of at most `small_count` elements: 528, the best of
    /// 528..4096 at every size from 2^21 to 2^24 (sum u32 at 2^22 1638 GB/s against 939 at
    /// 4096, at 2^23 2682 against 1679, at 2^24 2278 against 2056; H200, 2026-11-27). Below
    /// 2^25 elements a run is too short for 4096 workgroups' arrivals and fold to hide.
    pub small_workgroups: u32,
    /// See `small_workgroups`: 2^24.
    pub small_count: u32,
    /// Most workgroups per chunk for a run of more than `small_count` and at most `mid_count`
    /// elements: 1056, the best of 528..4096 at 2^25 and 2^26 (sum u32 / f32 at 2^25 2491 /
    /// 2288 GB/s against 2416 / 2015 at 4096 and 2477 / 2192 at 528; at 2^26 2765 / 2659
    /// against 2755 / 2470 and 2775 / 2480; H100, 2026-11-27).
    pub mid_workgroups: u32,
    /// See `mid_workgroups`: 2^26 (at 2^28 4096 workgroups lead 1056 by 1%).
    pub mid_count: u32,
}

impl Default for ReducePolicy {
    fn default() -> Self {
        ReducePolicy {
            max_workgroups: 4096,
            small_workgroups: 528,
            small_count: 1 << 24,
            mid_workgroups: 1056,
            mid_count: 1 << 26,
        }
    }
}

/// The f32 sum's input scale when its running sums overflowed f32 although every input is
/// finite: exact for every normal input from 2^-62 up, and no sum of fewer than 2^64 finite
/// f32s overflows once scaled.
const OVERFLOW_SCALE: f64 = 1.0 / 18_446_744_073_709_551_616.0; // 2^-64

/// A reduction made for one operation, element type and maximum count (see the module docs).
///
/// The sum of a buffer's first elements into a word of another, on the simulator:
/// ```
/// use wgsimd::{dtype::Dtype, reduce::{ReduceOp, Reducer, Scalar}, Context, Count};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let r = Reducer::new(&ctx, ReduceOp::Sum, Dtype::U32, 1 << 16)?;
/// let input = ctx.upload("input", &[u32::MAX, u32::MAX, 7])?;
/// let stats = ctx.zeroed("stats", 64)?;
/// let mut enc = ctx.encoder();
/// r.record(&mut enc, &input, stats.slice(16, r.result_bytes()), Count::Host(3))?;
/// ctx.submit(enc)?.clean("the sum")?;
/// let words = ctx.read::<u32>(&stats)?;
/// assert_eq!(r.decode(&words[4..6])?, Scalar::U64(2 * u32::MAX as u64 + 7));
/// # Ok(()) }
/// ```
pub struct Reducer {
    /// The built-in operator, or (`by_operator`) the sum in place of an operator's.
    op: ReduceOp,
    /// Made with an operator ([`Reducer::with_operator`]): its result is one word of `dtype`.
    by_operator: bool,
    dtype: Dtype,
    max_count: u64,
    scale: f64,
    /// Binds the input (counted) and the result.
    rec: Recorder,
    /// The result of a recording whose output is not aligned for binding or lies in the
    /// input's buffer, before its copy into place.
    spare: Buffer,
}

/// The grid of each chunk of a reduction for a count: `chunk_grid` of
/// `wgsl/reduce/lib/params.wgsl`, restated for the host's grids (`record.rs`); the simulator
/// runs the prepare stage at every run that dispatches them and fails on any difference.
#[derive(Clone, Copy, Debug)]
struct ReduceArgs {
    /// The control buffer.
    control: BufferId,
    /// Byte offset of chunk 0's dispatch arguments in the control block.
    args_at: u64,
    chunks: u64,
    chunk: u64,
    max_count: u64,
    wg_size: u64,
    max_wg: u64,
    mid_wg: u64,
    mid_count: u64,
    small_wg: u64,
    small_count: u64,
}

impl ReduceArgs {
    fn for_count(&self, word: u32) -> Vec<(BufferId, u64, [u32; 3])> {
        let count = (word as u64).min(self.max_count);
        let cap = if count <= self.small_count {
            self.small_wg
        } else if count <= self.mid_count {
            self.mid_wg
        } else {
            self.max_wg
        };
        (0..self.chunks)
            .map(|c| {
                let len = count.saturating_sub(c * self.chunk).min(self.chunk);
                let grid = len.div_ceil(4).div_ceil(self.wg_size).min(cap);
                let grid = if c == 0 { grid.max(1) } else { grid };
                (self.control, self.args_at + 12 * c, [grid as u32, 1, 1])
            })
            .collect()
    }
}

impl Reducer {
    /// A reducer of `op` over up to `max_count` elements of `dtype` (u32, i32, f32).
    pub fn new(ctx: &Context, op: ReduceOp, dtype: Dtype, max_count: u64) -> Result<Reducer> {
        Self::with_policy(ctx, op, dtype, max_count, ReducePolicy::default())
    }

    /// [`Reducer::new`] with a policy of the caller's.
    pub fn with_policy(
        ctx: &Context,
        op: ReduceOp,
        dtype: Dtype,
        max_count: u64,
        policy: ReducePolicy,
    ) -> Result<Reducer> {
        Self::build(ctx, op, dtype, max_count, policy, 1.0)
    }

    fn build(
        ctx: &Context,
        op: ReduceOp,
        dtype: Dtype,
        max_count: u64,
        policy: ReducePolicy,
        scale: f64,
    ) -> Result<Reducer> {
        let caps = ctx.caps();
        if !matches!(dtype, Dtype::U32 | Dtype::I32 | Dtype::F32) {
            return Err(Error::UnsupportedDtype {
                dtype: dtype.to_string(),
                op: "reduce",
                supported: "u32, i32, f32",
            });
        }
        let max_count = max_count.max(1);
        let input_bytes = (max_count * 4).div_ceil(16) * 16;
        if max_count > u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "{max_count} elements: a reduction takes fewer than 2^32"
            )));
        }
        caps.check_buffer(input_bytes, || {
            format!("a reduction of {max_count} elements")
        })?;
        let flavor = caps.flavor();
        let stage = match (op, dtype) {
            (ReduceOp::Sum, Dtype::F32) => sum_f32::STAGE,
            (ReduceOp::Sum, _) => sum_u64::STAGE,
            _ => minmax::STAGE,
        };
        let k1: Arc<Kernel> = stage.load(flavor)?;
        let mut overrides: Vec<(Override, f64)> = Vec::new();
        match (op, dtype) {
            (ReduceOp::Sum, Dtype::I32) => overrides.push((sum_u64::FLIP, 1.0)),
            (ReduceOp::Sum, Dtype::F32) => overrides.push((sum_f32::SCALE, scale)),
            (ReduceOp::Sum, _) => {}
            (_, d) => {
                overrides.push((
                    minmax::KEY,
                    match d {
                        Dtype::U32 => 0.0,
                        Dtype::I32 => 1.0,
                        _ => 2.0,
                    },
                ));
                overrides.push((minmax::OP, if op == ReduceOp::Min { 1.0 } else { 2.0 }));
            }
        }
        let wg = k1.invocations(entry::main, &overrides)? as u64;
        let prep = prepare::STAGE.load(flavor)?;
        let c = |name| prep.constant(name).map(|v| v as u64);
        let (args_at, max_chunks) = (c(prepare::ARGS_AT)?, c(prepare::MAX_CHUNKS)?);
        let (params_at, params_stride) = (c(prepare::PARAMS_AT)?, c(prepare::PARAMS_STRIDE)?);
        // binding-sized chunks of whole vec4s
        let chunks = caps.chunks(max_count, 4, 4);
        let chunk = chunks[0].1;
        if chunks.len() as u64 > max_chunks {
            return Err(Error::TooLarge(format!(
                "{max_count} elements take {} bindings of this device; a reducer handles at \
                 most {max_chunks}",
                chunks.len()
            )));
        }
        let max_wg = policy.max_workgroups.max(1) as u64;
        let mut plan = Plan::new(format!("reduce {op:?} {dtype}").to_lowercase());
        // the params blocks of this reducer's chunks only
        let control = crate::record::control(
            &mut plan,
            4 * (params_at + params_stride * chunks.len() as u64),
        );
        // each chunk's block: its `derive` and `chunk` words (ReduceParams,
        // reduce/lib/params.wgsl)
        let derived = prep.constant(prepare::PARAMS_DERIVED)?;
        let derive_at = prep.member_offset("ReduceParams", "derive")?;
        let chunk_at = prep.member_offset("ReduceParams", "chunk")?;
        let marks = (0..chunks.len() as u64)
            .flat_map(|i| {
                let at = 4 * (params_at + params_stride * i);
                [(at + derive_at, derived), (at + chunk_at, i as u32)]
            })
            .collect();
        let input = plan.arg("input", input_bytes);
        let result_bytes = if op == ReduceOp::Sum { 8 } else { 4 };
        let result = plan.arg("result", result_bytes);
        // the arrival counter, the epoch, then two tagged words per partial
        let slots = plan.buffer(
            "fold slots",
            (2 + 2 * max_wg * chunks.len() as u64) * 4,
            BufferInit::Zeroed,
        );
        // reduce/lib/params.wgsl: the prepare stage's and the reduce stage's alike; the caps
        // grow with the count
        let mid_wg = policy.mid_workgroups.clamp(1, policy.max_workgroups.max(1));
        let grid = ReduceArgs {
            control,
            args_at: 4 * args_at,
            chunks: chunks.len() as u64,
            chunk,
            max_count,
            wg_size: wg,
            max_wg,
            mid_wg: mid_wg as u64,
            mid_count: policy.mid_count.max(policy.small_count) as u64,
            small_wg: policy.small_workgroups.clamp(1, mid_wg) as u64,
            small_count: policy.small_count as u64,
        };
        let params_overrides = [
            (prepare::CHUNKS, chunks.len() as f64),
            (prepare::CHUNK, chunk as f64),
            (prepare::MAX_COUNT, max_count as f64),
            (prepare::MAX_WORKGROUPS, max_wg as f64),
            (prepare::MID_WORKGROUPS, mid_wg as f64),
            (
                prepare::SMALL_WORKGROUPS,
                policy.small_workgroups.clamp(1, mid_wg) as f64,
            ),
            (
                prepare::MID_COUNT,
                policy.mid_count.max(policy.small_count) as f64,
            ),
            (prepare::SMALL_COUNT, policy.small_count as f64),
        ];
        let mut prep_overrides = params_overrides.to_vec();
        prep_overrides.push((prepare::WG_SIZE, wg as f64));
        overrides.extend(params_overrides);
        plan.pass(
            "reduce prepare",
            &prep,
            prepare::entry::main,
            &prep_overrides,
            &[(prepare::bind::control, control)],
            Workgroups::Direct([1, 1, 1]),
        )?;
        for (i, &(first, len)) in chunks.iter().enumerate() {
            let label = if chunks.len() == 1 {
                "reduce".to_string()
            } else {
                format!("reduce {i}")
            };
            let offset = first * 4;
            let size = (len * 4).div_ceil(16) * 16;
            plan.pass(
                label,
                &k1,
                entry::main,
                &overrides,
                &[
                    (bind::params_block, control),
                    (bind::count_word, control),
                    (bind::input, input),
                    (bind::input_words, input),
                    (bind::fold_slots, slots),
                    (bind::result, result),
                ],
                Workgroups::Indirect {
                    buffer: control,
                    offset: 4 * (args_at + 3 * i as u64),
                },
            )?
            .range(
                bind::params_block,
                4 * (params_at + params_stride * i as u64),
                32,
            )?
            .range(bind::count_word, 0, 16)?
            .range(bind::input, offset, size.min(input_bytes - offset))?
            .range(bind::input_words, offset, size.min(input_bytes - offset))?;
        }
        let counting = Counting {
            control,
            max: max_count,
            derived: true,
            marks,
            args: Some(Box::new(move |n| grid.for_count(n))),
            blocks: None,
        };
        let args = vec![Arg::counted(input, "elements", 4), Arg::fixed(result)];
        let rec = Recorder::new(ctx, plan, args, Some(counting))?;
        let spare = ctx.zeroed("reduce result", 8)?;
        Ok(Reducer {
            op,
            by_operator: false,
            dtype,
            max_count,
            scale,
            rec,
            spare,
        })
    }

    /// A reduction by `op` (which needs its identity: the result for no elements) of up to
    /// `max_count` elements of the operator's type ([`crate::fold`]), in input order; its
    /// result is one word of that type. Recorded as [`Reducer::record`], decoded by
    /// [`Reducer::decode`].
    ///
    /// ```
    /// use wgsimd::{dtype::Dtype, fold::Operator, reduce::{Reducer, Scalar}, Context, Count};
    /// # fn main() -> wgsimd::Result<()> {
    /// let ctx = Context::simulator(Default::default())?;
    /// // the last nonzero element: associative, not commutative
    /// let last = Operator::wgsl(Dtype::U32, "fn op(a: T, b: T) -> T { return select(a, b, b != 0u); }
    ///                                         const IDENTITY: T = 0u;")?;
    /// let r = Reducer::with_operator(&ctx, &last, 1 << 16)?;
    /// let input = ctx.upload("input", &[4u32, 0, 9, 0, 0])?;
    /// let result = ctx.zeroed("result", 4)?;
    /// let mut enc = ctx.encoder();
    /// r.record(&mut enc, &input, &result, Count::Host(5))?;
    /// ctx.submit(enc)?.clean("the reduction")?;
    /// assert_eq!(r.decode(&ctx.read::<u32>(&result)?)?, Scalar::U32(9));
    /// # Ok(()) }
    /// ```
    pub fn with_operator(
        ctx: &Context,
        op: &crate::fold::Operator,
        max_count: u64,
    ) -> Result<Reducer> {
        Self::with_operator_policy(ctx, op, max_count, Default::default())
    }

    /// [`Reducer::with_operator`] with a policy of the caller's.
    pub fn with_operator_policy(
        ctx: &Context,
        op: &crate::fold::Operator,
        max_count: u64,
        policy: crate::fold::ChunkPolicy,
    ) -> Result<Reducer> {
        op.need_identity("a reduction")?;
        let max_count = max_count.max(1);
        if max_count > u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "{max_count} elements: a reduction takes fewer than 2^32"
            )));
        }
        let mut plan = crate::plan::Plan::new(format!("reduce by {}", op.label()));
        let input = plan.arg("input", (max_count * 4).div_ceil(16) * 16);
        let result = plan.arg("result", 4);
        let counting = crate::fold::append(
            &mut plan,
            ctx.caps(),
            op,
            input,
            result,
            max_count,
            None,
            &policy,
        )?;
        let args = vec![Arg::counted(input, "elements", 4), Arg::fixed(result)];
        Ok(Reducer {
            op: ReduceOp::Sum,
            by_operator: true,
            dtype: op.dtype(),
            max_count,
            scale: 1.0,
            rec: Recorder::new(ctx, plan, args, Some(counting))?,
            spare: ctx.zeroed("reduce result", 8)?,
        })
    }

    /// Bytes of the result (see the module docs): 8 for sums, 4 for min, max and an
    /// operator's.
    pub fn result_bytes(&self) -> u64 {
        if self.op == ReduceOp::Sum && !self.by_operator {
            8
        } else {
            4
        }
    }

    /// The most elements one recording reduces.
    pub fn max_count(&self) -> u64 {
        self.max_count
    }

    /// The plan it records (its passes, buffers and overrides, for inspection: the lab's
    /// driver statistics compile exactly these passes).
    pub fn plan(&self) -> &crate::plan::Plan {
        self.rec.plan()
    }

    /// The passes one recording dispatches, by label (two timestamps each with
    /// [`Reducer::record_timed`]).
    pub fn passes(&self) -> Vec<String> {
        self.rec.plan().pass_labels()
    }

    /// Records the reduction of `count` elements of `input` into the first
    /// [`Reducer::result_bytes`] of `output` (any offset that is a multiple of 4; where it is
    /// not a multiple of the binding alignment, the result is copied into place, which needs
    /// `COPY_DST`).
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        output: impl Into<BufferRef<'a>>,
        count: Count,
    ) -> Result<()> {
        self.record_timed(enc, input, output, count, None)
    }

    /// [`Reducer::record`], with timestamps around each pass (see [`Reducer::passes`]).
    pub fn record_timed<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        output: impl Into<BufferRef<'a>>,
        count: Count,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        let input = input.into();
        // (an offset not aligned for binding, or the input's buffer, which one dispatch may not
        // bind read-only and read-write: written to the spare and copied into place)
        self.rec.record_result(
            &self.spare,
            enc.into(),
            vec![input],
            &[input],
            ("the result", output.into(), self.result_bytes()),
            count,
            stamps,
        )
    }

    /// The result's words (as [`Reducer::record`] left them) as a [`Scalar`].
    pub fn decode(&self, words: &[u32]) -> Result<Scalar> {
        let need = (self.result_bytes() / 4) as usize;
        if words.len() != need {
            return Err(Error::InvalidInput(format!(
                "a {} result is {need} word(s) ([`Reducer::result_bytes`]); got {}",
                self.rec.plan().label,
                words.len()
            )));
        }
        let u64v = words[0] as u64 | (*words.get(1).unwrap_or(&0) as u64) << 32;
        let op = if self.by_operator {
            ReduceOp::Max
        } else {
            self.op
        };
        Ok(match (op, self.dtype) {
            (ReduceOp::Sum, Dtype::U32) => Scalar::U64(u64v),
            (ReduceOp::Sum, Dtype::I32) => Scalar::I64(u64v as i64),
            (ReduceOp::Sum, _) => {
                let s = f32::from_bits(words[0]);
                Scalar::F32(if s.is_finite() {
                    (s as f64 / self.scale) as f32
                } else {
                    s
                })
            }
            (_, Dtype::U32) => Scalar::U32(words[0]),
            (_, Dtype::I32) => Scalar::I32(words[0] as i32),
            (_, _) => Scalar::F32(f32::from_bits(words[0])),
        })
    }
}

/// Reduces `data` by `op` on `ctx` ([`Reducer::with_operator`]), in order; `T` the operator's
/// type, the identity for no elements.
///
/// ```
/// use wgsimd::{dtype::Dtype, fold::Operator};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let max = Operator::max(Dtype::F32)?;
/// assert_eq!(wgsimd::reduce::reduce_by(&ctx, &[1.5f32, -0.0, 9.0], &max)?, 9.0);
/// # Ok(()) }
/// ```
pub fn reduce_by<T: Element>(ctx: &Context, data: &[T], op: &crate::fold::Operator) -> Result<T> {
    if T::DTYPE != op.dtype() {
        return Err(Error::InvalidInput(format!(
            "{} elements for an operator over {}",
            T::DTYPE,
            op.dtype()
        )));
    }
    let r = Reducer::with_operator(ctx, op, data.len() as u64)?;
    let input = if data.is_empty() {
        ctx.zeroed("input", 16)?
    } else {
        ctx.upload("input", data)?
    };
    let result = ctx.zeroed("result", 4)?;
    let mut enc = ctx.encoder();
    r.record(&mut enc, &input, &result, Count::Host(data.len() as u32))?;
    ctx.submit(enc)?.clean("the reduction")?;
    Ok(ctx.read::<T>(&result)?[0])
}

/// Reduces `data` with `op` on `ctx` (uploads it, records, submits, waits, reads the result).
///
/// An f32 sum whose running sums overflowed f32 although every input is finite (the exact sum
/// may be small: 2e38 + 2e38 − 2e38 − 2e38) runs again with the inputs scaled by 2^-64, so the
/// result is ±inf only where the exact sum rounds to it. An empty min or max is an error.
///
/// ```
/// use wgsimd::reduce::{reduce, ReduceOp, Scalar};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let max = reduce(&ctx, &[3.0f32, f32::NAN, 1.0], ReduceOp::Max)?;
/// assert!(matches!(max, Scalar::F32(x) if x.is_nan())); // numpy's: NaN wins
/// assert_eq!(reduce(&ctx, &[-5i32, 2], ReduceOp::Sum)?, Scalar::I64(-3));
/// # Ok(()) }
/// ```
pub fn reduce<T: Element>(ctx: &Context, data: &[T], op: ReduceOp) -> Result<Scalar> {
    if data.is_empty() && op != ReduceOp::Sum {
        return Err(Error::InvalidInput(
            format!("{op:?} of an empty array has no value").to_lowercase(),
        ));
    }
    let n = data.len() as u64;
    let once = |scale: f64| -> Result<Scalar> {
        let r = Reducer::build(ctx, op, T::DTYPE, n, ReducePolicy::default(), scale)?;
        let input = ctx.upload("input", data)?;
        let out = ctx.uninit("result", r.result_bytes())?;
        let mut enc = ctx.encoder();
        r.record(&mut enc, &input, &out, Count::Host(n as u32))?;
        ctx.submit(enc)?.clean("the reduction")?;
        r.decode(&ctx.read::<u32>(&out)?)
    };
    let r = once(1.0)?;
    if let (ReduceOp::Sum, Scalar::F32(s)) = (op, r) {
        let floats = || bytemuck::cast_slice::<T, f32>(data);
        // numpy's sum of nothing but -0.0 is -0.0; the kernel's accumulators start at +0
        if s == 0.0 && !data.is_empty() && floats().iter().all(|x| x.to_bits() == 0x8000_0000) {
            return Ok(Scalar::F32(-0.0));
        }
        if !s.is_finite() && floats().iter().all(|x| x.is_finite()) {
            return once(OVERFLOW_SCALE);
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's grids are the prepare stage's at counts around every boundary: the
    /// workgroup step, each chunk of a device with 64 KiB bindings, and the policy's caps.
    #[test]
    fn host_grids_are_the_prepare_stages() {
        let mut caps = crate::Caps::h100();
        caps.max_storage_binding = 1 << 16;
        let ctx = Context::simulator(crate::sim::SimConfig::for_profile(caps)).unwrap();
        let policy = ReducePolicy {
            max_workgroups: 9,
            small_workgroups: 2,
            small_count: 3000,
            mid_workgroups: 5,
            mid_count: 20000,
        };
        let max = 70000u32;
        for (op, dtype) in [(ReduceOp::Sum, Dtype::U32), (ReduceOp::Max, Dtype::F32)] {
            let r = Reducer::with_policy(&ctx, op, dtype, max as u64, policy).unwrap();
            let chunk = 1u32 << 14;
            let mut counts = vec![0, 1, 2, 3, 4, 5, 1023, 1024, 1025, 2999, 3000, 3001];
            counts.extend([19999, 20000, 20001, max - 1, max]);
            for c in 1..5 {
                counts.extend([c * chunk - 1, c * chunk, c * chunk + 1]);
            }
            crate::record::assert_host_grids(&r.rec, &counts);
        }
    }
}
