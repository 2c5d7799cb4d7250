// expect: clean
// workgroups: 1
// bind: 0=u32:zeros:1
// sizes: 4, 8, 32
// `hello_synchronization`'s `patient_main`: the same count with a barrier between the
// additions and the read, so invocation 0 reads 64 under every schedule.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> count: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    atomicAdd(&count, 1u);
    // barrier: every invocation has counted itself in
    workgroupBarrier();
    if lid == 0u {
        output[0] = atomicLoad(&count);
    }
}
