// Cooperative-matrix GEMM with a wide warp tile, f16 × f16 → f32, 16×16×16 fragments: the
// structure of coop16.wgsl (read its header: staging, double buffering with register prefetch,
// edge tiles, the naga store workaround; helpers in shared/gemm_coop_body.wgsl, the entry point
// in shared/gemm_coop_wide.wgsl) with each subgroup owning WM×WN = 64×64 of C as 4×4
// accumulator fragments instead of 64×32 as 4×2.
//
// Why: per 16 of K a subgroup loads 4 A and 4 B fragments for 16 multiply-adds (coop16: 4 + 2
// for 8), and with 8 subgroups the workgroup tile is 128×256 or 256×128, so each staged f16
// feeds twice the multiply-adds of coop16's 128×128 tile (CUTLASS's tensor-core SGEMM tiles:
// 128×256×32 with 64×64 warp tiles). The 48 KiB workgroup-memory limit takes BK = 16 at those
// tiles with two buffers, BK = 32 with one (NBUF = 1). Accumulators: 16 fragments = 128 f32
// registers per lane at subgroup 32. Staged in f16 arrays; gemm/coop16vw.wgsl is the same with
// 8-byte staging stores.
//
// Layout (checked in Rust, src/gemm/coop.rs): subgroup s = (wm, wn) = (s / SG_X, s % SG_X),
// SG_X = BN/64, SG_Y = BM/64, WG = SG_X·SG_Y·SG invocations.
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): every access is proven in
// bounds by the simulator tests (tests/sim_coop.rs, edge tiles at several subgroup sizes).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

// the block of C each subgroup owns
const WM: u32 = 64u;
const WN: u32 = 64u;

//!include shared/gemm_coop16
//!include shared/gemm_coop_stage_h
//!include shared/gemm_coop_wide
