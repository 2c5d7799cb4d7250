// Reduction, stage 0: this run's element count (the head, shared/count) turned into each
// chunk's params and workgroup count (reduce/lib/params), so one prepared plan reduces any count
// up to its maximum. One invocation. Where a count's grids are the host's (src/record.rs) it does
// not run on the device; the simulator runs it to check them.

//!include reduce/lib/params

// invocations per workgroup of the reduce stage (the host reads it from the stage)
override WG_SIZE: u32 = 256u;

// control layout (the host reads these): the count at word 0, chunk c's dispatch arguments at
// ARGS_AT + 3c, its params (ReduceParams, a uniform: 256-byte blocks) at PARAMS_AT + PARAMS_STRIDE * c
const ARGS_AT: u32 = 4u;
const MAX_CHUNKS: u32 = 16u;
const PARAMS_AT: u32 = 64u;
const PARAMS_STRIDE: u32 = 64u;
const_assert ARGS_AT + 3u * MAX_CHUNKS <= PARAMS_AT;
const_assert COUNT_LIMIT < ARGS_AT;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let head = vec4<u32>(control[0], control[1], control[2], control[3]);
    for (var c = 0u; c < CHUNKS; c++) {
        let p = chunk_params(head, c);
        control[ARGS_AT + 3u * c] = p.grid;
        control[ARGS_AT + 3u * c + 1u] = 1u;
        control[ARGS_AT + 3u * c + 2u] = 1u;
        let at = PARAMS_AT + PARAMS_STRIDE * c;
        control[at] = p.n;
        control[at + 1u] = p.out_base;
        control[at + 2u] = p.total;
        control[at + 3u] = p.count;
        control[at + 4u] = p.zero;
        control[at + 5u] = p.grid;
    }
}
