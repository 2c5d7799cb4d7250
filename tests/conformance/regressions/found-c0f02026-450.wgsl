// conformance regression: found by the generator: seed 0xc0f02026, program 450; shrunk from 10 to 10 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 2 word 2 [f]: simulator 0xb8a00000 (-7.6293945e-5), GPU 0xb8800000 (-6.1035156e-5)
// @shape wg=32 groups=2 atomics=12 seed=0xf594d9d9546f2fe4
// @out h~2/1e-3 f*4 b*3 f*9
enable f16;

@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> sat: array<atomic<u32>, 12>;
var<workgroup> wg_u: array<u32, 32>;
var<workgroup> wg_f: array<f32, 32>;
var<workgroup> wg_a: array<atomic<u32>, 8>;
var<workgroup> wg_i: array<atomic<i32>, 8>;
var<private> ib: u32;
var<private> lid: u32;
var<private> lane: u32;
var<private> sgs: u32;
var<private> fz: f32;

var<private> p450_g0: vec2<f32>;
fn p450_h0(a0: f32, a1: bool, a2: i32) -> f32 {
    let v2: vec2<u32> = ((vec2<u32>(inp[ib + 14u]) | vec2<u32>(inp[ib + 13u], inp[3u])) / (inp[ib + 6u] << inp[ib + 12u]));
    let v3: vec3<i32> = ((countOneBits(vec3<i32>(a2, a2, a2)) ^ (vec3<i32>(a2) & vec3<i32>(a2))) | (select(vec3<i32>((-1i)), vec3<i32>(a2), ((inp[ib + 9u] & 1u) == 1u)) % (vec3<i32>(a2) ^ vec3<i32>())));
    return (vec3<f32>(a0, bitcast<f32>(inp[8u]), p450_g0[(inp[ib + 6u] % 2u)]))[(u32(bitcast<i32>(inp[ib + 9u])) % 3u)];
}
fn p450(o: u32) {
    p450_g0 = p450_g0;
    var v4: i32 = abs(((bitcast<i32>(inp[ib + 8u]) >> 21u) ^ max(bitcast<i32>(inp[ib + 8u]), bitcast<i32>(inp[ib + 2u]))));
    out[o + 0u] = bitcast<u32>(f32(exp2(clamp((0.25h + f16(fz)), -10.0h, 10.0h))));
    var v5: vec2<bool> = vec2<bool>(vec2<u32>(inp[ib + 2u]));
    { let t = mat2x2<f32>(unpack2x16float(((pack4x8snorm(vec4<f32>((22.0f + fz), p450_g0.x, p450_g0[(u32(v4) % 2u)], bitcast<f32>(inp[ib + 21u])))) & 0xbfffbfffu) | 0x04000400u), ((mat4x2<f32>((floor(clamp(p450_g0, vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(p450_g0, vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(p450_g0.x), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(p450_g0, vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) * (floor(clamp(vec4<f32>(p450_g0[(inp[ib + 12u] % 2u)], p450_g0.x, p450_g0[(sgs % 2u)], p450_g0.x), vec4(-8.0f), vec4(8.0f)) * 16.0f) * 0.0625f)) * dot((floor(clamp(vec4<f32>((80.0f + fz)), vec4(-8.0f), vec4(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec4<f32>((13.0f + fz), p450_g0.x, p450_g0[(inp[ib + 15u] % 2u)], (1.75f + fz)), vec4(-8.0f), vec4(8.0f)) * 16.0f) * 0.0625f)))); out[o + 1u] = bitcast<u32>(t[0].x); out[o + 2u] = bitcast<u32>(t[0].y); out[o + 3u] = bitcast<u32>(t[1].x); out[o + 4u] = bitcast<u32>(t[1].y); }
    let v6: array<vec2<u32>, 4> = array<vec2<u32>, 4>((vec2<u32>(inp[0u], inp[ib + 10u]) | vec2<u32>(inp[ib + 8u], inp[ib + 13u])), (vec2<u32>(inp[ib + 1u], 4u) + vec2<u32>(inp[ib + 11u])), (vec2<u32>(inp[2u]) * 31u), (vec2<u32>(inp[ib + 13u]) | vec2<u32>(inp[ib + 13u])));
    var v7: mat3x3<f32> = transpose((mat3x3<f32>(vec3<f32>(bitcast<f32>(inp[9u])), vec3<f32>(p450_g0.x, p450_g0[(u32(v4) % 2u)], p450_g0.y), vec3<f32>((-0.875f + fz), bitcast<f32>(inp[ib + 17u]), (-2.875f + fz))) * p450_g0[(u32(v4) % 2u)]));
    { let t = v4; out[o + 5u] = bitcast<u32>(t); }
    { let t = v5; out[o + 6u] = select(0u, 1u, t.x); out[o + 7u] = select(0u, 1u, t.y); }
    { let t = v7; out[o + 8u] = bitcast<u32>(t[0].x); out[o + 9u] = bitcast<u32>(t[0].y); out[o + 10u] = bitcast<u32>(t[0].z); out[o + 11u] = bitcast<u32>(t[1].x); out[o + 12u] = bitcast<u32>(t[1].y); out[o + 13u] = bitcast<u32>(t[1].z); out[o + 14u] = bitcast<u32>(t[2].x); out[o + 15u] = bitcast<u32>(t[2].y); out[o + 16u] = bitcast<u32>(t[2].z); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 17u;
    p450(ob + 0u);
}
