// conformance regression: found by the generator: seed 0xc0f02026, program 11 (module 0); shrunk from 32 to 2 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 1 word 1 [f]: simulator 0x80000000 (-0e0), GPU 0x00000000 (0e0); invocation 6 word 1 [f]: simulator 0x80000000 (-0e0), GPU 0x00000000 (0e0); invocation 7 word 1 [f]: simulator 0x80000000 (-0e0), GPU 0x00000000 (0e0); invocation 9 word 1 [f]: simulator 0x80000000 (-0e0), GPU 0x00000000 (0e0)
// @shape wg=32 groups=2 atomics=12 seed=0x1934b2fe7cccc83c
// @out f*10 b*9 h f b*6
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

fn p11(o: u32) {
    var v7: f32 = dot((floor(clamp(subgroupMax(vec2<f32>(bitcast<f32>(inp[ib + 23u]), bitcast<f32>(inp[ib + 16u]))), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp((mat4x2<f32>((floor(clamp((vec2<f32>(bitcast<f32>(inp[ib + 16u]), (-52.0f)) / vec2<f32>((-0.0f), (-25.0f))), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(select(vec2<f32>(bitcast<f32>(inp[ib + 26u])), vec2<f32>(0.0f), vec2<bool>(((inp[ib + 1u] & 1u) == 1u))), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp((mat4x2<f32>((floor(clamp(vec2<f32>(bitcast<f32>(inp[9u]), 15.5f), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(bitcast<f32>(inp[ib + 21u]), bitcast<f32>(inp[ib + 17u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(bitcast<f32>(inp[ib + 17u]), bitcast<f32>(inp[ib + 19u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(bitcast<f32>(inp[ib + 26u]), bitcast<f32>(inp[ib + 26u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) * (floor(clamp(vec4<f32>(bitcast<f32>(inp[ib + 23u])), vec4(-8.0f), vec4(8.0f)) * 16.0f) * 0.0625f)), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(bitcast<f32>(inp[ib + 23u]), 0.09375f), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) * (floor(clamp((vec4<f32>(80.0f, 1.0f, bitcast<f32>(inp[ib + 22u]), 14.0f) * vec4<f32>(bitcast<f32>(inp[ib + 26u]), 0.0f, bitcast<f32>(inp[ib + 20u]), bitcast<f32>(inp[ib + 17u]))), vec4(-8.0f), vec4(8.0f)) * 16.0f) * 0.0625f)), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f));
    { let t = (v7 % v7); out[o + 1u] = bitcast<u32>(t); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    lane = sl;
    sgs = ss;
    let ob = g * 27u;
    p11(ob + 0u);
}
