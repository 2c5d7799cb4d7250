// Cooperative-matrix GEMM, f16 × f16 → f32: C (M×N) = A (M×K) · B (K×N), row-major.
//
// The tensor-core tiling of CUTLASS / "Marlin" reduced to what WGSL's experimental
// `wgpu_cooperative_matrix` offers (subgroup-scoped 16×16×16 f16 → f32 multiply-add, Vulkan
// VK_KHR_cooperative_matrix): a workgroup owns a BM×BN tile of C; each subgroup owns a WM×WN =
// 64×32 block of it, held as 4×2 accumulator fragments. Each K step stages BM×BK of A and BK×BN
// of B in workgroup memory as f16 (two buffers, register prefetch as in tiled.wgsl: one barrier
// per step; or, with the override NBUF = 1, one buffer and two barriers per step), then each
// subgroup loads 4 A and 2 B fragments per 16 of K and does 8 multiply-adds. Loads outside M, N,
// K stage zeros, so any shape is exact. This kernel stages in f16 arrays
// (shared/gemm_coop_stage_h.wgsl); gemm/coop16v.wgsl is the same with 8-byte staging stores.
//
// Layout (checked in Rust, src/gemm/coop.rs, against the reflected workgroup size and the
// adapter's subgroup size): subgroup s = (wm, wn) = (s / SG_X, s % SG_X), SG_X = BN/WN,
// SG_Y = BM/WM, WG = SG_X·SG_Y·SG invocations. The host pads A rows to a multiple of 8 of K and B
// rows to a multiple of 8 of N (same packing as tiled.wgsl's f16 path).
//
// Store: a tile inside C's columns (and N a multiple of 4, so rows are 16-byte aligned) stores its
// fragments straight to C; a tile crossing the right edge stages each fragment in workgroup memory
// and copies the part inside C's columns, lane by lane. C's rows are padded by the host to whole
// tiles, so the bottom edge needs neither.
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): every access is proven in
// bounds by the simulator tests (tests/sim_coop.rs, edge tiles at several subgroup sizes).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

// the block of C each subgroup owns
const WM: u32 = 64u;
const WN: u32 = 32u;

//!include shared/gemm_coop16
//!include shared/gemm_coop_stage_h
//!include shared/gemm_coop
