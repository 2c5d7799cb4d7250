// include-only
// B of the cooperative-matrix GEMMs as int4 weights (gemm/coop16_int4, coop8_int4; read
// gemm/lib/coop.wgsl and src/gemm/int4.rs for the format): a tile item is one packed word, 8 of
// K of one column, fetched with its group's scale and zero point as raw f16 bits, `vec4(word,
// scale, zero, 0)`, and dequantized at the stash, `(q − zero) · scale` in f32 rounded once to
// f16 (the tensor cores' input; Marlin's dequantization in registers), 8 f16 stores down the
// column. A K step lies inside one quantization group (BK divides GROUP: src/gemm/coop.rs,
// `CoopB::stage`, checks it), so an item's scale is its group's. The weights have the GEMM's own layout, one matrix shared by
// a batch (no offset). The stage declares the bindings `b` (`array<u32>`, the packed words),
// `scales` and `zeros` (`array<u32>`, f16 pairs, element 2i in the low half of word i).

// 1: the weights have zero points (`zeros`); 0: the zero point is 8 (`zeros` a stand-in)
override HAS_ZEROS: bool = false;

//!include gemm/lib/int4_groups

fn b_items() -> u32 {
    return BK / 8u * BN;
}

// load: item li of the tile at (k0, n0): packed row k0 / 8 + li / BN, column n0 + li % BN
// (consecutive invocations, consecutive columns); zero past B's packed rows or columns (scale 0:
// every weight 0)
fn fetch_b(li: u32, k0: u32, n0: u32) -> vec4<u32> {
    let row = k0 / 8u + li / BN;
    let n = n0 + li % BN;
    if li < b_items() && row < params.b_rows && n < params.n {
        let g = k0 / GROUP * params.n + n;
        var z = 0u;
        if HAS_ZEROS {
            z = f16_bits(false, g) & 0xFFFFu;
        }
        return vec4<u32>(b[row * params.n + n], f16_bits(true, g) & 0xFFFFu, z, 0u);
    }
    return vec4<u32>(0u);
}

// 2^23's bits, set by the stage's main from a uniform (`int4_setup`), so the compiler keeps them
// in a register and a nibble's mask and OR are one instruction (gemm/gemv's `float_2p23`).
var<private> float_2p23: u32;

fn int4_setup() {
    float_2p23 = 0x4B000000u | (params.k & 0x80000000u);
}

// Nibble j of `word` as (q − zero) · scale, rounded to f16. The nibble masked in its place p
// (j for j < 5; j − 5 in the word shifted right by 20) and ORed into the mantissa of 2^23 is the
// float 2^23 + q·16^p; 2^23 comes off exactly, and times scale·16^-p (`sp`, exact: a power of
// two) it is q·scale, exact in f32 (4 bits times an f16's 11), as is zero·scale (`zs`, two
// f16), so q·scale − zero·scale is rounded once in f32 and once to f16, fused or not.
fn dequant(word: u32, j: u32, sp: f32, zs: f32) -> f16 {
    let p = select(j, j - 5u, j >= 5u);
    let w = select(word, word >> 20u, j >= 5u);
    let bits = (w & (15u << (4u * p))) | float_2p23;
    return f16(fma(bitcast<f32>(bits) - 8388608.0, sp, -zs));
}

fn stash_b(li: u32, buf: u32, v: vec4<u32>) {
    if li >= b_items() {
        return;
    }
    let at = buf * BK * B_STRIDE + (li / BN) * 8u * B_STRIDE + li % BN;
    let scale = unpack2x16float(v.y).x;
    var zero = 8.0;
    if HAS_ZEROS {
        zero = unpack2x16float(v.z).x;
    }
    let w = v.x;
    // scale·16^-p for places 0..4
    let s1 = scale * 0.0625;
    let s2 = scale * 0.00390625;
    let s3 = scale * 0.000244140625;
    let s4 = scale * 0.0000152587890625;
    let zs = zero * scale;
    let lo = vec4<f16>(dequant(w, 0u, scale, zs), dequant(w, 1u, s1, zs), dequant(w, 2u, s2, zs),
        dequant(w, 3u, s3, zs));
    let hi = vec4<f16>(dequant(w, 4u, s4, zs), dequant(w, 5u, scale, zs), dequant(w, 6u, s1, zs),
        dequant(w, 7u, s2, zs));
    stage_b_col8(at, lo, hi);
}
