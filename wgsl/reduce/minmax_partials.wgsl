// Min or max of minmax's partial keys (stage 2 of 2), by one workgroup; the host decodes the key.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
override OP: u32 = 1u;

@group(0) @binding(0) var<storage, read> partials: array<u32>;
@group(0) @binding(1) var<storage, read_write> result: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let n = arrayLength(&partials);
    var acc = select(0u, 0xffffffffu, OP == OP_MIN);
    for (var i = inv.lid; i < n; i += WG_SIZE) {
        acc = combine_u32(OP, acc, partials[i]);
    }
    let r = wg_reduce_u32(inv, OP, acc);
    if inv.lid == 0u {
        result[0] = r;
    }
}
