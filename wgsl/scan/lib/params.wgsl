// include-only
// The scan stages' workgroup size, the params scan/prepare.wgsl writes for each chunk, and the
// layout of the chained scan's state (described in scan/prepare.wgsl).

const WG_SIZE: u32 = 256u;

// Written by scan/prepare.wgsl for each chunk (a uniform, 32 bytes).
struct ScanParams {
    n: u32,            // elements in this chunk
    tiles: u32,        // tiles in this chunk
    tile_base: u32,    // index of this chunk's first tile among all tiles
    total_tiles: u32,  // tiles over all chunks
    // the chained scan (scan/chained.wgsl):
    chunk: u32,        // this chunk's index (its ticket counter)
    status: u32,       // first word of this run's status words in `state`
    stale: u32,        // first word of the other half's status words
    stale_tiles: u32,  // tiles of the other half the previous run left written
}

// state layout (the host reads STATE_STATUS)
const STATE_HALF: u32 = 0u;
const STATE_USED: u32 = 1u;
const STATE_TICKETS: u32 = 4u;
const STATE_STATUS: u32 = 32u;
