// Runs of equal keys (src/runs.rs), stages 4 and 5, after the selection's stages over the runs'
// heads (select/marks KIND 3, their exclusive scan `places`, the scatter of the heads' keys):
// each run's aggregate, `op` (select/lib/op) over its values in order, to `out[run]`. VALUES 0: the values are the `values` buffer's words; 1: every value is 1 (the
// run lengths, of a run-length encoding).
//
// Stage 4 (`chunks`): each workgroup takes a contiguous chunk of the elements (the same number
// of tiles of WG_SIZE * ITEMS each), a tile at a time; each invocation reduces ITEMS consecutive elements of a tile. A
// run that begins and ends inside one chunk is written out here; what crosses a chunk's edges
// goes to `chunk_state` (a run's part before the chunk's first head, the run open at its end).
// Stage 5 (`fixup`, one workgroup) combines the chunks' states in order and writes the runs that
// cross chunks, and the last run.
//
// Both combine parts in order with one segmented scan (`combine` below): a part is (has a head,
// value, run of its last head); a head starts a new value, so a run's aggregate is `op` over its
// elements in input order, and `op` need not commute.

//!include select/lib/params
//!include select/lib/op

override VALUES: u32 = 0u;

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
// the values (VALUES 0), as words; bound to `marks` for run lengths
@group(0) @binding(1) var<storage, read> values: array<u32>;
@group(0) @binding(2) var<storage, read> marks: array<u32>;
@group(0) @binding(3) var<storage, read> places: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
// per chunk: [has a head, value before its first head, value of the run open at its end, that
// run's index]
@group(0) @binding(5) var<storage, read_write> chunk_state: array<vec4<u32>>;

// A part of the input, summarised: `head` whether it holds the start of a run, `value` the
// aggregate since its last head (or of all of it, without one), `run` the run of its last head.
struct Part {
    head: u32,
    value: u32,
    run: u32,
}

var<workgroup> wg_head: array<u32, WG_SIZE>;
var<workgroup> wg_value: array<u32, WG_SIZE>;
var<workgroup> wg_run: array<u32, WG_SIZE>;

// `a` then `b`: a head in `b` starts over.
fn then(a: Part, b: Part) -> Part {
    if b.head != 0u {
        return b;
    }
    return Part(a.head, op(a.value, b.value), a.run);
}

fn value_at(i: u32) -> u32 {
    if VALUES == 1u {
        return 1u;
    }
    return values[i];
}

// The parts of the workgroup's invocations combined in order after `carry`: each invocation
// gets what comes before its own part (exclusive), and every invocation returns the combination
// of all (the new carry) in `total`. Workgroup-uniform control flow.
var<private> total: Part;

fn combine(lid: u32, carry: Part, own: Part) -> Part {
    wg_head[lid] = own.head;
    wg_value[lid] = own.value;
    wg_run[lid] = own.run;
    // inclusive scan of the parts (Hillis-Steele)
    for (var d = 1u; d < WG_SIZE; d <<= 1u) {
        workgroupBarrier();  // the last step's writes are complete
        var mine = Part(wg_head[lid], wg_value[lid], wg_run[lid]);
        if lid >= d {
            mine = then(Part(wg_head[lid - d], wg_value[lid - d], wg_run[lid - d]), mine);
        }
        workgroupBarrier();  // every read of this step is complete
        wg_head[lid] = mine.head;
        wg_value[lid] = mine.value;
        wg_run[lid] = mine.run;
    }
    workgroupBarrier();  // the scan is complete
    let last = Part(wg_head[WG_SIZE - 1u], wg_value[WG_SIZE - 1u], wg_run[WG_SIZE - 1u]);
    total = then(carry, last);
    var before = carry;
    if lid > 0u {
        before = then(carry, Part(wg_head[lid - 1u], wg_value[lid - 1u], wg_run[lid - 1u]));
    }
    workgroupBarrier();  // every read is complete before the arrays are written again
    return before;
}

// The run open before a part closes at the part's first head, with the part's lead (what comes
// before that head) as its last values: out[before.run] where a head came before in this
// chunk; else the value is the chunk's lead, for the fixup.
fn close(before: Part, lead: u32, chunk: u32) {
    let value = op(before.value, lead);
    if before.head != 0u {
        out[before.run] = value;
    } else {
        chunk_state[chunk].y = value;
    }
}

// Stage 4: the chunk's runs.
@compute @workgroup_size(WG_SIZE)
fn chunks(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = select_grid(n);
    if wid.x >= grid {
        return;
    }
    let tile = WG_SIZE * ITEMS;
    let tiles = (n + tile - 1u) / tile;
    let per = (tiles + grid - 1u) / grid;
    let first = min(wid.x * per, tiles);
    let last = min(first + per, tiles);
    // chunk_state[wid.x]: .y by the invocation that closes the chunk's lead (`close`), the rest
    // by invocation 0 at the end; each word written once
    var carry = Part(0u, identity(), 0u);
    for (var t = first; t < last; t++) {
        let base = t * tile + lid * ITEMS;
        var head = 0u;
        var lead = identity();
        var acc = identity();
        var run = 0u;
        for (var j = 0u; j < ITEMS; j++) {
            let i = base + j;
            if i >= n {
                break;
            }
            let v = value_at(i);
            if marks[i] != 0u {
                if head != 0u {
                    out[run] = acc;
                } else {
                    lead = acc;
                    head = 1u;
                }
                acc = v;
                run = places[i];
            } else {
                acc = op(acc, v);
            }
        }
        if head == 0u {
            lead = acc;
        }
        let before = combine(lid, carry, Part(head, acc, run));
        if head != 0u {
            close(before, lead, wid.x);
        }
        carry = total;
    }
    if lid == 0u {
        if carry.head != 0u {
            chunk_state[wid.x].x = 1u;
            chunk_state[wid.x].z = carry.value;
            chunk_state[wid.x].w = carry.run;
        } else {
            chunk_state[wid.x] = vec4<u32>(0u, carry.value, identity(), 0u);
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
    let grid = select_grid(n);
    var carry = Part(0u, identity(), 0u);
    for (var b = 0u; b < grid; b += WG_SIZE) {
        let c = b + lid;
        var state = vec4<u32>(0u, identity(), identity(), 0u);
        if c < grid {
            state = chunk_state[c];
        }
        let before = combine(lid, carry, Part(state.x, select(state.y, state.z, state.x != 0u), state.w));
        if state.x != 0u && before.head != 0u {
            out[before.run] = op(before.value, state.y);
        }
        carry = total;
    }
    if lid == 0u && carry.head != 0u {
        out[carry.run] = carry.value;
    }
}
