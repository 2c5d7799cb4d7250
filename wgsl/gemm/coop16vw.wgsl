// Cooperative-matrix GEMM, f16 × f16 → f32, 16×16×16 fragments, 4×4 of them (64×64 of C) per
// subgroup: gemm/coop16w.wgsl (read its header, and coop16.wgsl's) with the 8-byte staging
// stores of gemm/coop16v.wgsl (shared/gemm_coop_stage_v.wgsl).
//
// Why both: the wide warp tile cuts the fragment loads per multiply-add (8 per 16 against 6
// per 8), the vec4<f16> staging halves the staging stores' wavefronts; together they leave the
// most of the workgroup-memory pipe to the fragment loads that feed the tensor cores.
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
//!include shared/gemm_coop_stage_v
//!include shared/gemm_coop_wide
