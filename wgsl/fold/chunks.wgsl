// Scan and reduction by an associative operator (shared/operator: the caller's WGSL or a
// built-in one), applied in input order, so the operator need not commute. Three stages over
// contiguous chunks of whole tiles (shared/grid: each workgroup the same number of tiles of
// WG_SIZE * ITEMS elements, a tile at a time; each invocation ITEMS consecutive elements):
//
// 1. `totals`: each chunk's combination, in order (shared/parts), to `chunk_state`.
// 2. `carries` (one workgroup): the chunks' totals scanned in order; each chunk's state becomes
//    what comes before it (its carry). RESULT = 1 (a reduction): the combination of all to
//    `output[0]`, the operator's identity for no elements.
// 3. `scan`: each chunk scanned again from its carry, each element's prefix to `output`,
//    exclusive or (INCLUSIVE = 1) inclusive.
//
// Input is read twice and output written once (12 bytes per element; the sum's chained scan
// moves 8: scan/chained.wgsl). An exclusive scan's first element is the identity.

//!include shared/grid
//!include shared/parts

override INCLUSIVE: u32 = 0u;
override RESULT: u32 = 0u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
// the scan's output, or the reduction's result (one word)
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
// per chunk: (holds a value, the value): its total after stage 1, its carry after stage 2
@group(0) @binding(3) var<storage, read_write> chunk_state: array<vec2<u32>>;

// The invocation's own part of tile `t`: its ITEMS elements combined in order.
fn own_part(t: u32, lid: u32, n: u32) -> Part {
    let base = (t * WG_SIZE + lid) * ITEMS;
    var acc = no_part();
    for (var j = 0u; j < ITEMS; j++) {
        if base + j >= n {
            break;
        }
        acc = then_value(acc, input[base + j]);
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
    for (var t = tiles.x; t < tiles.y; t++) {
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
    if RESULT == 1u && lid == 0u {
        output[0] = select(bitcast<u32>(identity()), carry.value, carry.some != 0u);
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
        var acc = combine_parts(lid, carry, own_part(t, lid, n));
        carry = parts_total;
        let base = (t * WG_SIZE + lid) * ITEMS;
        for (var j = 0u; j < ITEMS; j++) {
            let i = base + j;
            if i >= n {
                break;
            }
            let v = input[i];
            if INCLUSIVE == 0u {
                output[i] = select(bitcast<u32>(identity()), acc.value, acc.some != 0u);
            }
            acc = then_value(acc, v);
            if INCLUSIVE != 0u {
                output[i] = acc.value;
            }
        }
    }
}
