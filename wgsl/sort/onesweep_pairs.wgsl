// Radix sort, OneSweep stage 2 for key-value pairs (shared/onesweep_pass.wgsl, per digit:
// count and publish the tile's digits, rank and stage it, look back, write keys and values out),
// with the tile that suits pairs.
//
// Built without runtime checks, like sort/scatter (same proof; 15.18 against 14.58 ms for the
// four passes at 2^28 keys on the H100).
// wgsimd: runtime checks off

// keys per invocation (shared/sort_tile.wgsl; the keys' stage sort/onesweep has the history).
// Thirteenth session, values loaded before the look-back (VALUES_EARLY): at 28 the pairs passes
// needed 165-167 registers (one workgroup per SM), so pairs kept 22 (H100,
// examples/sort_sweep.rs, 2026-11-25, u32 pairs, Gkeys/s at 2^24 / 2^28, KPT / STAGE_KPT):
// 22 / 22 → 21.72 / 26.36, 24 / 22 → 21.08 / 25.88, 26 / 20 → 21.34 / 26.64 (128 registers).
// Fourteenth session, values loaded after the keys are written (SortPolicy::
// onesweep_values_early off; same machine and tool, 2026-11-25): 22 / 22 → 21.69 / 26.37
// (values early: 21.62 / 26.34), 26 / 22 → 21.54 / 27.64, 28 / 22 → 21.55 / 28.17 and, in a
// second call, 21.49 / 28.19 against 21.68 / 26.41 (127-128 registers; with the values'
// loads moved up to the start of the write, 163-169 and 17.1 / 21.7). With the ranks packed two
// to a register (one call, 2026-11-25, same sizes): unpacked 28 → 21.59 / 28.29, packed 28 →
// 21.47 / 28.29 (128 registers), 30 → 21.38 / 28.70 (127-128), 32 → 22.52 / 28.90 (128); with
// the values loaded before the look-back, packed 28 fell to 16.63 / 20.48.
const KPT: u32 = 32u;
// 22 keys' worth of workgroup memory, two staging rounds: see sort/onesweep
const STAGE_KPT: u32 = 22u;
// invocations per workgroup (see sort/onesweep)
const WG_SIZE: u32 = 256u;

//!include shared/onesweep_pass
