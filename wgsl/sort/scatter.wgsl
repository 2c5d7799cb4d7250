// Radix sort, reduce-then-scan, stage 3 of 3 per digit: rank the tile's keys stably by digit
// (warp-level multisplit, shared/sort_tile.wgsl) and scatter keys (and values) to the positions
// the scanned histogram gives (Merrill & Grimshaw 2011: downsweep). Nothing waits on another
// workgroup.

//!include shared/sort_tile

// exclusive scan of the histogram stage's output
@group(0) @binding(5) var<storage, read> offsets: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    if tile >= params.tiles {
        return;
    }
    let desc = describe(tile);
    if desc.y == 0u {
        return;
    }
    // load
    let t = tile_load(inv, desc.x, desc.y);
    // rank
    let rank = tile_rank(inv, t, desc.y);
    // offsets of this tile's digits (visible to all after tile_scatter's first barrier)
    digit_base[inv.lid] = offsets[desc.z + inv.lid * desc.w];
    // scatter
    tile_scatter(inv, t, rank, desc.x, desc.y);
}
