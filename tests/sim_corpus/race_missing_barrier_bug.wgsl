// expect: workgroup-race
// may: schedule-divergence
// workgroups: 1
// bind: 0=u32:random:64 1=u32:uninit:64
// A neighbour exchange through workgroup memory without a barrier between write and read.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    tile[lid] = input[lid];
    output[lid] = tile[(lid + 1u) % 64u];
}
