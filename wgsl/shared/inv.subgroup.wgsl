// include-only
// What an invocation knows about its place: its index in the workgroup, its lane, its
// subgroup's size and id, the subgroups in the workgroup. Entry points take it as a parameter.
// inv.emulated.wgsl has the index alone, for adapters without subgroups.

struct Inv {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) n_sg: u32,
}

// The invocation's position in scan order: subgroup by subgroup, lane by lane. Scans follow this
// order, not local_invocation_index, so they are right whatever lane layout the device (or the
// simulator's --shuffle-lanes) uses. A bijection onto 0..WG_SIZE when subgroups are full, which
// they are for a power-of-two WG_SIZE >= the subgroup size (every stage's).
fn inv_rank(inv: Inv) -> u32 {
    return inv.sg_id * inv.sg_size + inv.lane;
}
