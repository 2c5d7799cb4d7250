// include-only
// The functions of chain_group.subgroup.wgsl without subgroups: one segment per workgroup (its rows
// scanned through workgroup memory by shared/wg_ops), and the whole workgroup as the lane group,
// its lanes the local invocations. Same results; every function holds workgroup barriers, so
// call it from control flow that is uniform over the workgroup. The sum alone: a stage by
// another operator takes subgroups (src/scan.rs; the scan by an operator without them is
// fold/scan.wgsl).

const_assert CHAIN_ADDS;

const LG_SEGMENTS: u32 = 1u;

fn seg_index(inv: Inv) -> u32 {
    return 0u;
}

fn seg_count(inv: Inv) -> u32 {
    return 1u;
}

fn seg_lane(inv: Inv) -> u32 {
    return inv.lid;
}

fn seg_scan4(inv: Inv, x: vec4<u32>) -> array<vec4<u32>, 2> {
    let before = wg_scan_add_vec4(inv, x)[0];
    return array<vec4<u32>, 2>(before, before + x);
}

fn seg_last(inv: Inv) -> bool {
    return inv.lid == WG_SIZE - 1u;
}

fn lg_member(inv: Inv) -> bool {
    return true;
}

fn lg_lane(inv: Inv) -> u32 {
    return inv.lid;
}

fn lg_size(inv: Inv) -> u32 {
    return WG_SIZE;
}

fn lg_first(inv: Inv, p: bool) -> u32 {
    return wg_reduce_u32(inv, OP_MIN, select(WG_SIZE, inv.lid, p));
}

fn lg_sum(inv: Inv, x: u32) -> u32 {
    return wg_reduce_u32(inv, OP_ADD, x);
}

// (these two never run: they serve operators that do not add, which take subgroups; the sum's
// fallback and look-back add with lg_sum)
fn lg_fold(inv: Inv, x: u32) -> u32 {
    return lg_sum(inv, x);
}

fn lg_fold_down(inv: Inv, x: u32, valid: u32) -> u32 {
    return lg_sum(inv, select(0u, x, inv.lid < valid));
}

// (the lanes past `valid` hold 0)
fn lg_scan(inv: Inv, x: u32, valid: u32) -> vec2<u32> {
    return wg_scan_add_u32(inv, x);
}
