// expect: clean
// workgroups: 1
// bind: 0=u32:zeros:64
// Looks bad, is fine: the branch holds only every other quad of the subgroup, but each quad in
// it has all four lanes active, so the quad operations inside are defined (the WebGPU CTS's
// quad "split" cases).
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32) {
    var v = lid;
    if (lane / 4u) % 2u == 0u {
        v = quadBroadcast(lid, 0u) + quadSwapX(lid) + quadSwapDiagonal(lid);
    }
    output[lid] = v;
}
