// Radix sort, OneSweep stage 2, keys alone: per digit, count and publish the tile's digits, rank
// and stage it, look back, write it out (sort/lib/onesweep.wgsl).
//
// Built without runtime checks, like sort/scatter: the simulator proves every access in
// bounds (tests/behaviour/sort.rs, every subgroup size 4..128, partial tiles, both flavours).
// wgsimd: runtime checks off

// keys per invocation: 32 (8192-key tiles), the most the ranking is written out for; the keys
// passes take 127-128 registers, the most that keep two workgroups per SM. 43.06 against 41.72
// Gkeys/s at 2^28 with 28 (H100, 2026-11-25).
const KPT: u32 = 32u;
// keys per invocation that tile_mem holds (the tile is staged in two rounds): 23.3 KiB of
// workgroup memory in all, the most that keeps two workgroups per SM on the H100 (1 KiB more:
// 26.68 against 38.39 Gkeys/s at 2^28, 2026-11-25).
const STAGE_KPT: u32 = 22u;
// invocations per workgroup: 256 (CUB's 384 × 20 measured 26.0 against 30.6 Gkeys/s at 2^28;
// every 384- and 512-wide shape tried was 13-24% slower; H100, 2026-11-23)
const WG_SIZE: u32 = 256u;

//!include sort/lib/onesweep

@group(0) @binding(0) var<uniform> params: SortParams;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> vals_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;
// the second value words (VALUES2, sort/lib/tile.wgsl)
@group(0) @binding(6) var<storage, read> vals2_in: array<u32>;
@group(0) @binding(7) var<storage, read_write> vals2_out: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    onesweep_pass(inv, wid, nwg);
}
