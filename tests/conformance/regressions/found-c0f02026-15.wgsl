// conformance regression: found by the generator: seed 0xc0f02026, program 15; shrunk from 15 to 15 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 3 word 0 [h~2/1e-3]: simulator 0x3db90000 (9.033203e-2), GPU 0x3dc00000 (9.375e-2); invocation 35 word 0 [h~2/1e-3]: simulator 0x3d82a000 (6.378174e-2), GPU 0x3d800000 (6.25e-2)
// @shape wg=32 groups=2 atomics=12 seed=0x1934b2fe7cccc83c
// @out h~2/1e-3 b f~32/0e0 b*5 f*5
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
var<private> fzh: f16;

var<private> p15_g0: mat4x3<f32>;
fn p15_m0(p: ptr<function, f32>, a: bool) {
    p15_g0[2].y *= trunc(f32(((inp[ib + 13u] & 1u) == 1u)));
}
struct p15_S0 {
    f0: vec4<u32>,
    f1: bool,
    f2: f32,
}
fn p15(o: u32) {
    var v2: mat2x2<f32> = (mat2x2<f32>(vec2<f32>(p15_g0[2].x, (-2.25f + fz)), vec2<f32>(p15_g0[2].x)) * ((-3.0f + fz) * (-1.5f + fz)));
    out[o + 0u] = bitcast<u32>(f32((clamp(ceil(quadSwapX(f16(bitcast<f32>(inp[ib + 32u])))), -64.0h, 64.0h) % select(f16(bitcast<f32>(inp[ib + 31u])), 1.0h, f16(bitcast<f32>(inp[ib + 31u])) == 0.0h))));
    let v3: u32 = (~(inp[ib + 12u] * inp[2u]));
    { let t = (~(bitcast<i32>(inp[ib + 2u]) & bitcast<i32>(inp[ib + 13u]))); out[o + 1u] = bitcast<u32>(t); }
    if ((inp[2u] & 1u) == 1u) {
        var v4: vec4<u32> = (vec4<u32>(v3, v3, v3, v3) % (vec4<u32>(vec3<u32>(v3), v3) ^ vec4<u32>()));
    }
    else if all((vec2<u32>(inp[ib + 13u], v3) <= vec2<u32>(inp[ib + 13u]))) {
        switch (u32(clamp(p15_g0[0][(u32(bitcast<i32>(inp[ib + 3u])) % 3u)], -5.0f, 4294967040.0f)) & 7u) {
            case 2u, 1u: {
                p15_g0[2].x -= bitcast<f32>(inp[ib + 25u]);
                var v5: array<f16, 3> = array<f16, 3>((vec4<f16>((12.0h + fzh), f16(bitcast<f32>(inp[ib + 33u])), f16(bitcast<f32>(inp[14u])), f16(bitcast<f32>(inp[ib + 33u]))))[(lane % 4u)], (-f16(bitcast<f32>(inp[ib + 32u]))), select((1.75h + fzh), (0.75h + fzh), true));
            }
            case 5u: {
                out[o + 2u] = bitcast<u32>(exp2(clamp((max((p15_g0[0].x * p15_g0[1].x), (-(-17.0f + fz))) + fz), -10.0f, 10.0f)));
                { let t = p15_S0((vec4<u32>(v3, v3, v3, inp[ib + 8u])).xwyz, bool(p15_g0[1][(v3 % 3u)]), (p15_g0[3][(u32(bitcast<i32>(inp[ib + 3u])) % 3u)] - bitcast<f32>(inp[ib + 22u]))); out[o + 3u] = t.f0.x; out[o + 4u] = t.f0.y; out[o + 5u] = t.f0.z; out[o + 6u] = t.f0.w; out[o + 7u] = select(0u, 1u, t.f1); out[o + 8u] = bitcast<u32>(t.f2); }
            }
            case 0u, 7u, default: {
            }
        }
    }
    else {
    }
    { let t = v2; out[o + 9u] = bitcast<u32>(t[0].x); out[o + 10u] = bitcast<u32>(t[0].y); out[o + 11u] = bitcast<u32>(t[1].x); out[o + 12u] = bitcast<u32>(t[1].y); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    fzh = f16(fz);
    lane = sl;
    sgs = ss;
    let ob = g * 13u;
    p15(ob + 0u);
}
