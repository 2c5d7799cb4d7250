// f16 output (GemmOptions::out = OutFormat::F16): C's f32 elements, as every GEMM kernel writes
// them, rounded to f16 and packed two per word (element 2i in the low half of word i, as a
// little-endian float16 array lays them out). One quad of C per invocation, read as a vec4 and
// written as a vec2<u32>, over a 2-D grid (the host keeps each dimension within the limit). The
// host rounds C's buffer up to whole quads; the padding is never written, so the last quad, when
// partial, is read element by element, and its missing elements give +0.
//
// The rounding is done in integer arithmetic, not by pack2x16float or an f16 conversion: WGSL
// lets those round either way and leaves values beyond f16's range indeterminate. Here every
// adapter gives the same bits as IEEE 754 round-to-nearest-even (the host reference is
// half::f16::from_f32, src/reference/gemm.rs): magnitudes from 65520 up become ±inf, NaN stays
// NaN (quiet, the top bits of its payload kept), results below 2^-14 become f16 subnormals and
// the sign of zero is kept.

const WG_SIZE: u32 = 256u;

struct Params {
    count: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> c: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec2<u32>>;

// f32 → f16 bits, round to nearest, ties to even.
fn to_f16_bits(x: f32) -> u32 {
    let bits = bitcast<u32>(x);
    let sign = (bits >> 16u) & 0x8000u;
    let mag = bits & 0x7fffffffu;
    if mag > 0x7f800000u {
        // NaN: quiet, payload's top 10 bits kept
        return sign | 0x7e00u | ((mag >> 13u) & 0x3ffu);
    }
    if mag >= 0x477ff000u {
        // 65520 (halfway between 65504 and 2^16, ties to the even 2^16) and up, ±inf included
        return sign | 0x7c00u;
    }
    if mag >= 0x38800000u {
        // normal: exponent rebiased (127 → 15), 13 mantissa bits dropped with rounding; a
        // carry out of the mantissa correctly increments the exponent
        let rebiased = mag - 0x38000000u;
        return sign | ((rebiased + 0xfffu + ((rebiased >> 13u) & 1u)) >> 13u);
    }
    let exponent = mag >> 23u;
    if exponent < 102u {
        // below 2^-25 (f32 subnormals and zero too): rounds to ±0
        return sign;
    }
    // subnormal: the 24-bit significand in units of 2^-24 is significand >> (126 − exponent),
    // a shift of 14..24
    let significand = (mag & 0x7fffffu) | 0x800000u;
    let shift = 126u - exponent;
    let kept = significand >> shift;
    let rest = significand & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    let up = rest > half || (rest == half && (kept & 1u) == 1u);
    return sign | (kept + select(0u, 1u, up));
}

fn pack(lo: f32, hi: f32) -> u32 {
    return to_f16_bits(lo) | (to_f16_bits(hi) << 16u);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let quad = (wid.x + wid.y * nwg.x) * WG_SIZE + lid;
    let first = 4u * quad;
    if first >= params.count {
        return;
    }
    // load
    var v = vec4<f32>(0.0);
    if first + 4u <= params.count {
        v = c[quad];
    } else {
        // the partial last quad: only the elements inside C
        v.x = c[quad].x;
        if first + 1u < params.count {
            v.y = c[quad].y;
        }
        if first + 2u < params.count {
            v.z = c[quad].z;
        }
    }
    // round and store
    out[quad] = vec2<u32>(pack(v.x, v.y), pack(v.z, v.w));
}
