// expect: schedule-divergence
// workgroups: 1
// bind: 0=u32:zeros:1
// sizes: 4, 8, 32
// wgpu's `hello_synchronization` `hasty_main`: every invocation counts itself in, and
// invocation 0 reads the count without waiting at a barrier. The atomics make it race-free,
// but the count it reads depends on how many subgroups ran their `atomicAdd` first: 64 when
// every subgroup runs in lockstep, fewer when invocation 0's subgroup runs ahead.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> count: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    atomicAdd(&count, 1u);
    if lid == 0u {
        output[0] = atomicLoad(&count);
    }
}
