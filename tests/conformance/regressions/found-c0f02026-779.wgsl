// conformance regression: found by the generator: seed 0xc0f02026, program 779; shrunk from 13 to 13 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 3 word 3 [f]: simulator 0x44f1b2b8 (1.933585e3), GPU 0x44f1b2b6 (1.9335847e3); invocation 3 word 4 [f]: simulator 0xc2c15bc6 (-9.6679245e1), GPU 0xc2c15bc5 (-9.667924e1); invocation 3 word 5 [f]: simulator 0xbf021d40 (-5.082588e-1), GPU 0xbf021d46 (-5.082592e-1); invocation 4 word 3 [f]: simulator 0xc30c7490 (-1.4045532e2), GPU 0xc30c748f (-1.404553e2)
// @shape wg=32 groups=2 atomics=12 seed=0xcbf7f7d6b64b5d81
// @out b f*6
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

var<private> p779_g0: u32;
fn p779_m0(p: ptr<function, mat3x2<f32>>, a: i32) {
    (*p)[0] = ((vec2<f32>((7.5f + fz)) - vec2<f32>(bitcast<f32>(inp[ib + 19u]))) - (*p)[0]);
    (*p)[0].x = fract(max((3.0f + fz), bitcast<f32>(inp[ib + 19u])));
    p779_g0 = (~abs(p779_g0));
}
fn p779_h0(a0: array<vec2<f32>, 2>, a1: u32, a2: u32) -> f32 {
    let v2: vec2<i32> = (select((vec3<i32>(bitcast<i32>(inp[7u]), 6i, bitcast<i32>(inp[ib + 14u]))).xy, (vec2<i32>(bitcast<i32>(inp[0u])) + vec2<i32>(bitcast<i32>(inp[5u]))), !(true)) % (reverseBits(select(vec2<i32>(bitcast<i32>(inp[7u]), bitcast<i32>(inp[2u])), vec2<i32>(bitcast<i32>(inp[5u])), vec2<bool>(((inp[ib + 5u] & 1u) == 1u)))) ^ vec2<i32>()));
    return quantizeToF16(clamp(f32(((inp[ib + 6u] & 1u) == 1u)), -65504.0f, 65504.0f));
}
struct p779_S0 {
    f0: i32,
}
fn p779(o: u32) {
    atomicOr(&sat[3], (inp[ib + 1u] ^ extractBits(inp[ib + 9u], p779_g0, p779_g0)));
    p779_g0 = extractBits(p779_g0, p779_g0, 31u);
    p779_g0 = (p779_g0 + p779_g0);
    var v3: mat3x2<f32> = ((mat3x2<f32>(vec2<f32>(bitcast<f32>(inp[ib + 26u]), bitcast<f32>(inp[ib + 24u])), vec2<f32>(bitcast<f32>(inp[ib + 21u]), (1.0f + fz)), vec2<f32>(bitcast<f32>(inp[10u]))) + transpose(mat2x3<f32>(vec3<f32>(bitcast<f32>(inp[ib + 17u]), bitcast<f32>(inp[ib + 17u]), bitcast<f32>(inp[ib + 25u])), vec3<f32>((0.0f + fz))))) - mat3x2<f32>(vec2<f32>(bitcast<f32>(inp[ib + 21u]), (-28.0f + fz)), vec2<f32>(bitcast<f32>(inp[10u])), vec2<f32>(bitcast<f32>(inp[10u]))));
    let v4: p779_S0 = p779_S0(insertBits(bitcast<i32>(inp[ib + 5u]), bitcast<i32>(inp[7u]), p779_g0, p779_g0));
    v3[1] = (floor(vec2<f32>(v3[1].y, v3[2].x)) * ((v3[2] - v3[0])).xx);
    var i5 = 0u; // loop
    while i5 < 4u {
        atomicMax(&sat[1], ((i5 >> inp[ib + 5u]) & dot(vec3<u32>(i5), vec3<u32>(i5, inp[7u], 0u))));
        let v6: i32 = (v4.f0 << p779_g0);
        i5 += 1u; // loop
    }
    { let t = i32(clamp(modf(min(f32(((inp[ib + 7u] & 1u) == 1u)), min(v3[2].y, v3[0].x))).whole, -1e9f, 1e9f)); out[o + 0u] = bitcast<u32>(t); }
    { let t = v3; out[o + 1u] = bitcast<u32>(t[0].x); out[o + 2u] = bitcast<u32>(t[0].y); out[o + 3u] = bitcast<u32>(t[1].x); out[o + 4u] = bitcast<u32>(t[1].y); out[o + 5u] = bitcast<u32>(t[2].x); out[o + 6u] = bitcast<u32>(t[2].y); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 7u;
    p779(ob + 0u);
}
