// expect: binding-too-small
// workgroups: 1
// bind: 0=u32:[0] 1=u32:zeros:64
// A struct of a count and a runtime-sized array bound to its count alone (4 bytes): WebGPU's
// minimum binding size counts one element of the array, so it refuses the binding, though
// the count is 0 and no element is read.
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
