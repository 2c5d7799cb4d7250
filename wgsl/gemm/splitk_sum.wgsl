// Split-K epilogue: C[i] = Σ_z partials[z·count + i], z = 0 .. splits-1, in that fixed order
// (deterministic for a given split count). tiled.wgsl writes one partial product per split when
// the tile grid alone is too small to fill the GPU (skinny M, e.g. M = 1..64 with N = K = 4096).
// One element per invocation over a 2-D grid (the host keeps each dimension within the limit).
//
// With OUT_F16 (f16 output, GemmOptions::out = OutFormat::F16) each invocation sums two elements
// and writes them rounded to f16 in one word (gemm/lib/f16_round.wgsl), element 2i in the low half
// of word i, the high half +0 past the last element: the same bits the separate rounding pass
// (to_f16.wgsl) would give, without its dispatch. C's words are f32 bits otherwise.

//!include gemm/lib/f16_round

const WG_SIZE: u32 = 256u;

override OUT_F16: bool = false;

struct Params {
    count: u32,
    splits: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<u32>;

fn sum_of(i: u32) -> f32 {
    var acc = 0.0;
    for (var z = 0u; z < params.splits; z++) {
        acc += partials[z * params.count + i];
    }
    return acc;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = (wid.x + wid.y * nwg.x) * WG_SIZE + lid;
    if OUT_F16 {
        // word i: elements 2i and 2i + 1
        let first = 2u * i;
        if first >= params.count {
            return;
        }
        var hi = 0.0;
        if first + 1u < params.count {
            hi = sum_of(first + 1u);
        }
        c[i] = pack_f16(sum_of(first), hi);
        return;
    }
    if i >= params.count {
        return;
    }
    c[i] = bitcast<u32>(sum_of(i));
}
