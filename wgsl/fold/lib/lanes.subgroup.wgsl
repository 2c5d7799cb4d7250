// include-only
// Lane groups (shared/lanes: the subgroups, in lane and subgroup order) combining values in
// order by an associative operator (shared/operator). lanes.emulated.wgsl has the same
// functions without subgroups (each invocation a group of one). The stage defines WG_SIZE.
//!include shared/lanes

// The values `x` of the group's first `valid` lanes combined in lane order: lane 0 gets all of
// them (lane i those of lanes i .. valid, for i < valid). A tree of shuffles down, each lane
// taking the next stretch on its right only where that stretch is valid, so no identity is
// needed on either side. Call from control flow uniform over the subgroup, `valid` uniform.
fn lanes_fold(l: Inv, x: T, valid: u32) -> T {
    var v = x;
    for (var off = 1u; off < l.sg_size; off <<= 1u) {
        let right = subgroupShuffleDown(v, off);
        if l.lane + off < valid {
            v = op(v, right);
        }
    }
    return v;
}

// The inclusive scan of `x` in lane order: lane i gets lanes 0 ..= i combined (each lane takes
// only from lanes below it, so lanes past the valid ones change nothing below them). Control
// flow uniform over the subgroup.
fn lanes_scan(l: Inv, x: T) -> T {
    var s = x;
    for (var off = 1u; off < l.sg_size; off <<= 1u) {
        let left = subgroupShuffleUp(s, off);
        if l.lane >= off {
            s = op(left, s);
        }
    }
    return s;
}

// Lane `i`'s x (i uniform).
fn lanes_read(l: Inv, x: T, i: u32) -> T {
    return subgroupShuffle(x, i);
}

// The lane below's x (for lanes above 0).
fn lanes_prev(l: Inv, x: T) -> T {
    return subgroupShuffleUp(x, 1u);
}

// The groups' (holds, value) `mine` (lane 0's counts) combined in group order: (those of the
// groups before this one, all of them). Workgroup-uniform control flow: two barriers; the
// subgroups are few (WG_SIZE / 4 at most), so each invocation combines them serially.
fn groups_before(l: Inv, mine: vec2<u32>) -> array<vec2<u32>, 2> {
    workgroupBarrier();  // an earlier call's reads of group_totals are complete
    if l.lane == 0u {
        group_totals[l.sg_id] = mine;
    }
    workgroupBarrier();  // every group's total is written
    var before = vec2<u32>(0u, 0u);
    var all = vec2<u32>(0u, 0u);
    for (var g = 0u; g < l.n_sg; g++) {
        if g == l.sg_id {
            before = all;
        }
        all = then(all, group_totals[g]);
    }
    return array<vec2<u32>, 2>(before, all);
}
