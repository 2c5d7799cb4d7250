// expect: step-limit
// workgroups: 2
// max-steps: 20000
// bind: 0=u32:zeros:1 1=u32:uninit:2
// Workgroup 0 spins until workgroup 1 raises a flag: it assumes both are resident at once.
// Workgroups run one after another here (as they may on a GPU), so the wait never ends.
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        while atomicLoad(&flag) == 0u {
        }
    } else {
        atomicStore(&flag, 1u);
    }
    if lid == 0u {
        output[wid.x] = wid.x;
    }
}
