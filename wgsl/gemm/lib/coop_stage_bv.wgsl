// include-only
// Bs's column stash and fragment load, for the staging files whose Bs holds vectors of
// `B_LANES` halves (gemm/lib/coop_stage.wgsl: vec4<f16>, gemm/lib/coop_stage_b2.wgsl:
// vec2<f16>); element `e` of a staged row is component `e % B_LANES` of vector `e / B_LANES`.

// 8 halves down a column of Bs from f16 element `at`, a row (B_STRIDE) apart: `lo` then `hi`.
// The vector and component are found once (B_STRIDE is a multiple of B_LANES): with the index
// taken for each half, int4 weights on the few-rows tiles ran 13-16% slower (16×4096×4096 30.7
// against 27.0 µs, 16×14336×4096 89.6 against 77.3; H200, 2026-11-30, one call).
fn stage_b_col8(at: u32, lo: vec4<f16>, hi: vec4<f16>) {
    let q = at / B_LANES;
    let c = at % B_LANES;
    let row = B_STRIDE / B_LANES;
    Bs[q][c] = lo.x;
    Bs[q + row][c] = lo.y;
    Bs[q + 2u * row][c] = lo.z;
    Bs[q + 3u * row][c] = lo.w;
    Bs[q + 4u * row][c] = hi.x;
    Bs[q + 5u * row][c] = hi.y;
    Bs[q + 6u * row][c] = hi.z;
    Bs[q + 7u * row][c] = hi.w;
}

// The B fragment at f16 element `at` of Bs (row stride B_STRIDE); `at` a multiple of B_LANES.
fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at / B_LANES], B_STRIDE / B_LANES);
}
