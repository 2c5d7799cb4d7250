// expect: loop-limit
// workgroups: 1
// max-steps: 2000000
// bind: 0=u32:uninit:8
// Two loops of 40000 iterations each: fine one at a time, but lavapipe counts the iterations of
// every loop of an invocation together and ends both after 65535 in all, so `acc` comes out short
// (as a persistent kernel's per-task loops do: thousands of tasks on one row of lanes).
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var i = 0u; i < 40000u; i++) {
        acc += i;
    }
    for (var i = 0u; i < 40000u; i++) {
        acc ^= i;
    }
    output[lid] = acc;
}
