// include-only
// Staging of the 16×16×16 cooperative-matrix GEMM of f16 B (gemm/coop16; gemm/coop16_int4
// stages B in gemm/lib/coop_stage_b2.wgsl and shares A's, gemm/lib/coop_stage_a.wgsl; read
// gemm/lib/coop.wgsl) in `vec4<f16>` arrays: 8 fetched halves are two 8-byte stores. 255.1 /
// 275.1 TFLOP/s at 4096³ / 8192³ against 223.4 / 237.7 with 8 scalar 16-bit stores (H200, f32
// C, 2026-11-30). The fragment loads take a `vec4<f16>` pointer with the row stride in vec4s
// (rows of BK + PAD and BN + PAD halves, multiples of 4; every fragment starts at a multiple of
// 4 halves), which SPIR-V's cooperative loads allow (Vulkan, where these kernels run). naga 30's
// MSL writer types a cooperative load's pointer as `half*` and Metal counts the stride in
// halves, so coop8 (Apple) stages in scalars (gemm/lib/coop_stage_h.wgsl, the same functions).
// 16-byte stores are out of reach in naga 30: it types a cooperative load by its pointer's
// scalar, refuses a store through another element type, and its `bitcast` keeps the width.
// Element `e` of a staged row is component `e % 4` of vec4 `e / 4`.

//!include gemm/lib/coop_stage_a

// halves a staged vector of Bs holds
const B_LANES: u32 = 4u;
override BS_LEN: u32 = NBUF_B * B_ROWS * B_STRIDE / 4u;
// [buffer][B_ROWS][B_STRIDE / 4]
var<workgroup> Bs: array<vec4<f16>, BS_LEN>;

// the 8 halves of `v` at f16 element `at` (a multiple of 8) of Bs
fn stage_b8(at: u32, v: vec4<u32>) {
    Bs[at / 4u] = halves_lo(v);
    Bs[at / 4u + 1u] = halves_hi(v);
}

//!include gemm/lib/coop_stage_bv
