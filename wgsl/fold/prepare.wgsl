// Fold, stage 0 (and the selection's, src/select.rs: its marks, scatter and runs stages, with
// FOLD_ARGS past the scan's control layout): this run's element count (the head, shared/count)
// turned into the grid of the chunked stages (shared/grid), their indirect dispatch arguments at
// FOLD_ARGS. One invocation;
// it runs on the device only for a GPU count on a CPU device (src/record.rs); elsewhere the host
// dispatches the same grid and the simulator runs this stage to check it.

//!include shared/grid

// the word of the control block where the dispatch arguments start (after the head)
override FOLD_ARGS: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let head = vec4<u32>(control[0], control[1], control[2], control[3]);
    control[FOLD_ARGS] = elements_grid(run_elements(head));
    control[FOLD_ARGS + 1u] = 1u;
    control[FOLD_ARGS + 2u] = 1u;
}
