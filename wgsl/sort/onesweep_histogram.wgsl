// Radix sort, OneSweep (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", 2022), stage 1, the sort's first dispatch: the global digit counts of every
// pass in one read of the keys, and this run's state made ready for the digit passes.
// - Counting: a capped grid walks the tiles; each workgroup counts in workgroup memory and adds
//   its counts to state[pass * 256 + digit]. Those words are 0 when the pass starts: the last
//   tile of the last digit pass zeroes them once every tile is past its look-back
//   (sort/lib/onesweep.wgsl), and the plan creates them zeroed.
// - State: the grid zeroes the rest of this run's state words, the tickets and every digit
//   pass's status words (sort/lib/control says how many), which nothing else touches before the
//   digit passes. With a clear stage of its own sorts were about 3% slower at 2^20-2^23 (keys
//   68.5 against 66.0 µs at 2^20; H100, 2026-11-27).
// - Control: in a marked control block (word MARK holds DERIVE_MARK: every copy of a OneSweep
//   sorter's) the first invocation also writes the run's params and dispatch arguments, the
//   prepare stage's work, so no count costs a pass of its own. The count is read from the head
//   (shared/count), as the prepare stage reads it: the params block is written here.

// keys per invocation of this pass's own tiles (5120 keys): counting needs no particular
// tiling, and the vec4 loads want KPT % 4 == 0; 32 timed level (this pass 50.6 against 50.3 µs
// at 2^24, 0.500 against 0.504 ms at 2^28, H200, 2026-11-30)
const KPT: u32 = 20u;
const WG_SIZE: u32 = 256u;
const COUNT_TILE: u32 = WG_SIZE * KPT;

override BEGIN_BIT: u32 = 0u;
override END_BIT: u32 = 32u;

//!include shared/wg_ops
//!include sort/lib/keys
//!include sort/lib/control

@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;
// the keys again, as vec4s (the host binds the same buffer, or a 16-byte stand-in when no tile
// is full), for the loads of full tiles
@group(0) @binding(7) var<storage, read> keys_in4: array<vec4<u32>>;

// 1: full tiles load their keys as vec4s (consecutive invocations on consecutive 16 bytes); 0:
// as u32s, like the last tile. This pass 0.513 against 0.543 ms at 2^28 (H100, 2026-11-22);
// reduce-then-scan's per-pass histogram keeps u32 loads (1.73 against 1.78 ms, four passes).
const VEC4_LOADS: bool = true;
const_assert KPT % 4u == 0u && COUNT_TILE % 4u == 0u;

// one copy per workgroup: 4 or 8 copies by lane took 0.482 / 0.561 ms against 0.472-0.474 at
// 2^28 (H100, 2026-11-26), so contention on a counter is not what bounds this pass. The atomics
// themselves are (a warp's 32 land on random banks): without them the pass took 0.294 against
// 0.504 ms at 2^28 and 37.2 against 50.7 µs at 2^24 (H200, 2026-11-30; docs/sort.md)
var<workgroup> counts: array<atomic<u32>, 4u * RADIX>;

// One raw key into every pass's counts.
fn count_key(raw: u32) {
    let k = to_sortable(raw);
    for (var p = 0u; p < PASSES; p++) {
        atomicAdd(&counts[p * RADIX + pass_digit(k, p)], 1u);
    }
}

fn pass_digit(k: u32, p: u32) -> u32 {
    let shift = BEGIN_BIT + 8u * p;
    let bits = min(8u, END_BIT - shift);
    return (k >> shift) & ((1u << bits) - 1u);
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // (every invocation reads the head and word MARK; the first writes from HIST_ARGS on)
    let n = run_count();
    if wid.x == 0u && inv.lid == 0u && control[MARK] == DERIVE_MARK {
        write_blocks(n);
    }
    for (var p = 0u; p < 4u; p++) {
        atomicStore(&counts[p * RADIX + inv.lid], 0u);
    }
    // barrier: counters cleared before anyone counts
    workgroupBarrier();
    // load + count, tile by tile (grid-stride; no barriers inside)
    let tiles = (n + COUNT_TILE - 1u) / COUNT_TILE;
    for (var tile = wid.x; tile < tiles; tile += nwg.x) {
        if VEC4_LOADS && (tile + 1u) * COUNT_TILE <= n {
            // every load of the tile first, then the counting: the loads are in flight
            // together, where a load between the atomics waited for them (this pass 0.472
            // against 0.505 ms at 2^28, H100, 2026-11-25)
            var v: array<vec4<u32>, KPT / 4u>;
            for (var j = 0u; j < KPT / 4u; j++) {
                v[j] = keys_in4[tile * (COUNT_TILE / 4u) + j * WG_SIZE + inv.lid];
            }
            for (var j = 0u; j < KPT / 4u; j++) {
                count_key(v[j].x);
                count_key(v[j].y);
                count_key(v[j].z);
                count_key(v[j].w);
            }
            continue;
        }
        for (var j = 0u; j < KPT; j++) {
            let i = tile * COUNT_TILE + j * WG_SIZE + inv.lid;
            if i < n {
                count_key(keys_in[i]);
            }
        }
    }
    // state: every word of this run's but the global counts (only the digit passes, later
    // dispatches, read them), zeroed once the keys are counted, so the keys' loads start first:
    // the sort 6.123 against 6.153 ms at 2^28 (this pass 0.482 against 0.504), 0.4756 against
    // 0.4759 at 2^24, 0.1695 against 0.1687 at 2^22 (H200, 2026-11-30)
    let words = min(state_words(tiles_of(n)), arrayLength(&state));
    for (var i = STATE_TICKETS + wid.x * WG_SIZE + inv.lid; i < words; i += nwg.x * WG_SIZE) {
        atomicStore(&state[i], 0u);
    }
    // barrier: this workgroup's counts are complete
    workgroupBarrier();
    // store
    for (var p = 0u; p < PASSES; p++) {
        let c = atomicLoad(&counts[p * RADIX + inv.lid]);
        if c != 0u {
            atomicAdd(&state[p * RADIX + inv.lid], c);
        }
    }
}
