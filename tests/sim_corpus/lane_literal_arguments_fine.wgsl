// expect: clean
// workgroups: 2
// bind: 0=u32:zeros:128
// Looks bad, is fine: lane, id and delta arguments written as plain integer literals, as most
// butterfly code writes them. WGSL converts them to u32; naga 30 refuses them, so the simulator
// reads each as its u32 (with a note) and runs the kernel as a browser would.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    var x = lane + 1u;
    x += subgroupShuffleXor(x, 1);
    x += subgroupShuffleXor(x, 2);
    let first = subgroupBroadcast(x, 0);
    let down = subgroupShuffleDown(x, 1);
    output[gid.x] = x + first + quadBroadcast(lane, 3) + select(0u, down, lane + 1u < size);
}
