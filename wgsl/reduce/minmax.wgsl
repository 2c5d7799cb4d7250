// Min or max of u32, i32 or f32 elements through order-preserving u32 keys, one partial key per
// workgroup (stage 1 of 2). KEY: 0 = u32 (identity), 1 = i32 (flip the sign bit), 2 = f32
// (total-order key: negative -> all bits flipped, positive -> sign bit set). NaN must win, as in
// numpy: for min every NaN maps to key 0, for max to 0xffffffff; both keys decode to NaN.
// Same blocked grid-stride walk as sum_u64.wgsl.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
const UNROLL: u32 = 4u;   // loads in flight per invocation (written out below)
override KEY: u32 = 0u;
override OP: u32 = 1u;   // OP_MIN = 1, OP_MAX = 2

struct Params {
    n: u32,
    out_base: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> partials: array<u32>;

fn to_key(x: u32) -> u32 {
    if KEY == 1u {
        return x ^ 0x80000000u;
    }
    if KEY == 2u {
        if (x & 0x7fffffffu) > 0x7f800000u {
            return select(0xffffffffu, 0u, OP == OP_MIN);
        }
        return select(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u);
    }
    return x;
}

fn accumulate(acc: u32, v: vec4<u32>) -> u32 {
    let m = combine_u32(OP, combine_u32(OP, to_key(v.x), to_key(v.y)), combine_u32(OP, to_key(v.z), to_key(v.w)));
    return combine_u32(OP, acc, m);
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = params.n;
    let identity = select(0u, 0xffffffffu, OP == OP_MIN);
    var acc = identity;
    // load + accumulate
    let full = n / 4u;
    let per_block = WG_SIZE * UNROLL;
    let blocks = full / per_block;
    for (var b = wid.x; b < blocks; b += nwg.x) {
        let base = b * per_block + inv.lid;
        // four independent loads issued before any is used (written out, not looped: a
        // local array indexed in a loop can be placed in local memory)
        let v0 = input[base];
        let v1 = input[base + WG_SIZE];
        let v2 = input[base + 2u * WG_SIZE];
        let v3 = input[base + 3u * WG_SIZE];
        acc = accumulate(acc, v0);
        acc = accumulate(acc, v1);
        acc = accumulate(acc, v2);
        acc = accumulate(acc, v3);
    }
    for (var i = blocks * per_block + wid.x * WG_SIZE + inv.lid; i < full; i += nwg.x * WG_SIZE) {
        acc = accumulate(acc, input[i]);
    }
    let rest = n % 4u;
    if rest != 0u && wid.x == 0u && inv.lid == 0u {
        let v = input[full];
        acc = combine_u32(OP, acc, to_key(v.x));
        if rest > 1u {
            acc = combine_u32(OP, acc, to_key(v.y));
        }
        if rest > 2u {
            acc = combine_u32(OP, acc, to_key(v.z));
        }
    }
    // reduce
    let r = wg_reduce_u32(inv, OP, acc);
    // store
    if inv.lid == 0u {
        partials[params.out_base + wid.x] = r;
    }
}
