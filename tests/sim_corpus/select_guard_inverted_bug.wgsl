// expect: out-of-bounds
// workgroups: 2
// bind: 0=u32:iota:100 1=u32:uninit:128
// The select's operands are swapped: lanes past the end keep the value read out of bounds
// (a GPU returns 0 or some element of the buffer there, whatever robust access picks).
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 64u + lid;
    output[i] = select(input[i], 0u, i < arrayLength(&input));
}
