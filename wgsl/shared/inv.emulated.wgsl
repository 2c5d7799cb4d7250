// include-only
// inv.subgroup.wgsl without subgroups: an invocation knows its index in the workgroup.

struct Inv {
    @builtin(local_invocation_index) lid: u32,
}

// The position in scan order (inv.subgroup.wgsl): here the index.
fn inv_rank(inv: Inv) -> u32 {
    return inv.lid;
}
