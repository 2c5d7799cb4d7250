// expect: clean
// workgroups: 1
// bind: 0=u32:iota:61 1=u32:uninit:61
// Seed bug 2, fixed: every lane loads (0 past the end) and shuffles; only the store is guarded.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let n = arrayLength(&input);
    let valid = lid < n;
    let x = select(0u, input[min(lid, n - 1u)], valid);
    let s = x + subgroupShuffleXor(x, 1u);
    if valid {
        output[lid] = s;
    }
}
