// include-only
// The parts of a workgroup combined in order by subgroups (select/lib/parts), in the order of
// the invocations' ranks (shared/lanes: subgroup by subgroup, lane by lane, whatever lane layout
// the device has). Each subgroup scans its lanes' parts by shuffles up, and each invocation
// combines the subgroups' totals before its own from workgroup memory: two barriers, where
// combine.emulated.wgsl takes 2 log2(WG_SIZE) + 2.
//!include shared/lanes

// The part of the lane `off` below (for lanes at `off` and above). Control flow uniform over
// the subgroup.
fn part_up(p: Part, off: u32) -> Part {
    return Part(
        subgroupShuffleUp(p.head, off),
        subgroupShuffleUp(p.some, off),
        subgroupShuffleUp(p.value, off),
        subgroupShuffleUp(p.heads, off),
    );
}

// Every invocation's part combined in rank order after `carry`: returns what comes before the
// invocation's own part (its exclusive prefix) and sets `parts_total` to the combination of all
// (the next carry). Called in workgroup-uniform control flow.
fn combine_parts(l: Inv, carry: Part, own: Part) -> Part {
    // the subgroup's inclusive scan in lane order (each lane takes only from lanes below it)
    var s = own;
    for (var off = 1u; off < l.sg_size; off <<= 1u) {
        let left = part_up(s, off);
        if l.lane >= off {
            s = then(left, s);
        }
    }
    let below = part_up(s, 1u);
    workgroupBarrier();  // an earlier call's reads of the subgroups' totals are complete
    if l.lane == l.sg_size - 1u {
        store_part(l.sg_id, s);
    }
    workgroupBarrier();  // every subgroup's total is written
    var before = carry;
    var all = carry;
    for (var g = 0u; g < l.n_sg; g++) {
        if g == l.sg_id {
            before = all;
        }
        all = then(all, load_part(g));
    }
    parts_total = all;
    if l.lane > 0u {
        before = then(before, below);
    }
    return before;
}
