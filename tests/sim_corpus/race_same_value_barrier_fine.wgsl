// expect: clean
// workgroups: 2
// bind: 0=u32:uninit:128
// Looks bad, is fine: two invocations write the same word, but a barrier separates the writes
// (and the reads).
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> flag: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    if lid == 0u {
        flag = 1u;
    }
    // barrier: orders the two writes
    workgroupBarrier();
    if lid == 1u {
        flag = 1u;
    }
    // barrier: the second write is done before anyone reads
    workgroupBarrier();
    output[gid.x] = flag + lid;
}
