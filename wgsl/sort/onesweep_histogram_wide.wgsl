// Radix sort of 64-bit keys (the fused sort, src/sort/fused.rs), OneSweep stage 1, the sort's
// first dispatch: sort/onesweep_histogram for keys in the caller's layout (two words a key,
// low first: a u64 slice's). One read of the keys counts every digit pass of both words of their sortable
// images (sort/lib/wide.wgsl): the low word's passes into `state_low`, the high word's into
// `state_high` (each word's passes keep a OneSweep state of their own, sort/lib/onesweep.wgsl,
// PASS counting from 0 in each), and makes this run's state of both ready and, in a marked
// control block, writes the run's params and dispatch arguments, as sort/onesweep_histogram.
// A word's passes: digits of 8 bits from its BEGIN up to its END, then identity passes (digit
// 0) up to its PASSES (0: the word is not sorted, and its state is a stand-in).

// keys per invocation of this pass's own tiles (5120 keys, 2560 vec4s of two keys each)
const KPT: u32 = 20u;
const WG_SIZE: u32 = 256u;
const COUNT_TILE: u32 = WG_SIZE * KPT;
const_assert KPT % 2u == 0u;

override LOW_BEGIN: u32 = 0u;
override LOW_END: u32 = 32u;
override LOW_PASSES: u32 = 4u;
override HIGH_BEGIN: u32 = 0u;
override HIGH_END: u32 = 32u;
override HIGH_PASSES: u32 = 4u;

//!include shared/wg_ops
//!include sort/lib/keys
//!include sort/lib/control

@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> state_low: array<atomic<u32>>;
// the keys again, as vec4s (two keys each), for the loads of full tiles
@group(0) @binding(7) var<storage, read> keys_in4: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read_write> state_high: array<atomic<u32>>;

// the low word's passes' counts, then from 4 * RADIX the high word's
var<workgroup> counts: array<atomic<u32>, 8u * RADIX>;

fn word_digit(k: u32, begin: u32, end: u32, p: u32) -> u32 {
    // (past the end: an identity pass, digit 0)
    let shift = min(begin + 8u * p, end);
    let bits = min(8u, end - shift);
    return (k >> (shift & 31u)) & ((1u << bits) - 1u);
}

// One raw key into every pass's counts.
fn count_key(raw: vec2<u32>) {
    let k = wide_to_sortable(raw);
    for (var p = 0u; p < LOW_PASSES; p++) {
        atomicAdd(&counts[p * RADIX + word_digit(k.x, LOW_BEGIN, LOW_END, p)], 1u);
    }
    for (var p = 0u; p < HIGH_PASSES; p++) {
        atomicAdd(&counts[(4u + p) * RADIX + word_digit(k.y, HIGH_BEGIN, HIGH_END, p)], 1u);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // (every invocation reads the head and word MARK; the first writes from HIST_ARGS on)
    let n = run_count();
    if wid.x == 0u && inv.lid == 0u && control[MARK] == DERIVE_MARK {
        write_blocks(n);
    }
    for (var p = 0u; p < 8u; p++) {
        atomicStore(&counts[p * RADIX + inv.lid], 0u);
    }
    // barrier: counters cleared before anyone counts
    workgroupBarrier();
    // load + count, tile by tile (grid-stride; no barriers inside)
    let tiles = (n + COUNT_TILE - 1u) / COUNT_TILE;
    for (var tile = wid.x; tile < tiles; tile += nwg.x) {
        if (tile + 1u) * COUNT_TILE <= n {
            // every load of the tile first, then the counting
            var v: array<vec4<u32>, KPT / 2u>;
            for (var j = 0u; j < KPT / 2u; j++) {
                v[j] = keys_in4[tile * (COUNT_TILE / 2u) + j * WG_SIZE + inv.lid];
            }
            for (var j = 0u; j < KPT / 2u; j++) {
                count_key(v[j].xy);
                count_key(v[j].zw);
            }
            continue;
        }
        for (var j = 0u; j < KPT; j++) {
            let i = tile * COUNT_TILE + j * WG_SIZE + inv.lid;
            if i < n {
                count_key(vec2<u32>(keys_in[2u * i], keys_in[2u * i + 1u]));
            }
        }
    }
    // state: every word of this run's but the global counts, of each word's passes, zeroed
    // once the keys are counted, as sort/onesweep_histogram does (not timed for 64-bit keys)
    let status = STATE_STATUS + tiles_of(n) * RADIX * vec2<u32>(LOW_PASSES, HIGH_PASSES);
    let first = STATE_TICKETS + wid.x * WG_SIZE + inv.lid;
    if LOW_PASSES != 0u {
        let words = min(status.x, arrayLength(&state_low));
        for (var i = first; i < words; i += nwg.x * WG_SIZE) {
            atomicStore(&state_low[i], 0u);
        }
    }
    if HIGH_PASSES != 0u {
        let words = min(status.y, arrayLength(&state_high));
        for (var i = first; i < words; i += nwg.x * WG_SIZE) {
            atomicStore(&state_high[i], 0u);
        }
    }
    // barrier: this workgroup's counts are complete
    workgroupBarrier();
    // store
    for (var p = 0u; p < LOW_PASSES; p++) {
        let c = atomicLoad(&counts[p * RADIX + inv.lid]);
        if c != 0u {
            atomicAdd(&state_low[p * RADIX + inv.lid], c);
        }
    }
    for (var p = 0u; p < HIGH_PASSES; p++) {
        let c = atomicLoad(&counts[(4u + p) * RADIX + inv.lid]);
        if c != 0u {
            atomicAdd(&state_high[p * RADIX + inv.lid], c);
        }
    }
}
