// conformance regression: found by the generator: seed 0xc0f02026, program 1342; shrunk from 20 to 20 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 5 word 2 [h~16/8e-3]: simulator 0xbc800000 (-1.5625e-2), GPU 0x00000000 (0e0); invocation 19 word 2 [h~16/8e-3]: simulator 0xbed80000 (-4.21875e-1), GPU 0xbee00000 (-4.375e-1); invocation 22 word 2 [h~16/8e-3]: simulator 0xbf3ac000 (-7.294922e-1), GPU 0xbf380000 (-7.1875e-1); invocation 34 word 2 [h~16/8e-3]: simulator 0xbee60000 (-4.4921875e-1), GPU 0xbee00000 (-4.375e-1)
// @shape wg=32 groups=2 atomics=12 seed=0xbc803e26117a3715
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
    out[o + 0u] = bitcast<u32>(length((floor(clamp((mat2x2<f32>((floor(clamp(vec2<f32>(bitcast<f32>(inp[ib + 23u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f), (floor(clamp(vec2<f32>(bitcast<f32>(inp[ib + 19u]), bitcast<f32>(inp[ib + 21u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)) * (floor(clamp(vec2<f32>((-15.5f + fz), bitcast<f32>(inp[ib + 19u])), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)), vec2(-8.0f), vec2(8.0f)) * 16.0f) * 0.0625f)));
    if ((inp[ib + 3u] & 1u) == 1u) {
        out[o + 1u] = bitcast<u32>(tan(clamp((clamp(bitcast<f32>(inp[ib + 27u]), bitcast<f32>(inp[ib + 25u]), bitcast<f32>(inp[ib + 21u])) + ldexp(bitcast<f32>(inp[ib + 19u]), clamp(bitcast<i32>(inp[ib + 4u]), -12i, 12i))), -1.0f, 1.0f)));
        let v1: u32 = ((vec2<u32>(inp[ib + 6u]) * vec2<u32>(inp[ib + 9u], inp[ib + 5u]))).x;
        var i2 = 0u; // loop
        loop {
            if i2 >= (v1 & 3u) { break; } // loop
            var i3 = 0u; // loop
            while i3 < (v1 & 3u) {
                var v4: array<bool, 3> = array<bool, 3>(((inp[3u] & 1u) == 1u), !(((inp[ib + 15u] & 1u) == 1u)), ((inp[ib + 6u] & 1u) == 1u));
                i3 += 1u; // loop
            }
            out[o + 2u] = bitcast<u32>(f32((clamp((((-(-5.5h + f16(fz))) * ((-0.0h + f16(fz)) + (-12.0h + f16(fz)))) + f16(fz)), -64.0h, 64.0h) % select(((f16(bitcast<f32>(inp[ib + 32u])) / (9.0h + f16(fz))) + f16(fz)), 1.0h, ((f16(bitcast<f32>(inp[ib + 32u])) / (9.0h + f16(fz))) + f16(fz)) == 0.0h))));
            if (bool(bitcast<i32>(inp[ib + 3u])) == false) {
                let v5: f32 = (((bitcast<f32>(inp[9u]) * bitcast<f32>(inp[ib + 21u])) + fz) + f32((2.5h + f16(fz))));
                var v6: vec3<u32> = ((reverseBits(vec3<u32>(i2)) ^ (vec3<u32>(7u) * vec3<u32>(i2, i2, 0u))) / ((vec3<u32>(vec2<u32>(v1), 2u)).xzy ^ vec3<u32>()));
            }
            else {
                var v7: i32 = (bitcast<i32>(inp[ib + 1u]) - bitcast<i32>(inp[ib + 7u]));
                { let t = (f16(bitcast<f32>(inp[ib + 34u])) + f16(bitcast<f32>(inp[ib + 30u]))); out[o + 3u] = bitcast<u32>(f32(t)); }
            }
            let v8: vec4<u32> = reverseBits(vec4<u32>(i2, i2, v1, v1));
        continuing {
            i2 += 1u; // loop
            break if i2 >= 4u; // loop
        }
        }
    }
    else if bool(inp[ib + 0u]) {
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
