// Exact sum of u32 elements into 64 bits, one partial per workgroup (stage 1 of 2).
// Integer sums follow numpy: u32 -> u64; i32 -> i64 by summing x ^ 0x80000000 (= x + 2^31 as
// unsigned) and letting the host subtract n * 2^31 (FLIP = 1).
// Structure: CUB DeviceReduce "even share": a capped grid of workgroups, each walking the
// input with a grid stride, vec4 loads, then one workgroup-wide reduction.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
override FLIP: u32 = 0u;

struct Params {
    n: u32,          // elements in this chunk
    out_base: u32,   // index of this chunk's first partial
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> partials: array<vec2<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = params.n;
    let flip = select(0u, 0x80000000u, FLIP != 0u);
    // load + accumulate: (lo, hi) with carry; full vec4s first, then the masked last one
    var lo = 0u;
    var hi = 0u;
    let full = n / 4u;
    let stride = nwg.x * WG_SIZE;
    for (var i = wid.x * WG_SIZE + inv.lid; i < full; i += stride) {
        let v = input[i] ^ vec4<u32>(flip);
        for (var c = 0u; c < 4u; c++) {
            lo += v[c];
            hi += select(0u, 1u, lo < v[c]);
        }
    }
    let rest = n % 4u;
    if rest != 0u && wid.x == 0u && inv.lid == 0u {
        let v = input[full] ^ vec4<u32>(flip);
        for (var c = 0u; c < rest; c++) {
            lo += v[c];
            hi += select(0u, 1u, lo < v[c]);
        }
    }
    // reduce: 16-bit halves of lo and all of hi summed separately cannot overflow u32
    let a = wg_reduce_u32(inv, OP_ADD, lo & 0xffffu);
    let b = wg_reduce_u32(inv, OP_ADD, lo >> 16u);
    let h = wg_reduce_u32(inv, OP_ADD, hi);
    // store
    if inv.lid == 0u {
        let total = u64_add(vec2<u32>(a, h), vec2<u32>(b << 16u, b >> 16u));
        partials[params.out_base + wid.x] = total;
    }
}
