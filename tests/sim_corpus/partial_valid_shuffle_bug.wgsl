// expect: non-uniform-subgroup-op
// workgroups: 1
// bind: 0=u32:iota:61 1=u32:uninit:61
// Seed bug 2: the shuffle sits inside `if (valid)`; on the partial last tile (61 elements for 64
// invocations) the invalid lanes are inactive and their neighbours shuffle from them.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let n = arrayLength(&input);
    let valid = lid < n;
    if valid {
        let x = input[lid];
        output[lid] = x + subgroupShuffleXor(x, 1u);
    }
}
