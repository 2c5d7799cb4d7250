//! Prefix sums of u32 (exclusive or inclusive, wrapping), the radix sort's building block.
//!
//! Reduce-then-scan in three stages (`wgsl/scan/`): tile sums, one workgroup scanning the tile
//! sums, then every tile scanned and offset. Nothing waits on another workgroup, so it is safe
//! on GPUs without forward-progress guarantees. Tiles are `TILE` elements (reflected from the
//! kernel's workgroup size × 16); input longer than one storage binding is chunked at tile
//! boundaries, and the tile sums of all chunks are scanned together.

use crate::error::{Error, Result};
use crate::device::{grid_2d, Caps};
use crate::exec::{Executor, RunOutput};
use crate::kernel;
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};

/// Elements each invocation scans (four vec4 loads); fixed by `wgsl/shared/scan_tile.wgsl`.
const ITEMS_PER_INVOCATION: u64 = 16;

/// A built scan: run `plan`, then [`ScanPlan::decode`].
pub struct ScanPlan {
    /// The passes.
    pub plan: Plan,
    output: BufferId,
    n: usize,
}

impl ScanPlan {
    /// The scanned values.
    pub fn decode(&self, out: &RunOutput) -> Vec<u32> {
        let mut v: Vec<u32> = out.get(self.output);
        v.truncate(self.n);
        v
    }
}

/// Builds the plan scanning `data`.
pub fn plan(caps: &Caps, data: &[u32], inclusive: bool) -> Result<ScanPlan> {
    let n = data.len() as u64;
    if n > u32::MAX as u64 || n * 4 > caps.max_buffer.saturating_sub(16) {
        return Err(Error::TooLarge(format!(
            "{n} elements exceed the adapter's largest buffer ({} bytes)",
            caps.max_buffer
        )));
    }
    let flavor = caps.flavor();
    let k_sums = kernel::load("scan/tile_sums", flavor)?;
    let k_scan_sums = kernel::load("scan/scan_tile_sums", flavor)?;
    let k_tiles = kernel::load("scan/scan_tiles", flavor)?;
    let tile = k_tiles.invocations("main", &[])? as u64 * ITEMS_PER_INVOCATION;
    let mut plan = Plan::new(if inclusive {
        "scan inclusive u32"
    } else {
        "scan exclusive u32"
    });
    let mut bytes = bytemuck::cast_slice::<u32, u8>(data).to_vec();
    bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
    let padded = bytes.len() as u64;
    let input = plan.buffer("input", padded, BufferInit::Bytes(bytes));
    let output = plan.buffer("output", padded, BufferInit::Poison);
    let chunks = caps.chunks(n, 4, tile);
    let tiles: Vec<u64> = chunks.iter().map(|&(_, c)| c.div_ceil(tile)).collect();
    let total_tiles: u64 = tiles.iter().sum();
    let tile_sums = plan.buffer("tile sums", total_tiles.max(1) * 4, BufferInit::Poison);
    let mut params = Vec::new();
    let mut base = 0u64;
    for (&(_, count), &t) in chunks.iter().zip(&tiles) {
        params.push(plan.upload("params", &[count as u32, t as u32, base as u32, 0]));
        base += t;
    }
    let bind_range = |first: u64, count: u64| {
        let offset = first * 4;
        (
            offset,
            ((count * 4).div_ceil(16).max(1) * 16).min(padded - offset),
        )
    };
    let max = caps.max_workgroups_per_dim;
    let multi = chunks.len() > 1;
    for (i, (&(first, count), &t)) in chunks.iter().zip(&tiles).enumerate() {
        let label = if multi {
            format!("tile sums {i}")
        } else {
            "tile sums".into()
        };
        let pass = plan.pass(
            label,
            &k_sums,
            "main",
            &[],
            &[params[i], input, tile_sums],
            Workgroups::Direct(grid_2d(t, max)),
        );
        let (o, s) = bind_range(first, count);
        pass.bindings[1].offset = o;
        pass.bindings[1].size = Some(s);
    }
    if total_tiles > 0 {
        let pass = plan.pass(
            "scan tile sums",
            &k_scan_sums,
            "main",
            &[],
            &[tile_sums],
            Workgroups::Direct([1, 1, 1]),
        );
        pass.bindings[0].size = Some(total_tiles * 4);
    }
    let inc = [("INCLUSIVE", if inclusive { 1.0 } else { 0.0 })];
    for (i, (&(first, count), &t)) in chunks.iter().zip(&tiles).enumerate() {
        let label = if multi {
            format!("scan tiles {i}")
        } else {
            "scan tiles".into()
        };
        let pass = plan.pass(
            label,
            &k_tiles,
            "main",
            &inc,
            &[params[i], input, tile_sums, output],
            Workgroups::Direct(grid_2d(t, max)),
        );
        let (o, s) = bind_range(first, count);
        pass.bindings[1].offset = o;
        pass.bindings[1].size = Some(s);
        pass.bindings[3].offset = o;
        pass.bindings[3].size = Some(s);
    }
    plan.read_back(output);
    Ok(ScanPlan {
        plan,
        output,
        n: data.len(),
    })
}

/// Exclusive (`inclusive = false`) or inclusive prefix sum of `data`, wrapping on overflow.
pub fn scan(exec: &dyn Executor, data: &[u32], inclusive: bool) -> Result<Vec<u32>> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let p = plan(exec.caps(), data, inclusive)?;
    let out = exec.run(&p.plan)?;
    Ok(p.decode(&out))
}

