// expect: non-uniform-subgroup-op
// workgroups: 2
// bind: 0=u32:random:128 1=u32:uninit:128
// Seed bug 1 (a Metal simd_shuffle loop): the loop bound differs per lane, so lanes that have
// finished sit out later iterations while the others still shuffle; a real GPU often returns the
// right answer by accident, the simulator hands the shuffle poison and reports the op.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32) {
    var v = input[gid.x];
    let rounds = lane % 3u + 1u;
    for (var i = 0u; i < rounds; i++) {
        v += subgroupShuffleXor(v, 1u);
    }
    output[gid.x] = v;
}
