// Fills a buffer with one word. The GPU executor runs it before a plan to poison buffers the
// plan declares `Poison`, so an element no pass wrote reads back as VALUE.

override VALUE: u32 = 0xDEADBEEFu;

@group(0) @binding(0) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // grid-stride: the executor dispatches a capped number of workgroups
    let n = arrayLength(&dst);
    let stride = nwg.x * 256u;
    for (var i = gid.x; i < n; i += stride) {
        dst[i] = VALUE;
    }
}
