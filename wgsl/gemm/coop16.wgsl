// Cooperative-matrix GEMM, f16 × f16 → f32: C (M×N) = A (M×K) · B (K×N), row-major.
//
// The tensor-core tiling of CUTLASS / "Marlin" reduced to what WGSL's experimental
// `wgpu_cooperative_matrix` offers (subgroup-scoped 16×16×16 f16 → f32 multiply-add, Vulkan
// VK_KHR_cooperative_matrix): a workgroup owns a BM×BN tile of C; each subgroup owns a WM×WN =
// 64×32 block of it, held as 4×2 accumulator fragments (the few-rows tiles of one or two fragment
// rows, BM = 16 or 32 for C of at most that many rows: 16×32 or 32×32, 1×2 or 2×2 fragments,
// override FM = 1 or 2). Each K step stages BM×BK of A and BK×BN
// of B in workgroup memory as f16 (two buffers, register prefetch as in tiled.wgsl: one barrier
// per step; or, with the override NBUF = 1, one buffer and two barriers per step), then each
// subgroup loads 4 A and 2 B fragments per 16 of K and does 8 multiply-adds. Loads outside M, N,
// K stage zeros, so any shape is exact. The tiles are staged in vec4<f16> arrays, two 8-byte
// stores per 8 halves (gemm/lib/coop_stage.wgsl).
//
// Layout (checked in Rust, src/gemm/coop.rs, against the reflected workgroup size and the
// adapter's subgroup size): subgroup s = (wm, wn) = (s / SG_X, s % SG_X), SG_X = BN/WN,
// SG_Y = BM/(FM·FRAG), WG = SG_X·SG_Y·SG invocations. A's and B's rows are whole loads of 8 f16 (the
// GEMM's own layout pads them with zeros; a caller's layout, gemm/lib/layout.wgsl, gives row
// strides, offsets, a batch in workgroup_id.z and B stored transposed, B_T).
//
// Store: a tile inside C's columns (and rows 16-byte aligned) stores its fragments straight to C;
// a tile crossing the right edge stages each fragment in workgroup memory and copies the part
// inside C's columns, lane by lane. The GEMM's own C has rows padded to whole tiles, so the
// bottom edge needs neither; a caller's C (MASK_M) has no rows past M, and its bottom edge tiles
// take the staged copy too.
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): every access is proven in
// bounds by the simulator tests (tests/behaviour/gemm.rs, edge tiles at several subgroup sizes).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

//!include gemm/lib/coop16_tile
//!include gemm/lib/coop_stage
//!include gemm/lib/coop_b
//!include gemm/lib/coop

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
@group(0) @binding(4) var<storage, read_write> c16: array<u32>;
@group(0) @binding(5) var<storage, read_write> sg_guard: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    coop_main(lid, sg_id, lane, width, wid, nwg);
}
