// conformance regression: found by the generator: seed 0xc0f02026, program 1 (module 0); shrunk from 17 to 2 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 0 word 15 [f]: simulator 0x00000000 (0e0), GPU 0x3d200000 (3.90625e-2); invocation 1 word 15 [f]: simulator 0x00000000 (0e0), GPU 0x42b00000 (8.8e1); invocation 2 word 15 [f]: simulator 0x00000000 (0e0), GPU 0x42e68979 (1.152685e2); invocation 3 word 15 [f]: simulator 0x00000000 (0e0), GPU 0xc2400000 (-4.8e1)
// @shape wg=32 groups=2 atomics=12 seed=0x1934b2fe7cccc83c
// @out f~4096/1e-5 f*4 b*3 f~8/1e-3 b*3 f*6
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

var<private> p1_g0: f32;
fn p1(o: u32) {
    var v5: mat2x3<f32> = transpose(mat3x2<f32>(vec2<f32>(bitcast<f32>(inp[ib + 20u])), vec2<f32>(p1_g0, p1_g0), vec2<f32>(p1_g0)));
    { let t = v5; out[o + 12u] = bitcast<u32>(t[0].x); out[o + 13u] = bitcast<u32>(t[0].y); out[o + 14u] = bitcast<u32>(t[0].z); out[o + 15u] = bitcast<u32>(t[1].x); out[o + 16u] = bitcast<u32>(t[1].y); out[o + 17u] = bitcast<u32>(t[1].z); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    lane = sl;
    sgs = ss;
    let ob = g * 18u;
    p1(ob + 0u);
}
