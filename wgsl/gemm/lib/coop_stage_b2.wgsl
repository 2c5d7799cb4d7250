// include-only
// Staging of gemm/coop16_int4 (read gemm/lib/coop_stage.wgsl, whose A it shares:
// gemm/lib/coop_stage_a.wgsl): Bs in `vec2<f16>`, so the sub-steps of B
// (gemm/lib/coop_b_int4.wgsl) store two columns' weights at once, one 4-byte store a pair, 32
// lanes one wavefront; its fragments load through a `vec2<f16>` pointer with the row stride in
// vec2s. Element `e` of a staged row is component `e % 2` of vec2 `e / 2`.

//!include gemm/lib/coop_stage_a

// halves a staged vector of Bs holds
const B_LANES: u32 = 2u;
// (in vec2s)
override BS_LEN: u32 = NBUF_B * B_ROWS * B_STRIDE / 2u;
// [buffer][B_ROWS][B_STRIDE / 2]
var<workgroup> Bs: array<vec2<f16>, BS_LEN>;

// two adjacent halves at f16 element `at` (even) of Bs
fn stage_b_pair(at: u32, v: vec2<f16>) {
    Bs[at / 2u] = v;
}

//!include gemm/lib/coop_stage_bv
