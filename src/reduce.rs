//! Reductions: sum, min, max over u32, i32 and f32, with numpy's semantics.
//!
//! Rules:
//! - Integer sums are exact and widened (u32 → u64, i32 → i64). i32 runs the u32 kernel on
//!   `x ^ 0x8000_0000` and subtracts `n · 2^31` on the host.
//! - f32 sums are double-float on the GPU, rounded once to f32 on the host: deterministic for a
//!   given n, within ~2^-44 · Σ|x| of the exact sum. An adapter may flush f32 subnormals to zero
//!   (WGSL allows it; NVIDIA's Vulkan driver does): there subnormal inputs count as zero, and an
//!   addition whose result falls below 2^-126 may lose that much
//!   (`reference::reduce::SumF32` is the bound the tests hold every adapter to). A sum of finite
//!   inputs whose running sums overflowed runs again with the inputs scaled by 2^-64
//!   ([`reduce`]), so ±inf means the exact sum is beyond f32.
//! - min/max go through order-preserving u32 keys; any NaN wins; an empty min/max is an error.
//! - One dispatch: a capped grid of workgroups (see [`ReducePolicy`]) publishes one partial
//!   each, and the workgroup that arrives last folds them (`wgsl/shared/fold.wgsl`: atomic
//!   words tagged with the run's epoch, so no fence is needed). Input longer than one storage
//!   binding is split into chunks, each a pass publishing its own range of partials; the last
//!   arrival over all chunks folds. The slots, counter and epoch live in a buffer created zeroed; the folder resets
//!   the counter and advances the epoch, so a plan can run any number of times.

use std::sync::Arc;

use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::exec::{Executor, RunOutput};
use crate::kernel::{self, Kernel};
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Most workgroups per chunk. H100, 2^28 elements, examples/reduce_sweep.rs with the
    /// one-dispatch fold (2026-11-22, one run, GB/s sum u32 / sum f32): 528 → 2804 / 2773,
    /// 1056 → 3031 / 3006, 1584 → 2974 / 2935, 2112 → 3022 / 2988, 3168 → 3019 / 2978,
    /// 4096 → 3062 / 2999 (CUB in the same call: 3049 / 3048). The fold reads two atomic words
    /// per partial in one workgroup, so more workgroups cost the fold little.
    pub max_workgroups: u32,
}

impl Default for ReducePolicy {
    fn default() -> Self {
        ReducePolicy {
            max_workgroups: 4096,
        }
    }
}

/// A built reduction: run `plan`, then [`ReducePlan::decode`] the output.
pub struct ReducePlan {
    /// The passes.
    pub plan: Plan,
    result: BufferId,
    dtype: Dtype,
    op: ReduceOp,
    n: u64,
    /// The f32 sum's input scale (`SCALE` in `wgsl/reduce/sum_f32.wgsl`), undone by `decode`.
    scale: f64,
}

/// The f32 sum's input scale when its running sums overflowed f32 although every input is
/// finite: exact for every normal input from 2^-62 up, and no sum of fewer than 2^64 finite
/// f32s overflows once scaled.
const OVERFLOW_SCALE: f64 = 1.0 / 18_446_744_073_709_551_616.0; // 2^-64

impl ReducePlan {
    /// Turns the run's output into the result.
    pub fn decode(&self, out: &RunOutput) -> Result<Scalar> {
        let words: Vec<u32> = out.get(self.result);
        let need = if self.op == ReduceOp::Sum { 2 } else { 1 };
        if words.len() < need {
            return Err(Error::Gpu("reduction result missing".into()));
        }
        let u64v = words[0] as u64 | (*words.get(1).unwrap_or(&0) as u64) << 32;
        Ok(match (self.op, self.dtype) {
            (ReduceOp::Sum, Dtype::U32) => Scalar::U64(u64v),
            (ReduceOp::Sum, Dtype::I32) => {
                Scalar::I64((u64v as i128 - (self.n as i128) * (1i128 << 31)) as i64)
            }
            (ReduceOp::Sum, _) => {
                let hi = f32::from_bits(words[0]);
                let lo = f32::from_bits(words[1]);
                Scalar::F32(if hi.is_finite() {
                    ((hi as f64 + lo as f64) / self.scale) as f32
                } else {
                    hi
                })
            }
            (_, Dtype::U32) => Scalar::U32(words[0]),
            (_, Dtype::I32) => Scalar::I32((words[0] ^ 0x8000_0000) as i32),
            (_, _) => {
                let k = words[0];
                Scalar::F32(f32::from_bits(if k & 0x8000_0000 != 0 {
                    k & 0x7fff_ffff
                } else {
                    !k
                }))
            }
        })
    }
}

/// Builds the plan for `op` over `data` on an executor with `caps`.
pub fn plan<T: Element>(
    caps: &crate::Caps,
    data: &[T],
    op: ReduceOp,
    policy: ReducePolicy,
) -> Result<ReducePlan> {
    plan_scaled(caps, data, op, policy, 1.0)
}

/// [`plan`] with the f32 sum's inputs multiplied by `scale` (a power of two) in the kernel and
/// the result divided by it on the host.
fn plan_scaled<T: Element>(
    caps: &crate::Caps,
    data: &[T],
    op: ReduceOp,
    policy: ReducePolicy,
    scale: f64,
) -> Result<ReducePlan> {
    let dtype = T::DTYPE;
    if !matches!(dtype, Dtype::U32 | Dtype::I32 | Dtype::F32) {
        return Err(Error::UnsupportedDtype {
            dtype: dtype.to_string(),
            op: "reduce",
            supported: "u32, i32, f32",
        });
    }
    let n = data.len() as u64;
    if n == 0 && op != ReduceOp::Sum {
        return Err(Error::InvalidInput(
            format!("{op:?} of an empty array has no value").to_lowercase(),
        ));
    }
    if n * 4 > caps.max_buffer.saturating_sub(16) {
        return Err(Error::TooLarge(format!(
            "{n} elements exceed the adapter's largest buffer ({} bytes)",
            caps.max_buffer
        )));
    }
    let flavor = caps.flavor();
    let (stage, result_bytes): (&str, u64) = match (op, dtype) {
        (ReduceOp::Sum, Dtype::F32) => ("reduce/sum_f32", 8),
        (ReduceOp::Sum, _) => ("reduce/sum_u64", 8),
        _ => ("reduce/minmax", 4),
    };
    let k1: Arc<Kernel> = kernel::load(stage, flavor)?;
    let mut overrides: Vec<(&str, f64)> = Vec::new();
    match (op, dtype) {
        (ReduceOp::Sum, Dtype::I32) => overrides.push(("FLIP", 1.0)),
        (ReduceOp::Sum, Dtype::F32) => overrides.push(("SCALE", scale)),
        (ReduceOp::Sum, _) => {}
        (_, d) => {
            overrides.push((
                "KEY",
                match d {
                    Dtype::U32 => 0.0,
                    Dtype::I32 => 1.0,
                    _ => 2.0,
                },
            ));
            overrides.push(("OP", if op == ReduceOp::Min { 1.0 } else { 2.0 }));
        }
    }
    let wg = k1.invocations("main", &overrides)? as u64;
    let mut plan = Plan::new(format!("reduce {op:?} {dtype}").to_lowercase());
    // pad the input to whole vec4s
    let mut bytes = bytemuck::cast_slice::<T, u8>(data).to_vec();
    bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
    let input_size = bytes.len() as u64;
    let input = plan.buffer("input", input_size, BufferInit::Bytes(bytes));
    let chunks = caps.chunks(n, 4, 4);
    let grids: Vec<u32> = chunks
        .iter()
        .map(|&(_, c)| (c.div_ceil(4).div_ceil(wg)).clamp(1, policy.max_workgroups as u64) as u32)
        .collect();
    let total_partials: u64 = grids.iter().map(|&g| g as u64).sum();
    // two tagged words per partial, then the arrival counter and the epoch
    // (wgsl/shared/fold.wgsl)
    let slots = plan.buffer("slots", (2 * total_partials + 2) * 4, BufferInit::Zeroed);
    // one u64 (or double-float) for sums, one key for min/max: every word is written
    let result = plan.buffer("result", result_bytes, BufferInit::Poison);
    let mut base = 0u32;
    for (i, (&(first, count), &grid)) in chunks.iter().zip(&grids).enumerate() {
        let params = plan.upload("params", &[count as u32, base, total_partials as u32, 0]);
        let offset = first * 4;
        let size = (count * 4).div_ceil(16).max(1) * 16;
        let size = size.min(input_size - offset);
        let label = if chunks.len() == 1 {
            "reduce".to_string()
        } else {
            format!("reduce {i}")
        };
        plan.pass(
            label,
            &k1,
            "main",
            &overrides,
            &[
                ("params", params),
                ("input", input),
                ("fold_slots", slots),
                ("result", result),
            ],
            Workgroups::Direct([grid, 1, 1]),
        )?
        .range("input", offset, size)?;
        base += grid;
    }
    plan.read_back(result);
    Ok(ReducePlan {
        plan,
        result,
        dtype,
        op,
        n,
        scale,
    })
}

/// Reduces `data` with `op` on `exec`.
///
/// An f32 sum whose running sums overflowed f32 although every input is finite (the exact sum
/// may be small: 2e38 + 2e38 − 2e38 − 2e38) runs again with the inputs scaled by 2^-64, so the
/// result is ±inf only where the exact sum rounds to it.
pub fn reduce<T: Element>(exec: &dyn Executor, data: &[T], op: ReduceOp) -> Result<Scalar> {
    let p = plan(exec.caps(), data, op, ReducePolicy::default())?;
    let out = exec.run(&p.plan)?;
    let r = p.decode(&out)?;
    if let Scalar::F32(s) = r {
        let finite = || {
            bytemuck::cast_slice::<T, f32>(data)
                .iter()
                .all(|x| x.is_finite())
        };
        // numpy's sum of nothing but -0.0 is -0.0; the kernel's accumulators start at +0
        let all_negative_zero = || {
            bytemuck::cast_slice::<T, u32>(data)
                .iter()
                .all(|&x| x == 0x8000_0000)
        };
        if op == ReduceOp::Sum && s == 0.0 && !data.is_empty() && all_negative_zero() {
            return Ok(Scalar::F32(-0.0));
        }
        if op == ReduceOp::Sum && !s.is_finite() && finite() {
            let p = plan_scaled(
                exec.caps(),
                data,
                op,
                ReducePolicy::default(),
                OVERFLOW_SCALE,
            )?;
            return p.decode(&exec.run(&p.plan)?);
        }
    }
    Ok(r)
}

