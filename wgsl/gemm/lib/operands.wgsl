// include-only
// The params and int4 helpers of the portable GEMMs, the register-tiled kernel (gemm/tiled) and
// the few-rows kernel (gemm/gemv), which the host fills the same way (src/gemm/tiled.rs and
// gemv.rs). The including stage declares the bindings `params: Params`, `a`, `b`
// (`array<vec4<u32>>`), `scales`, `zeros` (`array<u32>`), `c` (`array<f32>`, f32 C or its
// K-split partial products) and `c16` (`array<u32>`, f16 C two per word, written with
// OUT_F16), and the override HAS_ZEROS.

//!include gemm/lib/layout

//!include gemm/lib/f16_round

// f16 output written by the product pass itself (OUT_F16: the host's choice with one K slice
// and N even, src/gemm/split.rs; `c` is then a stand-in, and `c16` a stand-in otherwise): two
// elements per word, element 2i in the low half of word i, rounded to nearest even
// (gemm/lib/f16_round.wgsl). With N even a word never straddles two rows.
override OUT_F16: bool = false;

//!include gemm/lib/int4_groups

// One packed int4 word of B (8 of K at packed row `row` < b_rows, column n < N) with its group's
// scale and zero point (8 without zero points). The includer declares the override HAS_ZEROS.
struct Int4Word {
    word: u32,
    scale: f32,
    zero: f32,
}

fn int4_word(row: u32, n: u32) -> Int4Word {
    let w = row * params.n + n;
    let grp = (row * 8u) / GROUP * params.n + n;
    var z = 8.0;
    if HAS_ZEROS {
        z = f16_word(false, grp);
    }
    return Int4Word(b[w / 4u][w % 4u], f16_word(true, grp), z);
}
