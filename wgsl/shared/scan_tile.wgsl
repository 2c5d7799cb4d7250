// include-only
// Tile layout shared by the scan stages: WG_SIZE invocations × 16 u32 (four vec4 loads), the
// invocation of scan rank r owning elements [16 r, 16 r + 16) of the tile. Elements at or past
// `n` load as 0, so a partial last tile never reads out of bounds.

const WG_SIZE: u32 = 256u;
const TILE: u32 = WG_SIZE * 16u;

struct ScanParams {
    n: u32,          // elements in this chunk
    tiles: u32,      // tiles in this chunk
    tile_base: u32,  // index of this chunk's first tile among all tiles
    _pad: u32,
}

fn load_items(n: u32, tile: u32, rank: u32) -> array<vec4<u32>, 4> {
    var items: array<vec4<u32>, 4>;
    let first_vec = tile * (TILE / 4u) + rank * 4u;
    let n_full_vecs = n / 4u;
    for (var j = 0u; j < 4u; j++) {
        let v = first_vec + j;
        if v < n_full_vecs {
            items[j] = input[v];
        } else if v == n_full_vecs && (n % 4u) != 0u {
            let raw = input[v];
            let rest = n % 4u;
            items[j] = vec4<u32>(raw.x, select(0u, raw.y, rest > 1u), select(0u, raw.z, rest > 2u), 0u);
        } else {
            items[j] = vec4<u32>(0u);
        }
    }
    return items;
}
