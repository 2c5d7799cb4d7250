// expect: clean
// workgroups: 2
// bind: 0=u32:zeros:16
// The fix of plain_atomic_store_bug: the bins cleared with atomicStore and read back with
// atomicLoad, the same memory operations naga lowers the plain ones to, written as WGSL allows.
@group(0) @binding(0) var<storage, read_write> histogram: array<atomic<u32>, 16>;

@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        atomicStore(&histogram[lid], 0u);
        let before = atomicLoad(&histogram[lid]);
        atomicStore(&histogram[lid], before);
    }
}
