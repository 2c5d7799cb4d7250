// expect: clean
// workgroups: 1
// bind: 0=f32:random:512 1=f32:random:128 2=f32:uninit:1024
// Seed bug 4, fixed: the rows per subgroup come from the tile height M.
const M: u32 = 64u;
const N: u32 = 16u;
const K: u32 = 8u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(subgroup_id) sg: u32, @builtin(num_subgroups) n_sg: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
    let rows_per_sg = M / n_sg;
    let row0 = sg * rows_per_sg;
    for (var r = row0; r < row0 + rows_per_sg; r++) {
        for (var col = lane; col < N; col += sg_size) {
            var acc = 0.0;
            for (var k = 0u; k < K; k++) {
                acc = fma(a[r * K + k], b[k * N + col], acc);
            }
            c[r * N + col] = acc;
        }
    }
}
