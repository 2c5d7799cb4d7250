// conformance regression: found by the generator: seed 0x135290a, program 5712; shrunk from 20 to 4 statements
// expect: the simulator and the GPU agree on every word.
// @wrong-on NVIDIA: the H200 (driver 580.159.04) gives v3.y for `min(clamp(a, lo, -v3.y), b)` on i32, where each operand, written out alone in the same module, is right and lavapipe computes the same SPIR-V as the simulator (WGSL: min(max(a, lo), -v3.y), then min with b)
// @shape wg=32 groups=2 atomics=12 seed=0x3f2304da76eb00e1
// @out b*6
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

fn p5712(o: u32) {
    var v3: vec2<i32> = vec2<i32>(bitcast<i32>(inp[0u]), bitcast<i32>(inp[ib + 0u]));
    var v4: i32 = min(clamp(i32(clamp(bitcast<f32>(inp[ib + 24u]), -2147483520.0f, 2147483520.0f)), sign(v3[0u]), (-v3.y)), v3[(u32(v3.x) % 2u)]);
    var i6 = 0u; // loop
    { let t = v4; out[o + 5u] = bitcast<u32>(t); }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 6u;
    p5712(ob + 0u);
}
