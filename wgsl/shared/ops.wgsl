// include-only
// Scalar operators shared by the reduction helpers: u32 combine by op code, and double-float
// (hi, lo) arithmetic for deterministic, nearly exact f32 sums.

const OP_ADD: u32 = 0u;
const OP_MIN: u32 = 1u;
const OP_MAX: u32 = 2u;

fn combine_u32(op: u32, a: u32, b: u32) -> u32 {
    switch op {
        case 1u: { return min(a, b); }
        case 2u: { return max(a, b); }
        default: { return a + b; }
    }
}

fn is_finite_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// A zero the shader compiler cannot see: set by the entry point from a uniform the host fills
// with 0. GPU compilers apply value-changing algebra to floats ((a + b) - a -> b; Mesa does by
// default), which turns TwoSum's error term into 0. Passing each sum through
// `bitcast<f32>(bitcast<u32>(x) ^ dd_zero)` hides its origin, so the error terms survive.
var<private> dd_zero: u32;

fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ dd_zero);
}

// (hi, lo) + (hi, lo): Knuth's TwoSum on the high parts, then the low parts; relative error
// about 2^-44. A non-finite high sum (inf, NaN) is returned as is, so inf + x = inf and NaN
// propagates instead of turning into NaN through inf - inf in the error term.
fn dd_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let s = opaque(a.x + b.x);
    if !is_finite_f32(s) {
        return vec2<f32>(s, 0.0);
    }
    let bb = opaque(s - a.x);
    let err = (a.x - opaque(s - bb)) + (b.x - bb);
    let lo = err + a.y + b.y;
    let hi = opaque(s + lo);
    return vec2<f32>(hi, lo - opaque(hi - s));
}

// 64-bit unsigned as vec2<u32>(lo, hi).
fn u64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
