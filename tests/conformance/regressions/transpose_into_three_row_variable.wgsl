// conformance regression: three-row matrices made by `transpose` and by a matrix product,
// stored into variables and read back
// expect: the simulator and the GPU agree on every word. A matrix of three rows keeps a
// padding word after each column in memory; naga types a `transpose` or product result with
// no type handle, and the simulator stored such a value without the padding, so column 1
// read back shifted (t[1].x was 0). Found by the generator (seed 0xc0f02026, program 1).
// @shape wg=32 groups=2 atomics=12 seed=0x1934b2fe7cccc83c
// @out f*18
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<private> p: mat2x3<f32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 32u + li;
    let ib = 16u + i * 36u;
    // small integers: every product and sum below is exact
    let x = floor(clamp(bitcast<f32>(inp[ib + 20u]), -8.0, 8.0));
    let y = floor(clamp(bitcast<f32>(inp[ib + 21u]), -8.0, 8.0));
    var t: mat2x3<f32> = transpose(mat3x2<f32>(vec2(x), vec2(p[0].x, y), vec2(3.0, p[1].z)));
    p = transpose(mat3x2<f32>(vec2(y, 1.0), vec2(x, 2.0), vec2(3.0, 4.0)));
    var q: mat4x3<f32> = p * mat4x2<f32>(vec2(1.0, x), vec2(y, 1.0), vec2(0.0, 2.0), vec2(x, y));
    let o = i * 18u;
    for (var c = 0u; c < 2u; c++) {
        for (var r = 0u; r < 3u; r++) {
            out[o + c * 3u + r] = bitcast<u32>(t[c][r]);
        }
    }
    for (var c = 0u; c < 4u; c++) {
        for (var r = 0u; r < 3u; r++) {
            out[o + 6u + c * 3u + r] = bitcast<u32>(q[c][r]);
        }
    }
}
