// include-only
// Staging of the 16×16×16 cooperative-matrix GEMMs (gemm/coop16, gemm/coop16_int4; read
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

override BS_LEN: u32 = NBUF_B * B_ROWS * B_STRIDE / 4u;
// [buffer][B_ROWS][B_STRIDE / 4]
var<workgroup> Bs: array<vec4<f16>, BS_LEN>;

// the 8 halves of `v` at f16 element `at` (a multiple of 8) of Bs
fn stage_b8(at: u32, v: vec4<u32>) {
    Bs[at / 4u] = halves_lo(v);
    Bs[at / 4u + 1u] = halves_hi(v);
}

// 8 halves down a column of Bs from f16 element `at`, a row (B_STRIDE) apart: `lo` then `hi`.
// The vec4 and component are found once (B_STRIDE is a multiple of 4): with the index taken for
// each half, int4 weights on the few-rows tiles ran 13-16% slower (16×4096×4096 30.7 against
// 27.0 µs, 16×14336×4096 89.6 against 77.3; H200, 2026-11-30, one call).
fn stage_b_col8(at: u32, lo: vec4<f16>, hi: vec4<f16>) {
    let q = at / 4u;
    let c = at % 4u;
    let row = B_STRIDE / 4u;
    Bs[q][c] = lo.x;
    Bs[q + row][c] = lo.y;
    Bs[q + 2u * row][c] = lo.z;
    Bs[q + 3u * row][c] = lo.w;
    Bs[q + 4u * row][c] = hi.x;
    Bs[q + 5u * row][c] = hi.y;
    Bs[q + 6u * row][c] = hi.z;
    Bs[q + 7u * row][c] = hi.w;
}

// The B fragment at f16 element `at` of Bs (row stride B_STRIDE); `at` a multiple of 4.
fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at / 4u], B_STRIDE / 4u);
}
