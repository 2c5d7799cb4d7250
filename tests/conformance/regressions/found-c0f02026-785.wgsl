// conformance regression: found by the generator: seed 0xc0f02026, program 785; shrunk from 20 to 20 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 32 word 7 [h~2/1e-3]: simulator 0x41e62000 (2.8765625e1), GPU 0x41e5c000 (2.871875e1)
// @shape wg=32 groups=2 atomics=12 seed=0xdf12783a218c8b81
// @out f~4096/1e-5*2 h~2/1e-3 b*4 h~2/1e-3 f*5 b*10
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

fn p785(o: u32) {
    out[o + 0u] = bitcast<u32>(cosh(clamp((modf(bitcast<f32>(inp[ib + 25u])).fract + floor(bitcast<f32>(inp[11u]))), -4.0f, 4.0f)));
    out[o + 1u] = bitcast<u32>(acos(clamp(((1.1875f + fz) + ((-20.47548f + fz) + bitcast<f32>(inp[8u]))), -1.0f, 1.0f)));
    var v1: f32 = ((((bitcast<f32>(inp[ib + 23u]) - bitcast<f32>(inp[ib + 16u])) * select(bitcast<f32>(inp[ib + 19u]), bitcast<f32>(inp[10u]), ((inp[ib + 4u] & 1u) == 1u))) + fz) - modf((bitcast<f32>(inp[ib + 26u]) - (-15.0f + fz))).whole);
    out[o + 2u] = bitcast<u32>(f32((clamp(ceil(f16(bitcast<f32>(inp[ib + 29u]))), -64.0h, 64.0h) % select(floor(f16(bitcast<f32>(inp[ib + 35u]))), 1.0h, floor(f16(bitcast<f32>(inp[ib + 35u]))) == 0.0h))));
    var v2: vec4<f32> = ((((vec4<f32>(v1, v1, v1, v1) + vec4<f32>(bitcast<f32>(inp[11u]))) * (vec4<f32>(v1, bitcast<f32>(inp[ib + 17u]), v1, v1) / vec4<f32>(v1, v1, v1, v1))) + fz) - ((vec4<f32>(v1) / vec4<f32>(vec3<f32>((-16.0f + fz)), v1)) + fz));
    { let t = (vec4<u32>(inp[ib + 14u], 3u, sgs, lane) > vec4<u32>(4294967295u)); out[o + 3u] = select(0u, 1u, t.x); out[o + 4u] = select(0u, 1u, t.y); out[o + 5u] = select(0u, 1u, t.z); out[o + 6u] = select(0u, 1u, t.w); }
    var v3: array<vec3<u32>, 3> = array<vec3<u32>, 3>((vec3<u32>(inp[5u]) | vec3<u32>(lid)), select(vec3<u32>(2u), vec3<u32>(inp[ib + 5u]), vec3<bool>(((inp[ib + 4u] & 1u) == 1u), ((inp[ib + 5u] & 1u) == 1u), false)), abs(vec3<u32>(inp[ib + 15u])));
    v3[2].y--;
    var v4: u32 = (v3[2].y & inp[ib + 8u]);
    if any(vec2<bool>(((inp[ib + 5u] & 1u) == 1u), ((inp[ib + 9u] & 1u) == 1u))) {
        for (var i5 = 0u; i5 < (lid & 3u); i5++) {
            let v6: vec2<u32> = (((vec4<u32>(inp[ib + 8u], v3[2].y, i5, i5) + vec4<u32>(v3[(inp[ib + 14u] % 3u)].z))).xy / v3[2].y);
            v1 = dot((floor(clamp((vec4<f32>(bitcast<f32>(inp[ib + 18u]), v2.x, v2.z, (-0.8197592f + fz)) / vec4<f32>((1.3125f + fz))), vec4(-8.0f), vec4(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(((vec4<f32>(v2.z) / v2) / ((vec4<f32>(v2[(u32(bitcast<i32>(inp[ib + 2u])) % 4u)]) * v2) + fz)), vec4(-8.0f), vec4(8.0f)) * 16.0f) * 0.0625f));
        }
        var v7: vec4<u32> = vec4<u32>(4294967295u, 1u, v3[2].z, 2u);
    }
    out[o + 7u] = bitcast<u32>(f32(exp(clamp(f16(bitcast<f32>(inp[ib + 34u])), -8.0h, 8.0h))));
    v4 |= (max(3u, v3[(u32(bitcast<i32>(inp[ib + 15u])) % 3u)].z) | (v3[1u])[(inp[ib + 5u] % 3u)]);
    { let t = v1; out[o + 8u] = bitcast<u32>(t); }
    { let t = v2; out[o + 9u] = bitcast<u32>(t.x); out[o + 10u] = bitcast<u32>(t.y); out[o + 11u] = bitcast<u32>(t.z); out[o + 12u] = bitcast<u32>(t.w); }
    { let t = v3; out[o + 13u] = t[0].x; out[o + 14u] = t[0].y; out[o + 15u] = t[0].z; out[o + 16u] = t[1].x; out[o + 17u] = t[1].y; out[o + 18u] = t[1].z; out[o + 19u] = t[2].x; out[o + 20u] = t[2].y; out[o + 21u] = t[2].z; }
    { let t = v4; out[o + 22u] = t; }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 23u;
    p785(ob + 0u);
}
