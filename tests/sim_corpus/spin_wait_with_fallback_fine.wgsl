// expect: clean
// workgroups: 2
// max-steps: 20000
// bind: 0=u32:zeros:1 1=u32:uninit:2
// Looks bad, is fine: the wait is bounded, and on giving up the workgroup does the work itself
// (the decoupled-lookback fallback pattern), so it makes progress alone.
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    var seen = 0u;
    if wid.x == 0u {
        for (var spin = 0u; spin < 100u; spin++) {
            seen = atomicLoad(&flag);
            if seen != 0u {
                break;
            }
        }
    } else {
        atomicStore(&flag, 1u);
    }
    if lid == 0u {
        output[wid.x] = wid.x + seen * 0u;
    }
}
