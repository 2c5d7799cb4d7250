// include-only
// Staging of the cooperative-matrix GEMMs in vec4<f16> arrays (read shared/gemm_coop_body.wgsl):
// each fetched vec4<u32> (8 f16) is written with two 8-byte stores, against 8 scalar 16-bit
// stores in shared/gemm_coop_stage_h.wgsl: a quarter of the store instructions and half of the
// workgroup-memory wavefronts (a 16-bit store moves 64 bytes per subgroup of 32 in a wavefront,
// an 8-byte one 128).
//
// Why not one 16-byte store (vec4<u32> arrays, as NVIDIA's GLSL samples stage): naga 30 types
// a cooperative load by its pointer (a vec4<u32> pointer would load a u32 matrix, which it
// refuses) and refuses a store through another element type; and its `bitcast` keeps the
// width, so u32 words become f16 only through unpack2x16float (f16 → f32 → f16, exact; a
// compiler may fold the pair). The fragment loads take a pointer to vec4<f16>, the stride
// counted in vec4s (SPIR-V allows a vector pointee; the simulator models it,
// src/sim/interp/coop.rs). Every f16 index here is a multiple of 8: BK and BN are multiples of 8
// (checked in src/gemm/coop.rs), PAD = 8, fragment offsets are multiples of FRAG = 16.

// Array lengths are named overrides (naga 30 note in docs/gemm.md).
override AS_LEN: u32 = NBUF * BM * A_STRIDE / 4u;
override BS_LEN: u32 = NBUF_B * BK * B_STRIDE / 4u;
// [buffer][BM][A_STRIDE / 4]
var<workgroup> As: array<vec4<f16>, AS_LEN>;
// [buffer][BK][B_STRIDE / 4]
var<workgroup> Bs: array<vec4<f16>, BS_LEN>;

// the 8 f16 packed in `v`, as two vec4<f16>
fn halves_lo(v: vec4<u32>) -> vec4<f16> {
    return vec4<f16>(vec2<f16>(unpack2x16float(v.x)), vec2<f16>(unpack2x16float(v.y)));
}

fn halves_hi(v: vec4<u32>) -> vec4<f16> {
    return vec4<f16>(vec2<f16>(unpack2x16float(v.z)), vec2<f16>(unpack2x16float(v.w)));
}

fn stash_a(li: u32, buf: u32, v: vec4<u32>) {
    if li >= a_items() {
        return;
    }
    let per_row = BK / 8u;
    let at = (buf * BM * A_STRIDE + (li / per_row) * A_STRIDE) / 4u + (li % per_row) * 2u;
    As[at] = halves_lo(v);
    As[at + 1u] = halves_hi(v);
}

fn stash_b(li: u32, buf: u32, v: vec4<u32>) {
    if li >= b_items() {
        return;
    }
    let per_row = BN / 8u;
    let at = (buf * BK * B_STRIDE + (li / per_row) * B_STRIDE) / 4u + (li % per_row) * 2u;
    Bs[at] = halves_lo(v);
    Bs[at + 1u] = halves_hi(v);
}

// The A fragment at f16 element `at` of the staged A (row stride A_STRIDE f16), and the B
// fragment at `at` of the staged B (row stride B_STRIDE f16).
fn frag_a(at: u32) -> FragA {
    return coopLoadT<FragA>(&As[at / 4u], A_STRIDE / 4u);
}

fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at / 4u], B_STRIDE / 4u);
}
