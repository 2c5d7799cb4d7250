// expect: clean
// workgroups: 1
// bind: 0=u32:iota:64 1=u32:uninit:64
// options: non-finite
// The division of `non_finite_division_bug` guarded: where the divisor is zero the `select`
// keeps 0.0, so the infinity of those lanes is never used.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let count = f32(input[i] % 3u);
    let w = select(f32(i) / count, 0.0, count == 0.0);
    output[i] = bitcast<u32>(w * count);
}
