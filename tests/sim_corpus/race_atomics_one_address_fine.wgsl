// expect: clean
// workgroups: 3
// bind: 0=u32:uninit:3
// Looks bad, is fine: every invocation updates one workgroup word, but atomically; the plain
// zeroing write and the final read are separated from the updates by barriers.
@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
var<workgroup> counter: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if lid == 0u {
        atomicStore(&counter, 0u);
    }
    // barrier: the counter is zeroed before anyone adds
    workgroupBarrier();
    atomicAdd(&counter, lid % 3u);
    // barrier: every addition is done
    workgroupBarrier();
    if lid == 0u {
        counts[wid.x] = atomicLoad(&counter);
    }
}
