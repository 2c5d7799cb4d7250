// Portable register-tiled GEMM with an 8×16 block of C per invocation: C (M×N, f32) = A (M×K) ·
// B (K×N), row-major, f32 accumulation. gemm/tiled (8×8) with twice the columns per invocation:
// per k, 2 A and 4 B vec4 reads of workgroup memory for 128 FMAs (8×8: 4 reads for 64), so a
// staged element feeds more FMAs and a tile needs half the invocations (128×128 with 128,
// 128×256 with 256). The cost is registers: 128 accumulators (8×8: 64). The block is the larger
// per-thread tile of Volkov & Demmel (SC'08) and of CUTLASS's SIMT GEMMs; the staging, K loop
// and entry point are shared with gemm/tiled (shared/gemm_tiled.wgsl), and so are the formats,
// edges, lane layouts (WARP_X) and K-loop knobs (BUFFERS, PAIRED, UNROLL) documented there.
//
// Invocation layout (mirrored and checked exhaustively in Rust, src/gemm/policy.rs `c_block`):
//   (tx, ty) = lane_xy(lid), WG_X = BN/16, WG_Y = BM/8;
//   rows of C: 4·(ty + i·WG_Y) + r for i < 2, r < 4; columns 4·(tx + j·WG_X) + c for j < 4.
//   Each of the six reads per k is contiguous across tx (B) or ty (A), as in gemm/tiled.
//
// Built without runtime checks, as gemm/tiled (the same shared body and edge handling; proven in
// bounds by the same simulator tests).
// wgsimd: runtime checks off

// The invocation's block of C, spelled out (NVIDIA's SPIR-V compiler put a loop-indexed
// accumulator array in local memory). The Rust policy check reads these constants.
const TM: u32 = 8u;         // rows of C per invocation: 4·ty + r and 4·(ty + WG_Y) + r
const TN: u32 = 16u;        // columns: 4·(tx + j·WG_X) + c, j < 4

// The 8×16 block: c<r><j> = row r, column vec4 j. A struct, so every access is a constant member.
struct Acc {
    c00: vec4<f32>, c01: vec4<f32>, c02: vec4<f32>, c03: vec4<f32>,
    c10: vec4<f32>, c11: vec4<f32>, c12: vec4<f32>, c13: vec4<f32>,
    c20: vec4<f32>, c21: vec4<f32>, c22: vec4<f32>, c23: vec4<f32>,
    c30: vec4<f32>, c31: vec4<f32>, c32: vec4<f32>, c33: vec4<f32>,
    c40: vec4<f32>, c41: vec4<f32>, c42: vec4<f32>, c43: vec4<f32>,
    c50: vec4<f32>, c51: vec4<f32>, c52: vec4<f32>, c53: vec4<f32>,
    c60: vec4<f32>, c61: vec4<f32>, c62: vec4<f32>, c63: vec4<f32>,
    c70: vec4<f32>, c71: vec4<f32>, c72: vec4<f32>, c73: vec4<f32>,
}

// One k of the outer product: rows from a0 (4·ty..) and a1 (4·(ty + WG_Y)..), columns from
// b0..b3 (4·(tx + j·WG_X)..).
fn step(c: Acc, a0: vec4<f32>, a1: vec4<f32>, b0: vec4<f32>, b1: vec4<f32>, b2: vec4<f32>,
        b3: vec4<f32>) -> Acc {
    var r: Acc;
    let s0 = vec4<f32>(a0.x);
    r.c00 = fma(s0, b0, c.c00); r.c01 = fma(s0, b1, c.c01);
    r.c02 = fma(s0, b2, c.c02); r.c03 = fma(s0, b3, c.c03);
    let s1 = vec4<f32>(a0.y);
    r.c10 = fma(s1, b0, c.c10); r.c11 = fma(s1, b1, c.c11);
    r.c12 = fma(s1, b2, c.c12); r.c13 = fma(s1, b3, c.c13);
    let s2 = vec4<f32>(a0.z);
    r.c20 = fma(s2, b0, c.c20); r.c21 = fma(s2, b1, c.c21);
    r.c22 = fma(s2, b2, c.c22); r.c23 = fma(s2, b3, c.c23);
    let s3 = vec4<f32>(a0.w);
    r.c30 = fma(s3, b0, c.c30); r.c31 = fma(s3, b1, c.c31);
    r.c32 = fma(s3, b2, c.c32); r.c33 = fma(s3, b3, c.c33);
    let s4 = vec4<f32>(a1.x);
    r.c40 = fma(s4, b0, c.c40); r.c41 = fma(s4, b1, c.c41);
    r.c42 = fma(s4, b2, c.c42); r.c43 = fma(s4, b3, c.c43);
    let s5 = vec4<f32>(a1.y);
    r.c50 = fma(s5, b0, c.c50); r.c51 = fma(s5, b1, c.c51);
    r.c52 = fma(s5, b2, c.c52); r.c53 = fma(s5, b3, c.c53);
    let s6 = vec4<f32>(a1.z);
    r.c60 = fma(s6, b0, c.c60); r.c61 = fma(s6, b1, c.c61);
    r.c62 = fma(s6, b2, c.c62); r.c63 = fma(s6, b3, c.c63);
    let s7 = vec4<f32>(a1.w);
    r.c70 = fma(s7, b0, c.c70); r.c71 = fma(s7, b1, c.c71);
    r.c72 = fma(s7, b2, c.c72); r.c73 = fma(s7, b3, c.c73);
    return r;
}

// One k read from workgroup buffer row `k` (an index into [buffer][k]) and multiplied in.
fn step_at(c: Acc, k: u32, xy: vec2<u32>) -> Acc {
    let arow = k * (BM / 4u) + xy.y;
    let brow = k * (BN / 4u) + xy.x;
    return step(c, As[arow], As[arow + WG_Y], Bs[brow], Bs[brow + WG_X], Bs[brow + 2u * WG_X],
        Bs[brow + 3u * WG_X]);
}

// store: rows 4·ty + r and 4·(ty + WG_Y) + r, columns 4·(tx + j·WG_X).. for j < 4
fn store_acc(z: u32, m0: u32, n0: u32, xy: vec2<u32>, acc: Acc) {
    let r0 = m0 + 4u * xy.y;
    let r1 = m0 + 4u * (xy.y + WG_Y);
    let q0 = n0 + 4u * xy.x;
    let q1 = q0 + 4u * WG_X;
    let q2 = q0 + 8u * WG_X;
    let q3 = q0 + 12u * WG_X;
    store_row(z, r0, q0, q1, acc.c00, acc.c01);
    store_row(z, r0, q2, q3, acc.c02, acc.c03);
    store_row(z, r0 + 1u, q0, q1, acc.c10, acc.c11);
    store_row(z, r0 + 1u, q2, q3, acc.c12, acc.c13);
    store_row(z, r0 + 2u, q0, q1, acc.c20, acc.c21);
    store_row(z, r0 + 2u, q2, q3, acc.c22, acc.c23);
    store_row(z, r0 + 3u, q0, q1, acc.c30, acc.c31);
    store_row(z, r0 + 3u, q2, q3, acc.c32, acc.c33);
    store_row(z, r1, q0, q1, acc.c40, acc.c41);
    store_row(z, r1, q2, q3, acc.c42, acc.c43);
    store_row(z, r1 + 1u, q0, q1, acc.c50, acc.c51);
    store_row(z, r1 + 1u, q2, q3, acc.c52, acc.c53);
    store_row(z, r1 + 2u, q0, q1, acc.c60, acc.c61);
    store_row(z, r1 + 2u, q2, q3, acc.c62, acc.c63);
    store_row(z, r1 + 3u, q0, q1, acc.c70, acc.c71);
    store_row(z, r1 + 3u, q2, q3, acc.c72, acc.c73);
}

//!include shared/gemm_tiled
