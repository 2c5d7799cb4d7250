// Histogram, stage 0: this run's sample count (the head, shared/count) turned into the counting
// stage's grid (histogram/lib/params), the indirect dispatch's arguments. One invocation. It runs
// on the device only for a GPU count on a CPU device (src/record.rs); elsewhere the host
// dispatches the same grid and the simulator runs this stage to check it.

//!include histogram/lib/params

// control layout (the host reads these): the head at word 0, the counting stage's dispatch
// arguments at ARGS_AT
const ARGS_AT: u32 = 4u;
const CONTROL_WORDS: u32 = 8u;
const_assert COUNT_LIMIT < ARGS_AT;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let head = vec4<u32>(control[0], control[1], control[2], control[3]);
    control[ARGS_AT] = hist_grid(run_samples(head));
    control[ARGS_AT + 1u] = 1u;
    control[ARGS_AT + 2u] = 1u;
}
