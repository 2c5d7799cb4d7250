// Select in a single pass: stream compaction on the chained scan's look-back
// (shared/chain.wgsl), as CUB's DeviceSelect. Each workgroup takes a tile of elements (rows
// of WG_SIZE vec4s, scan/lib/tile's layout), marks each element (KIND, below), counts the marks
// of each row within its segment, publishes the tile's count, looks back for the count of
// everything selected before it, and moves each selected element to its place, a quad of rows
// at a time through workgroup memory so that every write to memory is a coalesced stretch: the
// elements are read once and the selected ones written once, with the flags read once beside
// them.
// With PARTITION each other element goes to `rejects` at the count of the others before it
// (select/tail.wgsl then moves them after the selected ones, once every tile has its place).
// The tile whose inclusive count is the run's writes it to `selected[0]`; a run of 0 elements
// has one empty tile (MIN_TILES, shared/chain_params), which writes 0.
//
// KIND 0: flags as bytes, four to a word (numpy's bool and uint8: one word per vec4 of
// elements); 1: flags as u32; 2: the elements themselves, kept where `keep` (select/lib/keep, or
// the caller's predicate) holds; 3: the elements where a run of equal words begins (the first,
// and each that differs from the one before it: unique, src/runs.rs). A nonzero flag selects. Elements move as words: every bit
// pattern is kept.

//!include shared/wg_ops
//!include shared/chain_group
//!include select/lib/chain_sum
//!include shared/chain
//!include select/lib/keep

override KIND: u32 = 0u;
override PARTITION: u32 = 0u;
// 1: each selected element's index goes to `rejects` at its place too (the heads' positions,
// from which select/lengths.wgsl takes the runs' lengths); not with PARTITION
override POSITIONS: u32 = 0u;

@group(0) @binding(0) var<uniform> params_block: ScanParams;
// word 0 of the same control copy: the count (shared/chain_params)
@group(0) @binding(1) var<uniform> count_word: vec4<u32>;
@group(0) @binding(2) var<storage, read> input: array<vec4<u32>>;
// the same buffer as words, for the last one to three elements
@group(0) @binding(3) var<storage, read> input_words: array<u32>;
// the flags (KIND 0, 1) as words; with KIND 2 the elements again, unread
@group(0) @binding(4) var<storage, read> flags: array<u32>;
@group(0) @binding(5) var<storage, read_write> output: array<u32>;
// PARTITION: the elements not selected, in order; POSITIONS: the selected ones' indices;
// otherwise the output again, unwritten
@group(0) @binding(6) var<storage, read_write> rejects: array<u32>;
@group(0) @binding(7) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> selected: array<u32>;

// one quad of elements (4 rows of WG_SIZE vec4s), the selected first, then the others (two
// quads staged at once, alternating halves so that a quad need not wait for the one before it
// to be read out, took 1.19 against 0.77 ms at 2^28, H200, 2026-11-30)
var<workgroup> sc_stage: array<u32, 16u * WG_SIZE>;
// the tile's selected count
var<workgroup> sc_total: u32;

fn keeps(x: u32) -> u32 {
    return select(0u, 1u, keep(bitcast<Element>(x)));
}

// The marks of vec4 v (elements x) as four bits, element c at bit c; of a full vec4 when
// `whole`, else only of the elements below n.
fn marks_of(whole: bool, n: u32, v: u32, x: vec4<u32>) -> u32 {
    // (a vec4 wholly past n reads no flag)
    if !whole && 4u * v >= n {
        return 0u;
    }
    var m = 0u;
    if KIND == 0u {
        let f = flags[v];
        m = select(0u, 1u, (f & 0xffu) != 0u) | select(0u, 2u, (f & 0xff00u) != 0u)
            | select(0u, 4u, (f & 0xff0000u) != 0u) | select(0u, 8u, (f & 0xff000000u) != 0u);
    } else if KIND == 1u {
        let i = 4u * v;
        if whole {
            m = select(0u, 1u, flags[i] != 0u) | select(0u, 2u, flags[i + 1u] != 0u)
                | select(0u, 4u, flags[i + 2u] != 0u) | select(0u, 8u, flags[i + 3u] != 0u);
        } else {
            for (var c = 0u; c < 4u; c++) {
                if i + c < n && flags[i + c] != 0u {
                    m |= 1u << c;
                }
            }
        }
    } else if KIND == 2u {
        m = keeps(x.x) | (keeps(x.y) << 1u) | (keeps(x.z) << 2u) | (keeps(x.w) << 3u);
    } else {
        // heads: the element before the vec4's first is the previous vec4's last (the first
        // element of all is a head)
        let before = select(input_words[max(4u * v, 1u) - 1u], ~x.x, v == 0u);
        m = select(0u, 1u, x.x != before) | select(0u, 2u, x.y != x.x)
            | select(0u, 4u, x.z != x.y) | select(0u, 8u, x.w != x.z);
    }
    if whole {
        return m;
    }
    // the elements at or past n
    return m & ((1u << min(n - 4u * v, 4u)) - 1u);
}

// Four rows of a tile: this invocation's vec4 in each, and their marks (row j's at bits 4j..4j+3).
struct Quad {
    r0: vec4<u32>,
    r1: vec4<u32>,
    r2: vec4<u32>,
    r3: vec4<u32>,
    marks: u32,
}

// The quad whose first row holds vec4 v (the chunk's vec4 index), marked; of a full tile
// without checks.
fn load_quad(full: bool, n: u32, v: u32) -> Quad {
    var q: Quad;
    if full {
        q = Quad(input[v], input[v + WG_SIZE], input[v + 2u * WG_SIZE], input[v + 3u * WG_SIZE], 0u);
    } else {
        q = Quad(
            load_vec(n, v),
            load_vec(n, v + WG_SIZE),
            load_vec(n, v + 2u * WG_SIZE),
            load_vec(n, v + 3u * WG_SIZE),
            0u,
        );
    }
    q.marks = marks_of(full, n, v, q.r0) | (marks_of(full, n, v + WG_SIZE, q.r1) << 4u)
        | (marks_of(full, n, v + 2u * WG_SIZE, q.r2) << 8u)
        | (marks_of(full, n, v + 3u * WG_SIZE, q.r3) << 12u);
    return q;
}

// The marks of each row of the quad, counted.
fn row_counts(m: u32) -> vec4<u32> {
    return vec4<u32>(
        countOneBits(m & 0xfu),
        countOneBits(m & 0xf0u),
        countOneBits(m & 0xf00u),
        countOneBits(m & 0xf000u),
    );
}

// Stages vec4 x (marks m, four bits), whose first element is the tile's element e and whose
// first selected element has the tile's place p: each selected element (POSITIONS: its index in
// the tile) at its place from the quad's first (qstart), and (PARTITION) each other below the tile's live elements after the
// quad's qsel selected ones, at its place among the tile's others from the quad's first
// (rstart).
fn stage_vec(live: u32, e: u32, p: u32, x: vec4<u32>, m: u32, qstart: u32, qsel: u32, rstart: u32) {
    var place = p;
    place = stage_one(live, e, place, x.x, m & 1u, qstart, qsel, rstart);
    place = stage_one(live, e + 1u, place, x.y, m & 2u, qstart, qsel, rstart);
    place = stage_one(live, e + 2u, place, x.z, m & 4u, qstart, qsel, rstart);
    _ = stage_one(live, e + 3u, place, x.w, m & 8u, qstart, qsel, rstart);
}

// Stages element e (word w, selected where `marked` is nonzero) whose place among the selected
// (if it is one) is p; returns the next selected element's place.
fn stage_one(live: u32, e: u32, p: u32, w: u32, marked: u32, qstart: u32, qsel: u32, rstart: u32) -> u32 {
    if marked != 0u {
        sc_stage[p - qstart] = select(w, e, POSITIONS != 0u);
        return p + 1u;
    }
    if PARTITION != 0u && e < live {
        sc_stage[qsel + (e - p) - rstart] = w;
    }
    return p;
}

// Moves quad q (x, row j's first selected element at the tile's place run[j]) of the tile of
// `live` elements from element `first`, whose selected ones follow `prefix`: staged in
// sc_stage, then written out in coalesced stretches, the selected to `output` and (PARTITION)
// the others to `rejects`. Call from uniform control flow.
fn move_quad(inv: Inv, q: u32, x: Quad, run: vec4<u32>, live: u32, first: u32, prefix: u32) {
    let segs = seg_count(inv);
    // the quad's selected ones: from the place of its first row's first segment to the next
    // quad's (or the tile's end)
    let qstart = sc_rows[4u * q * segs];
    let qend = select(sc_total, sc_rows[4u * (q + 1u) * segs], q + 1u < QUADS);
    let qsel = qend - qstart;
    let qfirst = 16u * WG_SIZE * q;
    let qlive = min(live - min(qfirst, live), 16u * WG_SIZE);
    let rstart = qfirst - qstart;
    let e = qfirst + 4u * inv_rank(inv);
    stage_vec(live, e, run.x, x.r0, x.marks & 0xfu, qstart, qsel, rstart);
    stage_vec(live, e + 4u * WG_SIZE, run.y, x.r1, (x.marks >> 4u) & 0xfu, qstart, qsel, rstart);
    stage_vec(live, e + 8u * WG_SIZE, run.z, x.r2, (x.marks >> 8u) & 0xfu, qstart, qsel, rstart);
    stage_vec(live, e + 12u * WG_SIZE, run.w, x.r3, (x.marks >> 12u) & 0xfu, qstart, qsel, rstart);
    // barrier: the quad is staged
    workgroupBarrier();
    let count = select(qsel, qlive, PARTITION != 0u);
    let out_at = prefix + qstart;
    let reject_at = first - prefix + rstart;
    for (var i = inv.lid; i < count; i += WG_SIZE) {
        let w = sc_stage[i];
        if POSITIONS != 0u {
            // w: the element's index in the tile
            output[out_at + i] = input_words[first + w];
            rejects[out_at + i] = first + w;
        } else if i < qsel {
            output[out_at + i] = w;
        } else {
            rejects[reject_at + i - qsel] = w;
        }
    }
    // barrier: the stage is read out before the next quad's (none after the tile's last)
    if q + 1u < QUADS {
        workgroupBarrier();
    }
}

// The marks of tile q of this chunk (a full tile: it has a successor), counted by the lane
// group: the look-back's decoupled fallback (shared/chain).
fn tile_sum(inv: Inv, q: u32) -> u32 {
    var s = 0u;
    // (TILE / 4 is a multiple of the lane group's size: every lane takes as many steps)
    for (var i = lg_lane(inv); i < TILE / 4u; i += lg_size(inv)) {
        let v = q * (TILE / 4u) + i;
        s += countOneBits(marks_of(true, params.n, v, input[v]));
    }
    return lg_sum(inv, s);
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
    let full = n - min(tile * TILE, n) >= TILE;
    // load and mark: up to four quads of rows, each row one coalesced stretch, this invocation's
    // vec4 in each (a full tile without checks)
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
    // count each row's marks within the segment, a quad's four rows at once; the segment's last
    // invocation holds its row totals
    let seg = seg_index(inv);
    let segs = seg_count(inv);
    let b0 = seg_scan_rows(inv, 0u, row_counts(x0.marks), segs, seg);
    var b1 = vec4<u32>();
    var b2 = vec4<u32>();
    var b3 = vec4<u32>();
    if QUADS > 1u {
        b1 = seg_scan_rows(inv, 1u, row_counts(x1.marks), segs, seg);
    }
    if QUADS > 2u {
        b2 = seg_scan_rows(inv, 2u, row_counts(x2.marks), segs, seg);
    }
    if QUADS > 3u {
        b3 = seg_scan_rows(inv, 3u, row_counts(x3.marks), segs, seg);
    }
    // barrier: every segment's row totals are in sc_rows
    workgroupBarrier();
    // the lane group: the tile's count published, the look-back, the inclusive count published;
    // the last tile's inclusive count is the run's
    if lg_member(inv) {
        let pc = chain_prefix(inv, g, segs);
        if lg_lane(inv) == 0u {
            sc_total = pc.y;
            if g + 1u == params.total_tiles {
                selected[0] = pc.x + pc.y;
            }
        }
    }
    clear_stale(inv, g);
    // barrier: the row prefixes, the tile's prefix and its count are in
    workgroupBarrier();
    let prefix = sc_prefix;
    // move, a quad at a time through workgroup memory: each selected element to its place (and
    // each other to its place among the others)
    let first = tile * TILE;
    let live = min(n - first, TILE);
    move_quad(inv, 0u, x0, row_starts(0u, segs, seg) + b0, live, first, prefix);
    if QUADS > 1u {
        move_quad(inv, 1u, x1, row_starts(1u, segs, seg) + b1, live, first, prefix);
    }
    if QUADS > 2u {
        move_quad(inv, 2u, x2, row_starts(2u, segs, seg) + b2, live, first, prefix);
    }
    if QUADS > 3u {
        move_quad(inv, 3u, x3, row_starts(3u, segs, seg) + b3, live, first, prefix);
    }
}
