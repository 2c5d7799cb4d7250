// include-only
// The chain of tiles' operator (shared/chain) as the sum of u32: the selection's counts
// (select/compact). scan/lib/by_operator.wgsl gives the same names by an operator.

const CHAIN_ADDS: bool = true;
const CHAIN_TWO_SIDED: bool = true;

fn chain_op(a: u32, b: u32) -> u32 {
    return a + b;
}

fn chain_identity() -> u32 {
    return 0u;
}
