// Reduction by an associative operator (shared/operator: the caller's WGSL or a built-in one) in
// one dispatch, in input order, so the operator need not commute, and without the identity on
// the right of anything (it is promised only on the left: op(IDENTITY, x) = x).
//
// Phases, per workgroup (shared/grid: the grid the count gives, its prepare stage fold/prepare):
// 1. Rows: the workgroup's contiguous share of the input's vec4 slots is split in one contiguous
//    segment per lane group (fold/lib/lanes: a subgroup, or an invocation without subgroups).
//    A group walks its segment a row (a vec4 a lane) at a time, ROWS rows loaded before any is
//    combined; each lane combines its four elements, the group its lanes in order
//    (lanes_fold), and the row's total is combined onto the segment's.
// 2. Segments: each group's total through workgroup memory, combined in group order.
// 3. Fold: the workgroup's total published to its slot; the workgroup that arrives last
//    (reduce/lib/fold: tagged words, no second dispatch) takes every workgroup's total, eight a
//    rank, and combines them in rank order the same way, to `result[0]`.
// Input is read once: 4 bytes an element, as CUB's DeviceReduce. H200 (2026-11-29, the max by
// an operator, same call as CUB's DeviceReduce::Reduce with a max functor): 0.79-0.90x at
// 2^22-2^28 (0.300 against 0.240 ms at 2^28, 3.5 TB/s). What bounds it: each subgroup streams
// a contiguous segment of its own; the built-in maximum (reduce/minmax), whose whole grid sweeps
// the input together, reaches 4.36 TB/s on the same input, but that order of reading is not
// the input's order.
//
// Every value carries whether it holds anything (an empty segment, the empty input), so no
// identity is combined on the right; the identity is the result of no elements.

//!include shared/operator
//!include shared/grid
//!include fold/lib/lanes
//!include reduce/lib/fold

// rows each group loads before combining any: loads in flight. A row is a vec4 a lane: two or
// four consecutive vec4s a lane measured 0.334 and 0.90 against 0.303 ms at 2^28 (H200,
// 2026-11-29, alternating builds in one call).
const ROWS: u32 = 4u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
// the same input as words, for the elements past the last whole vec4: the caller's range may
// end with the count
@group(0) @binding(2) var<storage, read> input_words: array<u32>;
// the result: one word
@group(0) @binding(3) var<storage, read_write> result: array<u32>;
// the workgroups' totals (reduce/lib/fold)
@group(0) @binding(4) var<storage, read_write> fold_slots: array<atomic<u32>>;

// per lane group: (holds a value, the value)
var<workgroup> group_totals: array<vec2<u32>, WG_SIZE>;

// [first, end) of part k of `total` items cut in `parts` in order, sizes differing by at most
// one (k < parts, so k * per <= total: no overflow).
fn share(total: u32, parts: u32, k: u32) -> vec2<u32> {
    let per = total / parts;
    let rem = total % parts;
    let first = k * per + min(k, rem);
    return vec2<u32>(first, first + per + select(0u, 1u, k < rem));
}

// The elements of vec4 slot i (below the slot count) of n combined in order: a whole vec4, or the
// last one to three words.
fn slot_value(i: u32, n: u32) -> T {
    if i < n / 4u {
        let v = input[i];
        return op(op(op(bitcast<T>(v.x), bitcast<T>(v.y)), bitcast<T>(v.z)), bitcast<T>(v.w));
    }
    var acc = bitcast<T>(input_words[4u * i]);
    for (var j = 4u * i + 1u; j < n; j++) {
        acc = op(acc, bitcast<T>(input_words[j]));
    }
    return acc;
}

// Slot i's value where i < end (a lane past the segment's end returns the identity, which no
// valid lane combines: lanes_fold).
fn row_value(i: u32, end: u32, n: u32) -> T {
    if i < end {
        return slot_value(i, n);
    }
    return identity();
}

// (holds a value, the value) after `b` on the right of `a`.
fn then(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if a.x == 0u {
        return b;
    }
    if b.x == 0u {
        return a;
    }
    return vec2<u32>(1u, bitcast<u32>(op(bitcast<T>(a.y), bitcast<T>(b.y))));
}

// Every group's (holds, value) from its lane 0 combined in group order, to every invocation.
// Workgroup-uniform control flow (two barriers).
fn groups_in_order(l: Lanes, mine: vec2<u32>) -> vec2<u32> {
    workgroupBarrier();  // an earlier call's reads of group_totals are complete
    if lanes_lane(l) == 0u {
        group_totals[lanes_group(l)] = mine;
    }
    workgroupBarrier();  // every group's total is written
    var acc = vec2<u32>(0u, 0u);
    for (var g = 0u; g < lanes_groups(l); g++) {
        acc = then(acc, group_totals[g]);
    }
    return acc;
}

// A row of `valid` (uniform, > 0) lanes combined onto the group's running (holds, value): lane 0's
// is right, the other lanes' are not used.
fn onto(acc: vec2<u32>, l: Lanes, x: T, valid: u32) -> vec2<u32> {
    return then(acc, vec2<u32>(1u, bitcast<u32>(lanes_fold(l, x, valid))));
}

@compute @workgroup_size(WG_SIZE)
fn main(l: Lanes, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    // read before any workgroup can arrive last and advance it
    let epoch = fold_epoch(l.lid == 0u);
    let slots = n / 4u + select(0u, 1u, n % 4u != 0u);
    let chunk = share(slots, grid, wid.x);
    let seg = share(chunk.y - chunk.x, lanes_groups(l), lanes_group(l));
    let end = chunk.x + seg.y;
    let w = lanes_size(l);
    let lane = lanes_lane(l);
    // 1. rows (uniform over the group: its segment's bounds)
    var acc = vec2<u32>(0u, 0u);
    for (var r = chunk.x + seg.x; r < end; r += ROWS * w) {
        let x0 = row_value(r + lane, end, n);
        let x1 = row_value(r + w + lane, end, n);
        let x2 = row_value(r + 2u * w + lane, end, n);
        let x3 = row_value(r + 3u * w + lane, end, n);
        acc = onto(acc, l, x0, min(w, end - r));
        if r + w < end {
            acc = onto(acc, l, x1, min(w, end - r - w));
        }
        if r + 2u * w < end {
            acc = onto(acc, l, x2, min(w, end - r - 2u * w));
        }
        if r + 3u * w < end {
            acc = onto(acc, l, x3, min(w, end - r - 3u * w));
        }
    }
    // 2. segments
    let total = groups_in_order(l, acc);
    // 3. fold
    if l.lid == 0u {
        fold_publish(wid.x, total.yx, epoch);
    }
    if fold_arrive(l.lid == 0u, grid, epoch) {
        // rank order: group by group, lane by lane, eight workgroup totals a rank
        let rank = lanes_group(l) * w + lane;
        var all = vec2<u32>(0u, 0u);
        for (var base = 0u; base < grid; base += 8u * WG_SIZE) {
            let f = fold_gather8(base + 8u * rank, 1u, grid, vec2<u32>(0u, 0u));
            var mine = then(then(then(f.v0.yx, f.v1.yx), then(f.v2.yx, f.v3.yx)),
                then(then(f.v4.yx, f.v5.yx), then(f.v6.yx, f.v7.yx)));
            // the ranks holding totals are a prefix of each group's lanes (every workgroup of a
            // nonempty run holds a slot; the empty run's one total holds nothing and is
            // combined as nothing)
            let holding = min(grid - min(grid, base), 8u * WG_SIZE);
            let first = lanes_group(l) * w;
            let valid = min(w, max((holding + 7u) / 8u, first) - first);
            var part = vec2<u32>(0u, 0u);
            if valid > 0u {
                part = vec2<u32>(mine.x, bitcast<u32>(lanes_fold(l, bitcast<T>(mine.y), valid)));
            }
            all = then(all, groups_in_order(l, part));
        }
        if l.lid == 0u {
            result[0] = select(bitcast<u32>(identity()), all.y, all.x != 0u);
            fold_done();
        }
    }
}
