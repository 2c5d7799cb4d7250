// include-only
// inv.subgroup.wgsl without subgroups: an invocation knows its index in the workgroup.

struct Inv {
    @builtin(local_invocation_index) lid: u32,
}
