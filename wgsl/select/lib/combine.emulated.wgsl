// include-only
// The parts of a workgroup combined in order without subgroups (select/lib/parts): an
// invocation's rank is its local_invocation_index (shared/lanes), and the parts are scanned in
// workgroup memory (Hillis-Steele: 2 log2(WG_SIZE) + 2 barriers). combine.subgroup.wgsl does the
// same by subgroups.
//!include shared/lanes

// Every invocation's part combined in rank order after `carry`: returns what comes before the
// invocation's own part (its exclusive prefix) and sets `parts_total` to the combination of all
// (the next carry). Called in workgroup-uniform control flow.
fn combine_parts(l: Inv, carry: Part, own: Part) -> Part {
    let lid = l.lid;
    store_part(lid, own);
    for (var d = 1u; d < WG_SIZE; d <<= 1u) {
        workgroupBarrier();  // the last step's writes are complete
        var mine = load_part(lid);
        if lid >= d {
            mine = then(load_part(lid - d), mine);
        }
        workgroupBarrier();  // every read of this step is complete
        store_part(lid, mine);
    }
    workgroupBarrier();  // the scan is complete
    parts_total = then(carry, load_part(WG_SIZE - 1u));
    var before = carry;
    if lid > 0u {
        before = then(carry, load_part(lid - 1u));
    }
    workgroupBarrier();  // every read is complete before the arrays are written again
    return before;
}
