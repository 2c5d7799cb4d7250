// Cooperative-matrix GEMM on 8×8×8 fragments, f16 × f16 → f32: the shape Apple GPUs offer
// (Metal simdgroup_matrix, the direct port of the seed's simdgroup_matrix<half, 8, 8> kernel).
// The same structure as coop16.wgsl (read that header: staging, double buffering, edge tiles,
// the naga store workaround) with 8×8 fragments: each subgroup owns WM×WN = 32×16 of C as 4×2
// accumulators; defaults BM = BN = 64, BK = 32 (8 subgroups of 32 on Apple GPUs, 21 KiB of
// workgroup memory). Layout checked in Rust (src/gemm/coop.rs) like coop16. Staged in f16 arrays
// (gemm/lib/coop_stage_h.wgsl), not coop16's vec4<f16> ones: naga 30's MSL writer types a
// cooperative load's pointer as `half*`.
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): every access is proven in
// bounds by the simulator tests (tests/behaviour/gemm.rs, edge tiles at several subgroup sizes).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

//!include gemm/lib/coop8_tile

//!include gemm/lib/coop_stage_h
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
