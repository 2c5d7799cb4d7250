// Cooperative-matrix GEMM of f16 activations and int4 weights: C (M×N) = A (M×K) · W (K×N),
// W in the int4 weight format (src/gemm/int4.rs: 8 of K a word, an f16 scale and optional zero
// point per group of 128 along K and column), C in f32 or rounded to f16 as gemm/coop16's.
//
// gemm/coop16 (read its header: the tiles, the layout, the store) with B's tile items read
// as packed words and dequantized as they are staged (gemm/lib/coop_b_int4.wgsl): each weight
// becomes (q − zero) · scale rounded to f16, the tensor cores' input, so a product differs from
// the portable kernels' (which multiply in f32) by that rounding, and a weight past f16's range
// would be inf (the host routes such weights to the portable kernels: Int4Weights::beyond_f16).
// A K step reads a quarter of f16 weights' bytes, yet takes about their time on the H200: the
// few-rows tiles are bound by the stash, the dequantization and its stores (docs/gemm.md). In
// at most 16 rows the tile stages B in sub-steps from registers, two columns an invocation, into
// `vec2<f16>` rows (gemm/lib/coop_stage_b2.wgsl; src/gemm/coop/tiles.rs, `rows_tile_int4`).
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): every access is proven in
// bounds by the simulator tests (tests/behaviour/gemm.rs, int4 weights on every path).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

//!include gemm/lib/coop16_tile

//!include gemm/lib/coop_stage_b2
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
