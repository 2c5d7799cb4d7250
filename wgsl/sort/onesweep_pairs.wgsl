// Radix sort, OneSweep stage 2 for key-value pairs (shared/onesweep_pass.wgsl, per digit:
// count and publish the tile's digits, rank and stage it, look back, write keys and values out),
// with the tile that suits pairs.
//
// Built without runtime checks, like sort/scatter (same proof; 15.18 against 14.58 ms for the
// four passes at 2^28 keys on the H100).
// wgsimd: runtime checks off

// keys per invocation (shared/sort_tile.wgsl; the keys' stage sort/onesweep has the history).
// Pairs keep 22 with the tile staged whole: at 28 their passes need 165-167 registers (one
// workgroup per SM); H100 (examples/sort_sweep.rs, 2026-11-25, u32 pairs, Gkeys/s at 2^24 /
// 2^28, KPT / STAGE_KPT): 22 / 22 → 21.72 / 26.36, 24 / 22 → 21.08 / 25.88, 26 / 20 → 21.34 /
// 26.64 (128 registers).
const KPT: u32 = 22u;
const STAGE_KPT: u32 = 22u;
// invocations per workgroup (see sort/onesweep)
const WG_SIZE: u32 = 256u;

//!include shared/onesweep_pass
