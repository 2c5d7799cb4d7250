// Scan in a single pass: a chained scan with decoupled look-back (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016), as CUB's DeviceScan. Each workgroup
// takes a tile (4 to 16 rows of WG_SIZE vec4s, scan/lib/tile.wgsl), scans it, publishes its sum
// (the aggregate), finds the sum of everything before it by looking back over its
// predecessors' published sums, publishes its inclusive prefix, and writes the tile out. Input
// is read once and output written once: 8 bytes per element.
//
// Forward progress: a predecessor still silent after SPIN window reads is not waited for: the
// lane group (scan/lib/group.*.wgsl) reduces that predecessor's tile from the input itself
// (decoupled fallback, as the sort's OneSweep pass does) and looks on past it, so no tile ever
// depends on another workgroup being scheduled. Tiles are their workgroup's index, or
// (TICKETS = 1) take their index from an atomic ticket in order of start, so every predecessor
// has at least started and the fallback is rare on any device.
//
// Status words (`state`, scan/lib/params.wgsl's layout): WGSL has no 64-bit atomics and its
// atomics are relaxed, so a 32-bit sum and its flag cannot share one word. Each tile's status is
// two words, the low and the high 16 bits of the sum, each with the flag (FLAG_AGGREGATE or
// FLAG_INCLUSIVE) above them. A reader takes a tile's sum only where both words carry the same
// flag: each word says which sum its half belongs to, so the halves cannot come from different
// sums. Tile 0 publishes its inclusive prefix only.
//
// Two halves of status words alternate between runs, so none needs a clearing pass: a run
// publishes into the half the books name (STATE_HALF), all zero, and clears the slots the run
// before left written in the other, spread over its workgroups while the lane group looks back.
// Each tile reads the books when it takes its place and then arrives (STATE_ARRIVED); the last
// to arrive turns them over for the next run, when every tile of this one has read them and
// taken its ticket.
//
// INCLUSIVE = 1 gives the inclusive scan (scan/lib/tile.wgsl).

//!include shared/wg_ops
//!include scan/lib/group
//!include scan/lib/tile

// TILE (scan/lib/params), elements per tile: QUADS quads of rows (4 rows of WG_SIZE vec4s each),
// QUADS 1 to MAX_QUADS (the host checks)
// window reads that find the same predecessor silent before the fallback reduces its tile
override SPIN: u32 = 64u;
// 1: tiles in order of start from an atomic ticket; 0: tile = workgroup index (ScanPolicy::tickets)
override TICKETS: u32 = 0u;
// tiles of all chunks at the plan's maximum count: the status words of one half
override MAX_TILES: u32 = 0u;

const MAX_QUADS: u32 = 4u;
override QUADS: u32 = TILE / (16u * WG_SIZE);

const FLAG_AGGREGATE: u32 = 1u;
const FLAG_INCLUSIVE: u32 = 2u;

@group(0) @binding(0) var<uniform> params_block: ScanParams;
// word 0 of the same control copy: the count (scan/lib/params)
@group(0) @binding(6) var<uniform> count_word: vec4<u32>;
// this run's params (run_params)
var<private> params: ScanParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
// views of the same buffers as words, for the last one to three elements (scan/lib/tile.wgsl)
@group(0) @binding(4) var<storage, read> input_words: array<u32>;
@group(0) @binding(5) var<storage, read_write> output_words: array<u32>;

var<workgroup> sc_tile: u32;
// the books as this tile read them: the half it publishes into, the other half's slots to clear
var<workgroup> sc_half: u32;
var<workgroup> sc_stale_tiles: u32;
// the segments' row totals, row by row (row j of segment s at j * seg_count + s), then their
// exclusive prefixes within the tile
var<workgroup> sc_rows: array<u32, 4u * MAX_QUADS * LG_SEGMENTS>;
// the tile's exclusive prefix
var<workgroup> sc_prefix: u32;

// The first status word of half h.
fn half_base(h: u32) -> u32 {
    return STATE_STATUS + 2u * MAX_TILES * h;
}

// Publishes `sum` with `flag` as tile g's status in the half from word `status` (one
// invocation).
fn publish(status: u32, g: u32, flag: u32, sum: u32) {
    atomicStore(&state[status + 2u * g], (flag << 16u) | (sum & 0xffffu));
    atomicStore(&state[status + 2u * g + 1u], (flag << 16u) | (sum >> 16u));
}

// The tile's place in the run (one invocation): the books read, a ticket taken, and its
// arrival counted; the run's last tile to arrive turns the books over. Returns the tile (that
// is, params.tiles for a workgroup past the last, which takes no ticket and does not arrive).
fn take_place(linear: u32) -> u32 {
    if linear >= params.tiles {
        return params.tiles;
    }
    var tile = linear;
    if TICKETS != 0u {
        tile = atomicAdd(&state[STATE_TICKETS + params.chunk], 1u);
    }
    let half = atomicLoad(&state[STATE_HALF]) & 1u;
    sc_half = half;
    sc_stale_tiles = atomicLoad(&state[STATE_USED + (half ^ 1u)]);
    if atomicAdd(&state[STATE_ARRIVED], 1u) + 1u == params.total_tiles {
        // every tile of the run has read the books and taken its ticket
        atomicStore(&state[STATE_USED + half], params.total_tiles);
        atomicStore(&state[STATE_USED + (half ^ 1u)], 0u);
        atomicStore(&state[STATE_HALF], half ^ 1u);
        for (var c = 0u; c < CHUNKS; c++) {
            atomicStore(&state[STATE_TICKETS + c], 0u);
        }
        atomicStore(&state[STATE_ARRIVED], 0u);
    }
    return tile;
}

// The flag of a status read as (lo, hi): 0 where the tile has published nothing or the two words
// carry different flags (a sum being replaced by the next), so the sum is not taken.
fn status_flag(lo: u32, hi: u32) -> u32 {
    let f = lo >> 16u;
    return select(0u, f, f == (hi >> 16u));
}

fn status_sum(lo: u32, hi: u32) -> u32 {
    return (lo & 0xffffu) | (hi << 16u);
}

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

// Scans quad q's four rows within the segment (the invocation's sums of each row at once):
// returns the sums before this invocation in each row, and leaves the segment's row totals in
// sc_rows. Call from uniform control flow.
fn seg_scan_quad(inv: Inv, q: u32, x: Quad, segs: u32, seg: u32) -> vec4<u32> {
    let s = vec4<u32>(hsum(x.r0), hsum(x.r1), hsum(x.r2), hsum(x.r3));
    let incl = seg_inclusive4(inv, s);
    if seg_last(inv) {
        sc_rows[(4u * q) * segs + seg] = incl.x;
        sc_rows[(4u * q + 1u) * segs + seg] = incl.y;
        sc_rows[(4u * q + 2u) * segs + seg] = incl.z;
        sc_rows[(4u * q + 3u) * segs + seg] = incl.w;
    }
    return incl - s;
}

// The exclusive prefixes, within the tile, of quad q's four rows of this segment (after the lane
// group's scan of sc_rows).
fn row_starts(q: u32, segs: u32, seg: u32) -> vec4<u32> {
    return vec4<u32>(
        sc_rows[(4u * q) * segs + seg],
        sc_rows[(4u * q + 1u) * segs + seg],
        sc_rows[(4u * q + 2u) * segs + seg],
        sc_rows[(4u * q + 3u) * segs + seg],
    );
}

// Stores quad x, whose first row holds vec4 v, scanned: row j's elements follow run[j].
fn store_quad(full: bool, n: u32, v: u32, run: vec4<u32>, x: Quad) {
    let y0 = scan_vec(run.x, x.r0);
    let y1 = scan_vec(run.y, x.r1);
    let y2 = scan_vec(run.z, x.r2);
    let y3 = scan_vec(run.w, x.r3);
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
// decoupled fallback.
fn tile_sum(inv: Inv, q: u32) -> u32 {
    var s = 0u;
    // (TILE / 4 is a multiple of the lane group's size: every lane takes as many steps)
    for (var i = lg_lane(inv); i < TILE / 4u; i += lg_size(inv)) {
        s += hsum(input[q * (TILE / 4u) + i]);
    }
    return lg_sum(inv, s);
}

// The sum of tiles 0..g-1 (g > 0), by the lane group: decoupled look-back. Each step reads a
// window of predecessors, lane l tile pos - l (independent loads: one round trip per window),
// and adds the aggregates up to the nearest inclusive prefix. A step that stops at a silent
// predecessor moves the window to it; after SPIN steps that find it still silent, the lane group
// reduces its tile itself and steps past it. Every value here is uniform over the lane group.
fn look_back(inv: Inv, status: u32, g: u32) -> u32 {
    let lane = lg_lane(inv);
    let size = lg_size(inv);
    var acc = 0u;
    // the nearest predecessor not yet taken
    var pos = g - 1u;
    // steps that found predecessor pos silent
    var silent = 0u;
    loop {
        // (lanes past tile 0 read tile 0 again; the walk never reaches them: tile 0 publishes
        // only its inclusive prefix)
        let p = pos - min(lane, pos);
        let lo = atomicLoad(&state[status + 2u * p]);
        let hi = atomicLoad(&state[status + 2u * p + 1u]);
        let flag = status_flag(lo, hi);
        // the walk stops at the first lane without an aggregate: an inclusive prefix (done) or a
        // silent predecessor
        let stop = lg_first(inv, flag != FLAG_AGGREGATE);
        let first_inclusive = lg_first(inv, flag == FLAG_INCLUSIVE);
        let done = stop < size && first_inclusive == stop;
        let take = lane < stop || (done && lane == stop);
        acc += lg_sum(inv, select(0u, status_sum(lo, hi), take));
        if done {
            break;
        }
        if stop == size {
            // a whole window of aggregates (so pos >= size: tile 0 is never an aggregate)
            pos -= size;
            silent = 0u;
            continue;
        }
        pos -= stop;
        silent = select(1u, silent + 1u, stop == 0u);
        // (a predecessor in an earlier chunk's dispatch has published: only this chunk's tiles
        // are reduced, from this chunk's binding)
        if silent > SPIN && pos >= params.tile_base {
            // decoupled fallback
            acc += tile_sum(inv, pos - params.tile_base);
            if pos == 0u {
                break;
            }
            pos -= 1u;
            silent = 0u;
        }
    }
    return acc;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    params = run_params(params_block, count_word);
    // tile index: a ticket in order of start, or the workgroup's index
    if inv.lid == 0u {
        sc_tile = take_place(wid.x + wid.y * nwg.x);
    }
    let tile = workgroupUniformLoad(&sc_tile);
    // the grid may have workgroups past the last tile: the whole workgroup leaves
    if tile >= params.tiles {
        return;
    }
    // (sc_half and sc_stale_tiles: written before workgroupUniformLoad's barrier)
    let status = half_base(sc_half);
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
    // the lane group: the row totals' exclusive prefixes in scan order (row by row, segment by
    // segment), the tile's sum published, the look-back, the inclusive prefix published
    if lg_member(inv) {
        let lane = lg_lane(inv);
        let count = 4u * QUADS * segs;
        var carry = 0u;
        for (var b = 0u; b < count; b += lg_size(inv)) {
            let i = b + lane;
            var t = 0u;
            if i < count {
                t = sc_rows[i];
            }
            let s = lg_scan(inv, t);
            if i < count {
                sc_rows[i] = carry + s.x;
            }
            carry += s.y;
        }
        if lane == 0u {
            publish(status, g, select(FLAG_AGGREGATE, FLAG_INCLUSIVE, g == 0u), carry);
        }
        var prefix = 0u;
        if g != 0u {
            prefix = look_back(inv, status, g);
            if lane == 0u {
                publish(status, g, FLAG_INCLUSIVE, prefix + carry);
            }
        }
        if lane == 0u {
            sc_prefix = prefix;
        }
    }
    // this tile's share of the slots the run before left written in the other half, cleared
    // (with subgroups, by the other subgroups while the lane group looks back)
    let total = params.total_tiles;
    let stale = half_base(sc_half ^ 1u);
    let stale_tiles = sc_stale_tiles;
    for (var t = g + inv.lid * total; t < stale_tiles; t += WG_SIZE * total) {
        atomicStore(&state[stale + 2u * t], 0u);
        atomicStore(&state[stale + 2u * t + 1u], 0u);
    }
    // barrier: the row prefixes and the tile's prefix are in
    workgroupBarrier();
    let prefix = sc_prefix;
    // store: whole vec4s, then (a partial tile) the elements of a last partial one as words
    store_quad(full, n, v, prefix + row_starts(0u, segs, seg) + b0, x0);
    if QUADS > 1u {
        store_quad(full, n, v + 4u * WG_SIZE, prefix + row_starts(1u, segs, seg) + b1, x1);
    }
    if QUADS > 2u {
        store_quad(full, n, v + 8u * WG_SIZE, prefix + row_starts(2u, segs, seg) + b2, x2);
    }
    if QUADS > 3u {
        store_quad(full, n, v + 12u * WG_SIZE, prefix + row_starts(3u, segs, seg) + b3, x3);
    }
}
