// expect: clean
// workgroups: 1
// bind: 0=u32:iota:128 1=u32:uninit:128
// sizes: 4,8,32,64,128
// Looks bad, is fine: one ballot's first word alone counts lanes below 32, which is all the
// lanes that can vote in it; the other ballot is read whole.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    let low = subgroupBallot(lane < 32u && input[lid] > 3u);
    let all = subgroupBallot(input[lid] > 3u);
    let n = countOneBits(all);
    output[lid] = countOneBits(low.x) + n.x + n.y + n.z + n.w;
}
