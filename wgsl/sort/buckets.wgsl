// Radix sort, MSD+LSD hybrid: after the MSD scatter on the top digit, describe the tiles of the
// LSD passes so that no tile crosses a bucket (keys with one top digit). Bucket b holds
// ceil(size_b / TILE) tiles, numbered consecutively bucket after bucket; tile t of bucket b
// keeps its digit-d count at 256 * first_tile_b + d * tiles_b + t, so one exclusive scan of the
// histogram gives positions inside the bucket, offset by the bucket's start. One workgroup.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
// = TILE of shared/sort_tile.wgsl (a unit test in src/sort/build.rs checks it)
const TILE: u32 = 3072u;

struct BucketParams {
    n: u32,          // keys
    msd_tiles: u32,  // tiles of the MSD pass (row length of its histogram)
    max_tiles: u32,  // descriptors to write (tiles the LSD passes dispatch)
    max_dim: u32,    // largest workgroup count per dimension
}

@group(0) @binding(0) var<uniform> params: BucketParams;
// exclusive scan of the MSD pass's digit-major histogram: offsets[b * msd_tiles] = start of b
@group(0) @binding(1) var<storage, read> msd_offsets: array<u32>;
// (start, count, hist_base, hist_stride) per LSD tile; count 0 past the last one
@group(0) @binding(2) var<storage, read_write> tile_descs: array<vec4<u32>>;
// indirect dispatch arguments of the LSD passes: a 2-D grid of exactly the tiles there are
// (workgroups that only exit still cost a full tile's time on lavapipe)
@group(0) @binding(3) var<storage, read_write> dispatch: array<u32, 3>;

var<workgroup> first_tile: array<u32, 256>;
var<workgroup> bucket_start: array<u32, 256>;
var<workgroup> bucket_size: array<u32, 256>;
var<workgroup> bucket_tiles: array<u32, 256>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    // buckets: invocation of scan rank b owns bucket b
    let b = inv_rank(inv);
    let start = msd_offsets[b * params.msd_tiles];
    let end = select(params.n, msd_offsets[min(b + 1u, 255u) * params.msd_tiles], b < 255u);
    let tiles = (end - start + TILE - 1u) / TILE;
    let sc = wg_scan_add_u32(inv, tiles);
    first_tile[b] = sc.x;
    bucket_start[b] = start;
    bucket_size[b] = end - start;
    bucket_tiles[b] = tiles;
    // barrier: the bucket table is complete
    workgroupBarrier();
    let total = sc.y;
    if inv.lid == 0u {
        let x = max(1u, min(total, params.max_dim));
        dispatch[0] = x;
        dispatch[1] = (total + x - 1u) / x;
        dispatch[2] = 1u;
    }
    // descriptors: each invocation finds its tiles' bucket by binary search for the last bucket
    // whose first tile is <= g (an empty bucket shares its first tile with the next one)
    for (var g = inv.lid; g < params.max_tiles; g += WG_SIZE) {
        if g >= total {
            tile_descs[g] = vec4<u32>(0u);
            continue;
        }
        var lo = 0u;
        var hi = 255u;
        while lo < hi {
            let mid = (lo + hi + 1u) / 2u;
            if first_tile[mid] <= g {
                lo = mid;
            } else {
                hi = mid - 1u;
            }
        }
        let t = g - first_tile[lo];
        let s = bucket_size[lo];
        tile_descs[g] = vec4<u32>(bucket_start[lo] + t * TILE, min(TILE, s - t * TILE), 256u * first_tile[lo] + t, bucket_tiles[lo]);
    }
}
