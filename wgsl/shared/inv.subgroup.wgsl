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
