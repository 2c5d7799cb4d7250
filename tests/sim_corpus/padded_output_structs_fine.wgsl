// expect: clean
// workgroups: 1
// bind: 0=f32:uninit:256 1=u32:uninit:128
// Looks bad, is fine: each uninitialized output gets every element written, but an element
// does not fill its stride: a vec3<f32> takes 16 bytes, and the struct has 12 bytes of padding
// after `count` (its vec3 is 16-byte aligned). Nothing can write padding; it is not unwritten
// output.
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
        cells[lid] = Cell(lid, vec3<f32>(0.5), lid + 1u);
    }
}
