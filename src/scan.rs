//! Prefix sums of u32 (exclusive or inclusive, wrapping), the radix sort's building block.
//!
//! Reduce-then-scan in three stages (`wgsl/scan/`): tile sums, one workgroup scanning the tile
//! sums, then every tile scanned and offset. Nothing waits on another workgroup, so it is safe
//! on GPUs without forward-progress guarantees. Tiles are `TILE` elements (reflected from the
//! kernel); input longer than one storage binding is chunked at tile boundaries, and the tile
//! sums of all chunks are scanned together. Other algorithms take the scan's passes into their
//! own plans with [`append`] (the sort scans its histogram so).

use crate::device::{grid_2d, Caps};
use crate::error::{Error, Result};
use crate::exec::{Executor, RunOutput};
use crate::kernel;
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};

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

/// Bytes the scan's buffers need for `len` elements: whole 16-byte words (the kernels read and
/// write vec4s), at least one.
pub fn padded_bytes(len: u64) -> u64 {
    (len * 4).div_ceil(16).max(1) * 16
}

/// Appends to `plan` the passes that scan `len` u32 of `input` into `output` (both at least
/// [`padded_bytes`]`(len)` bytes), exclusive or `inclusive`; `tag` names the passes ("scan
/// {tag}").
pub fn append(
    plan: &mut Plan,
    caps: &Caps,
    input: BufferId,
    output: BufferId,
    len: u64,
    inclusive: bool,
    tag: &str,
) -> Result<()> {
    let flavor = caps.flavor();
    let k_sums = kernel::load("scan/tile_sums", flavor)?;
    let k_scan_sums = kernel::load("scan/scan_tile_sums", flavor)?;
    let k_tiles = kernel::load("scan/scan_tiles", flavor)?;
    let tile = k_tiles.const_u32("TILE")? as u64;
    let padded = padded_bytes(len);
    let chunks = caps.chunks(len, 4, tile);
    let tiles: Vec<u64> = chunks.iter().map(|&(_, c)| c.div_ceil(tile)).collect();
    let total_tiles: u64 = tiles.iter().sum();
    let tile_sums = plan.buffer(
        format!("scan {tag} tile sums"),
        total_tiles.max(1) * 4,
        BufferInit::Poison,
    );
    let mut params = Vec::new();
    let mut base = 0u64;
    for (&(_, count), &t) in chunks.iter().zip(&tiles) {
        params.push(plan.upload(
            format!("scan {tag} params"),
            &[count as u32, t as u32, base as u32, 0],
        ));
        base += t;
    }
    // the byte range of a chunk: whole vec4s, within the padded buffers
    let range = |first: u64, count: u64| {
        let offset = first * 4;
        (offset, padded_bytes(count).min(padded - offset))
    };
    let max = caps.max_workgroups_per_dim;
    let multi = chunks.len() > 1;
    let name = |stage: &str, i: usize| {
        if multi {
            format!("scan {tag} {stage} {i}")
        } else {
            format!("scan {tag} {stage}")
        }
    };
    for (i, (&(first, count), &t)) in chunks.iter().zip(&tiles).enumerate() {
        let (o, s) = range(first, count);
        plan.pass(
            name("sums", i),
            &k_sums,
            "main",
            &[],
            &[("params", params[i]), ("input", input), ("tile_sums", tile_sums)],
            Workgroups::Direct(grid_2d(t, max)),
        )?
        .range("input", o, s)?;
    }
    if total_tiles > 0 {
        plan.pass(
            format!("scan {tag} carry"),
            &k_scan_sums,
            "main",
            &[],
            &[("tile_sums", tile_sums)],
            Workgroups::Direct([1, 1, 1]),
        )?
        .range("tile_sums", 0, total_tiles * 4)?;
    }
    let inc = [("INCLUSIVE", if inclusive { 1.0 } else { 0.0 })];
    for (i, (&(first, count), &t)) in chunks.iter().zip(&tiles).enumerate() {
        let (o, s) = range(first, count);
        plan.pass(
            name("tiles", i),
            &k_tiles,
            "main",
            &inc,
            &[
                ("params", params[i]),
                ("input", input),
                ("tile_prefix", tile_sums),
                ("output", output),
            ],
            Workgroups::Direct(grid_2d(t, max)),
        )?
        .range("input", o, s)?
        .range("output", o, s)?;
    }
    Ok(())
}

/// Builds the plan scanning `data`.
pub fn plan(caps: &Caps, data: &[u32], inclusive: bool) -> Result<ScanPlan> {
    let n = data.len() as u64;
    if n > u32::MAX as u64 || padded_bytes(n) > caps.max_buffer {
        return Err(Error::TooLarge(format!(
            "{n} elements exceed the adapter's largest buffer ({} bytes)",
            caps.max_buffer
        )));
    }
    let mut plan = Plan::new(if inclusive {
        "scan inclusive u32"
    } else {
        "scan exclusive u32"
    });
    let mut bytes = bytemuck::cast_slice::<u32, u8>(data).to_vec();
    bytes.resize(padded_bytes(n) as usize, 0);
    let padded = bytes.len() as u64;
    let input = plan.buffer("input", padded, BufferInit::Bytes(bytes));
    let output = plan.buffer("output", padded, BufferInit::Poison);
    append(&mut plan, caps, input, output, n, inclusive, "u32")?;
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
