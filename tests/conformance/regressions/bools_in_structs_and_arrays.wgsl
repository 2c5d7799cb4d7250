// conformance regression: bools in a struct and an array, in private and function memory
// expect: the simulator and the GPU agree on every word. naga sizes a bool as one byte, so a
// struct's WGSL offsets put `f0: vec3<bool>` and `f1: i32` in overlapping words of the
// simulator's word-per-leaf memory; the simulator lays every bool out in a word of its own.
// @shape wg=32 groups=2 atomics=12 seed=0x600d
// @out b*6
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

struct S {
    f0: vec3<bool>,
    f1: i32,
    f2: bool,
    f3: u32,
}
var<private> g: S;

fn bits(v: vec3<bool>) -> u32 {
    return u32(v.x) | (u32(v.y) << 1u) | (u32(v.z) << 2u);
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 32u + li;
    let ib = 16u + i * 36u;
    let x = inp[ib];
    g = S(vec3<bool>((x & 1u) == 1u, (x & 2u) == 0u, (x & 4u) == 4u), bitcast<i32>(inp[ib + 1u]), x > inp[ib + 2u], inp[ib + 3u]);
    var a = array<vec3<bool>, 2>(vec3<bool>(true, (x & 8u) == 8u, false), !g.f0);
    var l: S = g;
    l.f0.y = (x & 16u) == 16u;
    l.f2 = !l.f2;
    let o = i * 6u;
    out[o + 0u] = bits(g.f0);
    out[o + 1u] = bitcast<u32>(g.f1);
    out[o + 2u] = u32(g.f2) + 10u * g.f3;
    out[o + 3u] = bits(a[0]) | (bits(a[1]) << 4u);
    out[o + 4u] = bits(l.f0) | (u32(l.f2) << 4u);
    out[o + 5u] = l.f3 + bitcast<u32>(l.f1);
}
