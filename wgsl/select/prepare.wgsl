// Select, stage 0: this run's element count (the head, shared/count) turned into the marks and
// scatter stages' grid (select/lib/params), their indirect dispatch arguments. One invocation;
// the scan between them has its own prepare stage (scan/prepare.wgsl) over the same head. It runs
// on the device only for a GPU count on a CPU device (src/record.rs); elsewhere the host
// dispatches the same grid and the simulator runs this stage to check it.

//!include select/lib/params

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let head = vec4<u32>(control[0], control[1], control[2], control[3]);
    control[SELECT_ARGS] = elements_grid(run_elements(head));
    control[SELECT_ARGS + 1u] = 1u;
    control[SELECT_ARGS + 2u] = 1u;
}
