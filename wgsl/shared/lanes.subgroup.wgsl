// include-only
// An invocation's place among lane groups: here the subgroups, the lanes in
// `subgroup_invocation_id` order and the groups in `subgroup_id` order, so an order built on them
// is right whatever lane layout the device has. lanes.emulated.wgsl has the same functions
// without subgroups (each invocation a group of one).
//!include shared/inv

fn lanes_lane(l: Inv) -> u32 {
    return l.lane;
}

fn lanes_size(l: Inv) -> u32 {
    return l.sg_size;
}

fn lanes_group(l: Inv) -> u32 {
    return l.sg_id;
}

fn lanes_groups(l: Inv) -> u32 {
    return l.n_sg;
}
