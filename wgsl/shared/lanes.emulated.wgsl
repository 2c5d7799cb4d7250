// include-only
// The functions of lanes.subgroup.wgsl without subgroups: each invocation a lane group of one,
// the groups in local_invocation_index order.

struct Lanes {
    @builtin(local_invocation_index) lid: u32,
}

fn lanes_lane(l: Lanes) -> u32 {
    return 0u;
}

fn lanes_size(l: Lanes) -> u32 {
    return 1u;
}

fn lanes_group(l: Lanes) -> u32 {
    return l.lid;
}

fn lanes_groups(l: Lanes) -> u32 {
    return WG_SIZE;
}

fn lanes_rank(l: Lanes) -> u32 {
    return l.lid;
}
