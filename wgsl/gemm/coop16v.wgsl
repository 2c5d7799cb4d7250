// Cooperative-matrix GEMM, f16 × f16 → f32, 16×16×16 fragments, 4×2 of them per subgroup:
// gemm/coop16.wgsl (read its header: tiling, double buffering, edge tiles) with the staged
// tiles in vec4<f16> workgroup arrays (shared/gemm_coop_stage_v.wgsl): each invocation writes
// its fetched 8 f16 with two 8-byte stores instead of 8 scalar 16-bit stores, and the fragment
// loads take a vec4<f16> pointer.
//
// Why: at 128×128×32 each K step stages 16 KiB per workgroup; as 16-bit stores that is 256
// store wavefronts of the workgroup-memory pipe per step against 384 for the 48 fragment loads
// (each 512 bytes); as 8-byte stores, 128.
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
//!include shared/gemm_coop_stage_v
//!include shared/gemm_coop
