// Cooperative-matrix GEMM of f16 activations and int4 weights on 8×8×8 fragments (Apple GPUs
// under Metal): gemm/coop16_int4 (read its header: the dequantization as B is staged, the f16
// rounding of each weight) on gemm/coop8's tile, staged in f16 arrays (gemm/lib/coop_stage_h.wgsl,
// as coop8 for Metal). Not measured (no Apple GPU here); validated by naga (MSL 2.4, SPIR-V)
// and on the simulator (tests/simulator/coop.rs) at subgroups of 8 to 64.
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): every access is proven in
// bounds by the simulator tests.
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

//!include gemm/lib/coop8_tile

//!include gemm/lib/coop_stage_h
//!include gemm/lib/coop_b_int4
//!include gemm/lib/coop

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read> scales: array<u32>;
@group(0) @binding(4) var<storage, read> zeros: array<u32>;
@group(0) @binding(5) var<storage, read_write> c: array<f32>;
@group(0) @binding(6) var<storage, read_write> c16: array<u32>;
@group(0) @binding(7) var<storage, read_write> sg_guard: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    int4_setup();
    coop_main(lid, sg_id, lane, width, wid, nwg);
}
