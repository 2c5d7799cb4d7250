// include-only
// Rows of vec4 slots combined in order by an associative operator (shared/operator), for the
// fold's reduction and scan. A stage that includes this declares `input: array<vec4<u32>>` and
// `input_words: array<u32>` (the same elements as words) and includes fold/lib/lanes and
// shared/last_workgroup (with its `fold_slots`).
//
// The elements are cut in vec4 slots (the last one holding the last one to three elements), the
// slots in one contiguous chunk per workgroup and each chunk in one contiguous segment per lane
// group (`segment`). A group walks its segment a row at a time, a slot a lane. Values that may
// hold nothing travel as (holds a value, the value), so nothing is combined with the identity on
// its right (it is promised only on the left: op(IDENTITY, x) = x).

// rows a group loads before combining any: loads in flight. A row is a vec4 a lane: two or four
// consecutive vec4s a lane measured 0.334 and 0.90 against 0.303 ms for the reduction at 2^28
// (H200, 2026-11-29, alternating builds in one call).
const ROWS: u32 = 4u;

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

// A row of `valid` (uniform, > 0) lanes combined onto the group's running (holds, value): lane 0's
// is right, the other lanes' are not used.
fn onto(acc: vec2<u32>, l: Inv, x: T, valid: u32) -> vec2<u32> {
    return then(acc, vec2<u32>(1u, bitcast<u32>(lanes_fold(l, x, valid))));
}


// The vec4 slots of n elements.
fn slot_count(n: u32) -> u32 {
    return n / 4u + select(0u, 1u, n % 4u != 0u);
}

// Workgroup w's chunk of the slots (of `grid`), [first, end).
fn chunk_of(n: u32, grid: u32, w: u32) -> vec2<u32> {
    return share(slot_count(n), grid, w);
}

// The segment of the invocation's lane group in workgroup w's chunk: [first, end) of the slots.
fn segment(l: Inv, n: u32, grid: u32, w: u32) -> vec2<u32> {
    let chunk = chunk_of(n, grid, w);
    let seg = share(chunk.y - chunk.x, lanes_groups(l), lanes_group(l));
    return chunk.x + seg;
}

// The segment's elements combined in order, right in lane 0 (uniform over the group: it walks
// its own segment).
fn segment_total(l: Inv, seg: vec2<u32>, n: u32) -> vec2<u32> {
    let w = lanes_size(l);
    let lane = lanes_lane(l);
    let end = seg.y;
    var acc = vec2<u32>(0u, 0u);
    for (var r = seg.x; r < end; r += ROWS * w) {
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
    return acc;
}

// Workgroup w's chunk combined (each group its segment, the groups in order) and published as
// its total (shared/last_workgroup); whether this workgroup arrived last of `grid`, to all of it.
// Workgroup-uniform control flow, w below grid.
fn chunk_published(l: Inv, w: u32, n: u32, grid: u32) -> bool {
    // read before any workgroup can arrive last and advance it
    let epoch = fold_epoch(l.lid == 0u);
    let total = groups_before(l, segment_total(l, segment(l, n, grid, w), n))[1];
    if l.lid == 0u {
        fold_publish(w, total.yx, epoch);
    }
    return fold_arrive(l.lid == 0u, grid, epoch);
}
