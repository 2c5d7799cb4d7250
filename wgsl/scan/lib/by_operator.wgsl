// include-only
// The chain of tiles' operator (shared/chain) as shared/operator's, on the values' bits: the
// scan's chained stage, by the u32 sum (that file's default) or the operator a Scanner is made
// with. select/lib/chain_sum.wgsl gives the same names for the selection's counts.
//!include shared/operator

const CHAIN_ADDS: bool = OPERATOR_ADDS;
const CHAIN_TWO_SIDED: bool = OPERATOR_TWO_SIDED;

fn chain_op(a: u32, b: u32) -> u32 {
    return bitcast<u32>(op(bitcast<T>(a), bitcast<T>(b)));
}

fn chain_identity() -> u32 {
    return bitcast<u32>(identity());
}
