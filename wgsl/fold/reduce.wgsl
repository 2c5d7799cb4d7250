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
// 3. Fold: the workgroup's total published to its slot (rows' chunk_published); the workgroup that arrives last
//    (shared/last_workgroup: tagged words, no second dispatch) takes every workgroup's total,
//    eight a rank, and combines them in rank order the same way, to `result[0]`.
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
//!include fold/lib/rows
//!include shared/last_workgroup

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
// the same input as words, for the elements past the last whole vec4: the caller's range may
// end with the count
@group(0) @binding(2) var<storage, read> input_words: array<u32>;
// the result: one word
@group(0) @binding(3) var<storage, read_write> result: array<u32>;
// the workgroups' totals (shared/last_workgroup)
@group(0) @binding(4) var<storage, read_write> fold_slots: array<atomic<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(l: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    // 1-3: the chunk's total published; the last workgroup to arrive folds them all
    if chunk_published(l, wid.x, n, grid) {
        // rank order: group by group, lane by lane, eight workgroup totals a rank
        let w = lanes_size(l);
        let rank = inv_rank(l);
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
            all = then(all, groups_before(l, part)[1]);
        }
        if l.lid == 0u {
            result[0] = select(bitcast<u32>(identity()), all.y, all.x != 0u);
            fold_done();
        }
    }
}
