// expect: clean
// workgroups: 1
// max-steps: 2000000
// bind: 0=u32:uninit:8
// The same 80000 iterations split across the row: each invocation loops 10000 times per loop,
// 20000 in all, well within lavapipe's shared limit of 65535 per invocation.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var i = lid; i < 40000u; i += 4u) {
        acc += i;
    }
    for (var i = lid; i < 40000u; i += 4u) {
        acc ^= i;
    }
    output[lid] = acc;
}
