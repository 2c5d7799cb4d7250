// include-only
// The functions of lanes.subgroup.wgsl without subgroups: each invocation a lane group of one,
// the groups in local_invocation_index order.

//!include shared/lanes

fn lanes_fold(l: Inv, x: T, valid: u32) -> T {
    return x;
}

fn lanes_scan(l: Inv, x: T) -> T {
    return x;
}

fn lanes_read(l: Inv, x: T, i: u32) -> T {
    return x;
}

fn lanes_prev(l: Inv, x: T) -> T {
    return x;
}

// lanes.subgroup.wgsl's, over WG_SIZE groups of one: an inclusive Hillis-Steele scan of the
// (holds, value) pairs in workgroup memory (in order: each takes the stretch on its left), then
// the one before. Workgroup-uniform control flow.
fn groups_before(l: Inv, mine: vec2<u32>) -> array<vec2<u32>, 2> {
    workgroupBarrier();  // an earlier call's reads of group_totals are complete
    group_totals[l.lid] = mine;
    for (var off = 1u; off < WG_SIZE; off <<= 1u) {
        workgroupBarrier();  // the previous level is written
        let left = group_totals[max(l.lid, off) - off];
        let cur = group_totals[l.lid];
        workgroupBarrier();  // every read of the level is done
        if l.lid >= off {
            group_totals[l.lid] = then(left, cur);
        }
    }
    workgroupBarrier();  // the scan is complete
    var before = vec2<u32>(0u, 0u);
    if l.lid > 0u {
        before = group_totals[l.lid - 1u];
    }
    return array<vec2<u32>, 2>(before, group_totals[WG_SIZE - 1u]);
}
