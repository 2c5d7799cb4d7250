// conformance regression: found by the generator: seed 0x135290a (WGSIMD_CONFORMANCE_REASSOCIATING), programs 1108..1112 as one module; program 1109 differs only after the programs before it
// expect: the simulator and the GPU agree on every word.
// @wrong-on NVIDIA: the H200 (driver 580.159.04) computes p1109's i32 quotients (v4, and the words made from it) otherwise than lavapipe computes the same SPIR-V, only in this module (the program alone agrees); not yet reduced further
// @shape wg=32 groups=2 atomics=12 seed=0x77b2798598f34413
// @out b f~4097/6.793842e-5 b*12 f*20 b*2 f*3 b f*4 b*2 f*12 b*5 f~0/5.9604645e-7
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

fn p1108_h0(a0: u32, a1: u32, a2: u32) -> u32 {
    let v1: f32 = ((0.1015625f + fz) - step(bitcast<f32>(inp[9u]), bitcast<f32>(inp[ib + 16u])));
    return 1u;
}
fn p1108_m0(p: ptr<function, i32>, a: i32) {
    (*p) = min(((*p) - (*p)), i32(clamp(bitcast<f32>(inp[ib + 17u]), -2147483520.0f, 2147483520.0f)));
}
fn p1108(o: u32) {
    let v2: array<f32, 3> = array<f32, 3>(bitcast<f32>(inp[ib + 22u]), ((-0.5f + fz) * bitcast<f32>(inp[ib + 25u])), select(bitcast<f32>(inp[ib + 26u]), (0.71875f + fz), ((inp[ib + 5u] & 1u) == 1u)));
    { let t = (bitcast<i32>(inp[4u]) ^ bitcast<i32>(inp[ib + 3u])); out[o + 0u] = bitcast<u32>(t); }
    var v3: vec2<u32> = vec2<u32>(2u, inp[6u]);
    var v4: vec4<i32> = (vec4<i32>(bitcast<i32>(inp[ib + 11u])) ^ select((vec4<i32>(7i, bitcast<i32>(inp[ib + 13u]), (-9i), bitcast<i32>(inp[ib + 0u])) / (vec4<i32>(bitcast<i32>(inp[ib + 0u])) ^ vec4<i32>())), (vec4<i32>(bitcast<i32>(inp[ib + 13u]), bitcast<i32>(inp[ib + 0u]), (-8i), bitcast<i32>(inp[ib + 0u])) % (vec4<i32>(bitcast<i32>(inp[ib + 2u])) ^ vec4<i32>())), (vec4<u32>(inp[ib + 14u]) != vec4<u32>(v3[(v3.y % 2u)]))));
    v4 = ((vec4<i32>((-8i)) - v4) + (vec4<i32>(v4[3u], v4.y, v4.w, v4.w) - vec4<i32>((-2i))));
    v4[(inp[ib + 12u] % 4u)] = extractBits((min(bitcast<i32>(inp[ib + 14u]), v4.z) & select(v4[(v3[(inp[ib + 5u] % 2u)] % 4u)], v4.z, ((inp[ib + 14u] & 1u) == 1u))), v3[(u32(v4.w) % 2u)], v3.x);
    let v5: f16 = select((f16(fz) * -0.5h), (23.875h + f16(fz)), false);
    var v6: vec2<i32> = ((vec2<i32>(bitcast<i32>(inp[ib + 2u])) ^ vec2<i32>(2147483647i, v4.w)) - (vec2<i32>(v4.z) * vec2<i32>(v4.w, v4.x)));
    out[o + 1u] = bitcast<u32>(acos(clamp(bitcast<f32>(inp[ib + 26u]), -1.0f, 1.0f)));
    let v7: bool = ((inp[ib + 11u] & 1u) == 1u);
    var v8: mat3x4<f32> = transpose(mat4x3<f32>(cross((floor(clamp(vec3<f32>(bitcast<f32>(inp[ib + 17u]), v2[(u32(bitcast<i32>(inp[ib + 6u])) % 3u)], v2[(u32(bitcast<i32>(inp[0u])) % 3u)]), vec3(-8.0f), vec3(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec3<f32>(v2[2]), vec3(-8.0f), vec3(8.0f)) * 16.0f) * 0.0625f)), ceil(vec3<f32>(v2[(v3[(v3.x % 2u)] % 3u)])), vec3<f32>(vec2<f32>(v2[2], bitcast<f32>(inp[ib + 26u])), v2[2]), ((vec3<f32>(bitcast<f32>(inp[ib + 18u]), v2[(u32(bitcast<i32>(inp[ib + 3u])) % 3u)], v2[2]) + fz) + vec3<f32>(bitcast<f32>(inp[ib + 19u])))));
    { let t = array<u32, 4>((v3.y + v3.x), p1108_h0(v3.x, v3.x, v3[(sgs % 2u)]), select(v3.y, v3[(u32(bitcast<i32>(inp[5u])) % 2u)], ((inp[7u] & 1u) == 1u)), select(v3[(v3[1u] % 2u)], inp[0u], false)); out[o + 2u] = t[0]; out[o + 3u] = t[1]; out[o + 4u] = t[2]; out[o + 5u] = t[3]; }
    { let t = v3; out[o + 6u] = t.x; out[o + 7u] = t.y; }
    { let t = v4; out[o + 8u] = bitcast<u32>(t.x); out[o + 9u] = bitcast<u32>(t.y); out[o + 10u] = bitcast<u32>(t.z); out[o + 11u] = bitcast<u32>(t.w); }
    { let t = v6; out[o + 12u] = bitcast<u32>(t.x); out[o + 13u] = bitcast<u32>(t.y); }
    { let t = v8; out[o + 14u] = bitcast<u32>(t[0].x); out[o + 15u] = bitcast<u32>(t[0].y); out[o + 16u] = bitcast<u32>(t[0].z); out[o + 17u] = bitcast<u32>(t[0].w); out[o + 18u] = bitcast<u32>(t[1].x); out[o + 19u] = bitcast<u32>(t[1].y); out[o + 20u] = bitcast<u32>(t[1].z); out[o + 21u] = bitcast<u32>(t[1].w); out[o + 22u] = bitcast<u32>(t[2].x); out[o + 23u] = bitcast<u32>(t[2].y); out[o + 24u] = bitcast<u32>(t[2].z); out[o + 25u] = bitcast<u32>(t[2].w); }
}

var<private> p1109_g0: bool;
fn p1109(o: u32) {
    p1109_g0 = (bitcast<i32>(inp[ib + 12u]) > bitcast<i32>(inp[ib + 9u]));
    p1109_g0 = (((inp[ib + 5u] & 1u) == 1u) && p1109_g0);
    for (var i2 = 0u; i2 < 3u; i2++) {
        { let t = vec4<f32>(bitcast<f32>(inp[ib + 16u])); out[o + 0u] = bitcast<u32>(t.x); out[o + 1u] = bitcast<u32>(t.y); out[o + 2u] = bitcast<u32>(t.z); out[o + 3u] = bitcast<u32>(t.w); }
    }
    let v3: vec2<i32> = vec2<i32>(bitcast<i32>(inp[ib + 13u]), bitcast<i32>(inp[ib + 14u]));
    var v4: vec2<i32> = (((v3 / (v3 ^ vec2<i32>())) - vec2<i32>(vec2<u32>(inp[0u], inp[5u]))) / (extractBits(bitcast<i32>(inp[5u]), lid, 30u) + firstLeadingBit(v3.y)));
    let v5: f32 = (f32(any(vec2<bool>(p1109_g0, false))) + fz);
    var v6: f32 = (dot((floor(clamp(vec3<f32>(bitcast<f32>(inp[ib + 18u])), vec3(-8.0f), vec3(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec3<f32>(v5), vec3(-8.0f), vec3(8.0f)) * 16.0f) * 0.0625f)) * (v5 - bitcast<f32>(inp[11u])));
    var v7: vec2<f32> = ((((mat2x2<f32>((floor(clamp(vec2<f32>(v6, bitcast<f32>(inp[ib + 17u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(v5, bitcast<f32>(inp[9u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) * (floor(clamp(vec2<f32>((12.5f + fz)), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) + fz) + vec2<f32>(bitcast<f32>(inp[ib + 24u]))) + vec2<f32>(bitcast<f32>(inp[ib + 26u])));
    var v8: bool = (vec3<bool>(false))[1u];
    let v9: bool = ((select(bitcast<f32>(inp[ib + 19u]), v7[(sgs % 2u)], ((inp[ib + 10u] & 1u) == 1u)) + bitcast<f32>(inp[ib + 25u])) < bitcast<f32>(inp[ib + 27u]));
    { let t = (vec4<f32>(vec4<i32>((vec3<i32>(v4[(inp[5u] % 2u)], v3[(inp[ib + 13u] % 2u)], v4.y) & vec3<i32>((-6i))), abs(bitcast<i32>(inp[ib + 5u])))) + fz); out[o + 4u] = bitcast<u32>(t.x); out[o + 5u] = bitcast<u32>(t.y); out[o + 6u] = bitcast<u32>(t.z); out[o + 7u] = bitcast<u32>(t.w); }
    workgroupBarrier();
    let v11 = inp[ib + 8u];
    if lid == 28u { wg_u[17] = v11; }
    let w10 = workgroupUniformLoad(&wg_u[17]);
    v6 *= (fz * -0.5f);
    let v12: u32 = (w10 >> 16u);
    var v13: vec4<f32> = (vec4<f32>(v7.x, v7.y, v7.y, bitcast<f32>(inp[10u])) * ((vec4<f32>(v7[(u32(bitcast<i32>(inp[ib + 11u])) % 2u)], v7.x, (2.625f + fz), v6) + fz) - vec4<f32>(bitcast<f32>(inp[8u]))));
    v6 = (((-v13.w) + fz) + ceil((8.5f + fz)));
    if ((v7[(u32(bitcast<i32>(inp[ib + 12u])) % 2u)] > bitcast<f32>(inp[ib + 25u])) == !(v8)) {
        atomicXor(&sat[4], (~(w10 + inp[7u])));
        let v14: u32 = (countTrailingZeros(firstLeadingBit(w10)) >> (u32(clamp(bitcast<f32>(inp[ib + 20u]), -5.0f, 4294967040.0f)) + pack2x16snorm(v7 + (0.0009765625f + fz))));
    }
    v6 = (v6 + fz) + bitcast<f32>(inp[ib + 20u]);
    { let t = v4; out[o + 8u] = bitcast<u32>(t.x); out[o + 9u] = bitcast<u32>(t.y); }
    { let t = v6; out[o + 10u] = bitcast<u32>(t); }
    { let t = v7; out[o + 11u] = bitcast<u32>(t.x); out[o + 12u] = bitcast<u32>(t.y); }
    { let t = v8; out[o + 13u] = select(0u, 1u, t); }
    { let t = v13; out[o + 14u] = bitcast<u32>(t.x); out[o + 15u] = bitcast<u32>(t.y); out[o + 16u] = bitcast<u32>(t.z); out[o + 17u] = bitcast<u32>(t.w); }
}

var<private> p1110_g0: vec3<f32>;
fn p1110_h0(a0: i32, a1: bool, a2: i32) -> vec2<i32> {
    p1110_g0[0u] = ceil(p1110_g0.z);
    let v2: vec4<f32> = ((vec4<f32>(bitcast<f32>(inp[ib + 23u])) * vec4<f32>(p1110_g0.x, vec3<f32>(p1110_g0.x))) * (f32(u32(clamp(bitcast<f32>(inp[ib + 21u]), -5.0f, 4294967040.0f))) + fz));
    return reverseBits((vec2<i32>(a2, a0) + vec2<i32>(a0, bitcast<i32>(inp[ib + 13u]))));
}
struct p1110_S0 {
    f0: u32,
}
fn p1110_h1(a0: bool, a1: array<vec2<i32>, 2>, a2: vec4<bool>) -> vec3<f32> {
    var v3: p1110_S0 = p1110_S0((inp[ib + 14u] - inp[ib + 1u]));
    return (((p1110_g0 + fz) + vec3<f32>((-24.0f + fz))) + vec3<f32>(bitcast<f32>(inp[ib + 26u])));
}
fn p1110(o: u32) {
    p1110_g0 = (vec3<f32>((0.1796875f + fz), (3.875f + fz), bitcast<f32>(inp[ib + 25u])) + vec3<f32>(bitcast<f32>(inp[ib + 16u])));
    { let t = (vec2<u32>(3u) % ((vec2<u32>(inp[3u]) - vec2<u32>(5u, inp[5u])) ^ vec2<u32>())); out[o + 0u] = t.x; out[o + 1u] = t.y; }
    p1110_g0.x = (f32((p1110_g0.y <= bitcast<f32>(inp[ib + 18u]))) + fz);
    { let t = mat3x4<f32>(vec4<f32>(p1110_g0.y), vec4<f32>(p1110_g0.x, p1110_g0[2u], p1110_g0[(lane % 3u)], p1110_g0[(u32(bitcast<i32>(inp[3u])) % 3u)]), vec4<f32>((18.0f + fz), p1110_g0.z, p1110_g0[0u], (-15.0f + fz))); out[o + 2u] = bitcast<u32>(t[0].x); out[o + 3u] = bitcast<u32>(t[0].y); out[o + 4u] = bitcast<u32>(t[0].z); out[o + 5u] = bitcast<u32>(t[0].w); out[o + 6u] = bitcast<u32>(t[1].x); out[o + 7u] = bitcast<u32>(t[1].y); out[o + 8u] = bitcast<u32>(t[1].z); out[o + 9u] = bitcast<u32>(t[1].w); out[o + 10u] = bitcast<u32>(t[2].x); out[o + 11u] = bitcast<u32>(t[2].y); out[o + 12u] = bitcast<u32>(t[2].z); out[o + 13u] = bitcast<u32>(t[2].w); }
    atomicAnd(&sat[11], ((lane % inp[ib + 12u]) / inp[ib + 4u]));
    let v4: f32 = (p1110_g0.x * p1110_g0.x);
    p1110_g0[(lid % 3u)] = ((sign(p1110_g0.x) * p1110_g0[(u32(bitcast<i32>(inp[ib + 14u])) % 3u)]) * min((-p1110_g0.y), ((v4 + fz) - bitcast<f32>(inp[ib + 22u]))));
    let v5: p1110_S0 = p1110_S0(inp[ib + 10u]);
    var i6 = 0u; // loop
    while i6 < 1u {
        p1110_g0.z = ((0.12109375f + fz) + bitcast<f32>(inp[ib + 24u]));
        let v7: array<vec2<bool>, 3> = array<vec2<bool>, 3>((vec2<i32>(bitcast<i32>(inp[ib + 12u]), bitcast<i32>(inp[ib + 7u])) < vec2<i32>(bitcast<i32>(inp[ib + 0u]), bitcast<i32>(inp[ib + 7u]))), (vec2<i32>(bitcast<i32>(inp[ib + 10u])) > vec2<i32>(bitcast<i32>(inp[ib + 13u]))), vec2<bool>(((inp[ib + 9u] & 1u) == 1u), false));
        i6 += 1u; // loop
    }
    { let t = (clamp(bitcast<i32>(inp[3u]), bitcast<i32>(inp[ib + 5u]), bitcast<i32>(inp[ib + 7u])) + (bitcast<i32>(inp[ib + 9u]) + bitcast<i32>(inp[6u]))); out[o + 14u] = bitcast<u32>(t); }
}

struct p1111_S0 {
    f0: i32,
}
fn p1111(o: u32) {
    { let t = vec4<i32>(bitcast<i32>(0x80000000u), bitcast<i32>(inp[ib + 13u]), bitcast<i32>(inp[ib + 6u]), bitcast<i32>(inp[ib + 5u])); out[o + 0u] = bitcast<u32>(t.x); out[o + 1u] = bitcast<u32>(t.y); out[o + 2u] = bitcast<u32>(t.z); out[o + 3u] = bitcast<u32>(t.w); }
    let v1: array<f32, 2> = array<f32, 2>(bitcast<f32>(inp[ib + 19u]), (bitcast<f32>(inp[ib + 24u]) - bitcast<f32>(inp[ib + 26u])));
    let v2: f16 = (1.25h + f16(fz));
    if (((inp[2u] & 1u) == 1u) != (v1[0] >= bitcast<f32>(inp[9u]))) {
        var v3: f16 = (f16(((inp[ib + 7u] & 1u) == 1u)) + f16(fz));
        v3 -= v2;
        if (reverseBits(bitcast<i32>(inp[7u])) < (bitcast<i32>(inp[ib + 6u]) % bitcast<i32>(inp[7u]))) {
            var v4: p1111_S0 = p1111_S0(i32(clamp(bitcast<f32>(inp[ib + 16u]), -2147483520.0f, 2147483520.0f)));
        }
        else {
            var v5: vec3<f16> = vec3<f16>(f16(bitcast<f32>(inp[ib + 29u])), v2, v3);
            out[o + 4u] = bitcast<u32>(log2(clamp(bitcast<f32>(inp[ib + 20u]), 0.5f, 2.0f)));
        }
    }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 64u;
    p1108(ob + 0u);
    p1109(ob + 26u);
    p1110(ob + 44u);
    p1111(ob + 59u);
}
