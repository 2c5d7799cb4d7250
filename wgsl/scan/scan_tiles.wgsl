// Scan stage 3 of 3: each tile scanned and offset by its tile prefix. The four rows are scanned
// at once as the four lanes of one vec4 workgroup scan; row j then starts after rows 0..j-1.
// INCLUSIVE = 1 gives the inclusive scan.

//!include shared/wg_ops
//!include scan/lib/tile

override INCLUSIVE: u32 = 0u;

@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<vec4<u32>>;
// views of the same buffers as words, for the last one to three elements (scan/lib/tile.wgsl)
@group(0) @binding(4) var<storage, read> input_words: array<u32>;
@group(0) @binding(5) var<storage, read_write> output_words: array<u32>;

// The scanned vec4 whose elements follow `run` (exclusive or inclusive per INCLUSIVE).
fn scan_vec(run: u32, x: vec4<u32>) -> vec4<u32> {
    let ex = vec4<u32>(run, run + x.x, run + x.x + x.y, run + x.x + x.y + x.z);
    if INCLUSIVE != 0u {
        return ex + x;
    }
    return ex;
}

// Stores the scanned vec4 at index v: whole, or its elements below n.
fn store_vec(n: u32, v: u32, x: vec4<u32>) {
    let first = v * 4u;
    if first + 4u <= n {
        output[v] = x;
        return;
    }
    if first < n {
        output_words[first] = x.x;
    }
    if first + 1u < n {
        output_words[first + 1u] = x.y;
    }
    if first + 2u < n {
        output_words[first + 2u] = x.z;
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    if tile >= params.tiles {
        return;
    }
    let r = inv_rank(inv);
    let n = params.n;
    // load: four coalesced rows, this invocation's vec4 in each
    let base = tile * (TILE / 4u) + r;
    let x0 = load_vec(n, base);
    let x1 = load_vec(n, base + WG_SIZE);
    let x2 = load_vec(n, base + 2u * WG_SIZE);
    let x3 = load_vec(n, base + 3u * WG_SIZE);
    // scan: the four rows' invocation sums in one vec4 scan
    let scanned = wg_scan_add_vec4(inv, vec4<u32>(hsum(x0), hsum(x1), hsum(x2), hsum(x3)));
    let before = scanned[0];
    let totals = scanned[1];
    let start = tile_prefix[params.tile_base + tile];
    let row1 = start + totals.x;
    let row2 = row1 + totals.y;
    let row3 = row2 + totals.z;
    // store: whole vec4s, then the elements of a last partial one as words, so nothing past
    // n is written
    store_vec(n, base, scan_vec(start + before.x, x0));
    store_vec(n, base + WG_SIZE, scan_vec(row1 + before.y, x1));
    store_vec(n, base + 2u * WG_SIZE, scan_vec(row2 + before.z, x2));
    store_vec(n, base + 3u * WG_SIZE, scan_vec(row3 + before.w, x3));
}
