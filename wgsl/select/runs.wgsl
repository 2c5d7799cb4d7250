// Reduce-by-key (src/runs.rs), stages 4 and 5, after the stages over the runs' heads
// (select/marks, their exclusive scan `places`, select/scatter of the heads' keys): each run's
// aggregate, the operator (shared/operator: a built-in sum, min or max) over its values in
// order, to `out[run]`.
//
// Stage 4 (`chunks`): each workgroup takes a contiguous chunk of whole tiles (shared/grid), a
// tile at a time; each invocation reduces ITEMS consecutive elements. A run that begins and ends
// inside one chunk is written out here; what crosses a chunk's edges goes to `chunk_state` (the
// chunk's lead: its part before its first head; the run open at its end).
// Stage 5 (`fixup`, one workgroup) combines the chunks' states in order and writes the runs that
// cross chunks, and the last run.
//
// Both combine parts in order with one segmented scan (select/lib/parts): a head begins a part,
// so a run's aggregate is the operator over its elements in input order, and it need not
// commute.

//!include shared/grid
//!include select/lib/parts

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
// the values, as words
@group(0) @binding(1) var<storage, read> values: array<u32>;
@group(0) @binding(2) var<storage, read> marks: array<u32>;
@group(0) @binding(3) var<storage, read> places: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
// per chunk, two vec4s: (has a head, its lead holds a value, the lead's value, -) and (-, the
// value of the run open at its end, that run's index, -)
@group(0) @binding(5) var<storage, read_write> chunk_state: array<vec4<u32>>;

fn value_at(i: u32) -> u32 {
    return values[i];
}

// Stage 4: the chunk's runs.
@compute @workgroup_size(WG_SIZE)
fn chunks(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    if wid.x >= grid {
        return;
    }
    let tiles = chunk_tiles(n, grid, wid.x);
    // chunk_state[2 * wid.x]: .y and .z by the invocation that closes the chunk's lead, the
    // rest by invocation 0 at the end; each word written once
    var carry = no_part();
    for (var t = tiles.x; t < tiles.y; t++) {
        let base = (t * WG_SIZE + lid) * ITEMS;
        var head = false;
        var lead = no_part();
        var acc = no_part();
        for (var j = 0u; j < ITEMS; j++) {
            let i = base + j;
            if i >= n {
                break;
            }
            let v = value_at(i);
            if marks[i] != 0u {
                if head {
                    out[acc.run] = acc.value;
                } else {
                    lead = acc;
                    head = true;
                }
                acc = Part(1u, 1u, v, places[i]);
            } else {
                acc = then_value(acc, v);
            }
        }
        let before = combine_parts(lid, carry, acc);
        carry = parts_total;
        if head {
            // the run open before this invocation's first head ends with its lead
            let closed = then(before, lead);
            if before.head != 0u {
                out[before.run] = closed.value;
            } else {
                chunk_state[2u * wid.x].y = closed.some;
                chunk_state[2u * wid.x].z = closed.value;
            }
        }
    }
    if lid == 0u {
        if carry.head != 0u {
            chunk_state[2u * wid.x].x = 1u;
            chunk_state[2u * wid.x].w = 0u;
            chunk_state[2u * wid.x + 1u] = vec4<u32>(0u, carry.value, carry.run, 0u);
        } else {
            chunk_state[2u * wid.x] = vec4<u32>(0u, carry.some, carry.value, 0u);
        }
    }
}

// Stage 5: the runs that cross chunks, and the last run; one workgroup.
@compute @workgroup_size(WG_SIZE)
fn fixup(@builtin(local_invocation_index) lid: u32) {
    let n = run_elements(count_word);
    if n == 0u {
        return;
    }
    let grid = elements_grid(n);
    var carry = no_part();
    for (var b = 0u; b < grid; b += WG_SIZE) {
        let c = b + lid;
        var head = false;
        var lead = no_part();
        var own = no_part();
        if c < grid {
            let s = chunk_state[2u * c];
            head = s.x != 0u;
            lead = Part(0u, s.y, s.z, 0u);
            own = lead;
            if head {
                let e = chunk_state[2u * c + 1u];
                own = Part(1u, 1u, e.y, e.z);
            }
        }
        let before = combine_parts(lid, carry, own);
        carry = parts_total;
        if head && before.head != 0u {
            out[before.run] = then(before, lead).value;
        }
    }
    if lid == 0u && carry.head != 0u {
        out[carry.run] = carry.value;
    }
}
