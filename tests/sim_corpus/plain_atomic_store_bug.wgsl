// expect: plain-atomic-access
// workgroups: 2
// bind: 0=u32:zeros:16
// The bins are cleared with a plain assignment, as C++ code clears a std::atomic: WGSL allows
// only the atomic builtins on an atomic, so a browser rejects the module (naga takes it and
// stores as atomicStore would).
@group(0) @binding(0) var<storage, read_write> histogram: array<atomic<u32>, 16>;

@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        histogram[lid] = 0u;
    }
}
