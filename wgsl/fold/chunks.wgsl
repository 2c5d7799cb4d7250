// Scan by an associative operator (shared/operator: the caller's WGSL or a
// built-in one), applied in input order, so the operator need not commute. Three stages over
// contiguous chunks of whole tiles (shared/grid: each workgroup the same number of tiles of
// WG_SIZE * ITEMS elements, a tile at a time; each invocation ITEMS consecutive elements):
//
// 1. `totals`: each chunk's combination, in order (shared/parts), to `chunk_state`.
// 2. `carries` (one workgroup): the chunks' totals scanned in order; each chunk's state becomes
//    what comes before it (its carry).
// 3. `scan`: each chunk scanned again from its carry, each element's prefix to `output`,
//    exclusive or (INCLUSIVE = 1) inclusive.
//
// Input is read twice and output written once (12 bytes per element; the sum's chained scan
// moves 8: scan/chained.wgsl). An exclusive scan's first element is the identity.

//!include shared/grid
//!include shared/parts

override INCLUSIVE: u32 = 0u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
// the scan's output
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
// per chunk: (holds a value, the value): its total after stage 1, its carry after stage 2
@group(0) @binding(3) var<storage, read_write> chunk_state: array<vec2<u32>>;

// A tile in workgroup memory: loaded striped (element j * WG_SIZE + lid of the tile by
// invocation lid: each load instruction reads one contiguous stretch) and read blocked (each
// invocation its ITEMS consecutive elements), one word of padding every 32 so that the blocked
// reads (a stride of ITEMS words) fall in different banks; the scan's prefixes go out the same
// way. Against each invocation reading its own 8 words from memory: the max-scan's third stage
// 1.31 against 2.69 ms at 2^28 (H200, 2026-11-29). 16 items an invocation (16 KiB staged) gave
// nothing more (2.40 against 2.30 ms for the whole scan).
const MAX_ITEMS: u32 = 8u;
var<workgroup> staged: array<u32, WG_SIZE * MAX_ITEMS + WG_SIZE * MAX_ITEMS / 32u>;

fn pad(x: u32) -> u32 {
    return x + x / 32u;
}

// Tile t's elements below n into `staged`. Workgroup-uniform control flow.
fn stage_tile(t: u32, lid: u32, n: u32) {
    workgroupBarrier();  // every read of the tile before is complete
    let base = t * WG_SIZE * ITEMS;
    for (var j = 0u; j < ITEMS; j++) {
        let i = base + j * WG_SIZE + lid;
        if i < n {
            staged[pad(j * WG_SIZE + lid)] = input[i];
        }
    }
    workgroupBarrier();  // the tile is staged
}

// The invocation's own part of the staged tile `t`: its ITEMS elements combined in order.
fn own_part(t: u32, lid: u32, n: u32) -> Part {
    let base = t * WG_SIZE * ITEMS + lid * ITEMS;
    var acc = no_part();
    for (var j = 0u; j < ITEMS; j++) {
        if base + j >= n {
            break;
        }
        acc = then_value(acc, staged[pad(lid * ITEMS + j)]);
    }
    return acc;
}

// Stage 1: the chunk's total.
@compute @workgroup_size(WG_SIZE)
fn totals(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    let tiles = chunk_tiles(n, grid, wid.x);
    var carry = no_part();
    // (the same scan as stage 3's: a tree of in-order pairs took 1.18 against 0.99 ms at 2^28,
    // H200, 2026-11-29)
    for (var t = tiles.x; t < tiles.y; t++) {
        stage_tile(t, lid, n);
        _ = combine_parts(lid, carry, own_part(t, lid, n));
        carry = parts_total;
    }
    if lid == 0u {
        chunk_state[wid.x] = vec2<u32>(carry.some, carry.value);
    }
}

// Stage 2: each chunk's carry, in order; one workgroup.
@compute @workgroup_size(WG_SIZE)
fn carries(@builtin(local_invocation_index) lid: u32) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    var carry = no_part();
    for (var b = 0u; b < grid; b += WG_SIZE) {
        let c = b + lid;
        var own = no_part();
        if c < grid {
            let s = chunk_state[c];
            own = Part(0u, s.x, s.y, 0u);
        }
        let before = combine_parts(lid, carry, own);
        if c < grid {
            chunk_state[c] = vec2<u32>(before.some, before.value);
        }
        carry = parts_total;
    }
}

// Stage 3: the chunk's prefixes from its carry.
@compute @workgroup_size(WG_SIZE)
fn scan(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    if wid.x >= grid {
        return;
    }
    let tiles = chunk_tiles(n, grid, wid.x);
    let s = chunk_state[wid.x];
    var carry = Part(0u, s.x, s.y, 0u);
    for (var t = tiles.x; t < tiles.y; t++) {
        stage_tile(t, lid, n);
        var acc = combine_parts(lid, carry, own_part(t, lid, n));
        carry = parts_total;
        // each prefix in place of its element (each invocation its own words), then the tile
        // stored striped
        let base = t * WG_SIZE * ITEMS + lid * ITEMS;
        for (var j = 0u; j < ITEMS; j++) {
            if base + j >= n {
                break;
            }
            let at = pad(lid * ITEMS + j);
            let v = staged[at];
            if INCLUSIVE == 0u {
                staged[at] = select(bitcast<u32>(identity()), acc.value, acc.some != 0u);
            }
            acc = then_value(acc, v);
            if INCLUSIVE != 0u {
                staged[at] = acc.value;
            }
        }
        workgroupBarrier();  // the tile's prefixes are staged
        let first = t * WG_SIZE * ITEMS;
        for (var j = 0u; j < ITEMS; j++) {
            let i = first + j * WG_SIZE + lid;
            if i < n {
                output[i] = staged[pad(j * WG_SIZE + lid)];
            }
        }
    }
}
