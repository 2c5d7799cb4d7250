// include-only
// The chain of tiles of a single-pass scan with decoupled look-back (Merrill & Garland,
// "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016), as CUB's: each workgroup
// takes a tile, sums it, publishes that sum (the aggregate), finds the sum of everything before
// it by looking back over its predecessors' published sums, and publishes its inclusive prefix.
// The scan (scan/chained.wgsl) writes the tile's prefix sums; the single-pass selection
// (select/compact.wgsl) sums the tile's marks and moves each selected element to its place.
//
// The including stage declares `params_block: ScanParams` and `count_word: vec4<u32>` (uniform),
// `state: array<atomic<u32>>` (the status words, shared/chain_params's layout), its input as
// `input: array<vec4<u32>>` and `input_words: array<u32>` (two views of one buffer, which may
// end inside a vec4: shared/load_vec reads its last one to three elements as words), and
// `fn tile_sum(inv: Inv, q: u32) -> u32`, the sum of its full tile q of this chunk by the lane
// group, read from its input (the decoupled fallback, below).
//
// Forward progress: a predecessor still silent after SPIN window reads is not waited for: the
// lane group (shared/chain_group.*.wgsl) sums that predecessor's tile from the input itself
// (`tile_sum`, as the sort's OneSweep pass does) and looks on past it, so no tile ever depends
// on another workgroup being scheduled. Tiles are their workgroup's index, or (TICKETS = 1)
// take their index from an atomic ticket in order of start, so every predecessor has at least
// started and the fallback is rare on any device.
//
// Status words: WGSL has no 64-bit atomics and its atomics are relaxed, so a 32-bit sum and its
// flag cannot share one word. Each tile's status is two words, the low and the high 16 bits of
// the sum, each with the flag (FLAG_AGGREGATE or FLAG_INCLUSIVE) above them. A reader takes a
// tile's sum only where both words carry the same flag: each word says which sum its half
// belongs to, so the halves cannot come from different sums. Tile 0 publishes its inclusive
// prefix only.
//
// Two halves of status words alternate between runs, so none needs a clearing pass: a run
// publishes into the half the books name (STATE_HALF), all zero, and clears the slots the run
// before left written in the other, spread over its workgroups while the lane group looks back.
// Each tile reads the books when it takes its place and then arrives (STATE_ARRIVED); the last
// to arrive turns them over for the next run, when every tile of this one has read them and
// taken its ticket.
//
// A tile is QUADS quads of rows (4 rows of WG_SIZE vec4s each, scan/lib/tile's layout); each
// row is scanned within its segment first, and the segments' row totals meet in sc_rows.
//
// The operator: "sum" above is the combination by `chain_op` (the including stage takes
// select/lib/chain_sum or scan/lib/by_operator), always in input order, so it need not commute.
// Nothing is put on the right of a value as a stand-in for "nothing" unless the identity is
// two-sided (CHAIN_TWO_SIDED): `chain_join` says what holds something, the look-back folds
// only the windows' taken tiles, and the lanes past a row's end are never combined into a total
// that is used. Elements past the count load as 0 whatever the operator: they come after every
// element stored, so they reach no stored result.

//!include shared/chain_params
//!include shared/load_vec

// window reads that find the same predecessor silent before the fallback sums its tile
override SPIN: u32 = 64u;
// 1: tiles in order of start from an atomic ticket; 0: tile = workgroup index (ScanPolicy::tickets)
override TICKETS: u32 = 0u;
// tiles of all chunks at the plan's maximum count: the status words of one half
override MAX_TILES: u32 = 0u;

// TILE (shared/chain_params), elements per tile: QUADS quads of rows, QUADS 1 to MAX_QUADS (the host
// checks)
const MAX_QUADS: u32 = 4u;
override QUADS: u32 = TILE / (16u * WG_SIZE);

const FLAG_AGGREGATE: u32 = 1u;
const FLAG_INCLUSIVE: u32 = 2u;

// this run's params (run_params)
var<private> params: ScanParams;

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

// The run's params and this workgroup's tile (the workgroup of linear index `linear`): at or past
// params.tiles for a workgroup past the last tile, which has nothing to do. Call from uniform
// control flow (a barrier).
fn chain_enter(inv: Inv, linear: u32) -> u32 {
    params = run_params(params_block, count_word);
    if inv.lid == 0u {
        sc_tile = take_place(linear);
    }
    // barrier: sc_tile, and with it sc_half and sc_stale_tiles, are written
    return workgroupUniformLoad(&sc_tile);
}

// chain_op on each of four lanes of a vector
fn chain_op4(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(chain_op(a.x, b.x), chain_op(a.y, b.y), chain_op(a.z, b.z), chain_op(a.w, b.w));
}

// a then b, each holding something or nothing (have_a, have_b): the identity where neither does
fn chain_join(a: u32, have_a: bool, b: u32, have_b: bool) -> u32 {
    if CHAIN_TWO_SIDED || (have_a && have_b) {
        // (a two-sided identity stands for nothing on either side)
        return chain_op(a, b);
    }
    if have_a {
        return a;
    }
    return select(chain_identity(), b, have_b);
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

// Scans quad q's four rows within the segment, given this invocation's sum of each row: returns
// the sums before this invocation in each row (nothing for the segment's first lane, seg_scan4),
// and leaves the segment's row totals in sc_rows. Call from uniform control flow.
fn seg_scan_rows(inv: Inv, q: u32, s: vec4<u32>, segs: u32, seg: u32) -> vec4<u32> {
    let scanned = seg_scan4(inv, s);
    let incl = scanned[1];
    if seg_last(inv) {
        sc_rows[(4u * q) * segs + seg] = incl.x;
        sc_rows[(4u * q + 1u) * segs + seg] = incl.y;
        sc_rows[(4u * q + 2u) * segs + seg] = incl.z;
        sc_rows[(4u * q + 3u) * segs + seg] = incl.w;
    }
    return scanned[0];
}

// The exclusive prefixes, within the tile, of quad q's four rows of this segment (after
// chain_prefix's scan of sc_rows); that of the tile's first row of segment 0 holds nothing.
fn row_starts(q: u32, segs: u32, seg: u32) -> vec4<u32> {
    return vec4<u32>(
        sc_rows[(4u * q) * segs + seg],
        sc_rows[(4u * q + 1u) * segs + seg],
        sc_rows[(4u * q + 2u) * segs + seg],
        sc_rows[(4u * q + 3u) * segs + seg],
    );
}

// The sum of tiles 0..g-1 (g > 0), by the lane group: decoupled look-back. Each step reads a
// window of predecessors, lane l tile pos - l (independent loads: one round trip per window),
// and adds the aggregates up to the nearest inclusive prefix, each window's before what it has
// (`acc`, which holds something once `have`). A step that stops at a silent predecessor moves
// the window to it; after SPIN steps that find it still silent, the lane group sums its tile
// itself and steps past it. Every value here is uniform over the lane group.
fn look_back(inv: Inv, status: u32, g: u32) -> u32 {
    let lane = lg_lane(inv);
    let size = lg_size(inv);
    var acc = chain_identity();
    var have = false;
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
        // lanes below `taken` are taken: the aggregates, and the inclusive prefix if done
        let taken = select(stop, stop + 1u, done);
        if CHAIN_ADDS {
            // (not under the branch below: there the H200's compiler gave the inclusive u32
            // scan 75 registers instead of 64, and it took 0.0184 against 0.0157 ms at 2^22,
            // 2026-11-30)
            acc += lg_sum(inv, select(0u, status_sum(lo, hi), lane < taken));
        } else if taken > 0u {
            let window = lg_fold_down(inv, status_sum(lo, hi), taken);
            acc = chain_join(window, true, acc, have);
            have = true;
        }
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
        // are summed, from this chunk's binding)
        if silent > SPIN && pos >= params.tile_base {
            // decoupled fallback
            acc = chain_join(tile_sum(inv, pos - params.tile_base), true, acc, have);
            have = true;
            if pos == 0u {
                break;
            }
            pos -= 1u;
            silent = 0u;
        }
    }
    return acc;
}

// The lane group's part, after every segment's row totals are in sc_rows (a barrier): the row
// totals' exclusive prefixes in scan order (row by row, segment by segment), the tile's sum
// published, the look-back, the inclusive prefix published, the tile's exclusive prefix in
// sc_prefix. Returns (the tile's exclusive prefix, its sum) to every lane of the group. Call
// from control flow uniform over the lane group.
fn chain_prefix(inv: Inv, g: u32, segs: u32) -> vec2<u32> {
    let status = half_base(sc_half);
    let lane = lg_lane(inv);
    let count = 4u * QUADS * segs;
    // (holds something from the second round on)
    var carry = chain_identity();
    for (var b = 0u; b < count; b += lg_size(inv)) {
        let i = b + lane;
        var t = chain_identity();
        if i < count {
            t = sc_rows[i];
        }
        let s = lg_scan(inv, t, min(count - b, lg_size(inv)));
        if i < count {
            sc_rows[i] = chain_join(carry, b > 0u, s.x, lane > 0u);
        }
        carry = chain_join(carry, b > 0u, s.y, true);
    }
    if lane == 0u {
        publish(status, g, select(FLAG_AGGREGATE, FLAG_INCLUSIVE, g == 0u), carry);
    }
    // (tile 0's holds nothing)
    var prefix = chain_identity();
    if g != 0u {
        prefix = look_back(inv, status, g);
        if lane == 0u {
            publish(status, g, FLAG_INCLUSIVE, chain_op(prefix, carry));
        }
    }
    if lane == 0u {
        sc_prefix = prefix;
    }
    return vec2<u32>(prefix, carry);
}

// This tile's share of the slots the run before left written in the other half, cleared (with
// subgroups, by the other subgroups while the lane group looks back).
fn clear_stale(inv: Inv, g: u32) {
    let total = params.total_tiles;
    let stale = half_base(sc_half ^ 1u);
    let stale_tiles = sc_stale_tiles;
    for (var t = g + inv.lid * total; t < stale_tiles; t += WG_SIZE * total) {
        atomicStore(&state[stale + 2u * t], 0u);
        atomicStore(&state[stale + 2u * t + 1u], 0u);
    }
}
