// include-only
//!include shared/count
// The workgroup size, each chunk's params, and the layout of the status words (`state`, created
// zeroed, kept between runs) of the chain of tiles (shared/chain: the scan's chained stage and
// the single-pass selection's).
//
// Params: every copy of a Scanner's control block is marked PARAMS_DERIVED when it is made, and
// the chained stage computes its chunk's params from the head (shared/count) itself, so no count
// needs a prepare pass (that dispatch and the wait for it: 9 µs of a 2^20-element scan on the
// H100, 2026-11-27). The prepare stage writes the same params and the grids: where a GPU count
// takes indirect grids (src/record.rs), in a plan that appends the scan (the sort's
// reduce-then-scan, whose blocks are not marked), and on the simulator as the oracle of the
// host's grids (ScanArgs in src/scan.rs). Chunk c holds elements
// [c * CHUNK, (c + 1) * CHUNK) of the count (CHUNK a multiple of TILE, the binding limit); its
// tiles are numbered after the previous chunks' (tile_base).
//
// State: which half of the status words the next run publishes into (STATE_HALF, bit 0), how
// many tiles each half was last left written with (STATE_USED + h), the tiles of the current
// run that have taken their place (STATE_ARRIVED), a ticket counter per chunk (STATE_TICKETS +
// c), then from STATE_STATUS the two halves of MAX_TILES tiles' status words, 2 words per tile.
// The half a run is given is all zero: the run clears the other half's written slots, and the
// next run gets that one. The run's last tile to arrive turns the books over (the next half,
// the slots left written, tickets and arrivals back to 0), so no pass before the scan keeps
// them. A run without tiles changes nothing.

const WG_SIZE: u32 = 256u;

override CHUNKS: u32 = 1u;
override CHUNK: u32 = 0xffffffffu;
override MAX_COUNT: u32 = 0xffffffffu;
// elements per tile of the chained stage (ScanPolicy::tile)
override TILE: u32 = 8192u;
// tiles chunk 0 has at least: 1 where a run of 0 elements still writes a result (the
// selection's count, select/compact.wgsl)
override MIN_TILES: u32 = 0u;

// A chunk's params (a uniform block of 32 bytes).
struct ScanParams {
    n: u32,            // elements in this chunk
    tiles: u32,        // tiles in this chunk
    tile_base: u32,    // index of this chunk's first tile among all tiles
    total_tiles: u32,  // tiles over all chunks
    chunk: u32,        // this chunk's index (its ticket counter)
    derive: u32,       // PARAMS_DERIVED: the block of copy 0, for GPU counts (above)
    _pad0: u32,
    _pad1: u32,
}

// `ScanParams::derive` of a block whose params the chained stage computes from the count word
const PARAMS_DERIVED: u32 = 0xffffffffu;

fn chunk_len(count: u32, c: u32) -> u32 {
    let first = c * CHUNK;
    return select(0u, min(CHUNK, count - first), count > first);
}

fn chunk_tiles(count: u32, c: u32) -> u32 {
    return max((chunk_len(count, c) + TILE - 1u) / TILE, select(0u, MIN_TILES, c == 0u));
}

// Chunk c's params for a head (the count word and its limit, shared/count).
fn chunk_params(head: vec4<u32>, c: u32) -> ScanParams {
    let count = run_count_of(head.x, head[COUNT_LIMIT], MAX_COUNT);
    var total = 0u;
    var base = 0u;
    for (var i = 0u; i < CHUNKS; i++) {
        let t = chunk_tiles(count, i);
        base += select(0u, t, i < c);
        total += t;
    }
    return ScanParams(chunk_len(count, c), chunk_tiles(count, c), base, total, c, 0u, 0u, 0u);
}

// The params the chained stage runs with: its block's, or computed from the head where the
// block says PARAMS_DERIVED.
fn run_params(block: ScanParams, head: vec4<u32>) -> ScanParams {
    if block.derive == PARAMS_DERIVED {
        return chunk_params(head, block.chunk);
    }
    return block;
}

// state layout (the host reads STATE_STATUS)
const STATE_HALF: u32 = 0u;
const STATE_USED: u32 = 1u;
const STATE_ARRIVED: u32 = 3u;
const STATE_TICKETS: u32 = 4u;
const STATE_STATUS: u32 = 32u;
