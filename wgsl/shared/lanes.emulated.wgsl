// include-only
// The functions of lanes.subgroup.wgsl without subgroups: each invocation a lane group of one,
// the groups in local_invocation_index order.
//!include shared/inv

fn lanes_lane(l: Inv) -> u32 {
    return 0u;
}

fn lanes_size(l: Inv) -> u32 {
    return 1u;
}

fn lanes_group(l: Inv) -> u32 {
    return l.lid;
}

fn lanes_groups(l: Inv) -> u32 {
    return WG_SIZE;
}
