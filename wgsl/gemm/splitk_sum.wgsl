// Split-K epilogue: C[i] = Σ_z partials[z·count + i], z = 0 .. splits-1, in that fixed order
// (deterministic for a given split count). tiled.wgsl writes one partial product per split when
// the tile grid alone is too small to fill the GPU (skinny M, e.g. M = 1..64 with N = K = 4096).
// One element per invocation over a 2-D grid (the host keeps each dimension within the limit).

const WG_SIZE: u32 = 256u;

struct Params {
    count: u32,
    splits: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = (wid.x + wid.y * nwg.x) * WG_SIZE + lid;
    if i >= params.count {
        return;
    }
    var acc = 0.0;
    for (var z = 0u; z < params.splits; z++) {
        acc += partials[z * params.count + i];
    }
    c[i] = acc;
}
