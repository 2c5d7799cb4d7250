// include-only
// Staging of gemm/coop16_int4 (read gemm/lib/coop_stage.wgsl, whose A it shares:
// gemm/lib/coop_stage_a.wgsl): Bs in `vec2<f16>`, so the sub-steps of B
// (gemm/lib/coop_b_int4.wgsl) store two columns' weights at once, one 4-byte store a pair, 32
// lanes one wavefront; its fragments load through a `vec2<f16>` pointer with the row stride in
// vec2s. Element `e` of a staged row is component `e % 2` of vec2 `e / 2`.

//!include gemm/lib/coop_stage_a

// (in vec2s)
override BS_LEN: u32 = NBUF_B * B_ROWS * B_STRIDE / 2u;
// [buffer][B_ROWS][B_STRIDE / 2]
var<workgroup> Bs: array<vec2<f16>, BS_LEN>;

// 8 halves down a column of Bs from f16 element `at`, a row (B_STRIDE) apart: `lo` then `hi`
// (the vec2 and component found once, as gemm/lib/coop_stage.wgsl's).
fn stage_b_col8(at: u32, lo: vec4<f16>, hi: vec4<f16>) {
    let q = at / 2u;
    let c = at % 2u;
    let row = B_STRIDE / 2u;
    Bs[q][c] = lo.x;
    Bs[q + row][c] = lo.y;
    Bs[q + 2u * row][c] = lo.z;
    Bs[q + 3u * row][c] = lo.w;
    Bs[q + 4u * row][c] = hi.x;
    Bs[q + 5u * row][c] = hi.y;
    Bs[q + 6u * row][c] = hi.z;
    Bs[q + 7u * row][c] = hi.w;
}

// two adjacent halves at f16 element `at` (even) of Bs
fn stage_b_pair(at: u32, v: vec2<f16>) {
    Bs[at / 2u] = v;
}

// The B fragment at f16 element `at` of Bs (row stride B_STRIDE); `at` even.
fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at / 2u], B_STRIDE / 2u);
}
