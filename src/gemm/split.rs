//! Split-K and C after a portable product: how many workgroups split K ([`split_k`]; the
//! cooperative kernels' slices, [`coop_splits`]), the buffers of C and of the partial products
//! ([`product_buffers`]), which pass rounds an f16 C ([`kernel_may_round`], [`rounded_c`]), the
//! split-K sum (`gemm/splitk_sum`) and the plan it finishes ([`finish_split_k`]), and the
//! rounding pass (`gemm/to_f16`) that [`GemmPlan::with_output`] adds where no other pass rounds.
//!
//! Rules: the sum adds the partial products in a fixed order (split after split); C is rounded
//! to f16 once, after the f32 sum, by exactly one pass. The portable passes (`tiled.rs`,
//! `gemv.rs`) size their splits and C with these functions and end with [`finish_split_k`]; the
//! cooperative pass shares the rule of who rounds ([`kernel_may_round`]) and the sum
//! ([`sum_pass`], over its partial products' rows padded to whole tiles).

use super::format::OutFormat;
use super::gemm_plan::{GemmPlan, Path};
use super::layout::{CTarget, Resolved};
use super::limits::{binding_limit, check_limits};
use super::policy::{
    COOP_MIN_SLICES, COOP_MIN_SLICE_TILES, COOP_SPLIT_TARGET_WORKGROUPS, SPLIT_TARGET_INVOCATIONS,
};
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};
use crate::stages::gemm::{splitk_sum, to_f16};

/// The split-K factor for `tiles` output tiles of `invocations` each and `k_tiles` K steps: 1
/// when the tiles alone fill the GPU, else enough splits to reach [`SPLIT_TARGET_INVOCATIONS`],
/// keeping at least 8 K steps per split and at most 64 splits.
pub fn split_k(tiles: u64, invocations: u64, k_tiles: u64) -> u32 {
    let have = tiles * invocations;
    if have >= SPLIT_TARGET_INVOCATIONS {
        return 1;
    }
    SPLIT_TARGET_INVOCATIONS
        .div_ceil(have.max(1))
        .min(k_tiles / 8)
        .clamp(1, 64) as u32
}

/// The cooperative kernels' K slices for `tiles` output tiles of `k_tiles` K steps: enough to
/// give [`COOP_SPLIT_TARGET_WORKGROUPS`] workgroups, none unless that makes [`COOP_MIN_SLICES`]
/// or more (measured on the deep tile); for the few-rows tiles as many as give `resident`
/// workgroups, never more, from 2 slices
/// ([`COOP_ROWS_SPLIT_TARGET`](super::policy::COOP_ROWS_SPLIT_TARGET)); with
/// [`COOP_MIN_SLICE_TILES`] steps or more in each but the last. (The caller evens the slices
/// out, which may leave fewer: `k_tiles.div_ceil(k_tiles.div_ceil(s))`.)
pub(super) fn coop_splits(tiles: u64, k_tiles: u32, resident: Option<u64>) -> u32 {
    let tiles = tiles.max(1);
    let want = match resident {
        Some(r) => r / tiles,
        None => COOP_SPLIT_TARGET_WORKGROUPS.div_ceil(tiles),
    };
    let s = want.min((k_tiles / COOP_MIN_SLICE_TILES) as u64) as u32;
    let least = if resident.is_some() {
        2
    } else {
        COOP_MIN_SLICES
    };
    if s < least {
        return 1;
    }
    s
}

/// Checks A, B, the scales (`bufs`), C and the partial products of `splits` K splits against
/// the adapter's limits for a `grid` of workgroups, then adds C in `c_format` (f16: two per
/// word; the caller's where that is `out`, at its layout, else the plan's own f32 C, rows of
/// N, for the rounding pass) and, with several K splits, the buffer of partial products:
/// (where the product pass writes, C, and the layout it writes at).
pub(super) fn product_buffers(
    caps: &Caps,
    plan: &mut Plan,
    bufs: &[BufferId; 4],
    res: &Resolved,
    (c_format, out): (OutFormat, OutFormat),
    splits: u64,
    grid: [u64; 2],
) -> Result<(BufferId, BufferId, CTarget)> {
    // the plan's own f32 C, every matrix (one split's products)
    let own = res.c_elements() * 4;
    let callers = c_format == out;
    let c_bytes = if callers { res.c_bytes(out) } else { own };
    let sizes: Vec<(&str, u64)> = [("A", bufs[0]), ("B", bufs[1]), ("scales", bufs[2])]
        .iter()
        .map(|&(s, id)| (s, plan.buffers[id.0].size))
        .chain([("C", c_bytes), ("partial products", own * splits)])
        .collect();
    check_limits(caps, &sizes, grid)?;
    let c = if callers {
        plan.arg("c", c_bytes)
    } else {
        plan.buffer("c f32", c_bytes, BufferInit::Poison)
    };
    if splits > 1 {
        let partials = plan.buffer("partials", own * splits, BufferInit::Poison);
        return Ok((partials, c, res.packed_c()));
    }
    let at = if callers {
        res.caller_c()
    } else {
        res.packed_c()
    };
    Ok((c, c, at))
}

/// A portable product pass's two output bindings (f32 C `c`, f16 C `c16`): `target` at the one
/// it writes (f16 where it rounds C itself, `fused`), and at the other a stand-in of its own (a
/// read-write binding may not share a buffer with the read-only ones).
pub(super) fn output_bindings(
    plan: &mut Plan,
    target: BufferId,
    fused: bool,
) -> (BufferId, BufferId) {
    let stand_in = plan.buffer("no output", 16, BufferInit::Zeroed);
    if fused {
        (stand_in, target)
    } else {
        (target, stand_in)
    }
}

/// Whether a product kernel may store f16 C itself (`OUT_F16`): f16 output, one K slice (else
/// the split-K sum rounds) and N even, so a word of two f16 never straddles two rows (nor two
/// workgroups' tiles). The register-tiled, few-rows (with a condition of its own) and
/// cooperative kernels ([`coop::rounds_itself`](super::coop::rounds_itself)) share it.
pub(super) fn kernel_may_round(out: OutFormat, splits: u64, n: usize) -> bool {
    out == OutFormat::F16 && splits == 1 && n.is_multiple_of(2)
}

/// C's dtype as a portable product's passes leave it: `out` where the split-K sum rounds (several
/// `splits`) or the product kernel does (`kernel_rounds`), else f32 (then
/// [`GemmPlan::with_output`] adds the rounding pass).
pub(super) fn rounded_c(out: OutFormat, splits: u64, kernel_rounds: bool) -> OutFormat {
    if splits > 1 || kernel_rounds {
        out
    } else {
        OutFormat::F32
    }
}

/// The split-K sum pass (`gemm/splitk_sum`, `label`): `splits` partial products of the plan's
/// own (rows of N, matrix after matrix, split after split) summed into `c` in `c_format`, at the
/// caller's layout where it is not the GEMM's own (`STRIDED`). `count`: the elements of C and of
/// each partial product where they are not C's (the cooperative kernels' own C, rows padded to
/// whole tiles, the padding summed to its zeros).
pub(super) fn sum_pass(
    caps: &Caps,
    plan: &mut Plan,
    (partials, c): (BufferId, BufferId),
    (splits, c_format): (u32, OutFormat),
    res: &Resolved,
    (label, count): (&str, Option<u64>),
) -> Result<()> {
    let sum = splitk_sum::STAGE.load(caps.flavor())?;
    let wg = sum.invocations(splitk_sum::entry::main, &[])? as u64;
    let count = count.unwrap_or(res.c_elements());
    let strided = !res.c_flat;
    // f16: one word of two elements per invocation (strided: words of a row, the last of an
    // odd row alone)
    let (f16, items) = match c_format {
        OutFormat::F32 => (0.0, count),
        OutFormat::F16 if strided => (1.0, (res.m * res.batch) as u64 * res.n.div_ceil(2) as u64),
        OutFormat::F16 => (1.0, count.div_ceil(2)),
    };
    let c_at = res.caller_c();
    let v = [
        count,
        splits as u64,
        res.m as u64,
        res.n as u64,
        c_at.row,
        c_at.off,
        c_at.mat,
        0,
    ];
    let words: Vec<u32> = v
        .iter()
        .map(|&x| {
            u32::try_from(x).map_err(|_| Error::TooLarge(format!("gemm C of {count} elements")))
        })
        .collect::<Result<_>>()?;
    let sp = plan.upload("sum params", &words);
    plan.pass(
        label,
        &sum,
        splitk_sum::entry::main,
        &[
            (splitk_sum::OUT_F16, f16),
            (splitk_sum::STRIDED, if strided { 1.0 } else { 0.0 }),
        ],
        &[
            (splitk_sum::bind::params, sp),
            (splitk_sum::bind::partials, partials),
            (splitk_sum::bind::c, c),
        ],
        Workgroups::Direct(crate::device::grid_2d(
            items.div_ceil(wg),
            caps.max_workgroups_per_dim,
        )),
    )?;
    Ok(())
}

/// The split-K sum pass (when `splits` > 1, from `partials` into `c`, rounding to f16 itself
/// when C is f16), the read-back of C (in `c_format`), and the plan.
pub(super) fn finish_split_k(
    caps: &Caps,
    plan: &mut Plan,
    (partials, c): (BufferId, BufferId),
    (splits, c_format): (u32, OutFormat),
    res: &Resolved,
    path: Path,
) -> Result<GemmPlan> {
    if splits > 1 {
        sum_pass(
            caps,
            plan,
            (partials, c),
            (splits, c_format),
            res,
            ("split-k sum", None),
        )?;
    }
    Ok(GemmPlan {
        plan: std::mem::take(plan),
        c,
        out: c_format,
        m: res.m,
        n: res.n,
        path,
        guard: None,
        inputs: Vec::new(),
        layout: *res,
    })
}

impl GemmPlan {
    /// With `out` = F16 and C still f32, adds the rounding pass (`gemm/to_f16`) after the
    /// product and reads back its f16 output instead of the f32 C.
    pub(super) fn with_output(mut self, caps: &Caps, out: OutFormat) -> Result<GemmPlan> {
        // (the split-K sum or the product kernel has rounded already)
        if self.out == out {
            return Ok(self);
        }
        if !self.layout.c_flat {
            return self.rounded_into_caller_c(caps, out);
        }
        let kern = to_f16::STAGE.load(caps.flavor())?;
        let wg = kern.invocations(to_f16::entry::main, &[])? as u64;
        let count = (self.m * self.n) as u64;
        let quads = count.div_ceil(4);
        let plan = &mut self.plan;
        // the pass reads C in vec4s: its buffer rounded up to whole quads (the padding is
        // never read: the last quad, when partial, is read element by element)
        let c_buf = &mut plan.buffers[self.c.0];
        c_buf.size = c_buf.size.max(quads * 16);
        if c_buf.size > binding_limit(caps) {
            return Err(Error::TooLarge(format!(
                "gemm C rounded to whole vec4s needs {} bytes; the kernels bind at most {} \
                 (the adapter's limit, and below 4 GiB)",
                c_buf.size,
                binding_limit(caps)
            )));
        }
        let params = plan.upload("f16 params", &[count as u32, 0, 0, 0]);
        let c16 = plan.arg("c", quads * 8);
        plan.pass(
            "to f16",
            &kern,
            to_f16::entry::main,
            &[],
            &[
                (to_f16::bind::params, params),
                (to_f16::bind::c, self.c),
                (to_f16::bind::out, c16),
            ],
            Workgroups::Direct(crate::device::grid_2d(
                quads.div_ceil(wg),
                caps.max_workgroups_per_dim,
            )),
        )?;
        self.c = c16;
        self.out = out;
        Ok(self)
    }

    /// [`GemmPlan::with_output`] for a caller's C: the f32 C (rows of N, the plan's own) rounded
    /// into the caller's f16 C at its layout, by the split-K sum's strided pass with one split.
    fn rounded_into_caller_c(mut self, caps: &Caps, out: OutFormat) -> Result<GemmPlan> {
        let res = self.layout;
        let bytes = res.c_bytes(out);
        check_limits(caps, &[("C", bytes)], [1, 1])?;
        let c16 = self.plan.arg("c", bytes);
        sum_pass(
            caps,
            &mut self.plan,
            (self.c, c16),
            (1, out),
            &res,
            ("to f16", None),
        )?;
        self.c = c16;
        self.out = out;
        Ok(self)
    }
}
