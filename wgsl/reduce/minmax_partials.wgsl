// Min or max of minmax's partial keys (stage 2 of 2), by one workgroup; the host decodes the key.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
const BATCH: u32 = 8u;
override OP: u32 = 1u;

@group(0) @binding(0) var<storage, read> partials: array<u32>;
@group(0) @binding(1) var<storage, read_write> result: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let n = arrayLength(&partials);
    // load: BATCH independent loads per invocation before accumulating them, so the loads
    // overlap (a load-then-add loop waited one memory round trip per partial: the H100 spent
    // 14-17 µs here on 4096 partials)
    let identity = select(0u, 0xffffffffu, OP == OP_MIN);
    var acc = identity;
    for (var base = inv.lid; base < n; base += WG_SIZE * BATCH) {
        var v: array<u32, BATCH>;
        for (var j = 0u; j < BATCH; j++) {
            let i = base + j * WG_SIZE;
            v[j] = select(identity, partials[min(i, n - 1u)], i < n);
        }
        for (var j = 0u; j < BATCH; j++) {
            acc = combine_u32(OP, acc, v[j]);
        }
    }
    let r = wg_reduce_u32(inv, OP, acc);
    if inv.lid == 0u {
        result[0] = r;
    }
}
