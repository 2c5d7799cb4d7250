// Scan, stage 0: this run's element count (control[0], copied or written there before this
// pass) turned into each chunk's params (shared/chain_params) and the 2-D grid of its tiles, so one
// prepared plan scans any count up to its maximum. One invocation; it writes the control block
// alone, so a host count skips it (src/count.rs).

//!include shared/chain_params

// workgroups per grid dimension (the device's limit)
override MAX_DIM: u32 = 65535u;

// control layout (the host reads these): the count at word 0, chunk c's dispatch arguments at
// ARGS_AT + 3c, its params (ScanParams, a uniform: 256-byte blocks) at PARAMS_AT + PARAMS_STRIDE * c
const ARGS_AT: u32 = 4u;
const MAX_CHUNKS: u32 = 16u;
const PARAMS_AT: u32 = 64u;
const PARAMS_STRIDE: u32 = 64u;
const_assert ARGS_AT + 3u * MAX_CHUNKS <= PARAMS_AT;
const_assert COUNT_LIMIT < ARGS_AT;

const_assert STATE_TICKETS + MAX_CHUNKS <= STATE_STATUS;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let head = vec4<u32>(control[0], control[1], control[2], control[3]);
    for (var c = 0u; c < CHUNKS; c++) {
        let q = chunk_params(head, c);
        // a 2-D grid: workgroup (x, y) takes tile x + y * width; the few past the last leave
        let x = min(q.tiles, MAX_DIM);
        let y = select(0u, (q.tiles + x - 1u) / max(x, 1u), q.tiles > 0u);
        control[ARGS_AT + 3u * c] = x;
        control[ARGS_AT + 3u * c + 1u] = y;
        control[ARGS_AT + 3u * c + 2u] = 1u;
        let p = PARAMS_AT + PARAMS_STRIDE * c;
        control[p] = q.n;
        control[p + 1u] = q.tiles;
        control[p + 2u] = q.tile_base;
        control[p + 3u] = q.total_tiles;
        control[p + 4u] = q.chunk;
    }
}
