// Scan stage 3 of 3: each tile scanned in workgroup memory and offset by its tile prefix.
// INCLUSIVE = 1 gives the inclusive scan.

//!include shared/wg_ops
//!include shared/scan_tile

override INCLUSIVE: u32 = 0u;

@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<vec4<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    if tile >= params.tiles {
        return;
    }
    let r = inv_rank(inv);
    // load
    let items = load_items(params.n, tile, r);
    var s = 0u;
    for (var j = 0u; j < 4u; j++) {
        s += items[j].x + items[j].y + items[j].z + items[j].w;
    }
    // scan: invocation totals across the workgroup, then sequentially inside each invocation
    let scanned = wg_scan_add_u32(inv, s);
    var run = tile_prefix[params.tile_base + tile] + scanned.x;
    // store: whole vec4s only where all four lanes are inside n; the last partial vec4 by element
    let first_vec = tile * (TILE / 4u) + r * 4u;
    let n_vecs = (params.n + 3u) / 4u;
    for (var j = 0u; j < 4u; j++) {
        let x = items[j];
        var o: vec4<u32>;
        if INCLUSIVE != 0u {
            o = vec4<u32>(run + x.x, run + x.x + x.y, run + x.x + x.y + x.z, run + x.x + x.y + x.z + x.w);
        } else {
            o = vec4<u32>(run, run + x.x, run + x.x + x.y, run + x.x + x.y + x.z);
        }
        run += x.x + x.y + x.z + x.w;
        let v = first_vec + j;
        if v < n_vecs {
            output[v] = o;
        }
    }
}
