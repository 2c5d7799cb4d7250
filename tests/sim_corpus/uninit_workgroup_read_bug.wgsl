// expect: uninitialized-read
// workgroups: 1
// bind: 0=u32:uninit:64
// options: uninit-workgroup
// Only the first half of the invocations fill the tile; everybody reads it. WGSL zero-fills
// workgroup memory, so a GPU gives zeros; the Metal/CUDA original read garbage. Reported only
// for a kernel said to be a port (the uninit-workgroup option): in WGSL the zeros are a
// guarantee (uninit_workgroup_zero_fill_fine.wgsl).
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < 32u {
        tile[lid] = lid * 2u;
    }
    // barrier: the tile is filled
    workgroupBarrier();
    output[lid] = tile[63u - lid];
}
