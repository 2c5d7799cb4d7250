// Reduce-by-key (src/runs.rs): each run's key to `keys_out[run]`, its aggregate, the operator
// (shared/operator: a built-in sum, min or max) over its values in order, to `out[run]`, and the
// run count to `selected[0]`. A run begins (a head) at the first key and at each key that
// differs from the one before it as a word.
//
// Three stages over the same chunks (shared/grid: each workgroup a contiguous chunk of whole
// tiles, ITEMS consecutive elements an invocation), the keys read twice and the values once
// (13 bytes a key at runs of 8, with a key and an aggregate written per run; a single pass
// carrying the run count through a look-back would move 9):
// 1. `heads`: each chunk's head count, to its `chunk_state`.
// 2. `chunks`: each workgroup sums the head counts of the chunks before its own (the index of
//    its first run), then takes its chunk a tile at a time. Each invocation folds its elements
//    (held in registers) into a part; the parts are combined in order (select/lib/parts, by
//    subgroups where the device has them: what comes before each invocation, with the heads
//    before it); each invocation walks its elements again to write each head's key and each run
//    that ends among them. What crosses the chunk's edges goes to `chunk_state`: the part
//    before its first head (its lead) and the run open at its end.
// 3. `fixup` (one workgroup) combines the chunks' states in order, writes the runs that cross
//    chunks and the last run, and the run count.
//
// A head begins a part over, so a run's aggregate is the operator over its elements in input
// order, and it need not commute.

//!include shared/grid
//!include select/lib/parts

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
// the keys and the values, as words
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> values: array<u32>;
// the same keys and values as vec4s, for an invocation's whole vec4s: the caller's ranges may
// end with the count
@group(0) @binding(3) var<storage, read> keys4: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> values4: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> out: array<u32>;
// the run count, where a later recording may read it as its count
@group(0) @binding(7) var<storage, read_write> selected: array<u32>;
// per chunk: (its head count, its lead holds a value, the lead's value, the value of the run
// open at its end)
@group(0) @binding(8) var<storage, read_write> chunk_state: array<vec4<u32>>;

var<workgroup> heads_sum: atomic<u32>;

// The most elements an invocation takes a tile (the host clamps ITEMS to it): its keys and
// values are held in registers, loaded in a loop of ITEMS turns with no exit, so that every
// load is issued before the first is used.
const MAX_ITEMS: u32 = 16u;

// Whether element `i` begins a run, `before` the key before it (any for element 0).
fn begins(i: u32, key: u32, before: u32) -> bool {
    return i == 0u || key != before;
}

// `h` summed over the workgroup; every invocation gets the sum. Called in workgroup-uniform
// control flow.
fn workgroup_sum(lid: u32, h: u32) -> u32 {
    if lid == 0u {
        atomicStore(&heads_sum, 0u);
    }
    workgroupBarrier();  // the sum is zero before any invocation adds to it
    atomicAdd(&heads_sum, h);
    workgroupBarrier();  // every invocation has added its own
    let total = atomicLoad(&heads_sum);
    workgroupBarrier();  // every read is complete before the sum is zeroed again
    return total;
}

// An invocation's elements of a tile: ITEMS from `base`, those at and past the count `n` (at
// least 1) read as the last element (and not counted: `held`).
struct Items {
    before: u32,
    held: u32,
    keys: array<u32, MAX_ITEMS>,
}

fn load_keys(base: u32, n: u32) -> Items {
    var it: Items;
    it.before = keys[min(max(base, 1u) - 1u, n - 1u)];
    it.held = min(n - min(base, n), ITEMS);
    if whole_vec4s(base, n, arrayLength(&keys4)) {
        for (var q = 0u; q < ITEMS / 4u; q++) {
            let k = keys4[base / 4u + q];
            for (var c = 0u; c < 4u; c++) {
                it.keys[4u * q + c] = k[c];
            }
        }
    } else {
        for (var j = 0u; j < ITEMS; j++) {
            it.keys[j] = keys[min(base + j, n - 1u)];
        }
    }
    return it;
}

// Whether the ITEMS elements from `base` are whole vec4s below the count `n`, in a binding of
// `vec4s`.
fn whole_vec4s(base: u32, n: u32, vec4s: u32) -> bool {
    return ITEMS % 4u == 0u && base + ITEMS <= n && (base + ITEMS) / 4u <= vec4s;
}

// The values of the ITEMS elements from `base`, as `load_keys` reads the keys.
fn load_values(base: u32, n: u32) -> array<u32, MAX_ITEMS> {
    var vs: array<u32, MAX_ITEMS>;
    if whole_vec4s(base, n, arrayLength(&values4)) {
        for (var q = 0u; q < ITEMS / 4u; q++) {
            let v = values4[base / 4u + q];
            for (var c = 0u; c < 4u; c++) {
                vs[4u * q + c] = v[c];
            }
        }
    } else {
        for (var j = 0u; j < ITEMS; j++) {
            vs[j] = values[min(base + j, n - 1u)];
        }
    }
    return vs;
}

// Stage 1: the chunk's head count.
@compute @workgroup_size(WG_SIZE)
fn heads(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    if wid.x >= grid {
        return;
    }
    let tiles = chunk_tiles(n, grid, wid.x);
    var h = 0u;
    for (var t = tiles.x; t < tiles.y; t++) {
        let base = (t * WG_SIZE + lid) * ITEMS;
        let it = load_keys(base, n);
        var before = it.before;
        for (var j = 0u; j < ITEMS; j++) {
            h += select(0u, 1u, j < it.held && begins(base + j, it.keys[j], before));
            before = it.keys[j];
        }
    }
    let total = workgroup_sum(lid, h);
    if lid == 0u {
        chunk_state[wid.x].x = total;
    }
}

// Stage 2: the chunk's runs.
@compute @workgroup_size(WG_SIZE)
fn chunks(l: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let lid = l.lid;
    let rank = inv_rank(l);
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    if wid.x >= grid {
        return;
    }
    // the index of the chunk's first run: the heads of the chunks before it
    var h = 0u;
    for (var c = lid; c < wid.x; c += WG_SIZE) {
        h += chunk_state[c].x;
    }
    let first_run = workgroup_sum(lid, h);
    let tiles = chunk_tiles(n, grid, wid.x);
    // chunk_state[wid.x] (.x written by stage 1): .y and .z by the invocation that closes the
    // chunk's lead, or by invocation 0 at the end where the chunk has no head; .w by invocation 0
    // at the end (the run open there, or with no head the whole chunk's value)
    var carry = no_part();
    for (var t = tiles.x; t < tiles.y; t++) {
        let base = (t * WG_SIZE + rank) * ITEMS;
        let it = load_keys(base, n);
        let vs = load_values(base, n);
        // the invocation's part: whether a run begins among its elements, the value since the
        // last head (or of all, without one), the head count
        var own = no_part();
        var before = it.before;
        for (var j = 0u; j < ITEMS; j++) {
            if j < it.held {
                let head = select(0u, 1u, begins(base + j, it.keys[j], before));
                own = then(own, Part(head, 1u, vs[j], head));
            }
            before = it.keys[j];
        }
        let prior = combine_parts(l, carry, own);
        carry = parts_total;
        // the elements again: each head's key, each run that ends here
        var acc = prior;
        var run = first_run + prior.heads;
        before = it.before;
        for (var j = 0u; j < ITEMS; j++) {
            if j < it.held {
                if begins(base + j, it.keys[j], before) {
                    if acc.head != 0u {
                        out[run - 1u] = acc.value;
                    } else {
                        chunk_state[wid.x].y = acc.some;
                        chunk_state[wid.x].z = acc.value;
                    }
                    keys_out[run] = it.keys[j];
                    run += 1u;
                    acc = Part(1u, 1u, vs[j], 0u);
                } else {
                    acc = then_value(acc, vs[j]);
                }
            }
            before = it.keys[j];
        }
    }
    if lid == 0u {
        chunk_state[wid.x].w = carry.value;
        if carry.head == 0u {
            chunk_state[wid.x].y = carry.some;
            chunk_state[wid.x].z = carry.value;
        }
    }
}

// A chunk's part, from its state `s`, and its lead.
fn chunk_part(s: vec4<u32>) -> Part {
    if s.x != 0u {
        return Part(1u, 1u, s.w, s.x);
    }
    return chunk_lead(s);
}

fn chunk_lead(s: vec4<u32>) -> Part {
    return Part(0u, s.y, s.z, 0u);
}

// Stage 3: the runs that cross chunks, the last run and the run count; one workgroup, each
// invocation taking consecutive chunks (one combination of parts for up to 2^16 chunks).
@compute @workgroup_size(WG_SIZE)
fn fixup(l: Inv) {
    let lid = l.lid;
    let n = run_elements(count_word);
    if n == 0u {
        if lid == 0u {
            selected[0] = 0u;
        }
        return;
    }
    let grid = elements_grid(n);
    let per = (grid + WG_SIZE - 1u) / WG_SIZE;
    let first = min(inv_rank(l) * per, grid);
    let last = min(first + per, grid);
    var own = no_part();
    for (var c = first; c < last; c++) {
        own = then(own, chunk_part(chunk_state[c]));
    }
    var acc = combine_parts(l, no_part(), own);
    for (var c = first; c < last; c++) {
        let s = chunk_state[c];
        let part = chunk_part(s);
        if part.head != 0u && acc.head != 0u {
            out[acc.heads - 1u] = then(acc, chunk_lead(s)).value;
        }
        acc = then(acc, part);
    }
    if lid == 0u {
        out[parts_total.heads - 1u] = parts_total.value;
        selected[0] = parts_total.heads;
    }
}
