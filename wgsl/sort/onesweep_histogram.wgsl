// Radix sort, OneSweep (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", 2022), stage 1: the global digit counts of every pass in one read of the keys.
// A capped grid walks the tiles; each workgroup counts in workgroup memory and adds its counts to
// state[pass * 256 + digit] (cleared by the plan's fill pass).

// keys per invocation of this pass's own tiles (5120 keys): counting needs no particular
// tiling, and the vec4 loads want KPT % 4 == 0
const KPT: u32 = 20u;
const WG_SIZE: u32 = 256u;
const TILE: u32 = WG_SIZE * KPT;

override PASSES: u32 = 4u;
override BEGIN_BIT: u32 = 0u;
override END_BIT: u32 = 32u;

//!include shared/wg_ops
//!include sort/lib/keys

@group(0) @binding(0) var<uniform> params: SortParams;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;
// the keys again, as vec4s (the host binds the same buffer, or a 16-byte stand-in when no tile
// is full), for the loads of full tiles
@group(0) @binding(7) var<storage, read> keys_in4: array<vec4<u32>>;

// 1: full tiles load their keys as vec4s (consecutive invocations on consecutive 16 bytes); 0:
// as u32s, like the last tile. This pass 0.513 against 0.543 ms at 2^28 (H100, 2026-11-22);
// reduce-then-scan's per-pass histogram keeps u32 loads (1.73 against 1.78 ms, four passes).
const VEC4_LOADS: bool = true;
const_assert KPT % 4u == 0u && TILE % 4u == 0u;

// one copy per workgroup: 4 or 8 copies by lane took 0.482 / 0.561 ms against 0.472-0.474 at
// 2^28 (H100, 2026-11-26), so the shared atomics' contention is not what bounds this pass
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
    for (var p = 0u; p < 4u; p++) {
        atomicStore(&counts[p * RADIX + inv.lid], 0u);
    }
    // barrier: counters cleared before anyone counts
    workgroupBarrier();
    // load + count, tile by tile (grid-stride; no barriers inside)
    let tiles = (params.n + TILE - 1u) / TILE;
    for (var tile = wid.x; tile < tiles; tile += nwg.x) {
        if VEC4_LOADS && (tile + 1u) * TILE <= params.n {
            // every load of the tile first, then the counting: the loads are in flight
            // together, where a load between the atomics waited for them (this pass 0.472
            // against 0.505 ms at 2^28, H100, 2026-11-25)
            var v: array<vec4<u32>, KPT / 4u>;
            for (var j = 0u; j < KPT / 4u; j++) {
                v[j] = keys_in4[tile * (TILE / 4u) + j * WG_SIZE + inv.lid];
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
            let i = tile * TILE + j * WG_SIZE + inv.lid;
            if i < params.n {
                count_key(keys_in[i]);
            }
        }
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
