// include-only
// Staging of the 8×8×8 cooperative-matrix GEMM (gemm/coop8, Apple GPUs under Metal; read
// gemm/lib/coop.wgsl) in f16 arrays: 8 fetched halves are 8 scalar 16-bit stores. The same
// functions as gemm/lib/coop_stage.wgsl (coop16's, in `vec4<f16>` arrays): naga 30's MSL writer
// types a cooperative load's pointer as `half*` and Metal counts the stride in halves, so a
// `vec4<f16>` pointer would not compile there.

// Array lengths are named overrides (naga 30 note in gemm/lib/tiled.wgsl).
override AS_LEN: u32 = NBUF * BM * A_STRIDE;
override BS_LEN: u32 = NBUF_B * B_ROWS * B_STRIDE;
// [buffer][BM][A_STRIDE]
var<workgroup> As: array<f16, AS_LEN>;
// [buffer][B_ROWS][B_STRIDE]
var<workgroup> Bs: array<f16, BS_LEN>;

//!include gemm/lib/halves

// the 8 halves of `v` at f16 element `at` of `*to` (As or Bs)
fn stage8(at: u32, v: vec4<u32>, to_b: bool) {
    let lo = halves_lo(v);
    let hi = halves_hi(v);
    if to_b {
        Bs[at] = lo.x; Bs[at + 1u] = lo.y; Bs[at + 2u] = lo.z; Bs[at + 3u] = lo.w;
        Bs[at + 4u] = hi.x; Bs[at + 5u] = hi.y; Bs[at + 6u] = hi.z; Bs[at + 7u] = hi.w;
    } else {
        As[at] = lo.x; As[at + 1u] = lo.y; As[at + 2u] = lo.z; As[at + 3u] = lo.w;
        As[at + 4u] = hi.x; As[at + 5u] = hi.y; As[at + 6u] = hi.z; As[at + 7u] = hi.w;
    }
}

// the 8 halves of `v` at f16 element `at` of As, of Bs
fn stage_a8(at: u32, v: vec4<u32>) {
    stage8(at, v, false);
}

fn stage_b8(at: u32, v: vec4<u32>) {
    stage8(at, v, true);
}

// 8 halves down a column of Bs from f16 element `at`, a row (B_STRIDE) apart: `lo` then `hi`
fn stage_b_col8(at: u32, lo: vec4<f16>, hi: vec4<f16>) {
    Bs[at] = lo.x;
    Bs[at + B_STRIDE] = lo.y;
    Bs[at + 2u * B_STRIDE] = lo.z;
    Bs[at + 3u * B_STRIDE] = lo.w;
    Bs[at + 4u * B_STRIDE] = hi.x;
    Bs[at + 5u * B_STRIDE] = hi.y;
    Bs[at + 6u * B_STRIDE] = hi.z;
    Bs[at + 7u * B_STRIDE] = hi.w;
}

// two adjacent halves at f16 element `at` of Bs (int4's sub-steps, gemm/lib/coop_b_int4.wgsl)
fn stage_b_pair(at: u32, v: vec2<f16>) {
    Bs[at] = v.x;
    Bs[at + 1u] = v.y;
}

// The A fragment at f16 element `at` of As (row stride A_STRIDE), and the B fragment at `at`
// of Bs (row stride B_STRIDE).
fn frag_a(at: u32) -> FragA {
    return coopLoadT<FragA>(&As[at], A_STRIDE);
}

fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at], B_STRIDE);
}
