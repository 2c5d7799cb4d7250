// expect: non-finite
// workgroups: 1
// bind: 0=u32:iota:64 1=u32:uninit:64
// options: non-finite
// Each invocation divides by a count taken from its input; where the count is zero the
// quotient is an infinity (or 0/0 = NaN), a value WGSL lets implementations assume away:
// lavapipe folds `w * 0.0` to 0 where another device keeps NaN.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let count = f32(input[i] % 3u);
    let w = f32(i) / count;
    output[i] = bitcast<u32>(w * count);
}
