// include-only
// A's staging of the 16×16×16 cooperative-matrix GEMMs (gemm/lib/coop_stage.wgsl,
// coop_stage_b2.wgsl; read the first): As in `vec4<f16>`, 8 fetched halves two 8-byte stores,
// fragments loaded through a `vec4<f16>` pointer with the row stride in vec4s.

// Array lengths are named overrides (naga 30 note in gemm/lib/tiled.wgsl), in vec4s.
override AS_LEN: u32 = NBUF * BM * A_STRIDE / 4u;
// [buffer][BM][A_STRIDE / 4]
var<workgroup> As: array<vec4<f16>, AS_LEN>;

//!include gemm/lib/halves

// the 8 halves of `v` at f16 element `at` (a multiple of 8) of As
fn stage_a8(at: u32, v: vec4<u32>) {
    As[at / 4u] = halves_lo(v);
    As[at / 4u + 1u] = halves_hi(v);
}

// The A fragment at f16 element `at` of As (row stride A_STRIDE); `at` a multiple of 4.
fn frag_a(at: u32) -> FragA {
    return coopLoadT<FragA>(&As[at / 4u], A_STRIDE / 4u);
}
