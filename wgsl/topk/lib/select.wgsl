// include-only
// Top-k by radix select: the choice of a round's bucket in one workgroup (the row stage, the
// wide stages' choose). topk/lib/keys has the keys and rounds.

//!include topk/lib/keys
//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
const_assert WG_SIZE == RADIX;

// The digit whose count this invocation brings to `choose`: digits from the top in scan order.
fn my_digit(inv: Inv) -> u32 {
    return RADIX - 1u - inv_rank(inv);
}

var<workgroup> wg_pick: vec4<u32>;

// The bucket of the needed-th largest candidate, from each invocation's count `c` of its digit
// (my_digit): (digit, needed within it, 1 if the whole bucket is needed, 1). The same value to
// every invocation (uniform). Contains barriers: call from uniform control flow.
fn choose(inv: Inv, needed: u32, c: u32) -> vec4<u32> {
    let above = wg_scan_add_u32(inv, c).x;
    if above < needed && needed <= above + c {
        wg_pick = vec4<u32>(my_digit(inv), needed - above, select(0u, 1u, needed - above == c), 1u);
    }
    // (workgroupUniformLoad's barrier: the pick is written)
    return workgroupUniformLoad(&wg_pick);
}
