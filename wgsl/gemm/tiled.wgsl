// Portable register-tiled GEMM: C (M×N, f32) = A (M×K) · B (K×N), all row-major, f32 accumulation.
//
// The SIMT hierarchy of Volkov & Demmel, "Benchmarking GPUs to tune dense linear algebra" (SC'08),
// as CUTLASS's SIMT GEMM names it: a workgroup owns a BM×BN tile of C; every K step it stages a
// BM×BK slice of A (transposed, k-major) and a BK×BN slice of B in workgroup memory; each
// invocation owns an 8×8 (TM×TN) block of C in registers and does 64 FMAs per k from 4 vec4
// reads of workgroup memory. The staging, K loop (double buffering with a register prefetch,
// one barrier per step; or the knobs BUFFERS, PAIRED, UNROLL) are in gemm/lib/tiled.wgsl; this
// file is the 8×8 block, the bindings and the entry point.
//
// Invocation layout (the simulator proves that every element of C is written once, at every
// policy the host uses: tests/behaviour/gemm.rs):
//   (tx, ty) = lane_xy(lid), WG_X = BN/TN, WG_Y = BM/TM;
//   rows of C: 4·(ty + i·WG_Y) + r for i < 2, r < 4; columns 4·(tx + j·WG_X) + c for j < 2.
//   The interleave keeps each subgroup's workgroup-memory reads contiguous (conflict-free).
//   WARP_X = 0: row-major, tx = lid % WG_X (a subgroup of 32 spans 16×2 invocations at WG_X = 16:
//   16 distinct B vec4 per read). WARP_X = w > 0: blocks of 32 consecutive invocations form
//   w × (32/w) patches of (tx, ty) (CUTLASS's 8×4 warp arrangement at w = 8: per read, 8 distinct
//   B vec4 and 4 distinct A vec4 per subgroup of 32, i.e. 128 + 64 bytes of workgroup memory).
// Workgroups map to tiles in grouped order (`tile_of`); with split-K, workgroup_id.z selects a
// range of K tiles and the partial product goes to its own slice of the output.
//
// Element formats (overrides, constant after specialization):
//   A_FMT 0: f32, 4 per vec4<u32> (bitcast);  1: f16, 8 per vec4<u32> (unpack2x16float).
//   B_FMT 0: f32;  1: f16;  2: int4, 8 per u32 along K with one f16 scale (and optional f16
//   zero, else 8) per group of 128 along K: w = (q - zero) · scale. See docs/gemm.md.
// Layout (docs/gemm.md): A's and B's rows at row strides of whole loads, B stored K×N or (B_T)
// N×K, C at any row stride; offsets and a batch of matrices (LAYOUT; workgroup_id.z = matrix ·
// splits + split). In the GEMM's own layout the rows are padded with zeros to whole loads; with a
// caller's strides the K tail of a load is zeroed after it (MASK_K), and columns past N only
// reach columns of C that are not stored. Every other edge is handled in the shared body: loads
// outside M, N, K read zero, stores outside M, N are skipped, so nothing of C's rows past N is
// written. No function takes an array by value.
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): the explicit edge handling above
// is the bounds check, and the simulator tests prove every access in bounds (tests/behaviour/gemm.rs: the
// policies the host uses, edge tiles on every side, split-K, f16 and int4). On the H100 the
// checks cost 8% (8192³, 64×128×8: 38.4 against 41.5 TFLOP/s, 2026-11-22).
// wgsimd: runtime checks off

// The invocation's block of C (struct `Acc`) is fixed here, with literal names: NVIDIA's SPIR-V
// compiler put a loop-indexed accumulator array in local memory (1.8 TFLOP/s on the H100 at
// 4096³). The Rust policy check reads these constants from the module.
const TM: u32 = 8u;         // rows of C per invocation: 4·ty + r and 4·(ty + WG_Y) + r
const TN: u32 = 8u;         // columns: 4·tx + c and 4·(tx + WG_X) + c

// The invocation's 8×8 block of C: c<r><j> = row r, column vec4 j. A struct (not an array), so
// every access has a constant member and stays in registers.
struct Acc {
    c00: vec4<f32>, c01: vec4<f32>,
    c10: vec4<f32>, c11: vec4<f32>,
    c20: vec4<f32>, c21: vec4<f32>,
    c30: vec4<f32>, c31: vec4<f32>,
    c40: vec4<f32>, c41: vec4<f32>,
    c50: vec4<f32>, c51: vec4<f32>,
    c60: vec4<f32>, c61: vec4<f32>,
    c70: vec4<f32>, c71: vec4<f32>,
}

// One k of the outer product: rows from a0 (4·ty..) and a1 (4·(ty + WG_Y)..), columns from b0, b1.
fn step(c: Acc, a0: vec4<f32>, a1: vec4<f32>, b0: vec4<f32>, b1: vec4<f32>) -> Acc {
    var r: Acc;
    r.c00 = fma(vec4<f32>(a0.x), b0, c.c00); r.c01 = fma(vec4<f32>(a0.x), b1, c.c01);
    r.c10 = fma(vec4<f32>(a0.y), b0, c.c10); r.c11 = fma(vec4<f32>(a0.y), b1, c.c11);
    r.c20 = fma(vec4<f32>(a0.z), b0, c.c20); r.c21 = fma(vec4<f32>(a0.z), b1, c.c21);
    r.c30 = fma(vec4<f32>(a0.w), b0, c.c30); r.c31 = fma(vec4<f32>(a0.w), b1, c.c31);
    r.c40 = fma(vec4<f32>(a1.x), b0, c.c40); r.c41 = fma(vec4<f32>(a1.x), b1, c.c41);
    r.c50 = fma(vec4<f32>(a1.y), b0, c.c50); r.c51 = fma(vec4<f32>(a1.y), b1, c.c51);
    r.c60 = fma(vec4<f32>(a1.z), b0, c.c60); r.c61 = fma(vec4<f32>(a1.z), b1, c.c61);
    r.c70 = fma(vec4<f32>(a1.w), b0, c.c70); r.c71 = fma(vec4<f32>(a1.w), b1, c.c71);
    return r;
}

// One k read from workgroup buffer row `k` (an index into [buffer][k]) and multiplied in.
fn step_at(c: Acc, k: u32, xy: vec2<u32>) -> Acc {
    let arow = k * (BM / 4u) + xy.y;
    let brow = k * (BN / 4u) + xy.x;
    return step(c, As[arow], As[arow + WG_Y], Bs[brow], Bs[brow + WG_X]);
}

// store: rows 4·ty + r and 4·(ty + WG_Y) + r, columns 4·tx.. and 4·(tx + WG_X)..
fn store_acc(m0: u32, n0: u32, xy: vec2<u32>, acc: Acc) {
    let r0 = m0 + 4u * xy.y;
    let r1 = m0 + 4u * (xy.y + WG_Y);
    let q0 = n0 + 4u * xy.x;
    let q1 = n0 + 4u * (xy.x + WG_X);
    store_row(r0, q0, q1, acc.c00, acc.c01);
    store_row(r0 + 1u, q0, q1, acc.c10, acc.c11);
    store_row(r0 + 2u, q0, q1, acc.c20, acc.c21);
    store_row(r0 + 3u, q0, q1, acc.c30, acc.c31);
    store_row(r1, q0, q1, acc.c40, acc.c41);
    store_row(r1 + 1u, q0, q1, acc.c50, acc.c51);
    store_row(r1 + 2u, q0, q1, acc.c60, acc.c61);
    store_row(r1 + 3u, q0, q1, acc.c70, acc.c71);
}

//!include gemm/lib/tiled

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> scales: array<u32>;
@group(0) @binding(4) var<storage, read> zeros: array<u32>;
@group(0) @binding(5) var<storage, read_write> c: array<f32>;
@group(0) @binding(6) var<storage, read_write> c16: array<u32>;

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    tiled_main(lid, wid, nwg);
}
