// include-only
// An invocation's place among lane groups: here the subgroups, the lanes in
// `subgroup_invocation_id` order and the groups in `subgroup_id` order, so an order built on them
// is right whatever lane layout the device has. lanes.emulated.wgsl has the same functions
// without subgroups (each invocation a group of one). Entry points take `Lanes` as a parameter.

struct Lanes {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_id) group: u32,
    @builtin(num_subgroups) groups: u32,
}

fn lanes_lane(l: Lanes) -> u32 {
    return l.lane;
}

fn lanes_size(l: Lanes) -> u32 {
    return l.size;
}

fn lanes_group(l: Lanes) -> u32 {
    return l.group;
}

fn lanes_groups(l: Lanes) -> u32 {
    return l.groups;
}

// The invocation's rank: group by group, lane by lane (the stage's WG_SIZE is a multiple of
// every subgroup size, so the subgroups are full and the ranks are 0 .. WG_SIZE).
fn lanes_rank(l: Lanes) -> u32 {
    return l.group * l.size + l.lane;
}
