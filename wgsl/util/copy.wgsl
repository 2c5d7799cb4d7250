// Copies whole vec4<u32> words from src to dst: a shader copy, because wgpu's
// copy_buffer_to_buffer ran at 0.45 TB/s on the H100 against 3.0 TB/s for this kernel.
// It is also the benchmark's measure of attainable bandwidth.
// PER_INVOCATION = 0: a grid-stride loop over a capped grid; k > 0: each invocation copies k
// consecutive-by-stride vec4s of a 2-D grid covering the whole buffer, with no loop-carried work.

override PER_INVOCATION: u32 = 0u;

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = min(arrayLength(&src), arrayLength(&dst));
    let group = wid.x + wid.y * nwg.x;
    if PER_INVOCATION == 0u {
        let stride = nwg.x * nwg.y * 256u;
        for (var i = group * 256u + lid; i < n; i += stride) {
            dst[i] = src[i];
        }
    } else {
        let base = group * 256u * PER_INVOCATION + lid;
        for (var j = 0u; j < PER_INVOCATION; j++) {
            let i = base + j * 256u;
            if i < n {
                dst[i] = src[i];
            }
        }
    }
}
