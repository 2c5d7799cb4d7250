// include-only
// The subgroup primitives the radix sort's ranking (sort/lib/tile.wgsl) is written against,
// on real subgroups. The emulated twin (sg.emulated.wgsl) gives the same functions on
// 32-lane virtual subgroups in workgroup memory, so one ranking code serves both flavours.
// Every function is a subgroup operation: call from uniform control flow only.

fn rs_lane(inv: Inv) -> u32 {
    return inv.lane;
}

fn rs_size(inv: Inv) -> u32 {
    return inv.sg_size;
}

fn rs_index(inv: Inv) -> u32 {
    return inv.sg_id;
}

fn rs_count(inv: Inv) -> u32 {
    return inv.n_sg;
}

// All four words: subgroups of up to 128 lanes.
fn rs_ballot(inv: Inv, p: bool) -> vec4<u32> {
    return subgroupBallot(p);
}

// `src` is a runtime lane, hence subgroupShuffle (subgroupBroadcast needs a constant).
fn rs_shuffle(inv: Inv, x: u32, src: u32) -> u32 {
    return subgroupShuffle(x, src);
}
