// conformance regression: found by the generator: seed 0xc0f02026, program 371; shrunk from 13 to 13 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 2 word 0 [h~2/1e-3]: simulator 0x44956000 (1.195e3), GPU 0x44950000 (1.192e3); invocation 18 word 0 [h~2/1e-3]: simulator 0x42570000 (5.375e1), GPU 0x4256a000 (5.365625e1); invocation 33 word 0 [h~2/1e-3]: simulator 0x43856000 (2.6675e2), GPU 0x43850000 (2.66e2); invocation 38 word 0 [h~2/1e-3]: simulator 0x42396000 (4.634375e1), GPU 0x42390000 (4.625e1)
// @shape wg=32 groups=2 atomics=12 seed=0x7a2e568d0ddc1f8e
// @out h~2/1e-3 b*2 f~8/1e-6 b*5
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

var<private> p371_g0: mat4x4<f32>;
struct p371_S0 {
    f0: f16,
    f1: vec4<u32>,
    f2: u32,
    f3: i32,
}
fn p371_h0(a0: f32, a1: f16) -> i32 {
    let v2: bool = (vec3<bool>(((inp[ib + 11u] & 1u) == 1u), ((inp[ib + 8u] & 1u) == 1u), true))[2u];
    let v3: p371_S0 = p371_S0(modf((a1 + f16(fz))).fract, select(vec4<u32>(sgs, inp[3u], inp[3u], inp[7u]), vec4<u32>(inp[ib + 3u]), v2), (~inp[ib + 2u]), frexp(p371_g0[1].z).exp);
    let v4: array<i32, 2> = array<i32, 2>((v3.f3 ^ v3.f3), (v3.f3 & bitcast<i32>(0x80000000u)));
    let v5: bool = bool(v3.f2);
    return (i32(v3.f1.z) + i32(v5));
}
fn p371_m0(p: ptr<function, p371_S0>, a: f32) {
    (*p).f1 -= countOneBits(vec4<u32>((*p).f1[((*p).f1.w % 4u)]));
    p371_g0[0][2u] -= ((p371_g0[1].w - p371_g0[3].z) + ((p371_g0[3].y * p371_g0[2].x) + fz));
    p371_g0[2] = vec4<f32>(vec3<f32>((0.0f + fz), p371_g0[0][(u32((*p).f3) % 4u)], p371_g0[2].z), (bitcast<f32>(inp[ib + 23u]) - a));
}
struct p371_S1 {
    f0: u32,
    f1: f32,
    f2: f32,
}
fn p371(o: u32) {
    let v6: vec4<i32> = vec4<i32>(bitcast<i32>(inp[ib + 15u]), bitcast<i32>(inp[ib + 8u]), bitcast<i32>(inp[ib + 2u]), bitcast<i32>(inp[ib + 2u]));
    let v7: bool = any(select(vec3<bool>(((inp[ib + 15u] & 1u) == 1u), true, ((inp[ib + 2u] & 1u) == 1u)), vec3<bool>(((inp[ib + 7u] & 1u) == 1u)), false));
    let v8: p371_S1 = p371_S1(min(inp[1u], inp[ib + 4u]), trunc((-0.0f + fz)), dot((floor(clamp(vec2<f32>(p371_g0[3].z), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>((13.5f + fz), p371_g0[0].x), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)));
    p371_g0[2] = p371_g0[3];
    var v9: vec4<u32> = (vec4<u32>(v8.f0, 35u, inp[ib + 4u], inp[ib + 4u]) + vec4<u32>(v8.f0));
    out[o + 0u] = bitcast<u32>(f32(exp(clamp(((((-0.46875h + f16(fz)) * f16(bitcast<f32>(inp[13u]))) + f16(fz)) + ((3.0h + f16(fz)) + f16(bitcast<f32>(inp[ib + 31u])))), -8.0h, 8.0h))));
    var v10: i32 = v6.z;
    let v11: bool = (f16(bitcast<f32>(inp[13u])) != f16(bitcast<f32>(inp[ib + 34u])));
    { let t = (select(v9, v9, ((inp[ib + 11u] & 1u) == 1u))).zx; out[o + 1u] = t.x; out[o + 2u] = t.y; }
    out[o + 3u] = bitcast<u32>(log2(abs((min(p371_g0[0][(inp[ib + 4u] % 4u)], (11.0f + fz)) + step(bitcast<f32>(inp[ib + 26u]), p371_g0[1].w))) + 0.25f));
    let v12: vec3<f16> = select(vec3<f16>((1.125h + f16(fz))), vec3<f16>((-9.0h + f16(fz)), (9.0h + f16(fz)), f16(bitcast<f32>(inp[12u]))), vec3<bool>(v7));
    { let t = v9; out[o + 4u] = t.x; out[o + 5u] = t.y; out[o + 6u] = t.z; out[o + 7u] = t.w; }
    { let t = v10; out[o + 8u] = bitcast<u32>(t); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 9u;
    p371(ob + 0u);
}
