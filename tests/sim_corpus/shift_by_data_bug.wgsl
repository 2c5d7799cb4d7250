// expect: shift-overflow
// workgroups: 1
// bind: 0=u32:iota:64 1=u32:uninit:64
// A bit mask built from a per-element width: `(1u << width) - 1u` is meant to give all ones
// for a width of 32, as the CUDA original assumed its compiler would. WGSL shifts by
// 32 mod 32 = 0 and the mask comes out 0; in CUDA the shift is undefined.
@group(0) @binding(0) var<storage, read> widths: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let width = widths[lid] % 33u;
    output[lid] = (1u << width) - 1u;
}
