// Scan stage 2 of 3: exclusive prefix sum of all tile sums, in place, by one workgroup walking
// blocks of WG_SIZE * 4 with a running carry (the block loop's bound is uniform).

//!include shared/wg_ops
//!include scan/lib/params

@group(0) @binding(0) var<storage, read_write> tile_sums: array<u32>;
@group(0) @binding(1) var<uniform> params: ScanParams;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let count = params.total_tiles;
    let r = inv_rank(inv);
    var carry = 0u;
    for (var block = 0u; block < count; block += WG_SIZE * 4u) {
        // load four consecutive sums per invocation
        var v: array<u32, 4>;
        var s = 0u;
        for (var j = 0u; j < 4u; j++) {
            let i = block + r * 4u + j;
            // (only inside the array: a clamped read of the last sum would race with its
            // owner's store below, storage-race)
            if i < count {
                v[j] = tile_sums[i];
            }
            s += v[j];
        }
        // scan
        let scanned = wg_scan_add_u32(inv, s);
        // store
        var run = carry + scanned.x;
        for (var j = 0u; j < 4u; j++) {
            let i = block + r * 4u + j;
            if i < count {
                tile_sums[i] = run;
            }
            run += v[j];
        }
        carry += scanned.y;
    }
}
