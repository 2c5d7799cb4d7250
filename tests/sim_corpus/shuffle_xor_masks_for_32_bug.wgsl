// expect: shuffle-out-of-range
// workgroups: 1
// bind: 0=u32:uninit:64
// sizes: 4,8,16
// A subgroup sum with the butterfly's masks written out for subgroups of 32 (CUDA's warp):
// on subgroups of 16 or fewer lanes the first masks reach past the subgroup, and those
// shuffles return undefined values. Fine at 32 and 64; the twin takes its masks from the
// subgroup size (shuffle_masks_from_subgroup_size_fine.wgsl).
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var s = lid;
    s += subgroupShuffleXor(s, 16u);
    s += subgroupShuffleXor(s, 8u);
    s += subgroupShuffleXor(s, 4u);
    s += subgroupShuffleXor(s, 2u);
    s += subgroupShuffleXor(s, 1u);
    output[lid] = s;
}
