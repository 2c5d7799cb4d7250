// include-only
// The two groups of invocations of a stage on the chain of tiles (shared/chain: scan/chained,
// select/compact), on real subgroups:
// - a *segment* is a subgroup: the rows of a tile are scanned within each segment first
//   (seg_inclusive4), and the last lane holds the segment's totals;
// - the *lane group* is subgroup 0: it scans the segments' totals, publishes the tile's status
//   and looks back over its predecessors while the other subgroups wait at a barrier.
// The emulated twin (group.emulated.wgsl) gives the same functions and results without
// subgroups: one segment per workgroup, the whole workgroup as the lane group. Every lg_ and seg_
// function is a subgroup operation (and there a workgroup one): call it from control flow that
// is uniform over the lane group, respectively the workgroup.
//
// The scans and folds combine by the chain's operator (`chain_op`: select/lib/chain_sum or
// scan/lib/by_operator) in lane order, or where it is the wrapping sum (CHAIN_ADDS) by the
// subgroup sums. By another operator they are trees of shuffles that put nothing on the right of
// a value (an identity promised on the left only): a lane takes from lanes below it (scans), or
// from the stretch above it only where that stretch is valid (folds).

// most segments a workgroup has (subgroups of at least 4 lanes)
const LG_SEGMENTS: u32 = WG_SIZE / 4u;

fn seg_index(inv: Inv) -> u32 {
    return inv.sg_id;
}

fn seg_count(inv: Inv) -> u32 {
    return inv.n_sg;
}

// This invocation's place in its segment.
fn seg_lane(inv: Inv) -> u32 {
    return inv.lane;
}

// Four independent scans (one per vector lane) over the segment, in rank order: (exclusive,
// inclusive). The exclusive scan of the segment's first lane holds nothing: the identity where
// it is two-sided (CHAIN_TWO_SIDED), else a value not to be used.
fn seg_scan4(inv: Inv, x: vec4<u32>) -> array<vec4<u32>, 2> {
    if CHAIN_ADDS {
        let incl = subgroupInclusiveAdd(x);
        return array<vec4<u32>, 2>(incl - x, incl);
    }
    var s = x;
    for (var off = 1u; off < inv.sg_size; off <<= 1u) {
        let left = subgroupShuffleUp(s, off);
        if inv.lane >= off {
            s = chain_op4(left, s);
        }
    }
    let before = subgroupShuffleUp(s, 1u);
    return array<vec4<u32>, 2>(select(before, vec4<u32>(chain_identity()), inv.lane == 0u), s);
}

// Whether this invocation's inclusive sums are its segment's totals (its last lane: subgroups are
// full, WG_SIZE being a power of two at least the subgroup size).
fn seg_last(inv: Inv) -> bool {
    return inv.lane == inv.sg_size - 1u;
}

fn lg_member(inv: Inv) -> bool {
    return inv.sg_id == 0u;
}

fn lg_lane(inv: Inv) -> u32 {
    return inv.lane;
}

fn lg_size(inv: Inv) -> u32 {
    return inv.sg_size;
}

// The lowest lane where p holds, lg_size if none.
fn lg_first(inv: Inv, p: bool) -> u32 {
    return subgroupMin(select(inv.sg_size, inv.lane, p));
}

fn lg_sum(inv: Inv, x: u32) -> u32 {
    return subgroupAdd(x);
}

// The lanes' x combined in lane order (by an operator that does not add: the sum's fallback
// adds with lg_sum).
fn lg_fold(inv: Inv, x: u32) -> u32 {
    var v = x;
    for (var off = 1u; off < inv.sg_size; off <<= 1u) {
        let right = subgroupShuffleDown(v, off);
        if inv.lane + off < inv.sg_size {
            v = chain_op(v, right);
        }
    }
    return subgroupBroadcast(v, 0u);
}

// The x of lanes below `valid` (uniform, at least 1) combined from the highest lane down: the
// look-back's window, where lane l holds the tile l places back (by an operator that does not
// add: the sum's look-back adds its window itself).
fn lg_fold_down(inv: Inv, x: u32, valid: u32) -> u32 {
    var v = x;
    for (var off = 1u; off < inv.sg_size; off <<= 1u) {
        let right = subgroupShuffleDown(v, off);
        if inv.lane + off < valid {
            v = chain_op(right, v);
        }
    }
    return subgroupBroadcast(v, 0u);
}

// The scan of x over the lane group in lane order: (exclusive, the lanes below `valid`
// combined; `valid` uniform, at least 1). Lane 0's exclusive scan is the identity where it is
// two-sided, else a value not to be used.
fn lg_scan(inv: Inv, x: u32, valid: u32) -> vec2<u32> {
    if CHAIN_ADDS {
        let incl = subgroupInclusiveAdd(x);
        return vec2<u32>(incl - x, subgroupShuffle(incl, valid - 1u));
    }
    // (the segment's scan of four lanes, one used: the lane group is a segment, and this runs
    // once a tile)
    let scanned = seg_scan4(inv, vec4<u32>(x));
    return vec2<u32>(scanned[0].x, subgroupShuffle(scanned[1].x, valid - 1u));
}
