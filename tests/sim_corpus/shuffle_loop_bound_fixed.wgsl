// expect: clean
// workgroups: 2
// bind: 0=u32:random:128 1=u32:uninit:128
// Seed bug 1, fixed: the loop bound is uniform (the subgroup maximum), the per-lane condition
// moved inside, so every lane takes part in every shuffle.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32) {
    var v = input[gid.x];
    let rounds = lane % 3u + 1u;
    let max_rounds = subgroupMax(rounds);
    for (var i = 0u; i < max_rounds; i++) {
        let other = subgroupShuffleXor(v, 1u);
        if i < rounds {
            v += other;
        }
    }
    output[gid.x] = v;
}
