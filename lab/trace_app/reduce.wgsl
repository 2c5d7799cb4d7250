// Per-workgroup sums of `input[0..params.n]`, scaled by SCALE, one word per workgroup into
// `partials` (bound with a dynamic offset). The subgroup sum's butterfly masks are written out
// for subgroups of 32 lanes (CUDA's warp): on subgroups of 16 or fewer the first shuffles reach
// past the subgroup (`shuffle-out-of-range`; lavapipe, at 8 lanes, computes zeros); at 32 lanes
// the kernel is right; at 64 it sums half of each subgroup (a wrong result, but no finding).
struct Params {
    n: u32,
    groups: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;
@group(1) @binding(0) var<storage, read_write> partials: array<u32>;

override WG: u32 = 64u;
override SCALE: u32 = 1u;

var<workgroup> sums: array<u32, 64>;

@compute @workgroup_size(WG)
fn partial(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_id) sg: u32,
) {
    var s = 0u;
    if gid.x < params.n {
        s = input[gid.x];
    }
    s += subgroupShuffleXor(s, 16u);
    s += subgroupShuffleXor(s, 8u);
    s += subgroupShuffleXor(s, 4u);
    s += subgroupShuffleXor(s, 2u);
    s += subgroupShuffleXor(s, 1u);
    if lane == 0u {
        sums[sg] = s;
    }
    workgroupBarrier();
    if lid == 0u {
        var total = 0u;
        for (var i = 0u; i < WG / sg_size; i++) {
            total += sums[i];
        }
        partials[wid.x] = total * SCALE;
    }
}
