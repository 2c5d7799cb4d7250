// expect: clean
// workgroups: 1
// bind: 0=u32:[1,7] 1=u32:zeros:64
// Looks bad, is fine: a struct of a count and a runtime-sized array bound to 8 bytes, its fixed
// part and one element: the least WebGPU takes (its minimum binding size).
struct Rows {
    count: u32,
    rows: array<u32>,
}

@group(0) @binding(0) var<storage, read> table: Rows;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < min(table.count, arrayLength(&table.rows)) {
        output[lid] = table.rows[lid];
    }
}
