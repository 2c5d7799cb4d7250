// Exact 64-bit sum of the per-workgroup partials of sum_u64 (stage 2 of 2), by one workgroup.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
const BATCH: u32 = 8u;

@group(0) @binding(0) var<storage, read> partials: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> result: array<vec2<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let n = arrayLength(&partials);
    // load + accumulate 64-bit values; the total of any input fits 61 bits, so `hi` cannot wrap
    // load: BATCH independent loads per invocation before accumulating them, so the loads
    // overlap (a load-then-add loop waited one memory round trip per partial: the H100 spent
    // 14-17 µs here on 4096 partials)
    var acc = vec2<u32>(0u, 0u);
    for (var base = inv.lid; base < n; base += WG_SIZE * BATCH) {
        var v: array<vec2<u32>, BATCH>;
        for (var j = 0u; j < BATCH; j++) {
            let i = base + j * WG_SIZE;
            v[j] = select(vec2<u32>(0u, 0u), partials[min(i, n - 1u)], i < n);
        }
        for (var j = 0u; j < BATCH; j++) {
            acc = u64_add(acc, v[j]);
        }
    }
    // reduce, as in sum_u64
    let a = wg_reduce_u32(inv, OP_ADD, acc.x & 0xffffu);
    let b = wg_reduce_u32(inv, OP_ADD, acc.x >> 16u);
    let h = wg_reduce_u32(inv, OP_ADD, acc.y);
    if inv.lid == 0u {
        result[0] = u64_add(vec2<u32>(a, h), vec2<u32>(b << 16u, b >> 16u));
    }
}
