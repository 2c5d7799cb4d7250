// expect: ballot-high-lanes
// workgroups: 1
// bind: 0=u32:iota:128 1=u32:uninit:128
// sizes: 64,128
// A CUDA port counts the subgroup's positive values from the ballot's first word: a warp's
// ballot is 32 bits. On subgroups of 64 or 128 lanes the voters past lane 31 are in the other
// words, which the kernel never reads, so the count is short. (At 32 lanes or fewer it is
// right; the twin reads all four words, ballot_all_words_fine.wgsl.)
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32) {
    let ballot = subgroupBallot(input[lid] > 3u);
    output[lid] = countOneBits(ballot.x);
}
