// Radix sort, reduce-then-scan, stage 1 of 3 per digit: each tile's digit counts, written
// digit-major (digit d of tile t at d * hist_tiles + t), so that one exclusive scan of the
// whole array gives every (digit, tile) its first output position (Merrill & Grimshaw, "High
// Performance and Scalable Radix Sorting", 2011: upsweep).
//
// Tiles are counted HIST_GROUP consecutive tiles per workgroup, so each digit's counts of the
// group are HIST_GROUP consecutive words, stored by consecutive invocations: one whole 32-byte
// sector per digit instead of one word (four histograms at 2^28 keys 1.72 against 2.32 ms with
// one tile per workgroup, H100, 2026-11-22). Built with runtime checks: without them this pass
// ran 36% slower (same machine and date).

// keys per invocation: sort/scatter's tile
const KPT: u32 = 12u;
const WG_SIZE: u32 = 256u;
const TILE: u32 = WG_SIZE * KPT;

// tiles per workgroup (the host reads it)
const HIST_GROUP: u32 = 8u;

//!include shared/wg_ops
//!include sort/lib/keys

@group(0) @binding(0) var<uniform> params: SortParams;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> hist: array<u32>;

// the group's counts, tile g's digit d at g * RADIX + d
var<workgroup> counts: array<atomic<u32>, RADIX * HIST_GROUP>;

// count: the `count` keys from `start` into tile slot g (all KPT loads issued before any
// counting, so that they overlap: a load-then-count loop kept one load in flight)
fn count_tile(inv: Inv, g: u32, start: u32, count: u32) {
    var keys: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
        let i = j * WG_SIZE + inv.lid;
        keys[j] = keys_in[start + min(i, count - 1u)];
    }
    for (var j = 0u; j < KPT; j++) {
        if j * WG_SIZE + inv.lid < count {
            var k = keys[j];
            if MAP_IN != 0u {
                k = to_sortable(k);
            }
            atomicAdd(&counts[g * RADIX + digit_of(k)], 1u);
        }
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let group = wid.x + wid.y * nwg.x;
    // the 2-D grid may have a few workgroups past the last tile: the whole workgroup leaves
    let first = group * HIST_GROUP;
    if first >= params.tiles {
        return;
    }
    for (var i = inv.lid; i < RADIX * HIST_GROUP; i += WG_SIZE) {
        atomicStore(&counts[i], 0u);
    }
    // barrier: counters cleared before anyone counts
    workgroupBarrier();
    for (var g = 0u; g < HIST_GROUP; g++) {
        let tile = first + g;
        if tile < params.tiles {
            let start = tile * TILE;
            count_tile(inv, g, start, min(TILE, params.n - start));
        }
    }
    // barrier: every key of the group is counted
    workgroupBarrier();
    // store: consecutive invocations take consecutive tiles of one digit
    for (var i = inv.lid; i < RADIX * HIST_GROUP; i += WG_SIZE) {
        let d = i / HIST_GROUP;
        let g = i % HIST_GROUP;
        let tile = first + g;
        if tile < params.tiles {
            hist[d * params.hist_tiles + tile] = atomicLoad(&counts[g * RADIX + d]);
        }
    }
}
