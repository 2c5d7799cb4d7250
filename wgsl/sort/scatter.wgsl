// Radix sort, reduce-then-scan, stage 3 of 3 per digit: rank the tile's keys stably by digit
// (warp-level multisplit, shared/sort_tile.wgsl) and scatter keys (and values) to the positions
// the scanned histogram gives (Merrill & Grimshaw 2011: downsweep). Nothing waits on another
// workgroup.
//
// Built without runtime checks (src/gpu/mod.rs): the simulator proves every access in bounds
// (tests/sim_sort.rs, tests/sort_sim.rs: every strategy at subgroup sizes 4-128, partial tiles,
// both flavours). The checks cost 4-5% of the scatter on the H100 (examples/sort_sweep.rs,
// 2026-11-22, 2^28 keys: 8.56 against 8.14 ms for the four passes; the histogram, checked, ran
// 36% slower without them, so it keeps them).
// wgsimd: runtime checks off

//!include shared/sort_tile

// keys per invocation (shared/sort_tile.wgsl; sort/histogram counts the same tiles, and
// sort/buckets restates TILE). H100 (examples/sort_sweep.rs, 2026-11-22, u32 keys, 2^28,
// scatter ms over four passes, with the digit tables in tile_mem): 9 → 9.91, 10 → 10.10,
// 11 → 8.71, 12 → 8.64, 13 → 8.76, 14 → 8.77, 16 → 10.31 (16 KiB tiles cross the
// workgroup-memory cliff described at RANK_ROWS); tenth session (2026-11-23): 12 → 6.90,
// 16 → 7.67, 20 → 7.25.
const KPT: u32 = 12u;
// the whole tile staged at once (shared/sort_tile.wgsl)
const STAGE_KPT: u32 = KPT;
const WG_SIZE: u32 = 256u;

// exclusive scan of the histogram stage's output
@group(0) @binding(5) var<storage, read> offsets: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    if tile >= params.tiles {
        return;
    }
    let desc = describe(tile);
    if desc.y == 0u {
        return;
    }
    // load
    let t = tile_load(inv, desc.x, desc.y);
    // rank
    let rank = tile_rank(inv, t, desc.y);
    // where this tile's digits go: the scanned histogram's offsets
    tile_set_base(inv.lid, offsets[desc.z + inv.lid * desc.w], tile_digit_start(inv.lid));
    // scatter
    tile_stage(inv, t, rank, desc.y);
    // (values are loaded by tile_write: VALUES_EARLY is off here)
    var no_vals: array<u32, KPT>;
    tile_write(inv, t, rank, no_vals, desc.x, desc.y);
}
