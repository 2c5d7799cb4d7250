//! What every path's plan builder returns: [`GemmPlan`] (the passes, C, the kernel chosen as a
//! [`Path`], the operands a recording binds) and the label of its shape.
//!
//! Rules: the builders (`tiled.rs`, `gemv.rs`, `coop.rs`, finished in `split.rs`) make one;
//! [`Gemm`](super::Gemm) records it. The passes that follow a product (the split-K sum, the
//! rounding of C to f16) are `split.rs`'s.

use super::format::OutFormat;
use super::layout::Resolved;
use crate::plan::{BufferId, Plan};

/// Which kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// The portable register-tiled kernel.
    Tiled,
    /// Cooperative matrices, f16 16×16×16 → f32.
    Coop16,
    /// Cooperative matrices, f16 8×8×8 → f32 (Apple).
    Coop8,
    /// The few-rows kernel (`gemm/gemv`): M ≤ [`GEMV_MAX_M`](super::policy::GEMV_MAX_M)
    /// ([`GEMV_MAX_M_INT4`](super::policy::GEMV_MAX_M_INT4) for int4 weights) with the default
    /// path and policy.
    Gemv,
}

/// A GEMM's plan and what a recording binds ([`Gemm`](super::Gemm) records it).
pub struct GemmPlan {
    /// The passes.
    pub plan: Plan,
    /// C, the caller's: M·N f32, or with f16 output M·N f16 packed two per word, then possibly
    /// padding (the cooperative kernels' C has rows up to a whole tile, `coop::padded_rows`).
    pub c: BufferId,
    /// C's dtype.
    pub out: OutFormat,
    /// Rows of C.
    pub m: usize,
    /// Columns of C.
    pub n: usize,
    /// The kernel chosen.
    pub path: Path,
    /// The cooperative kernels' subgroup guard: a word that holds the subgroup width they met
    /// where it was not the planned one
    /// ([`coop::planned_subgroup`](super::coop::planned_subgroup)), else 0.
    pub guard: Option<BufferId>,
    /// The caller's operands: A, B (or the int4 weights), then the int4 scales and zero points.
    pub inputs: Vec<BufferId>,
    /// The shape and layout it was planned for.
    pub(crate) layout: Resolved,
}

impl GemmPlan {
    /// The same plan with `inputs` as the caller's operands.
    pub(super) fn with_inputs(mut self, inputs: Vec<BufferId>) -> GemmPlan {
        self.inputs = inputs;
        self
    }
}

/// `MxNxK`, with the batch and a transposed B where there are.
pub(super) fn shape_label(res: &Resolved) -> String {
    let (m, n, k) = (res.m, res.n, res.k);
    let batch = if res.batch > 1 {
        format!("{}x", res.batch)
    } else {
        String::new()
    };
    let t = if res.bt { " bt" } else { "" };
    format!("{batch}{m}x{n}x{k}{t}")
}
