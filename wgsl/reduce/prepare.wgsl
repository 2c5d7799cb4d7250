// Reduction, stage 0: this run's element count (control[0], copied there before this pass from
// the host's count or the caller's GPU buffer) turned into each chunk's params and workgroup
// count, so one prepared plan reduces any count up to its maximum. One invocation.
//
// Chunks: the input is bound CHUNK elements at a time (the device's binding limit); chunk c
// holds elements [c * CHUNK, (c + 1) * CHUNK) of the count. Its workgroups: enough for one vec4
// per invocation per step, at most MAX_WORKGROUPS (SMALL_WORKGROUPS for a short run), none where
// the chunk is empty (but chunk 0
// always has one, so an empty input still gets its identity written).

override CHUNKS: u32 = 1u;
override CHUNK: u32 = 0xffffffffu;
override MAX_COUNT: u32 = 0xffffffffu;
// invocations per workgroup of the reduce stage (the host reads it from the stage)
override WG: u32 = 256u;
override MAX_WORKGROUPS: u32 = 4096u;
// a run of at most SMALL_COUNT elements takes at most SMALL_WORKGROUPS per chunk (the policy's
// evidence: src/reduce.rs, ReducePolicy); the cap grows with the count, so a grid sized for a
// larger count always holds this run's
override SMALL_WORKGROUPS: u32 = 528u;
override SMALL_COUNT: u32 = 16777216u;

// control layout (the host reads these): the count at word 0, chunk c's dispatch arguments at
// ARGS_AT + 3c, its params (ReduceParams, a uniform: 256-byte blocks) at PARAMS_AT + PARAMS_STRIDE * c
const ARGS_AT: u32 = 4u;
const MAX_CHUNKS: u32 = 16u;
const PARAMS_AT: u32 = 64u;
const PARAMS_STRIDE: u32 = 64u;
const_assert ARGS_AT + 3u * MAX_CHUNKS <= PARAMS_AT;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

fn chunk_len(count: u32, c: u32) -> u32 {
    let first = c * CHUNK;
    return select(0u, min(CHUNK, count - first), count > first);
}

fn chunk_grid(count: u32, c: u32) -> u32 {
    let vecs = (chunk_len(count, c) + 3u) / 4u;
    let cap = select(MAX_WORKGROUPS, SMALL_WORKGROUPS, count <= SMALL_COUNT);
    let grid = min((vecs + WG - 1u) / WG, cap);
    return select(grid, max(grid, 1u), c == 0u);
}

@compute @workgroup_size(1)
fn main() {
    let count = min(control[0], MAX_COUNT);
    var total = 0u;
    for (var c = 0u; c < CHUNKS; c++) {
        total += chunk_grid(count, c);
    }
    var base = 0u;
    for (var c = 0u; c < CHUNKS; c++) {
        let grid = chunk_grid(count, c);
        control[ARGS_AT + 3u * c] = grid;
        control[ARGS_AT + 3u * c + 1u] = 1u;
        control[ARGS_AT + 3u * c + 2u] = 1u;
        let p = PARAMS_AT + PARAMS_STRIDE * c;
        control[p] = chunk_len(count, c);
        control[p + 1u] = base;
        control[p + 2u] = total;
        control[p + 3u] = count;
        control[p + 4u] = 0u;
        control[p + 5u] = grid;
        base += grid;
    }
}
