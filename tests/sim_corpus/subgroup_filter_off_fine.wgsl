// expect: clean
// notes: non-uniform-subgroup-op
// workgroups: 1
// bind: 0=u32:iota:61 1=u32:uninit:61
// Looks bad, is fine: partial_valid_shuffle_bug's shuffle in a branch some lanes skip, under
// the author's `diagnostic(off, subgroup_uniformity)`: the author has said the inactive lanes'
// values do not matter here, so the simulator reports a note, not a finding.
diagnostic(off, subgroup_uniformity);

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
