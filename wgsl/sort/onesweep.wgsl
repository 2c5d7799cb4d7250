// Radix sort, OneSweep stage 2 for keys alone (shared/onesweep_pass.wgsl, per digit: count and
// publish the tile's digits, rank and stage it, look back, write it out), with the tile that
// suits keys alone.
//
// Built without runtime checks, like sort/scatter (same proof; 15.18 against 14.58 ms for the
// four passes at 2^28 keys on the H100).
// wgsimd: runtime checks off

// keys per invocation (shared/sort_tile.wgsl). H100 (examples/sort_sweep.rs, 2026-11-23, tenth
// session, u32, Gkeys/s at 2^20 / 2^24 / 2^28, keys; pairs), first without full-tile loops:
// 12 → 10.0 / 23.6 / 26.8; 8.7 / 19.3 / 21.3, 16 → — / 22.6 / 26.0; — / 18.5 / 21.4,
// 20 → 10.1 / 24.2 / 28.6; 8.6 / 19.5 / 23.4, 24 → 7.8 / 16.9 / 19.6; 6.9 / 13.9 / 15.8,
// 28 → 7.5 / 17.5 / 20.4; 6.4 / 14.2 / 16.5; then with them: 18 → — / 23.8 / 27.9; — / 19.1 /
// 22.8, 20 → 10.0 / 24.6 / 29.4; 8.7 / 19.7 / 23.8, 21 → 9.9 / 24.9 / 30.0; 8.4 / 19.9 /
// 24.2, 22 → 9.9 / 25.3 / 30.7–30.9; 8.2–8.5 / 20.1–20.2 / 24.7–24.8, 23 → 8.2 / 18.2 / 21.1;
// 7.0 / 15.0 / 17.2, 24 → 8.1 / 18.3 / 21.3; 7.1 / 15.2 / 17.5. Larger tiles mean fewer
// tiles to look back over per key; the driver gave 22 keys 71–117 registers (76–89 after the
// eleventh session's changes; two workgroups per SM), and from 23 on something else gives
// way (no local memory at any size). Twelfth session, with the ranking from early counts
// (keys at 2^24 / 2^28; pairs): 20 → 25.2 / 30.8; 20.0 / 25.0, 22 → 27.2 / 33.7; 21.1 / 26.3,
// 24 → 19.9 / 23.6; 16.0 / 18.8 (109–116 registers for keys, under the 128 that two
// workgroups per SM allow).
// 22 KiB of tile_mem, 23.3 KiB of workgroup memory in all.
// Thirteenth session: the tile is no longer bound by workgroup memory (keys staged in two
// rounds, STAGE_KPT), and keys alone take 28 (H100, examples/sort_sweep.rs, 2026-11-25, u32 keys,
// Gkeys/s at 2^24 / 2^28, KPT / STAGE_KPT, registers of the keys passes): 22 / 22 → 29.51 /
// 38.66 (107-108), 24 / 22 → 29.23 / 39.35 (113-117), 26 / 22 → 29.57 / 40.67 (119-128),
// 26 / 20 → 29.63 / 40.79 (119-128), 28 / 22 → 29.99 / 41.60 (124-128). The pairs passes
// then needed 165-167 registers at 28 (one workgroup per SM), hence their own stage, which
// has taken this stage's tile since the fourteenth session (sort/onesweep_pairs).
// Fourteenth session: with the ranks packed two to a register (Ranks in shared/sort_tile.wgsl)
// the keys passes take 125-127 registers at 28 and 127-128 at 30 and 32 (same machine and tool,
// 2026-11-25, u32 keys, Gkeys/s at 2^20 / 2^24 / 2^28, one call): unpacked 28 → 10.39 /
// 29.98 / 41.85 (42.27 at the call's end), packed 28 → 10.46 / 29.77 / 41.72, 30 → 10.47 /
// 29.88 / 42.55, 32 → 10.51 / 31.80 / 43.06.
const KPT: u32 = 32u;
// keys per invocation that tile_mem holds (shared/sort_tile.wgsl): the tile is staged in two
// rounds, 22 and 10 keys per invocation, within 23.3 KiB of workgroup memory in all. That much
// is the most two workgroups per SM get on the H100: with an unused workgroup array of 1, 2, 4
// or 16 KiB the 22-key kernel ran 26.6-26.7 Gkeys/s at 2^28 against 38.4 (256 bytes: 38.3),
// and 24 keys staged whole (25.3 KiB) 27.8 (examples/sort_sweep.rs, 2026-11-25): that, not
// registers, was the cliff from 23 keys on.
const STAGE_KPT: u32 = 22u;
// invocations per workgroup (shared/sort_tile.wgsl: at least RADIX, a multiple of 128; those
// above RADIX own no digit). CUB's OneSweep on the H100 takes 384 threads × 20 keys, 74
// registers, two blocks (24 warps) per SM (Nsight Compute, eleventh session); here more
// invocations per tile were slower (examples/sort_sweep.rs, 2026-11-23, u32, Gkeys/s at 2^24 /
// 2^28, keys; pairs; registers of the keys passes from examples/vk_stats.rs): 256 × 22 →
// 25.3–25.5 / 30.6–30.8; 20.0 / 24.7 (71–117), 384 × 16 → 20.6 / 23.5; 16.7 / 19.0 (62–83),
// 384 × 18 → 21.3 / 24.8; 17.1 / 19.8, 384 × 20 → 22.0 / 26.0; 17.7 / 20.8 (72–104),
// 384 × 22 → 22.5 / 27.0; 18.1 / 21.8, 512 × 12 → 21.6 / 24.5; 17.9 / 19.5 (57–64),
// 512 × 14 → 22.8 / 26.4; 18.2 / 21.0 (61–75).
const WG_SIZE: u32 = 256u;

//!include shared/onesweep_pass
