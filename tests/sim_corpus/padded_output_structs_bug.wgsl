// expect: unwritten-output
// workgroups: 1
// bind: 0=f32:uninit:256 1=u32:uninit:128
// The same outputs as padded_output_structs_fine.wgsl, but the last cell's `id` is never
// written (the padding around it still does not count).
struct Cell {
    count: u32,
    center: vec3<f32>,
    id: u32,
}
@group(0) @binding(0) var<storage, read_write> points: array<vec3<f32>>;
@group(0) @binding(1) var<storage, read_write> cells: array<Cell>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    points[lid] = vec3<f32>(f32(lid), 1.0, 2.0);
    if lid < 16u {
        cells[lid].count = lid;
        cells[lid].center = vec3<f32>(0.5);
        if lid != 15u {
            cells[lid].id = lid + 1u;
        }
    }
}
