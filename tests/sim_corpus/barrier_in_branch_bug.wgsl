// expect: barrier-divergence
// workgroups: 1
// bind: 0=u32:zeros:64
// A barrier only some invocations reach.
var<workgroup> tile: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    tile[lid] = lid;
    if lid < 16u {
        workgroupBarrier();
    }
    output[lid] = lid;
}
