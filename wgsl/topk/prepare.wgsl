// Top-k by radix select, stage 0: this run's rows (the head, shared/count) turned into the
// grids of the stages after it (topk/lib/select), the indirect dispatches' arguments. One
// invocation. It runs on the device only for a GPU count on a CPU device (src/record.rs);
// elsewhere the host dispatches the same grids and the simulator runs this stage to check them.

//!include topk/lib/keys

// control layout (the host reads these): the head at word 0, then the arguments of the stages
// with a workgroup per row (ROWS_AT) and of those over the elements (CHUNKS_AT)
const ROWS_AT: u32 = 4u;
const CHUNKS_AT: u32 = 8u;
const CONTROL_WORDS: u32 = 12u;
const_assert COUNT_LIMIT < ROWS_AT;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let rows = run_rows(vec4<u32>(control[0], control[1], control[2], control[3]));
    control[ROWS_AT] = rows_grid(rows);
    control[ROWS_AT + 1u] = 1u;
    control[ROWS_AT + 2u] = 1u;
    control[CHUNKS_AT] = chunks_grid(rows);
    control[CHUNKS_AT + 1u] = 1u;
    control[CHUNKS_AT + 2u] = 1u;
}
