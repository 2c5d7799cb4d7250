// conformance regression: found by the generator: seed 0xc0f02026, program 2207; shrunk from 11 to 11 statements
// expect: the simulator and the GPU agree on every word. When found: invocation 4 word 7 [f]: simulator 0x3a8f86db (1.0950224e-3), GPU 0x3a8f85b9 (1.0949887e-3); invocation 4 word 8 [f]: simulator 0x3a8f86db (1.0950224e-3), GPU 0x3a8f85b9 (1.0949887e-3); invocation 16 word 7 [f]: simulator 0x3bcc75b7 (6.2396186e-3), GPU 0x3bcc7593 (6.239602e-3); invocation 16 word 8 [f]: simulator 0x3bcc75b7 (6.2396186e-3), GPU 0x3bcc7593 (6.239602e-3)
// @shape wg=32 groups=2 atomics=12 seed=0x687bb6b8621b2738
// @out f*2 b f b*2 f*3 b
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

struct p2207_S0 {
    f0: u32,
    f1: f32,
    f2: i32,
    f3: i32,
}
fn p2207(o: u32) {
    var v1: p2207_S0 = p2207_S0((inp[ib + 9u] ^ inp[ib + 5u]), min((-112.0f + fz), bitcast<f32>(inp[ib + 16u])), 2i, reverseBits(bitcast<i32>(inp[ib + 10u])));
    { let t = array<f32, 2>((v1.f1 * (-12.0f + fz)), (v1.f1 * v1.f1)); out[o + 0u] = bitcast<u32>(t[0]); out[o + 1u] = bitcast<u32>(t[1]); }
    switch ((v1.f0 % inp[ib + 10u]) & 7u) {
        case 0u: {
            var v2: bool = ((inp[ib + 2u] & 1u) == 1u);
        }
        default: {
        }
    }
    var v3: vec3<f32> = (((vec3<f32>(bitcast<f32>(inp[10u]), v1.f1, v1.f1) + vec3<f32>(bitcast<f32>(inp[ib + 25u]))) - select(vec3<f32>(v1.f1), vec3<f32>(v1.f1), vec3<bool>(((inp[ib + 12u] & 1u) == 1u), ((inp[ib + 11u] & 1u) == 1u), ((inp[7u] & 1u) == 1u)))) / vec3<f32>(v1.f1, vec2<f32>(v1.f1)));
    var v4: u32 = dot4U8Packed(inp[ib + 15u], inp[6u]);
    { let t = v1; out[o + 2u] = t.f0; out[o + 3u] = bitcast<u32>(t.f1); out[o + 4u] = bitcast<u32>(t.f2); out[o + 5u] = bitcast<u32>(t.f3); }
    { let t = v3; out[o + 6u] = bitcast<u32>(t.x); out[o + 7u] = bitcast<u32>(t.y); out[o + 8u] = bitcast<u32>(t.z); }
    { let t = v4; out[o + 9u] = t; }
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32) {
    let g = wid.x * 32u + li;
    ib = 16u + g * 36u;
    lid = li;
    fz = bitcast<f32>(inp[15u]);
    lane = sl;
    sgs = ss;
    let ob = g * 10u;
    p2207(ob + 0u);
}
