// include-only
// An associative operator over 32-bit values (src/fold.rs): `op(a, b)`, applied in input
// order (it need not commute), over the type `T`. A recording object made with an operator
// composes its stages with the operator's text in place of this file: the caller's
// (`fn op(a: T, b: T) -> T`, and `const IDENTITY: T` where it has one) after `alias T = ...;`, or a
// built-in one (sum, min, max). This default is the u32 sum.

alias T = u32;

fn op(a: T, b: T) -> T {
    return a + b;
}

fn identity() -> T {
    return 0u;
}
