// include-only
// The scan stages' workgroup size, the params scan/prepare.wgsl writes for each chunk, and the
// layout of the chained scan's state (`state`, created zeroed, kept between runs).
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

// Written by scan/prepare.wgsl for each chunk (a uniform, 32 bytes).
struct ScanParams {
    n: u32,            // elements in this chunk
    tiles: u32,        // tiles in this chunk
    tile_base: u32,    // index of this chunk's first tile among all tiles
    total_tiles: u32,  // tiles over all chunks
    chunk: u32,        // this chunk's index (its ticket counter)
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// state layout (the host reads STATE_STATUS)
const STATE_HALF: u32 = 0u;
const STATE_USED: u32 = 1u;
const STATE_ARRIVED: u32 = 3u;
const STATE_TICKETS: u32 = 4u;
const STATE_STATUS: u32 = 32u;
