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

// most segments a workgroup has (subgroups of at least 4 lanes)
const LG_SEGMENTS: u32 = WG_SIZE / 4u;

fn seg_index(inv: Inv) -> u32 {
    return inv.sg_id;
}

fn seg_count(inv: Inv) -> u32 {
    return inv.n_sg;
}

// Four independent inclusive prefix sums (one per vector lane) over the segment, in rank order.
fn seg_inclusive4(inv: Inv, x: vec4<u32>) -> vec4<u32> {
    return subgroupInclusiveAdd(x);
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

// Exclusive prefix sum over the lane group in lane order, and the total.
fn lg_scan(inv: Inv, x: u32) -> vec2<u32> {
    let incl = subgroupInclusiveAdd(x);
    return vec2<u32>(incl - x, subgroupShuffle(incl, inv.sg_size - 1u));
}
