// expect: cross-workgroup-race
// may: schedule-divergence
// workgroups: 3
// bind: 0=u32:random:192 1=u32:zeros:160
// Tiles placed with the wrong stride: each workgroup of 64 invocations stores 64 results at
// wid * 48, so neighbouring workgroups both store words 48..63 of their shared border. Nothing
// orders two workgroups of one dispatch, so which store lands is up to the GPU (the seed GEMM's
// tile layout bug in its other form: overlapping instead of missing rows).
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    output[wid.x * 48u + lid] = input[wid.x * 64u + lid] + 1u;
}
