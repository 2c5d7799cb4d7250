// Radix sort, reduce-then-scan, stage 1 of 3 per digit: each tile's digit counts, written
// digit-major (digit d of tile t at hist_base + d * hist_stride, see `describe`), so that one
// exclusive scan of the whole array gives every (digit, tile) its first output position
// (Merrill & Grimshaw, "High Performance and Scalable Radix Sorting", 2011: upsweep).
//
// Unsegmented tiles are counted HIST_GROUP consecutive tiles per workgroup, so each digit's
// counts of the group are HIST_GROUP consecutive words, stored by consecutive invocations: one
// whole 32-byte sector per digit instead of one word. Digit-major words of single tiles lie
// `tiles` words apart, and those scattered 4-byte stores cost the H100 about a third of the
// pass (2^28 keys, four passes: 2.3 ms against 1.6 ms with contiguous stores). The hybrid's
// segmented tiles (each with its own base and stride) are counted one per workgroup.

//!include shared/sort_tile

// keys per invocation: sort/scatter's tile (measured there)
const KPT: u32 = 12u;
// the whole tile staged at once (shared/sort_tile.wgsl)
const STAGE_KPT: u32 = KPT;
const WG_SIZE: u32 = 256u;

// tiles per workgroup, unsegmented (the host reads it)
const HIST_GROUP: u32 = 8u;

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
    let per_group = select(HIST_GROUP, 1u, SEGMENTED != 0u);
    // the 2-D grid may have a few workgroups past the last tile: the whole workgroup leaves
    let first = group * per_group;
    if first >= params.tiles {
        return;
    }
    for (var i = inv.lid; i < RADIX * per_group; i += WG_SIZE) {
        atomicStore(&counts[i], 0u);
    }
    // barrier: counters cleared before anyone counts
    workgroupBarrier();
    if SEGMENTED != 0u {
        let desc = describe(first);
        if desc.y != 0u {
            count_tile(inv, 0u, desc.x, desc.y);
        }
        // barrier: every key is counted
        workgroupBarrier();
        if desc.y != 0u {
            hist[desc.z + inv.lid * desc.w] = atomicLoad(&counts[inv.lid]);
        }
        return;
    }
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
