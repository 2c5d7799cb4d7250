// include-only
// B of the cooperative-matrix GEMMs as int4 weights (gemm/coop16_int4, coop8_int4; read
// gemm/lib/coop.wgsl and src/gemm/int4.rs for the format), dequantized at the stash: each weight
// `(q − zero) · scale` in f32, rounded once to f16 (the tensor cores' input; Marlin's
// dequantization in registers). A tile item is one packed word, 8 of K of one column, fetched
// with its group's scale and zero point as raw f16 bits, `vec4(word, scale, zero, 0)`, and
// stashed as 8 f16 down the column. With sub-steps (B_SUB > 1: the few-rows tile of
// src/gemm/coop/tiles.rs, `rows_tile_int4`) an item is 4 packed words, two rows of two adjacent
// columns, the step's scales and zero points fetched once a column pair (`fetch_groups`), and
// a sub-step stashes pairs of weights, one store each (`stage_b_pair`). A K step lies inside
// one quantization group (BK divides GROUP: src/gemm/coop.rs, `CoopB::stage`, checks it), so
// an item's scale is its group's. The weights have the GEMM's own layout, one matrix shared by
// a batch (no offset). The stage declares the bindings `b` (`array<u32>`, the packed words),
// `scales` and `zeros` (`array<u32>`, f16 pairs, element 2i in the low half of word i).

// 1: the weights have zero points (`zeros`); 0: the zero point is 8 (`zeros` a stand-in)
override HAS_ZEROS: bool = false;

//!include gemm/lib/int4_groups

// Items of a tile: with B_SUB 1, one packed word (8 of K of one column) with its scale and zero
// point; with sub-steps, 4 packed words of sub-step li / BN (32 of K): two packed rows (16 of K)
// of two adjacent columns, `(row r col n, r n+1, r+1 n, r+1 n+1)` (their scales and zero points
// come from `fetch_groups`, once a step).
fn b_items() -> u32 {
    if B_SUB > 1u {
        return B_SUB * BN;
    }
    return BK / 8u * BN;
}

// packed word (row, n) of the weights, zero past their packed rows or columns
fn weight_word(row: u32, n: u32) -> u32 {
    if row < params.b_rows && n < params.n {
        return b[row * params.n + n];
    }
    return 0u;
}

// Sub-steps: the first column (even) and the first of the two packed rows (of the sub-step's
// four) that item `r` (< BN) of a sub-step holds
fn pair_of(r: u32) -> vec2<u32> {
    return vec2<u32>(2u * (r % (BN / 2u)), 2u * (r / (BN / 2u)));
}

// load: item li of the tile at (k0, n0): packed row k0 / 8 + li / BN, column n0 + li % BN
// (consecutive invocations, consecutive columns); zero past B's packed rows or columns (scale 0:
// every weight 0). With sub-steps, item li % BN of sub-step li / BN (`pair_of`).
fn fetch_b(li: u32, k0: u32, n0: u32) -> vec4<u32> {
    if B_SUB > 1u {
        if li >= b_items() {
            return vec4<u32>(0u);
        }
        let at = pair_of(li % BN);
        let n = n0 + at.x;
        let row = k0 / 8u + 4u * (li / BN) + at.y;
        return vec4<u32>(weight_word(row, n), weight_word(row, n + 1u), weight_word(row + 1u, n),
            weight_word(row + 1u, n + 1u));
    }
    let n = n0 + li % BN;
    let row = k0 / 8u + li / BN;
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

// scale (or zero point) bits of column n of the group at k0; 0 past B's packed rows or columns
fn group_bits(of_scales: bool, k0: u32, n: u32) -> u32 {
    if n < params.n && k0 / 8u < params.b_rows {
        return f16_bits(of_scales, k0 / GROUP * params.n + n) & 0xFFFFu;
    }
    return 0u;
}

// load (sub-steps): the scales (x) and zero points (y) of the group at k0 of the two columns
// of invocation lid's items (`pair_of`) as f16 pairs, the first column's in the low half
fn fetch_groups(lid: u32, k0: u32, n0: u32) -> vec2<u32> {
    let n = n0 + pair_of(lid % BN).x;
    let scales = group_bits(true, k0, n) | (group_bits(true, k0, n + 1u) << 16u);
    var zeros = 0u;
    if HAS_ZEROS {
        zeros = group_bits(false, k0, n) | (group_bits(false, k0, n + 1u) << 16u);
    }
    return vec2<u32>(scales, zeros);
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
// f16), so q·scale − zero·scale is rounded once in f32 and once to f16, fused or not: the
// weight `(q − zero) · scale` computed in f32 (src/gemm/int4.rs, `dequantize`) wherever q − zero
// is exact in f32 (a zero point of 0 or at least 2^-10), bit for bit but the sign of a zero
// weight.
fn dequant(word: u32, j: u32, sp: f32, zs: f32) -> f16 {
    let p = select(j, j - 5u, j >= 5u);
    let w = select(word, word >> 20u, j >= 5u);
    let bits = (w & (15u << (4u * p))) | float_2p23;
    return f16(fma(bitcast<f32>(bits) - 8388608.0, sp, -zs));
}

// The 8 weights of packed word `w` down a column of Bs from f16 element `at`
fn stash_word(at: u32, w: u32, scale: f32, zero: f32) {
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

fn stash_b(li: u32, buf: u32, v: vec4<u32>) {
    if li >= b_items() {
        return;
    }
    var zero = 8.0;
    if HAS_ZEROS {
        zero = unpack2x16float(v.z).x;
    }
    let at = buf * B_ROWS * B_STRIDE + (li / BN) * 8u * B_STRIDE + li % BN;
    stash_word(at, v.x, unpack2x16float(v.y).x, zero);
}

// Nibble j of two adjacent columns' words as f16 (`dequant`, each column with its own scale
// and zero point: `sp` its scale·16^-p, `zs` zero·scale)
fn dequant2(w: vec2<u32>, j: u32, sp: vec2<f32>, zs: vec2<f32>) -> vec2<f16> {
    return vec2<f16>(dequant(w.x, j, sp.x, zs.x), dequant(w.y, j, sp.y, zs.y));
}

// The 8 rows of packed words `w` (two adjacent columns) from f16 element `at` of Bs, a pair a
// row
fn stash_pair_rows(at: u32, w: vec2<u32>, scale: vec2<f32>, zero: vec2<f32>) {
    let s1 = scale * 0.0625;
    let s2 = scale * 0.00390625;
    let s3 = scale * 0.000244140625;
    let s4 = scale * 0.0000152587890625;
    let zs = zero * scale;
    stage_b_pair(at, dequant2(w, 0u, scale, zs));
    stage_b_pair(at + B_STRIDE, dequant2(w, 1u, s1, zs));
    stage_b_pair(at + 2u * B_STRIDE, dequant2(w, 2u, s2, zs));
    stage_b_pair(at + 3u * B_STRIDE, dequant2(w, 3u, s3, zs));
    stage_b_pair(at + 4u * B_STRIDE, dequant2(w, 4u, s4, zs));
    stage_b_pair(at + 5u * B_STRIDE, dequant2(w, 5u, scale, zs));
    stage_b_pair(at + 6u * B_STRIDE, dequant2(w, 6u, s1, zs));
    stage_b_pair(at + 7u * B_STRIDE, dequant2(w, 7u, s2, zs));
}

// stash (sub-steps): sub-step s's item of this invocation (item s: WG = BN) into the B buffer,
// with its columns' scales and zero points (`groups`, fetch_groups): 16 rows of two columns
fn stash_b_sub(lid: u32, s: u32, cur: Staged, groups: vec2<u32>) {
    let v = select(select(select(cur.b0, cur.b1, s == 1u), cur.b2, s == 2u), cur.b3, s == 3u);
    let scale = unpack2x16float(groups.x);
    var zero = vec2<f32>(8.0);
    if HAS_ZEROS {
        zero = unpack2x16float(groups.y);
    }
    let at = pair_of(lid);
    let first = at.y * 8u * B_STRIDE + at.x;
    stash_pair_rows(first, v.xy, scale, zero);
    stash_pair_rows(first + 8u * B_STRIDE, v.zw, scale, zero);
}
