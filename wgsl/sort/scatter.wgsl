// Radix sort, reduce-then-scan, stage 3 of 3 per digit: rank the tile's keys stably by digit
// (warp-level multisplit, sort/lib/tile.wgsl) and scatter keys (and values) to the positions
// the scanned histogram gives (Merrill & Grimshaw 2011: downsweep). Nothing waits on another
// workgroup.
//
// Built without runtime checks (src/gpu/mod.rs): the simulator proves every access in bounds
// (tests/behaviour/sort.rs: subgroup sizes 4..128, partial tiles, both flavours). The checks cost the
// scatter 5% (four passes at 2^28 keys 8.56 against 8.14 ms, H100, 2026-11-22).
// wgsimd: runtime checks off

// keys per invocation: 12 (3072-key tiles, 13.3 KiB of workgroup memory); four scatters at
// 2^28 keys 6.90 ms against 7.67 (16) and 7.25 (20) (H100, 2026-11-23). sort/histogram counts
// the same tiles.
const KPT: u32 = 12u;
// the whole tile staged at once
const STAGE_KPT: u32 = KPT;
const WG_SIZE: u32 = 256u;

//!include sort/lib/tile

@group(0) @binding(0) var<uniform> params: SortParams;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> vals_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals_out: array<u32>;
// exclusive scan of the histogram stage's output
@group(0) @binding(5) var<storage, read> offsets: array<u32>;
// the second value words (VALUES2, sort/lib/tile.wgsl)
@group(0) @binding(6) var<storage, read> vals2_in: array<u32>;
@group(0) @binding(7) var<storage, read_write> vals2_out: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    if tile >= params.tiles {
        return;
    }
    let start = tile * TILE;
    let count = min(TILE, params.n - start);
    // load
    let t = tile_load(inv, start, count);
    // rank
    let rank = tile_rank(inv, t, count);
    // where this tile's digits go: the scanned histogram's offsets (digit-major)
    tile_set_base(inv.lid, offsets[tile + inv.lid * params.hist_tiles], tile_digit_start(inv.lid));
    // scatter
    tile_stage(inv, t, rank, count);
    tile_write(inv, t, rank, start, count);
}
