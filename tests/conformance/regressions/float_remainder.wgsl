// conformance regression: the float remainder `x % y` where C's fmod and WGSL differ
// expect: the simulator and the GPU agree within an ulp of `x`. WGSL defines `x % y` as
// `x - y * trunc(x / y)`; where `x / y` rounds up to an integer (1.0 % 0.1) that is about 0,
// where fmod gives about 0.1. The simulator computes WGSL's formula (a GPU may fuse its
// multiply and subtract, hence the tolerance).
// @needs exact-div: `%` of floats is x - y * trunc(x / y), and a `/` within WGSL's 2.5 ulp can move
// trunc(x / y) by one near an integer (the result by y); compared where `/` rounds correctly
// @shape wg=32 groups=2 atomics=12 seed=0x7e3
// @out f~2/2e-5*4
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<private> fz: f32;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 32u + li;
    fz = bitcast<f32>(inp[15u]);
    // 1, 2, ... 64 over tenths, thirds and sevenths: quotients that round to integers
    let x = f32(i + 1u) + fz;
    let o = i * 4u;
    out[o + 0u] = bitcast<u32>(x % (0.1f + fz));
    out[o + 1u] = bitcast<u32>(x % (0.3f + fz));
    out[o + 2u] = bitcast<u32>(-x % (0.7f + fz));
    out[o + 3u] = bitcast<u32>((x * 0.01f) % (-0.001f + fz));
}
