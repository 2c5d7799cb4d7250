// include-only
// The operator of a reduction by key (src/runs.rs): OP 0 sum, 1 min, 2 max, over values of
// DTYPE 0 u32, 1 i32, 2 f32, held as words. Sums wrap for integers; f32 sums are f32 additions in
// order. f32 min and max are NumPy's and the reduction's (docs/reduce.md): a NaN wins (the
// first), −0 counts below +0; every comparison is on integer keys, so a compiler that assumes
// no NaN cannot change them. IDENTITY is the value that op leaves the other operand unchanged
// with: op(IDENTITY, x) = op(x, IDENTITY) = x for every x.

override OP: u32 = 0u;
override DTYPE: u32 = 0u;

fn is_nan_bits(x: u32) -> bool {
    return (x & 0x7fffffffu) > 0x7f800000u;
}

// f32 bits as a u32 that orders as the floats do, −0 below +0.
fn order_key(x: u32) -> u32 {
    return x ^ select(0x80000000u, 0xffffffffu, (x & 0x80000000u) != 0u);
}

// `a` where it comes first in the order the operator keeps (the lesser for min, the greater for
// max), else `b`; `a` on a tie.
fn first_by(a: u32, b: u32) -> u32 {
    var ka = a;
    var kb = b;
    if DTYPE == 1u {
        ka = a ^ 0x80000000u;
        kb = b ^ 0x80000000u;
    } else if DTYPE == 2u {
        if is_nan_bits(a) {
            return a;
        }
        if is_nan_bits(b) {
            return b;
        }
        ka = order_key(a);
        kb = order_key(b);
    }
    if OP == 1u {
        return select(b, a, ka <= kb);
    }
    return select(b, a, ka >= kb);
}

fn op(a: u32, b: u32) -> u32 {
    if OP == 0u {
        if DTYPE == 2u {
            return bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b));
        }
        return a + b;
    }
    return first_by(a, b);
}

fn identity() -> u32 {
    if OP == 0u {
        // −0: −0 + x is x for every x, +0 included
        return select(0u, 0x80000000u, DTYPE == 2u);
    }
    if OP == 1u {
        // the greatest: u32::MAX, i32::MAX, +inf
        return select(select(0x7f800000u, 0x7fffffffu, DTYPE == 1u), 0xffffffffu, DTYPE == 0u);
    }
    // the least: 0, i32::MIN, −inf
    return select(select(0xff800000u, 0x80000000u, DTYPE == 1u), 0u, DTYPE == 0u);
}
