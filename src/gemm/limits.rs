//! The limits every GEMM plan is checked against: dimensions the kernels index in u32
//! ([`check_dims`]), the largest buffer one binding holds ([`binding_limit`], [`check_limits`]),
//! dispatch extents ([`check_z`]) and the fold of a tile grid into rows of the dispatch where it
//! is wider than a dimension allows ([`tile_dispatch`]).
//!
//! Rules: a leaf (the device's caps and the error type only). A limit is refused here with an
//! [`Error::TooLarge`] or [`Error::Limit`] naming what needed it, before any pass is added.

use crate::device::Caps;
use crate::error::{Error, Result};

/// M, N, K positive and within what the kernels index.
pub(super) fn check_dims(m: usize, n: usize, k: usize) -> Result<()> {
    if m == 0 || n == 0 || k == 0 {
        return Err(Error::InvalidInput(format!(
            "gemm needs M, N, K ≥ 1 (got {m}×{k} · {k}×{n})"
        )));
    }
    // the kernels index in u32, and C's bytes (M·N·4) must be countable: beyond that no
    // adapter's binding holds the product (the plans check their real limits later)
    let c_bytes = m.checked_mul(n).and_then(|e| e.checked_mul(4));
    if [m, n, k].iter().any(|&d| d > u32::MAX as usize) || c_bytes.is_none() {
        return Err(Error::TooLarge(format!(
            "gemm {m}×{k} · {k}×{n}: dimensions beyond any adapter's limits"
        )));
    }
    Ok(())
}

/// The largest buffer a GEMM kernel binds: the adapter's binding limit, and below 4 GiB, since
/// the kernels index in u32 (elements of 2 or 4 bytes, words, vec4s), where an adapter binds
/// more (Metal's `maxBufferLength`).
pub(super) fn binding_limit(caps: &Caps) -> u64 {
    caps.max_storage_binding.min(u32::MAX as u64)
}

/// The dispatch of an `nx × ny` grid of tiles: the tile grid itself where both fit a
/// dimension, else folded into rows of up to the adapter's limit (the kernels number
/// workgroups row by row and let those past the last tile exit: `tile_of` and `past_c` in
/// `shared/gemm_tile_order.wgsl`). A fold that needs more rows than a dimension allows is left
/// to [`check_limits`] to refuse.
pub(super) fn tile_dispatch(caps: &Caps, nx: u64, ny: u64) -> [u64; 2] {
    let max = caps.max_workgroups_per_dim.max(1) as u64;
    if nx <= max && ny <= max {
        return [nx, ny];
    }
    let count = nx.saturating_mul(ny);
    let x = count.min(max);
    [x, count.div_ceil(x)]
}

pub(super) fn check_limits(caps: &Caps, buffers: &[(&str, u64)], grid: [u64; 2]) -> Result<()> {
    let limit = binding_limit(caps);
    for &(name, bytes) in buffers {
        if bytes > limit {
            return Err(Error::TooLarge(format!(
                "gemm {name} needs {bytes} bytes; the adapter binds at most {} and the kernels \
                 index buffers below 4 GiB",
                caps.max_storage_binding
            )));
        }
    }
    if let Some(&g) = grid
        .iter()
        .max()
        .filter(|&&g| g > caps.max_workgroups_per_dim as u64)
    {
        return Err(Error::Limit {
            limit: "max_compute_workgroups_per_dimension",
            needed: g,
            available: caps.max_workgroups_per_dim as u64,
            needed_for: format!("a GEMM grid of {grid:?} workgroups"),
        });
    }
    Ok(())
}

/// A dispatch's z extent (`what`): within the adapter's limit, else [`Error::Limit`].
pub(super) fn check_z(caps: &Caps, z: u64, what: &str) -> Result<u32> {
    if z > caps.max_workgroups_per_dim as u64 {
        return Err(Error::Limit {
            limit: "max_compute_workgroups_per_dimension",
            needed: z,
            available: caps.max_workgroups_per_dim as u64,
            needed_for: format!("a GEMM's {what}"),
        });
    }
    Ok(z as u32)
}
