// include-only
// The scan's tile size and the params scan/prepare.wgsl writes for each chunk.

const WG_SIZE: u32 = 256u;
const ROWS: u32 = 4u;
const TILE: u32 = WG_SIZE * ROWS * 4u;

// Written by scan/prepare.wgsl for each chunk.
struct ScanParams {
    n: u32,            // elements in this chunk
    tiles: u32,        // tiles in this chunk
    tile_base: u32,    // index of this chunk's first tile among all tiles
    total_tiles: u32,  // tiles over all chunks
}
