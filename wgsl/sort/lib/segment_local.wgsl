// include-only
// Segmented radix sort, the local path (src/sort/segments.rs): one workgroup sorts one segment
// of at most TILE keys in workgroup memory, in one read and one write. The segment is loaded
// into a tile (sort/lib/tile.wgsl's layout) padded with PAD, the sortable image that sorts
// last: the ranking is stable and the pads sit above every key, so a key equal to PAD still
// precedes them and the segment's keys stay the tile's first positions. Each 8-bit digit of
// [BEGIN_BIT, END_BIT) of the sortable keys (sort/lib/keys.wgsl) is ranked by tile_rank (the
// digits themselves are what it ranks: SHIFT 0, BITS 8), and the keys (and the payload) are
// permuted through tile_mem to their ranks; the first m keys are written back in place.
//
// The including stage declares `const KPT`, `const STAGE_KPT` and `const WG_SIZE` (the tile
// is WG_SIZE * KPT keys, staged through tile_mem in up to two rounds), its bindings (`keys`,
// `values`: the caller's, sorted in place; `lists`, `state`, `bases`: the classify stage's,
// sort/segment_classify.wgsl) and an entry point that calls segment_local.

//!include sort/lib/tile
//!include sort/lib/segment_bits

// this stage's bucket: its segment count is state[BUCKET], its segments' (start, end) pairs
// lists[2 * (bases[BUCKET] + i)] (sort/segment_classify.wgsl)
override BUCKET: u32 = 0u;

const PAD: u32 = 0xffffffffu;

// (tile.wgsl's global scatter, which this path does not call, names these)
var<private> params: SortParams;
var<private> keys_in: array<u32, 1>;
var<private> keys_out: array<u32, 1>;
var<private> vals_in: array<u32, 1>;
var<private> vals_out: array<u32, 1>;
var<private> vals2_in: array<u32, 1>;
var<private> vals2_out: array<u32, 1>;

// The items permuted to their ranks: staged at their rank in tile_mem (round by round), read
// back in the tile's layout. Starts with a barrier (tile_mem's last readers are done).
fn local_permute(inv: Inv, items: array<u32, KPT>, rank: Ranks) -> array<u32, KPT> {
    var out: array<u32, KPT>;
    for (var r = 0u; r < STAGE_ROUNDS; r++) {
        // barrier: nobody still reads tile_mem (the ranking, the previous round or permute)
        workgroupBarrier();
        stage_round(inv, items, rank, TILE, r);
        // barrier: the round is staged
        workgroupBarrier();
        for (var j = 0u; j < KPT; j++) {
            // (a position below the round wraps to a large number)
            let at = slot(inv, j) - r * TILE_MEM;
            if STAGE_ROUNDS == 1u || at < TILE_MEM {
                out[j] = atomicLoad(&tile_mem[at]);
            }
        }
    }
    return out;
}

// Sorts the m <= TILE keys from `start` (and their payload) in place.
fn segment_sort(inv: Inv, start: u32, m: u32) {
    var k: array<u32, KPT>;
    var v: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
        let s = slot(inv, j);
        k[j] = PAD;
        if s < m {
            k[j] = to_sortable(keys[start + s]);
            if PAYLOAD == 1u {
                v[j] = values[start + s];
            } else if PAYLOAD == 2u {
                v[j] = start + s;
            }
        }
    }
    for (var shift = BEGIN_BIT; shift < END_BIT; shift += 8u) {
        let mask = (1u << min(END_BIT - shift, 8u)) - 1u;
        var d: TileKeys;
        for (var j = 0u; j < KPT; j++) {
            d.keys[j] = (k[j] >> shift) & mask;
        }
        let rank = tile_rank(inv, d, TILE);
        k = local_permute(inv, k, rank);
        if PAYLOAD != 0u {
            v = local_permute(inv, v, rank);
        }
    }
    for (var j = 0u; j < KPT; j++) {
        let s = slot(inv, j);
        if s < m {
            keys[start + s] = from_sortable(k[j]);
            if PAYLOAD != 0u {
                values[start + s] = v[j];
            }
        }
    }
}

// The stage's workgroup `i` (its linear index in the grid) sorts its bucket's segment i:
// workgroups of the grid's last row past the bucket's segments leave.
fn segment_local(inv: Inv, i: u32) {
    if i >= state[BUCKET] {
        return;
    }
    let at = 2u * (bases[BUCKET] + i);
    let start = lists[at];
    segment_sort(inv, start, lists[at + 1u] - start);
}
