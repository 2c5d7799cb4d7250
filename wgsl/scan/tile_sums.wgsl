// Scan stage 1 of 3 (reduce-then-scan, Merrill & Garland's "Single-pass Parallel Prefix Scan"
// baseline): the wrapping u32 sum of each tile (ROWS x WG_SIZE vec4s, see scan/lib/tile.wgsl).

//!include shared/wg_ops
//!include scan/lib/tile

@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> input_words: array<u32>;
@group(0) @binding(2) var<storage, read_write> tile_sums: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    // the 2-D grid may have a few workgroups past the last tile: the whole workgroup leaves
    if tile >= params.tiles {
        return;
    }
    // load: four coalesced rows (the order does not matter for a sum, so local index is fine)
    let base = tile * (TILE / 4u) + inv.lid;
    let s = hsum(load_vec(params.n, base)) + hsum(load_vec(params.n, base + WG_SIZE))
          + hsum(load_vec(params.n, base + 2u * WG_SIZE)) + hsum(load_vec(params.n, base + 3u * WG_SIZE));
    // reduce
    let total = wg_reduce_u32(inv, OP_ADD, s);
    // store
    if inv.lid == 0u {
        tile_sums[params.tile_base + tile] = total;
    }
}
