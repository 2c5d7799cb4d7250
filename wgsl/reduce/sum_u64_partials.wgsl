// Exact 64-bit sum of the per-workgroup partials of sum_u64 (stage 2 of 2), by one workgroup.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;

@group(0) @binding(0) var<storage, read> partials: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> result: array<vec2<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let n = arrayLength(&partials);
    // load + accumulate 64-bit values; the total of any input fits 61 bits, so `hi` cannot wrap
    var acc = vec2<u32>(0u, 0u);
    for (var i = inv.lid; i < n; i += WG_SIZE) {
        acc = u64_add(acc, partials[i]);
    }
    // reduce, as in sum_u64
    let a = wg_reduce_u32(inv, OP_ADD, acc.x & 0xffffu);
    let b = wg_reduce_u32(inv, OP_ADD, acc.x >> 16u);
    let h = wg_reduce_u32(inv, OP_ADD, acc.y);
    if inv.lid == 0u {
        result[0] = u64_add(vec2<u32>(a, h), vec2<u32>(b << 16u, b >> 16u));
    }
}
