// Scan by an associative operator (shared/operator: the caller's WGSL or a built-in one), applied
// in input order, so the operator need not commute; inclusive scans need no identity. The path
// of devices without subgroups (src/scan.rs, OperatorPolicy::TwoPass); with them the chained
// pass (scan/chained.wgsl) runs by the operator in one pass. Two
// dispatches over one contiguous chunk of vec4 slots per workgroup (fold/lib/rows; the grid the
// count gives, shared/grid, its prepare stage fold/prepare):
//
// 1. `totals`: each chunk's combination: each lane group (fold/lib/lanes) walks a contiguous
//    segment of the chunk a row at a time, combining its lanes in order by shuffles, and the
//    groups' totals are combined in group order (the reduction's phases 1 and 2); published as
//    the reduction's are (shared/last_workgroup).
// 2. Carries, in the same dispatch: the workgroup that arrives last scans the chunks' totals in
//    order, WG_SIZE at a time, each chunk's carry (what comes before it) to `chunk_state`. (As
//    a dispatch of its own: 0.0292 against 0.0283 ms for the whole scan of 2^22, H200.)
// 3. `scan`: each chunk scanned from its carry a workgroup row at a time (WG_SIZE slots, rank
//    order: group by group, lane by lane), ROWS rows loaded before any is scanned: each lane
//    scans its four elements, the group its lanes' totals (lanes_scan), the workgroup its groups'
//    (groups_before: two barriers a row), and the prefixes go out as vec4s, exclusive or
//    (INCLUSIVE = 1) inclusive. Rows, not segments: the cut of a chunk in segments depends on the
//    subgroup size, which a device may choose per pipeline; the chunks do not.
//
// Input is read twice and output written once: 12 bytes an element (CUB's single pass moves 8).
// H200 (2026-11-29, the max by an operator, same call as CUB's DeviceScan::InclusiveScan with a
// max functor): 0.79-0.89x at 2^22-2^28 (0.964 against 0.855 ms at 2^28: stage 1 reads at
// 3.5 TB/s, stage 3 reads and writes at 3.2 TB/s; the copy rate is 3.96).
// An exclusive scan's first element is the identity; nothing else puts the identity on the right
// of a value.

//!include shared/operator
//!include shared/grid
//!include fold/lib/lanes
//!include fold/lib/rows
//!include shared/last_workgroup

override INCLUSIVE: u32 = 0u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
// the same input as words, for the elements past the last whole vec4: the caller's range may
// end with the count
@group(0) @binding(2) var<storage, read> input_words: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<vec4<u32>>;
// the same output as words, for the last one to three elements
@group(0) @binding(4) var<storage, read_write> output_words: array<u32>;
// per chunk: (holds a value, the value) of what comes before it, after stage 1
@group(0) @binding(5) var<storage, read_write> chunk_state: array<vec2<u32>>;
// the chunks' totals (shared/last_workgroup)
@group(0) @binding(6) var<storage, read_write> fold_slots: array<atomic<u32>>;

// The holding ones of a row's `valid` ranks, as the group of this invocation sees them: its
// group's lanes below `valid`, a prefix of the group.
fn group_valid(l: Inv, valid: u32) -> u32 {
    let first = lanes_group(l) * lanes_size(l);
    return min(lanes_size(l), max(valid, first) - first);
}

// A row's (holds, value) `x` of each rank below `valid` (uniform) scanned onto `carry`: what
// comes before each rank (.x, (holds, value)) and the carry after the row (.y).
fn row_scan(l: Inv, carry: vec2<u32>, x: T, valid: u32) -> array<vec2<u32>, 2> {
    let s = lanes_scan(l, x);
    let gv = group_valid(l, valid);
    var mine = vec2<u32>(0u, 0u);
    if gv > 0u {
        mine = vec2<u32>(1u, bitcast<u32>(lanes_read(l, s, gv - 1u)));
    }
    let groups = groups_before(l, mine);
    // (shuffled by every lane: lane 0's is not used)
    let prev = lanes_prev(l, s);
    var before = then(carry, groups[0]);
    if lanes_lane(l) > 0u {
        before = then(before, vec2<u32>(1u, bitcast<u32>(prev)));
    }
    return array<vec2<u32>, 2>(before, then(carry, groups[1]));
}

// Stage 1: the chunk's total, published (shared/last_workgroup); the workgroup that arrives last
// scans the chunks' totals in order, WG_SIZE at a time, and leaves each chunk's carry (what
// comes before it) in `chunk_state`.
@compute @workgroup_size(WG_SIZE)
fn totals(l: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    if !chunk_published(l, wid.x, n, grid) {
        return;
    }
    let rank = inv_rank(l);
    let tag = fold_tag(fold_run_epoch);
    // every chunk of a nonempty run holds a slot, so every total holds a value
    var carry = vec2<u32>(0u, 0u);
    for (var b = 0u; b < grid; b += WG_SIZE) {
        let c = b + rank;
        var x = identity();
        if c < grid {
            x = bitcast<T>(fold_take(c, fold_load(c), tag).x);
        }
        let r = row_scan(l, carry, x, min(WG_SIZE, grid - b));
        if c < grid {
            chunk_state[c] = r[0];
        }
        carry = r[1];
    }
    if l.lid == 0u {
        fold_done();
    }
}

// A lane's slot of a row: its elements (4, or the last 1 to 3, or none past the chunk).
struct Slot {
    v: vec4<u32>,
    k: u32,
}

// (its own reads, not shared/load_vec's: through load_vec the max-scan took 0.291 against
// 0.255 ms at 2^26; H200, 2026-11-29)
fn load_slot(i: u32, end: u32, n: u32) -> Slot {
    if i >= end {
        return Slot(vec4<u32>(0u), 0u);
    }
    if i < n / 4u {
        return Slot(input[i], 4u);
    }
    let k = n - 4u * i;
    let at = 4u * i;
    return Slot(
        vec4<u32>(
            input_words[at],
            select(0u, input_words[min(at + 1u, n - 1u)], k > 1u),
            select(0u, input_words[min(at + 2u, n - 1u)], k > 2u),
            0u,
        ),
        k,
    );
}

// The row of slots from r (< end) scanned from `carry`: the prefixes written; the carry after.
// Workgroup-uniform control flow.
fn scan_row(l: Inv, r: u32, end: u32, n: u32, slot: Slot, carry: vec2<u32>) -> vec2<u32> {
    let p0 = bitcast<T>(slot.v.x);
    let p1 = op(p0, bitcast<T>(slot.v.y));
    let p2 = op(p1, bitcast<T>(slot.v.z));
    let p3 = op(p2, bitcast<T>(slot.v.w));
    // the lane's total: its last element's prefix (lanes past the chunk: not combined)
    var t = p3;
    if slot.k == 1u {
        t = p0;
    } else if slot.k == 2u {
        t = p1;
    } else if slot.k == 3u {
        t = p2;
    }
    let scanned = row_scan(l, carry, t, min(WG_SIZE, end - r));
    let before = scanned[0];
    var out: vec4<u32>;
    if INCLUSIVE != 0u {
        out = vec4<u32>(bitcast<u32>(p0), bitcast<u32>(p1), bitcast<u32>(p2), bitcast<u32>(p3));
        if before.x != 0u {
            let b = bitcast<T>(before.y);
            out = vec4<u32>(
                bitcast<u32>(op(b, p0)),
                bitcast<u32>(op(b, p1)),
                bitcast<u32>(op(b, p2)),
                bitcast<u32>(op(b, p3)),
            );
        }
    } else {
        // (an exclusive scan's operator has an identity: nothing before is the identity, on
        // the left)
        let b = select(identity(), bitcast<T>(before.y), before.x != 0u);
        out = vec4<u32>(
            bitcast<u32>(b),
            bitcast<u32>(op(b, p0)),
            bitcast<u32>(op(b, p1)),
            bitcast<u32>(op(b, p2)),
        );
    }
    let i = r + inv_rank(l);
    if slot.k == 4u {
        output[i] = out;
    } else if slot.k > 0u {
        let at = 4u * i;
        output_words[at] = out.x;
        if slot.k > 1u {
            output_words[at + 1u] = out.y;
        }
        if slot.k > 2u {
            output_words[at + 2u] = out.z;
        }
    }
    return scanned[1];
}

// Stage 3: the chunk's prefixes from its carry.
@compute @workgroup_size(WG_SIZE)
fn scan(l: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    if wid.x >= grid {
        return;
    }
    let chunk = chunk_of(n, grid, wid.x);
    let rank = inv_rank(l);
    var carry = chunk_state[wid.x];
    for (var r = chunk.x; r < chunk.y; r += ROWS * WG_SIZE) {
        let s0 = load_slot(r + rank, chunk.y, n);
        let s1 = load_slot(r + WG_SIZE + rank, chunk.y, n);
        let s2 = load_slot(r + 2u * WG_SIZE + rank, chunk.y, n);
        let s3 = load_slot(r + 3u * WG_SIZE + rank, chunk.y, n);
        carry = scan_row(l, r, chunk.y, n, s0, carry);
        if r + WG_SIZE < chunk.y {
            carry = scan_row(l, r + WG_SIZE, chunk.y, n, s1, carry);
        }
        if r + 2u * WG_SIZE < chunk.y {
            carry = scan_row(l, r + 2u * WG_SIZE, chunk.y, n, s2, carry);
        }
        if r + 3u * WG_SIZE < chunk.y {
            carry = scan_row(l, r + 3u * WG_SIZE, chunk.y, n, s3, carry);
        }
    }
}
