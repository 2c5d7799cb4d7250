// Radix sort, OneSweep stage 2 for small sorts, keys alone or pairs (shared/onesweep_pass.wgsl,
// per digit: count and publish the tile's digits, rank and stage it, look back, write it out),
// with a tile half the size of sort/onesweep's: at 2^20 keys, 128 tiles of 8192 keys fill under
// half of the H100's 264 workgroup slots (two per SM), 256 tiles of 4096 nearly all.
// SortPolicy::onesweep_small_keys_max / onesweep_small_pairs_max choose it.
//
// Built without runtime checks, like sort/scatter (same proof; 15.18 against 14.58 ms for the
// four passes at 2^28 keys on the H100).
// wgsimd: runtime checks off

// keys per invocation, the whole tile staged in one round. H100 (examples/sort_sweep.rs,
// 2026-11-25, fifteenth session, u32, Gkeys/s at 2^20 / 2^21 / 2^22 / 2^23, each tile in a
// process of its own; KPT = STAGE_KPT, against sort/onesweep's 32 / 22):
// pairs 12 → 8.71 / 11.00 / 14.11 / 17.39, 16 → 9.04 / 10.85 / 14.04 / 17.56,
// 22 → 8.96 / 9.91 / 13.78 / 17.69, 32 → 8.36 / 10.70 / 13.66 / 17.93;
// keys 12 → 10.50 / 15.17 / 18.95 / 22.98, 16 → 10.81 / 14.86 / 18.17 / 22.73,
// 22 → 10.90 / 13.27 / 18.65 / 23.58, 32 → 10.53 / 15.73 / 19.89 / 25.31.
const KPT: u32 = 16u;
const STAGE_KPT: u32 = 16u;
// invocations per workgroup (see sort/onesweep)
const WG_SIZE: u32 = 256u;

//!include shared/onesweep_pass
