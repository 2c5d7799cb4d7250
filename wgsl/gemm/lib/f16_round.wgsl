// include-only
// f32 → f16 rounding in integer arithmetic for f16 GEMM output, shared by gemm/to_f16.wgsl,
// gemm/splitk_sum.wgsl and the product kernels that store f16 C themselves (gemv, tiled,
// tiled_wide through gemm/lib/operands.wgsl; the cooperative kernels through
// gemm/lib/coop.wgsl). WGSL lets pack2x16float and f16 conversions round either way
// and leaves values beyond f16's range indeterminate; this gives every adapter the bits of IEEE 754
// round-to-nearest-even (the host reference is half::f16::from_f32, src/reference/gemm.rs):
// magnitudes from 65520 up become ±inf, NaN stays NaN (quiet, the top bits of its payload kept),
// results below 2^-14 become f16 subnormals and the sign of zero is kept.

// f32 → f16 bits, round to nearest, ties to even.
fn to_f16_bits(x: f32) -> u32 {
    let bits = bitcast<u32>(x);
    let sign = (bits >> 16u) & 0x8000u;
    let mag = bits & 0x7fffffffu;
    if mag > 0x7f800000u {
        // NaN: quiet, payload's top 10 bits kept
        return sign | 0x7e00u | ((mag >> 13u) & 0x3ffu);
    }
    if mag >= 0x477ff000u {
        // 65520 (halfway between 65504 and 2^16, ties to the even 2^16) and up, ±inf included
        return sign | 0x7c00u;
    }
    if mag >= 0x38800000u {
        // normal: exponent rebiased (127 → 15), 13 mantissa bits dropped with rounding; a
        // carry out of the mantissa correctly increments the exponent
        let rebiased = mag - 0x38000000u;
        return sign | ((rebiased + 0xfffu + ((rebiased >> 13u) & 1u)) >> 13u);
    }
    let exponent = mag >> 23u;
    if exponent < 102u {
        // below 2^-25 (f32 subnormals and zero too): rounds to ±0
        return sign;
    }
    // subnormal: the 24-bit significand in units of 2^-24 is significand >> (126 − exponent),
    // a shift of 14..24
    let significand = (mag & 0x7fffffu) | 0x800000u;
    let shift = 126u - exponent;
    let kept = significand >> shift;
    let rest = significand & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    let up = rest > half || (rest == half && (kept & 1u) == 1u);
    return sign | (kept + select(0u, 1u, up));
}

// two f16 in a word, `lo` in the low half (as a little-endian float16 array lays them out)
fn pack_f16(lo: f32, hi: f32) -> u32 {
    return to_f16_bits(lo) | (to_f16_bits(hi) << 16u);
}
