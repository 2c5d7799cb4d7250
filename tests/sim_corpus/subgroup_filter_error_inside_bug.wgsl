// expect: non-uniform-subgroup-op
// workgroups: 1
// bind: 0=u32:iota:61 1=u32:uninit:61
// The module turns the subgroup uniformity diagnostic off, but the statement around the
// shuffle turns it back to `error`: the innermost filter is in force, so the shuffle with
// inactive lanes is a finding.
diagnostic(off, subgroup_uniformity);

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let n = arrayLength(&input);
    let valid = lid < n;
    @diagnostic(error, subgroup_uniformity) if valid {
        let x = input[lid];
        output[lid] = x + subgroupShuffleXor(x, 1u);
    }
}
