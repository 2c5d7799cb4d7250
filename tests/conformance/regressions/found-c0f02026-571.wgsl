// conformance regression: found by the generator: seed 0xc0f02026, program 571; shrunk from 7 to 7 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 19 word 3 [f]: simulator 0x430251cd (1.3031953e2), GPU 0x430251ce (1.3031955e2); invocation 27 word 3 [f]: simulator 0xbf50de20 (-8.1588936e-1), GPU 0xbf50de00 (-8.1588745e-1); invocation 28 word 3 [f]: simulator 0x3ed9b1b8 (4.25184e-1), GPU 0x3ed9b180 (4.2518234e-1)
// @shape wg=32 groups=2 atomics=12 seed=0x9d47e5b63cc4e8bf
// @out f~2/2e-5 f*24
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

fn p571(o: u32) {
    let v1: f32 = bitcast<f32>(inp[ib + 19u]);
    var v2: mat4x4<f32> = transpose((mat4x4<f32>(vec4<f32>(v1), vec4<f32>(bitcast<f32>(inp[ib + 21u]), v1, (-1.25f + fz), v1), vec4<f32>(v1, v1, v1, v1), vec4<f32>(v1)) + mat4x4<f32>(vec4<f32>(bitcast<f32>(inp[ib + 27u])), vec4<f32>(bitcast<f32>(inp[ib + 27u])), vec4<f32>(bitcast<f32>(inp[ib + 27u])), vec4<f32>(bitcast<f32>(inp[ib + 27u])))));
    let v3: i32 = (bitcast<i32>(inp[ib + 13u]) + 7i);
    atomicAnd(&sat[5], 6u);
    out[o + 0u] = bitcast<u32>((clamp((abs((v2[0].x * v2[0].w)) + fz), -64.0f, 64.0f) % select(ldexp((0.04296875f + fz), clamp(v3, -12i, 12i)), 1.0f, ldexp((0.04296875f + fz), clamp(v3, -12i, 12i)) == 0.0f)));
    { let t = mat4x2<f32>(faceForward((floor(clamp(sign(vec2<f32>(v2[2][(sgs % 4u)])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(v2[2][2u], v2[3][(u32(bitcast<i32>(inp[7u])) % 4u)]), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(trunc(vec2<f32>(bitcast<f32>(inp[ib + 26u]))), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)), ((mat2x2<f32>((floor(clamp(vec2<f32>(bitcast<f32>(inp[ib + 18u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(v2[3][3u], v2[0].x), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) * (floor(clamp(vec2<f32>(v2[2].z, v2[0].x), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) + ((vec2<f32>((0.026367188f + fz), (5.0f + fz)) * vec2<f32>(v2[3][0u])) + fz)), select(vec2<f32>(0), subgroupShuffleDown(vec2<f32>(bitcast<f32>(inp[ib + 19u])), 3u), lane + 3u < sgs), select(vec2<f32>(0), subgroupShuffleUp(vec2<f32>((0.0f + fz), v2[2].y), 1u), lane >= 1u)); out[o + 1u] = bitcast<u32>(t[0].x); out[o + 2u] = bitcast<u32>(t[0].y); out[o + 3u] = bitcast<u32>(t[1].x); out[o + 4u] = bitcast<u32>(t[1].y); out[o + 5u] = bitcast<u32>(t[2].x); out[o + 6u] = bitcast<u32>(t[2].y); out[o + 7u] = bitcast<u32>(t[3].x); out[o + 8u] = bitcast<u32>(t[3].y); }
    { let t = v2; out[o + 9u] = bitcast<u32>(t[0].x); out[o + 10u] = bitcast<u32>(t[0].y); out[o + 11u] = bitcast<u32>(t[0].z); out[o + 12u] = bitcast<u32>(t[0].w); out[o + 13u] = bitcast<u32>(t[1].x); out[o + 14u] = bitcast<u32>(t[1].y); out[o + 15u] = bitcast<u32>(t[1].z); out[o + 16u] = bitcast<u32>(t[1].w); out[o + 17u] = bitcast<u32>(t[2].x); out[o + 18u] = bitcast<u32>(t[2].y); out[o + 19u] = bitcast<u32>(t[2].z); out[o + 20u] = bitcast<u32>(t[2].w); out[o + 21u] = bitcast<u32>(t[3].x); out[o + 22u] = bitcast<u32>(t[3].y); out[o + 23u] = bitcast<u32>(t[3].z); out[o + 24u] = bitcast<u32>(t[3].w); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 25u;
    p571(ob + 0u);
}
