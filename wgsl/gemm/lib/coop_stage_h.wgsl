// include-only
// Staging of the 8×8×8 cooperative-matrix GEMM (gemm/coop8, Apple GPUs under Metal; read
// gemm/lib/coop.wgsl) in f16 arrays: 8 fetched halves are 8 scalar 16-bit stores. The same
// functions as gemm/lib/coop_stage.wgsl (coop16's, in `vec4<f16>` arrays): naga 30's MSL writer
// types a cooperative load's pointer as `half*` and Metal counts the stride in halves, so a
// `vec4<f16>` pointer would not compile there.

// Array lengths are named overrides (naga 30 note in gemm/lib/tiled.wgsl).
override AS_LEN: u32 = NBUF * BM * A_STRIDE;
override BS_LEN: u32 = NBUF_B * BK * B_STRIDE;
// [buffer][BM][A_STRIDE]
var<workgroup> As: array<f16, AS_LEN>;
// [buffer][BK][B_STRIDE]
var<workgroup> Bs: array<f16, BS_LEN>;

// the 8 halves of `v` at f16 element `at` of `*to` (As or Bs)
fn stage8(at: u32, v: vec4<u32>, to_b: bool) {
    let p0 = vec2<f16>(unpack2x16float(v.x));
    let p1 = vec2<f16>(unpack2x16float(v.y));
    let p2 = vec2<f16>(unpack2x16float(v.z));
    let p3 = vec2<f16>(unpack2x16float(v.w));
    let h = array<f16, 8>(p0.x, p0.y, p1.x, p1.y, p2.x, p2.y, p3.x, p3.y);
    if to_b {
        Bs[at] = h[0]; Bs[at + 1u] = h[1]; Bs[at + 2u] = h[2]; Bs[at + 3u] = h[3];
        Bs[at + 4u] = h[4]; Bs[at + 5u] = h[5]; Bs[at + 6u] = h[6]; Bs[at + 7u] = h[7];
    } else {
        As[at] = h[0]; As[at + 1u] = h[1]; As[at + 2u] = h[2]; As[at + 3u] = h[3];
        As[at + 4u] = h[4]; As[at + 5u] = h[5]; As[at + 6u] = h[6]; As[at + 7u] = h[7];
    }
}

// the 8 halves of `v` at f16 element `at` of As, of Bs
fn stage_a8(at: u32, v: vec4<u32>) {
    stage8(at, v, false);
}

fn stage_b8(at: u32, v: vec4<u32>) {
    stage8(at, v, true);
}

// one half at f16 element `at` of Bs
fn stage_b1(at: u32, h: f16) {
    Bs[at] = h;
}

// The A fragment at f16 element `at` of As (row stride A_STRIDE), and the B fragment at `at`
// of Bs (row stride B_STRIDE).
fn frag_a(at: u32) -> FragA {
    return coopLoadT<FragA>(&As[at], A_STRIDE);
}

fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at], B_STRIDE);
}
