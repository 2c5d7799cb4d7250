// Scan, stage 0: this run's element count (control[0], copied or written there before this
// pass) turned into each chunk's params and the 2-D grid of its tiles, so one prepared plan
// scans any count up to its maximum. One invocation; it writes the control block alone, so a
// host count skips it (src/count.rs).
//
// Chunk c holds elements [c * CHUNK, (c + 1) * CHUNK) of the count (CHUNK a multiple of TILE,
// the binding limit); its tiles are numbered after the previous chunks' (tile_base).

//!include scan/lib/params

override CHUNKS: u32 = 1u;
override CHUNK: u32 = 0xffffffffu;
override MAX_COUNT: u32 = 0xffffffffu;
// elements per tile of the scan pass
override TILE: u32 = 8192u;
// workgroups per grid dimension (the device's limit)
override MAX_DIM: u32 = 65535u;

// control layout (the host reads these): the count at word 0, chunk c's dispatch arguments at
// ARGS_AT + 3c, its params (ScanParams, a uniform: 256-byte blocks) at PARAMS_AT + PARAMS_STRIDE * c
const ARGS_AT: u32 = 4u;
const MAX_CHUNKS: u32 = 16u;
const PARAMS_AT: u32 = 64u;
const PARAMS_STRIDE: u32 = 64u;
const_assert ARGS_AT + 3u * MAX_CHUNKS <= PARAMS_AT;

const_assert STATE_TICKETS + MAX_CHUNKS <= STATE_STATUS;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

fn chunk_len(count: u32, c: u32) -> u32 {
    let first = c * CHUNK;
    return select(0u, min(CHUNK, count - first), count > first);
}

@compute @workgroup_size(1)
fn main() {
    let count = min(control[0], MAX_COUNT);
    var total = 0u;
    for (var c = 0u; c < CHUNKS; c++) {
        total += (chunk_len(count, c) + TILE - 1u) / TILE;
    }
    var base = 0u;
    for (var c = 0u; c < CHUNKS; c++) {
        let n = chunk_len(count, c);
        let tiles = (n + TILE - 1u) / TILE;
        // a 2-D grid: workgroup (x, y) takes tile x + y * width; the few past the last leave
        let x = min(tiles, MAX_DIM);
        let y = select(0u, (tiles + x - 1u) / max(x, 1u), tiles > 0u);
        control[ARGS_AT + 3u * c] = x;
        control[ARGS_AT + 3u * c + 1u] = y;
        control[ARGS_AT + 3u * c + 2u] = 1u;
        let p = PARAMS_AT + PARAMS_STRIDE * c;
        control[p] = n;
        control[p + 1u] = tiles;
        control[p + 2u] = base;
        control[p + 3u] = total;
        control[p + 4u] = c;
        base += tiles;
    }
}
