// include-only
// Lane groups for combining values in order by an associative operator (shared/operator): here
// the subgroups, their lanes in `subgroup_invocation_id` order and the groups in `subgroup_id`
// order, so the order is right whatever lane layout the device has. lanes.emulated.wgsl has the
// same functions without subgroups (each invocation a group of one). The stage defines WG_SIZE.

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

// The values `x` of the group's first `valid` lanes combined in lane order: lane 0 gets all of
// them (lane i those of lanes i .. valid, for i < valid). A tree of shuffles down, each lane
// taking the next stretch on its right only where that stretch is valid, so no identity is
// needed on either side. Call from control flow uniform over the subgroup, `valid` uniform.
fn lanes_fold(l: Lanes, x: T, valid: u32) -> T {
    var v = x;
    for (var off = 1u; off < l.size; off <<= 1u) {
        let right = subgroupShuffleDown(v, off);
        if l.lane + off < valid {
            v = op(v, right);
        }
    }
    return v;
}
