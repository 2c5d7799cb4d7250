// expect: clean
// workgroups: 2
// bind: 0=u32:uninit:2
// Looks bad, is fine: a histogram counts into workgroup memory nobody cleared, and half the
// tile is read without being written. WGSL zero-fills workgroup memory for every workgroup, so
// this is correct WGSL (a port to Metal or CUDA would need the clearing: checked with the
// uninit-workgroup option, uninit_workgroup_read_bug.wgsl).
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> bins: array<atomic<u32>, 4>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    atomicAdd(&bins[lid % 4u], 1u);
    if lid < 32u {
        tile[lid] = lid;
    }
    // barrier: the counts and the first half of the tile are complete
    workgroupBarrier();
    if lid == 0u {
        out[wid.x] = atomicLoad(&bins[1]) + tile[40];
    }
}
