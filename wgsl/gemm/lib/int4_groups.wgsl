// include-only
// The int4 weights' quantization groups (src/gemm/int4.rs has the format), for the kernels that
// read int4 weights (gemm/lib/operands.wgsl: the register-tiled and few-rows kernels;
// gemm/lib/coop_b_int4.wgsl: coop16_int4, coop8_int4). The includer declares the bindings `scales` and
// `zeros` (`array<u32>`, f16 pairs, element 2i in the low half of word i).

// int4 quantization group along K
const GROUP: u32 = 128u;

// The bits of f16 element `idx` of the scales (or, `of_scales` false, the zero points) in the
// low half (the high half is the word's other element, or zero).
fn f16_bits(of_scales: bool, idx: u32) -> u32 {
    var w: u32;
    if of_scales {
        w = scales[idx / 2u];
    } else {
        w = zeros[idx / 2u];
    }
    return w >> (16u * (idx & 1u));
}

// f16 element `idx` of the scales (or the zero points), as f32.
fn f16_word(of_scales: bool, idx: u32) -> f32 {
    return unpack2x16float(f16_bits(of_scales, idx)).x;
}
