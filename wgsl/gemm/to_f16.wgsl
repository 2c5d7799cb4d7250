// f16 output (GemmOptions::out = OutFormat::F16): C's f32 elements, as every GEMM kernel writes
// them, rounded to f16 and packed two per word (element 2i in the low half of word i, as a
// little-endian float16 array lays them out). One quad of C per invocation, read as a vec4 and
// written as a vec2<u32>, over a 2-D grid (the host keeps each dimension within the limit). The
// host rounds C's buffer up to whole quads; the padding is never written, so the last quad, when
// partial, is read element by element, and its missing elements give +0.
//
// The rounding (gemm/lib/f16_round.wgsl) is done in integer arithmetic: every adapter gives the
// bits of the host's half::f16::from_f32. Where K is split the sum pass rounds instead
// (splitk_sum.wgsl, OUT_F16), and with N even the product kernel does (OUT_F16); this pass is
// then not planned.

//!include gemm/lib/f16_round

const WG_SIZE: u32 = 256u;

struct Params {
    count: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> c: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec2<u32>>;

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
    out[quad] = vec2<u32>(pack_f16(v.x, v.y), pack_f16(v.z, v.w));
}
