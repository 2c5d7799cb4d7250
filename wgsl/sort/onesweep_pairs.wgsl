// Radix sort, OneSweep stage 2, key-value pairs: per digit, count and publish the tile's digits, rank
// and stage it, look back, write it out (sort/lib/onesweep.wgsl).
//
// Built without runtime checks, like sort/scatter: the simulator proves every access in
// bounds (tests/behaviour/sort.rs, every subgroup size 4..128, partial tiles, both flavours).
// wgsimd: runtime checks off

// keys per invocation: 32, with the values loaded after the keys are written (128 registers):
// 28.90 against 28.29 Gkeys/s at 2^28 with 28 (H100, 2026-11-25)
const KPT: u32 = 32u;
// two staging rounds through 23.3 KiB, as sort/onesweep
const STAGE_KPT: u32 = 22u;
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
