// include-only
// 8 f16 fetched as a vec4<u32> (two a word, the first in the low half), as two vec4<f16>: the
// staging files' (gemm/lib/coop_stage.wgsl, coop_stage_h.wgsl) and B's column stash
// (gemm/lib/coop_b.wgsl).

fn halves_lo(v: vec4<u32>) -> vec4<f16> {
    return vec4<f16>(vec4<f32>(unpack2x16float(v.x), unpack2x16float(v.y)));
}

fn halves_hi(v: vec4<u32>) -> vec4<f16> {
    return vec4<f16>(vec4<f32>(unpack2x16float(v.z), unpack2x16float(v.w)));
}
