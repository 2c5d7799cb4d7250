// Radix sort, OneSweep stage 2, small sorts (keys alone or pairs): per digit, count and publish the tile's digits, rank
// and stage it, look back, write it out (sort/lib/onesweep.wgsl), with half sort/onesweep's tile: at 2^20 keys 128 tiles of 8192 fill under half of the
// H100's 264 workgroup slots, 256 tiles of 4096 nearly all (SortPolicy::onesweep_small_*).
//
// Built without runtime checks, like sort/scatter: the simulator proves every access in
// bounds (tests/behaviour/sort.rs, every subgroup size 4..128, partial tiles, both flavours).
// wgsimd: runtime checks off

// keys per invocation, the whole tile staged in one round (about 17 KiB): pairs at 2^20 9.04
// Gkeys/s against 8.71 (12), 8.96 (22) and 8.36 (32) (H100, 2026-11-25)
const KPT: u32 = 16u;
const STAGE_KPT: u32 = 16u;
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
