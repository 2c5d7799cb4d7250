// conformance regression: found by the generator: seed 0xc0f02026, program 303; shrunk from 17 to 17 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 10 word 5 [h]: simulator 0x40800000 (4e0), GPU 0x40400000 (3e0); invocation 19 word 5 [h]: simulator 0x41700000 (1.5e1), GPU 0x41600000 (1.4e1); invocation 38 word 5 [h]: simulator 0x41000000 (8e0), GPU 0x40e00000 (7e0)
// @shape wg=32 groups=2 atomics=12 seed=0x4fbc822a78067792
// @out b h~64/1e-3 f~2/2e-5 h*3 b
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

var<private> p303_g0: f32;
struct p303_S0 {
    f0: bool,
    f1: i32,
}
fn p303(o: u32) {
    var i2 = 0u; // loop
    while i2 < 3u {
        { let t = i32(clamp((modf(f16(bitcast<f32>(inp[ib + 30u]))).fract * ((2.0h + f16(fz)) * (0.07342529h + f16(fz)))), -65504.0h, 65504.0h)); out[o + 0u] = bitcast<u32>(t); }
        if i2 >= 1u {
            break;
        }
        out[o + 1u] = bitcast<u32>(f32(atanh(clamp(f16(bitcast<f32>(inp[ib + 31u])), -0.875h, 0.875h))));
        let v3: p303_S0 = p303_S0((((inp[ib + 0u] & 1u) == 1u) && ((inp[ib + 14u] & 1u) == 1u)), (-bitcast<i32>(inp[ib + 14u])));
        i2 += 1u; // loop
    }
    let v4: f32 = (p303_g0 * (p303_g0 + p303_g0));
    var v5: f16 = sqrt(abs(f16(bitcast<f32>(inp[ib + 34u]))));
    var v6: vec2<f16> = ceil((vec2<f16>(v5, v5) * vec2<f16>((1.125h + f16(fz)), v5)));
    v5 *= f16(bitcast<f32>(inp[ib + 30u]));
    var v7: u32 = (~max(inp[0u], inp[ib + 13u]));
    out[o + 2u] = bitcast<u32>((clamp(((vec3<f32>(p303_g0, v4, (-0.99292856f + fz))).y + fz), -64.0f, 64.0f) % select((round(v4) + fz), 1.0f, (round(v4) + fz) == 0.0f)));
    { let t = v5; out[o + 3u] = bitcast<u32>(f32(t)); }
    { let t = v6; out[o + 4u] = bitcast<u32>(f32(t.x)); out[o + 5u] = bitcast<u32>(f32(t.y)); }
    { let t = v7; out[o + 6u] = t; }
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
    p303(ob + 0u);
}
