// conformance regression: found by the generator: seed 0xc0f02026, program 125; shrunk from 25 to 25 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 22 word 0 [h~2/1e-3]: simulator 0x3f010000 (5.0390625e-1), GPU 0x3f000000 (5e-1); invocation 24 word 0 [h~2/1e-3]: simulator 0x3d9cc000 (7.6538086e-2), GPU 0x3da00000 (7.8125e-2); invocation 30 word 0 [h~2/1e-3]: simulator 0xbe034000 (-1.2817383e-1), GPU 0xbe000000 (-1.25e-1)
// @shape wg=32 groups=2 atomics=12 seed=0x81335ea2184e50d3
// @out h~2/1e-3 f*8 b h f*2 b*3 f b*2 f*2 b*16
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

struct p125_S0 {
    f0: u32,
    f1: f32,
    f2: f32,
    f3: vec3<i32>,
}
struct p125_S1 {
    f0: f16,
    f1: vec2<f32>,
    f2: i32,
    f3: i32,
}
fn p125(o: u32) {
    var v1: i32 = (bitcast<i32>(inp[ib + 3u]) + (countTrailingZeros(bitcast<i32>(inp[ib + 0u])) * (bitcast<i32>(inp[6u]) >> inp[ib + 11u])));
    workgroupBarrier();
    wg_f[lid] = abs((vec4<f32>(bitcast<f32>(inp[ib + 22u]), bitcast<f32>(inp[ib + 16u]), bitcast<f32>(inp[ib + 21u]), bitcast<f32>(inp[ib + 24u])))[3u]);
    workgroupBarrier();
    let w2 = wg_f[lid ^ 19u];
    out[o + 0u] = bitcast<u32>(f32((clamp(f16(bitcast<f32>(inp[ib + 32u])), -64.0h, 64.0h) % select(select(f16(bitcast<f32>(inp[ib + 35u])), f16(bitcast<f32>(inp[ib + 35u])), ((inp[ib + 2u] & 1u) == 1u)), 1.0h, select(f16(bitcast<f32>(inp[ib + 35u])), f16(bitcast<f32>(inp[ib + 35u])), ((inp[ib + 2u] & 1u) == 1u)) == 0.0h))));
    atomicMax(&sat[1], abs((inp[ib + 14u] / inp[ib + 2u])));
    v1 *= (insertBits(reverseBits(v1), firstLeadingBit(v1), 9u, sgs) >> inp[1u]);
    let v3: i32 = firstLeadingBit(i32(clamp((-11.5f + fz), -2147483520.0f, 2147483520.0f)));
    var v4: f32 = (modf(w2).whole + ldexp(w2, clamp(bitcast<i32>(inp[0u]), -12i, 12i)));
    { let t = transpose((mat4x2<f32>(vec2<f32>((-0.056640625f + fz), v4), vec2<f32>(v4), vec2<f32>(bitcast<f32>(inp[ib + 17u])), vec2<f32>(v4, bitcast<f32>(inp[ib + 18u]))) * (v4 * (-3.25f + fz)))); out[o + 1u] = bitcast<u32>(t[0].x); out[o + 2u] = bitcast<u32>(t[0].y); out[o + 3u] = bitcast<u32>(t[0].z); out[o + 4u] = bitcast<u32>(t[0].w); out[o + 5u] = bitcast<u32>(t[1].x); out[o + 6u] = bitcast<u32>(t[1].y); out[o + 7u] = bitcast<u32>(t[1].z); out[o + 8u] = bitcast<u32>(t[1].w); }
    { let t = (~inp[ib + 2u]); out[o + 9u] = t; }
    var v5: u32 = max((6u * inp[ib + 0u]), (inp[ib + 12u] ^ inp[ib + 9u]));
    let v6: vec3<i32> = (countOneBits(vec3<i32>(v3, vec2<i32>(bitcast<i32>(inp[ib + 14u])))) + clamp(v3, i32(((inp[ib + 6u] & 1u) == 1u)), (v3 + v3)));
    var v7: p125_S0 = p125_S0(countTrailingZeros(inp[0u]), v4, clamp(w2, v4, (0.0f + fz)), v6);
    v1 = (select(v6.y, v7.f3[(lid % 3u)], ((inp[ib + 7u] & 1u) == 1u)) ^ dot4I8Packed(v7.f0, v5));
    var v8: array<vec4<i32>, 3> = array<vec4<i32>, 3>((vec4<i32>(v1) - vec4<i32>(bitcast<i32>(inp[ib + 8u]))), (vec4<i32>(v7.f3[(u32(bitcast<i32>(inp[ib + 14u])) % 3u)]) ^ vec4<i32>(bitcast<i32>(inp[ib + 6u]))), abs(vec4<i32>((-9i), v6[1u], v7.f3.y, bitcast<i32>(inp[ib + 6u]))));
    { let t = p125_S1((f16(bitcast<f32>(inp[13u])) + (-2.0h + f16(fz))), vec2<f32>(v7.f1, bitcast<f32>(inp[ib + 18u])), (v8[2].x & 2147483647i), (v8[2].y & bitcast<i32>(inp[ib + 7u]))); out[o + 10u] = bitcast<u32>(f32(t.f0)); out[o + 11u] = bitcast<u32>(t.f1.x); out[o + 12u] = bitcast<u32>(t.f1.y); out[o + 13u] = bitcast<u32>(t.f2); out[o + 14u] = bitcast<u32>(t.f3); }
    var v9: u32 = v7.f0;
    { let t = v1; out[o + 15u] = bitcast<u32>(t); }
    { let t = v4; out[o + 16u] = bitcast<u32>(t); }
    { let t = v5; out[o + 17u] = t; }
    { let t = v7; out[o + 18u] = t.f0; out[o + 19u] = bitcast<u32>(t.f1); out[o + 20u] = bitcast<u32>(t.f2); out[o + 21u] = bitcast<u32>(t.f3.x); out[o + 22u] = bitcast<u32>(t.f3.y); out[o + 23u] = bitcast<u32>(t.f3.z); }
    { let t = v8; out[o + 24u] = bitcast<u32>(t[0].x); out[o + 25u] = bitcast<u32>(t[0].y); out[o + 26u] = bitcast<u32>(t[0].z); out[o + 27u] = bitcast<u32>(t[0].w); out[o + 28u] = bitcast<u32>(t[1].x); out[o + 29u] = bitcast<u32>(t[1].y); out[o + 30u] = bitcast<u32>(t[1].z); out[o + 31u] = bitcast<u32>(t[1].w); out[o + 32u] = bitcast<u32>(t[2].x); out[o + 33u] = bitcast<u32>(t[2].y); out[o + 34u] = bitcast<u32>(t[2].z); out[o + 35u] = bitcast<u32>(t[2].w); }
    { let t = v9; out[o + 36u] = t; }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 37u;
    p125(ob + 0u);
}
