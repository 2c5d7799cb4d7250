// expect: clean
// workgroups: 2
// bind: 0=u32:zeros:128
// Looks bad, is fine: subgroup builtins in an 8×8 workgroup, which naga 30 refuses and WGSL
// allows; the subgroups take the invocations in local_invocation_index order and each writes
// its sum once, from its first lane.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_id) id: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32) {
    let total = subgroupAdd(id.x + 8u * id.y + 1u);
    if lane == 0u {
        output[64u * wid.x + sg] = total;
    }
}
