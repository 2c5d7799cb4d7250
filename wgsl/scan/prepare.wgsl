// Scan, stage 0: this run's element count (control[0], copied or written there before this
// pass) turned into each chunk's params and the 2-D grid of its tiles, so one prepared plan
// scans any count up to its maximum; and the chained scan's state made ready for the run. One
// invocation.
//
// Chunk c holds elements [c * CHUNK, (c + 1) * CHUNK) of the count (CHUNK a multiple of TILE,
// the binding limit); its tiles are numbered after the previous chunks' (tile_base).
//
// The chained scan's state (scan/chained.wgsl; `state`, created zeroed): which half of the
// status words the next run publishes into (STATE_HALF, bit 0), how many tiles each half was
// last left written with (STATE_USED + h), a ticket counter per chunk (STATE_TICKETS + c), then
// from STATE_STATUS the two halves of MAX_TILES tiles' status words, 2 words per tile. The half
// a run is given is all zero: the run clears the other half's written slots, and the next run
// gets that one. A run without tiles changes nothing.

//!include scan/lib/params

override CHUNKS: u32 = 1u;
override CHUNK: u32 = 0xffffffffu;
override MAX_COUNT: u32 = 0xffffffffu;
// elements per tile of the scan pass
override TILE: u32 = 8192u;
// tiles of all chunks at MAX_COUNT: the status words of one half
override MAX_TILES: u32 = 0u;
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
@group(0) @binding(1) var<storage, read_write> state: array<u32>;

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
    let half = state[STATE_HALF] & 1u;
    let other = half ^ 1u;
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
        control[p + 5u] = STATE_STATUS + 2u * MAX_TILES * half;
        control[p + 6u] = STATE_STATUS + 2u * MAX_TILES * other;
        control[p + 7u] = state[STATE_USED + other];
        state[STATE_TICKETS + c] = 0u;
        base += tiles;
    }
    if total > 0u {
        state[STATE_USED + half] = total;
        state[STATE_USED + other] = 0u;
        state[STATE_HALF] = other;
    }
}
