// conformance regression: found by the generator: seed 0xc0f02026, program 1342; shrunk from 20 to 8 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 15 word 2 [h~16/8e-3]: simulator 0xbd9ee000 (-7.757568e-2), GPU 0x00000000 (0e0); invocation 21 word 2 [h~16/8e-3]: simulator 0xbc800000 (-1.5625e-2), GPU 0x00000000 (0e0); invocation 22 word 2 [h~16/8e-3]: simulator 0xbc800000 (-1.5625e-2), GPU 0x00000000 (0e0); invocation 23 word 2 [h~16/8e-3]: simulator 0xbee60000 (-4.4921875e-1), GPU 0xbee00000 (-4.375e-1)
// @needs exact-div: `%` of floats is x - y * trunc(x / y), and a `/` within WGSL's 2.5 ulp can move
// trunc(x / y) by one near an integer (the result by y); compared where `/` rounds correctly
// @shape wg=32 groups=2 atomics=12 seed=0xbc539fcb095ee88d
// @out f~4/1e-6 f~8/1e-3 h~16/8e-3 h
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

fn p1342(o: u32) {
    let v1: u32 = ((vec2<u32>(inp[ib + 6u]) * vec2<u32>(inp[ib + 9u], inp[ib + 5u]))).x;
    var i2 = 0u; // loop
    loop {
        if i2 >= (v1 & 3u) { break; } // loop
        var i3 = 0u; // loop
        out[o + 2u] = bitcast<u32>(f32((clamp((((-(-5.5h + f16(fz))) * ((-0.0h + f16(fz)) + (-12.0h + f16(fz)))) + f16(fz)), -64.0h, 64.0h) % select(((f16(bitcast<f32>(inp[ib + 32u])) / (9.0h + f16(fz))) + f16(fz)), 1.0h, ((f16(bitcast<f32>(inp[ib + 32u])) / (9.0h + f16(fz))) + f16(fz)) == 0.0h))));
    continuing {
        i2 += 1u; // loop
        break if i2 >= 4u; // loop
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
    let ob = g * 4u;
    p1342(ob + 0u);
}
