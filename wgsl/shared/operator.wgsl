// include-only
// An associative operator over 32-bit values (src/fold.rs): `op(a, b)`, applied in input
// order (it need not commute), over the type `T`. A recording object made with an operator
// composes its stages with the operator's text in place of this file: the caller's
// (`fn op(a: T, b: T) -> T`, and `const IDENTITY: T` where it has one) after `alias T = ...;`, or a
// built-in one (sum, min, max), then `identity()` and the two facts below. This default is the
// u32 sum.

alias T = u32;

fn op(a: T, b: T) -> T {
    return a + b;
}

fn identity() -> T {
    return 0u;
}

// Whether `op` is the wrapping sum of 32-bit integers, so stages may take subgroupAdd and its
// kin for it (the built-in sums of u32 and i32).
const OPERATOR_ADDS: bool = true;
// Whether `identity()` is an identity on both sides (op(x, IDENTITY) = x too), so it may stand
// for "nothing" anywhere (the built-in operators); a caller's is promised on the left only.
const OPERATOR_TWO_SIDED: bool = true;
