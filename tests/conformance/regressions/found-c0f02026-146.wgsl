// conformance regression: found by the generator: seed 0xc0f02026, program 146; shrunk from 12 to 12 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 15 word 0 [h~2/1e-3]: simulator 0x43580000 (2.16e2), GPU 0x43588000 (2.165e2); invocation 45 word 0 [h~2/1e-3]: simulator 0x43d30000 (4.22e2), GPU 0x43d2a000 (4.2125e2)
// @shape wg=32 groups=2 atomics=12 seed=0x81335ea2184e50d3
// @out h~2/1e-3
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

struct p146_S0 {
    f0: vec3<f32>,
    f1: i32,
}
struct p146_S1 {
    f0: u32,
    f1: i32,
    f2: vec3<u32>,
}
fn p146(o: u32) {
    out[o + 0u] = bitcast<u32>(f32(pow(clamp(abs(f16(bitcast<f32>(inp[ib + 33u]))), 0.25h, 8.0h), clamp(f16(bitcast<f32>(inp[ib + 29u])), -3.0h, 3.0h))));
    let v1: mat4x3<f32> = (transpose(mat3x4<f32>(vec4<f32>((15.5f + fz)), vec4<f32>((0.44233283f + fz), bitcast<f32>(inp[ib + 17u]), (-0.78125f + fz), bitcast<f32>(inp[ib + 27u])), vec4<f32>(bitcast<f32>(inp[ib + 21u])))) * bitcast<f32>(inp[ib + 21u]));
    let v2: i32 = (bitcast<i32>(inp[ib + 7u]) * bitcast<i32>(inp[ib + 12u]));
    let v3: u32 = 1u;
    let v4: p146_S0 = p146_S0(vec3<f32>(bitcast<f32>(inp[ib + 23u])), i32(clamp(v1[0].z, -2147483520.0f, 2147483520.0f)));
    for (var i5 = 0u; i5 < 4u; i5++) {
        var v6: vec2<i32> = vec2<i32>(bitcast<i32>(inp[ib + 13u]));
        if (v6.y <= (v6[(inp[1u] % 2u)] << 21u)) {
            v6.x = bitcast<i32>(0x80000000u);
        }
        else {
            let v7: bool = (reverseBits(v6.y) <= (v6[(lane % 2u)] & 5i));
            var v8: p146_S1 = p146_S1((v3 + i5), (v2 >> sgs), (vec3<u32>(lane) * 4294967295u));
            v6 = firstLeadingBit(v6);
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
    let ob = g * 1u;
    p146(ob + 0u);
}
