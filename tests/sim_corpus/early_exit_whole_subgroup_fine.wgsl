// expect: clean
// workgroups: 2
// bind: 0=u32:zeros:256
// Looks bad, is fine: whole subgroups (odd subgroup ids) return early; the subgroup operation
// after it runs with every live lane of each remaining subgroup active.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(subgroup_id) sg: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    if sg % 2u == 1u {
        return;
    }
    let total = subgroupAdd(lane + 1u);
    output[gid.x] = total;
}
