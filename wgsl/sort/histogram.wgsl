// Radix sort, reduce-then-scan, stage 1 of 3 per digit: each tile's digit counts, written
// digit-major (digit d of tile t at hist_base + d * hist_stride, see `describe`), so that one
// exclusive scan of the whole array gives every (digit, tile) its first output position
// (Merrill & Grimshaw, "High Performance and Scalable Radix Sorting", 2011: upsweep).

//!include shared/sort_tile

@group(0) @binding(5) var<storage, read_write> hist: array<u32>;

var<workgroup> counts: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // the 2-D grid may have a few workgroups past the last tile: the whole workgroup leaves
    let tile = wid.x + wid.y * nwg.x;
    if tile >= params.tiles {
        return;
    }
    let desc = describe(tile);
    if desc.y == 0u {
        return;
    }
    atomicStore(&counts[inv.lid], 0u);
    // barrier: counters cleared before anyone counts
    workgroupBarrier();
    // load: consecutive invocations read consecutive keys, all KPT loads issued before any
    // counting so that they overlap (a load-then-count loop kept one load in flight)
    var keys: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
        let i = j * WG_SIZE + inv.lid;
        keys[j] = keys_in[desc.x + min(i, desc.y - 1u)];
    }
    // count
    for (var j = 0u; j < KPT; j++) {
        if j * WG_SIZE + inv.lid < desc.y {
            var k = keys[j];
            if MAP_IN != 0u {
                k = to_sortable(k);
            }
            atomicAdd(&counts[digit_of(k)], 1u);
        }
    }
    // barrier: every key is counted
    workgroupBarrier();
    // store
    hist[desc.z + inv.lid * desc.w] = atomicLoad(&counts[inv.lid]);
}
