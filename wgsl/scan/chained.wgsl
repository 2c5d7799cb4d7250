// Scan in a single pass: a chained scan with decoupled look-back (shared/chain.wgsl), as
// CUB's DeviceScan. Each workgroup takes a tile (4 to 16 rows of WG_SIZE vec4s,
// scan/lib/tile.wgsl), scans it, publishes its sum, looks back for the sum of everything before
// it, publishes its inclusive prefix, and writes the tile out. Input is read once and output
// written once: 8 bytes per element. No tile waits on another workgroup being scheduled (the
// look-back's fallback sums a silent predecessor's tile from the input, `tile_sum`).
//
// INCLUSIVE = 1 gives the inclusive scan (scan/lib/tile.wgsl).
//
// By an operator: "sum" here is the combination by shared/operator's `op` (scan/lib/by_operator),
// in input order; the default is the u32 sum, and a Scanner made with an operator composes its
// text in place of shared/operator (src/scan.rs), with subgroups only (the emulated lane groups
// add). Where the operator's identity is promised on the left only, each combination says what
// holds something (shared/chain's chain_join).

//!include shared/wg_ops
//!include shared/chain_group
//!include scan/lib/by_operator
//!include scan/lib/tile
//!include shared/chain

@group(0) @binding(0) var<uniform> params_block: ScanParams;
// word 0 of the same control copy: the count (shared/chain_params)
@group(0) @binding(6) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
// views of the same buffers as words, for the last one to three elements (scan/lib/tile.wgsl)
@group(0) @binding(4) var<storage, read> input_words: array<u32>;
@group(0) @binding(5) var<storage, read_write> output_words: array<u32>;

// Four rows of a tile: this invocation's vec4 in each.
struct Quad {
    r0: vec4<u32>,
    r1: vec4<u32>,
    r2: vec4<u32>,
    r3: vec4<u32>,
}

// The quad whose first row holds vec4 v (the chunk's vec4 index); of a full tile without
// checks.
fn load_quad(full: bool, n: u32, v: u32) -> Quad {
    if full {
        return Quad(input[v], input[v + WG_SIZE], input[v + 2u * WG_SIZE], input[v + 3u * WG_SIZE]);
    }
    return Quad(
        load_vec(n, v),
        load_vec(n, v + WG_SIZE),
        load_vec(n, v + 2u * WG_SIZE),
        load_vec(n, v + 3u * WG_SIZE),
    );
}

// Scans quad q's four rows within the segment (shared/chain's seg_scan_rows).
fn seg_scan_quad(inv: Inv, q: u32, x: Quad, segs: u32, seg: u32) -> vec4<u32> {
    return seg_scan_rows(inv, q, vec4<u32>(hsum(x.r0), hsum(x.r1), hsum(x.r2), hsum(x.r3)), segs, seg);
}

// What comes before this invocation's first element in each of quad q's rows: the tile's
// prefix (tile g's: nothing for tile 0), the row's start in the tile (row_starts: nothing for
// the tile's first row of segment 0), the segment's lanes before this one (seg_scan_rows:
// nothing for its first lane), combined in that order.
struct Runs {
    run: vec4<u32>,
    // (all but the first element of all have something before them)
    have: vec4<bool>,
}

fn quad_runs(inv: Inv, g: u32, q: u32, seg: u32, prefix: u32, starts: vec4<u32>, before: vec4<u32>) -> Runs {
    let p = vec4<u32>(prefix);
    if CHAIN_TWO_SIDED {
        // (each "nothing" is the identity)
        return Runs(chain_op4(chain_op4(p, starts), before), vec4<bool>(true));
    }
    let has_p = g > 0u;
    let has_lane = seg_lane(inv) > 0u;
    var has_start = vec4<bool>(true);
    has_start.x = q > 0u || seg > 0u;
    var run = vec4<u32>();
    var have = vec4<bool>();
    for (var j = 0u; j < 4u; j++) {
        let ps = chain_join(prefix, has_p, starts[j], has_start[j]);
        run[j] = chain_join(ps, has_p || has_start[j], before[j], has_lane);
        have[j] = has_p || has_start[j] || has_lane;
    }
    return Runs(run, have);
}

// Stores quad x, whose first row holds vec4 v, scanned: row j's elements follow r.run[j].
fn store_quad(full: bool, n: u32, v: u32, r: Runs, x: Quad) {
    let y0 = scan_vec(r.run.x, r.have.x, x.r0);
    let y1 = scan_vec(r.run.y, r.have.y, x.r1);
    let y2 = scan_vec(r.run.z, r.have.z, x.r2);
    let y3 = scan_vec(r.run.w, r.have.w, x.r3);
    if full {
        output[v] = y0;
        output[v + WG_SIZE] = y1;
        output[v + 2u * WG_SIZE] = y2;
        output[v + 3u * WG_SIZE] = y3;
    } else {
        store_vec(n, v, y0);
        store_vec(n, v + WG_SIZE, y1);
        store_vec(n, v + 2u * WG_SIZE, y2);
        store_vec(n, v + 3u * WG_SIZE, y3);
    }
}

// The sum of tile q of this chunk (a full tile: it has a successor), by the lane group: the
// look-back's decoupled fallback (shared/chain). The sum's lanes each take every lg_size-th
// vec4; an operator's take rows of lg_size vec4s in order.
fn tile_sum(inv: Inv, q: u32) -> u32 {
    let first = q * (TILE / 4u);
    // (TILE / 4 is a multiple of the lane group's size: every lane takes as many steps)
    if CHAIN_ADDS {
        var s = 0u;
        for (var i = lg_lane(inv); i < TILE / 4u; i += lg_size(inv)) {
            s += hsum(input[first + i]);
        }
        return lg_sum(inv, s);
    }
    var acc = lg_fold(inv, hsum(input[first + lg_lane(inv)]));
    for (var r = lg_size(inv); r < TILE / 4u; r += lg_size(inv)) {
        acc = chain_op(acc, lg_fold(inv, hsum(input[first + r + lg_lane(inv)])));
    }
    return acc;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // tile index: a ticket in order of start, or the workgroup's index
    let tile = chain_enter(inv, wid.x + wid.y * nwg.x);
    // the grid may have workgroups past the last tile: the whole workgroup leaves
    if tile >= params.tiles {
        return;
    }
    let g = params.tile_base + tile;
    let n = params.n;
    let full = n - tile * TILE >= TILE;
    // load: up to four quads of rows, each row one coalesced stretch, this invocation's vec4 in
    // each (a full tile without checks). Named quads, not an array indexed in a loop: with an
    // array, 12288-element tiles ran at about half the speed (1.35 against 0.72 ms at 2^28,
    // H200, 2026-11-27).
    let v = tile * (TILE / 4u) + inv_rank(inv);
    let x0 = load_quad(full, n, v);
    var x1 = Quad();
    var x2 = Quad();
    var x3 = Quad();
    if QUADS > 1u {
        x1 = load_quad(full, n, v + 4u * WG_SIZE);
    }
    if QUADS > 2u {
        x2 = load_quad(full, n, v + 8u * WG_SIZE);
    }
    if QUADS > 3u {
        x3 = load_quad(full, n, v + 12u * WG_SIZE);
    }
    // scan each row within the segment, a quad's four rows at once; the segment's last
    // invocation holds its row totals
    let seg = seg_index(inv);
    let segs = seg_count(inv);
    let b0 = seg_scan_quad(inv, 0u, x0, segs, seg);
    var b1 = vec4<u32>();
    var b2 = vec4<u32>();
    var b3 = vec4<u32>();
    if QUADS > 1u {
        b1 = seg_scan_quad(inv, 1u, x1, segs, seg);
    }
    if QUADS > 2u {
        b2 = seg_scan_quad(inv, 2u, x2, segs, seg);
    }
    if QUADS > 3u {
        b3 = seg_scan_quad(inv, 3u, x3, segs, seg);
    }
    // barrier: every segment's row totals are in sc_rows
    workgroupBarrier();
    // the lane group: the tile's sum published, the look-back, the inclusive prefix published
    if lg_member(inv) {
        chain_prefix(inv, g, segs);
    }
    clear_stale(inv, g);
    // barrier: the row prefixes and the tile's prefix are in
    workgroupBarrier();
    let prefix = sc_prefix;
    // store: whole vec4s, then (a partial tile) the elements of a last partial one as words
    store_quad(full, n, v, quad_runs(inv, g, 0u, seg, prefix, row_starts(0u, segs, seg), b0), x0);
    if QUADS > 1u {
        store_quad(full, n, v + 4u * WG_SIZE, quad_runs(inv, g, 1u, seg, prefix, row_starts(1u, segs, seg), b1), x1);
    }
    if QUADS > 2u {
        store_quad(full, n, v + 8u * WG_SIZE, quad_runs(inv, g, 2u, seg, prefix, row_starts(2u, segs, seg), b2), x2);
    }
    if QUADS > 3u {
        store_quad(full, n, v + 12u * WG_SIZE, quad_runs(inv, g, 3u, seg, prefix, row_starts(3u, segs, seg), b3), x3);
    }
}
