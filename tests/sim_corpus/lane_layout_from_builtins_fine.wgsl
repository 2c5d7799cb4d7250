// expect: clean
// workgroups: 1
// bind: 0=u32:uninit:64
// Looks bad, is fine: divisions by the subgroup size, but none of the local index: the
// subgroup and lane come from their builtins, the count of subgroups from the workgroup size.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> sums: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_id) sg: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    let count = 64u / size;
    let total = subgroupAdd(lid);
    if lane == 0u {
        sums[sg] = total;
    }
    // barrier: every subgroup's sum is stored
    workgroupBarrier();
    output[lid] = sums[(sg + 1u) % count];
}
