// expect: lane-layout-assumption
// workgroups: 1
// bind: 0=u32:uninit:64
// The subgroup and lane of an invocation computed from its local index, as a CUDA port
// computes the warp and lane from threadIdx.x. WGSL does not promise that subgroups are made of
// consecutive local indices (`--shuffle-lanes` shows it); the builtins say where an invocation
// is (lane_layout_from_builtins_fine.wgsl).
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> sums: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_size) size: u32) {
    let sg = lid / size;
    let lane = lid % size;
    let total = subgroupAdd(lid);
    if lane == 0u {
        sums[sg] = total;
    }
    // barrier: every subgroup's sum is stored
    workgroupBarrier();
    output[lid] = sums[sg];
}
