// Copies whole vec4<u32> words from src to dst: a shader copy, because wgpu's
// copy_buffer_to_buffer ran at 0.45 TB/s on the H100 against 3.0 TB/s for this kernel.
// It is also the benchmark's measure of attainable bandwidth.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = min(arrayLength(&src), arrayLength(&dst));
    let stride = nwg.x * 256u;
    for (var i = gid.x; i < n; i += stride) {
        dst[i] = src[i];
    }
}
