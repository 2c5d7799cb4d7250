// expect: clean
// workgroups: 2
// bind: 0=u32:[5] 1=u32:random:128 2=u32:uninit:128
// Looks bad, is fine: a barrier inside a loop, but the loop bound is uniform (a uniform-buffer
// value) and the per-invocation condition sits inside, around the work, not the barrier.
struct Params { rounds: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    var v = input[gid.x];
    for (var r = 0u; r < params.rounds; r++) {
        // barrier: the previous round's readers are done before tile is overwritten
        workgroupBarrier();
        tile[lid] = v;
        // barrier: tile is complete
        workgroupBarrier();
        if lid % 2u == r % 2u {
            v += tile[(lid + 1u) % 64u];
        }
    }
    output[gid.x] = v;
}
