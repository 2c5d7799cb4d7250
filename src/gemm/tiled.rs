//! The portable register-tiled pass (`gemm/tiled`): every adapter, every format (A f32 or
//! f16, B f32, f16 or int4), K split where the tiles alone do not fill the GPU
//! ([`split_k`]), and the bindings the few-rows pass shares with it.
//!
//! Rules: the tile is a [`GemmPolicy`], checked against the kernel's declared rules before the
//! pass is added; the grid folds into rows where it is wider than a dimension allows
//! ([`tile_dispatch`]); the pass ends with [`finish_split_k`].

use std::sync::Arc;

use super::format::{Format, OutFormat};
use super::gemm_plan::{GemmPlan, Path};
use super::layout::Resolved;
use super::limits::{binding_limit, check_z, tile_dispatch};
use super::policy::GemmPolicy;
use super::split::{
    finish_split_k, kernel_may_round, output_bindings, product_buffers, rounded_c, split_k,
};
use crate::device::Caps;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::plan::{BufferId, Plan, Workgroups};
use crate::stages::gemm::tiled;
use crate::stages::Resource;

#[allow(clippy::too_many_arguments)]
/// Adds the portable kernel's pass and the output buffer; `bufs` = a, b, scales, zeros; `split`
/// forces a split count, `out` is C's dtype (taken by the split-K sum when there is one);
/// `b_rows`: int4 weights' packed rows (0 otherwise).
pub(super) fn tiled_pass(
    caps: &Caps,
    plan: &mut Plan,
    policy: GemmPolicy,
    (split, out): (Option<u32>, OutFormat),
    (fa, fb, has_zeros): (Format, Format, bool),
    bufs: [BufferId; 4],
    res: &Resolved,
    b_rows: u32,
) -> Result<GemmPlan> {
    let (m, n, k) = (res.m, res.n, res.k);
    let batch = res.batch as u64;
    policy.check_tile()?;
    let kern: Arc<Kernel> = tiled::STAGE.load(caps.flavor())?;
    let overrides = policy.overrides(fa, fb, has_zeros);
    let reflected = kern.workgroup_size(tiled::entry::main, &overrides)?;
    policy.check(&kern, reflected, fa, fb, caps.max_workgroup_storage)?;
    let invocations = reflected.iter().product::<u32>() as u64;
    let tiles = [
        (n as u64).div_ceil(policy.bn as u64),
        (m as u64).div_ceil(policy.bm as u64),
    ];
    let grid = tile_dispatch(caps, tiles[0], tiles[1]);
    // one split's f32 products, every matrix
    let c_bytes = res.c_elements() * 4;
    let k_tiles = (k as u32).div_ceil(policy.bk);
    let mut splits = split
        .unwrap_or_else(|| split_k(tiles[0] * tiles[1] * batch, invocations, k_tiles as u64))
        .clamp(1, k_tiles);
    // the partial products must fit one binding, and the splits of every matrix the dispatch
    while splits > 1
        && (splits as u64 * c_bytes > binding_limit(caps)
            || splits as u64 * batch > caps.max_workgroups_per_dim as u64)
    {
        splits /= 2;
    }
    let tiles_per_split = k_tiles.div_ceil(splits);
    let splits = k_tiles.div_ceil(tiles_per_split);
    // f16 output stored by this pass itself (`OUT_F16`)
    let fused = kernel_may_round(out, splits as u64, n);
    let c_format = rounded_c(out, splits as u64, fused);
    let (target, c, at) =
        product_buffers(caps, plan, &bufs, res, (c_format, out), splits as u64, grid)?;
    let z = check_z(caps, splits as u64 * batch, "K splits × matrices")?;
    let (c32, c16) = output_bindings(plan, target, fused);
    let mut overrides = overrides;
    overrides.push((tiled::OUT_F16, if fused { 1.0 } else { 0.0 }));
    overrides.push((tiled::FOLDED, if grid == tiles { 0.0 } else { 1.0 }));
    overrides.extend(res.overrides());
    let params = plan.upload(
        "params",
        &res.params([k_tiles, b_rows, tiles_per_split, splits], at)?,
    );
    plan.pass(
        "gemm",
        &kern,
        tiled::entry::main,
        &overrides,
        &portable_bindings(params, bufs, c32, c16),
        Workgroups::Direct([grid[0] as u32, grid[1] as u32, z]),
    )?;
    finish_split_k(
        caps,
        plan,
        (target, c),
        (splits, c_format),
        res,
        Path::Tiled,
    )
}

/// The bindings of the portable kernels (`gemm/tiled`, `gemm/gemv`): params, A, B, scales and
/// zeros (`bufs`), f32 C and f16 C.
pub(super) fn portable_bindings(
    params: BufferId,
    bufs: [BufferId; 4],
    c32: BufferId,
    c16: BufferId,
) -> [(Resource, BufferId); 7] {
    // (the two portable stages declare the same resource variables; the plan checks each
    // against the stage it binds)
    use crate::stages::gemm::tiled::bind;
    [
        (bind::params, params),
        (bind::a, bufs[0]),
        (bind::b, bufs[1]),
        (bind::scales, bufs[2]),
        (bind::zeros, bufs[3]),
        (bind::c, c32),
        (bind::c16, c16),
    ]
}
