// include-only
// Staging of the cooperative-matrix GEMMs in f16 arrays (read gemm/lib/coop.wgsl): each
// fetched vec4<u32> (8 f16) is unpacked and written as 8 scalar f16 stores (coop16, coop8).

// Array lengths are named overrides (naga 30 note in gemm/lib/tiled.wgsl).
override AS_LEN: u32 = NBUF * BM * A_STRIDE;
override BS_LEN: u32 = NBUF_B * BK * B_STRIDE;
// [buffer][BM][A_STRIDE]
var<workgroup> As: array<f16, AS_LEN>;
// [buffer][BK][B_STRIDE]
var<workgroup> Bs: array<f16, BS_LEN>;

fn stash_a(li: u32, buf: u32, v: vec4<u32>) {
    if li >= a_items() {
        return;
    }
    let per_row = BK / 8u;
    let at = buf * BM * A_STRIDE + (li / per_row) * A_STRIDE + (li % per_row) * 8u;
    let p0 = vec2<f16>(unpack2x16float(v.x));
    let p1 = vec2<f16>(unpack2x16float(v.y));
    let p2 = vec2<f16>(unpack2x16float(v.z));
    let p3 = vec2<f16>(unpack2x16float(v.w));
    As[at] = p0.x;
    As[at + 1u] = p0.y;
    As[at + 2u] = p1.x;
    As[at + 3u] = p1.y;
    As[at + 4u] = p2.x;
    As[at + 5u] = p2.y;
    As[at + 6u] = p3.x;
    As[at + 7u] = p3.y;
}

// The A fragment at f16 element `at` of As (row stride A_STRIDE), and the B fragment at `at`
// of Bs (row stride B_STRIDE).
fn frag_a(at: u32) -> FragA {
    return coopLoadT<FragA>(&As[at], A_STRIDE);
}

fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at], B_STRIDE);
}
