// expect: clean
// workgroups: 1
// bind: 0=u32:uninit:64
// Fixed: every invocation writes its slot (zero for the second half) before the barrier.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    tile[lid] = select(0u, lid * 2u, lid < 32u);
    // barrier: the tile is filled
    workgroupBarrier();
    output[lid] = tile[63u - lid];
}
