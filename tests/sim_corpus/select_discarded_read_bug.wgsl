// expect: discarded-read
// workgroups: 2
// bind: 0=u32:iota:100 1=u32:uninit:128 2=u32:uninit:64
// options: discarded-read
// With the discarded-read option, the reads whose value a `select` discards are reported:
// `select` evaluates both operands, so lanes past the end read `input[i]`
// out of bounds, and lanes past the written half read unwritten scratch words; but in exactly
// those lanes the select keeps the 0. WGSL's robust buffer access makes the reads harmless.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> scratch: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 64u + lid;
    let n = arrayLength(&input);
    output[i] = select(0u, input[i], i < n);
    if wid.x == 0u && lid < 32u {
        scratch[lid] = lid;
    }
    // barrier: the scratch half is written (storage, in this workgroup)
    storageBarrier();
    if wid.x == 0u {
        output[i] += select(scratch[lid], 0u, lid >= 32u);
        if lid >= 32u {
            scratch[lid] = 0u;
        }
    }
}
