// Cooperative-matrix GEMM with a wide warp tile, f16 × f16 → f32, 16×16×16 fragments: the
// structure of coop16.wgsl (read its header: staging, double buffering with register prefetch,
// edge tiles, the naga store workaround; helpers in shared/gemm_coop_body.wgsl) with each
// subgroup owning WM×WN = 64×64 of C as 4×4 accumulator fragments instead of 64×32 as 4×2.
//
// Why: per 16 of K a subgroup loads 4 A and 4 B fragments for 16 multiply-adds (coop16: 4 + 2
// for 8), and with 8 subgroups the workgroup tile is 128×256 or 256×128, so each staged f16
// feeds twice the multiply-adds of coop16's 128×128 tile (CUTLASS's tensor-core SGEMM tiles:
// 128×256×32 with 64×64 warp tiles). The 48 KiB workgroup-memory limit takes BK = 16 at those
// tiles (two buffers). Accumulators: 16 fragments = 128 f32 registers per lane at subgroup 32.
//
// Layout (checked in Rust, src/gemm/coop.rs): subgroup s = (wm, wn) = (s / SG_X, s % SG_X),
// SG_X = BN/64, SG_Y = BM/64, WG = SG_X·SG_Y·SG invocations.
//
// Built without runtime checks (src/gpu/mod.rs, runtime_checks): every access is proven in
// bounds by the simulator tests (tests/sim_coop.rs, edge tiles at several subgroup sizes).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

override BM: u32 = 128u;
override BN: u32 = 256u;
override BK: u32 = 16u;
// The subgroup size the plan requires (the adapter's minimum = maximum).
override SG: u32 = 32u;

const WM: u32 = 64u;
const WN: u32 = 64u;
const FRAG: u32 = 16u;
alias FragA = coop_mat16x16<f16, A>;
alias FragB = coop_mat16x16<f16, B>;
alias FragC = coop_mat16x16<f32, C>;

//!include shared/gemm_coop_body

// One row of four fragments straight to C at element `at` (row stride `ld`).
fn store_c4(m0: FragC, m1: FragC, m2: FragC, m3: FragC, at: u32, ld: u32) {
    store_c(m0, at, ld);
    store_c(m1, at + FRAG, ld);
    store_c(m2, at + 2u * FRAG, ld);
    store_c(m3, at + 3u * FRAG, ld);
}

// An edge fragment: staged in subgroup `s`'s square, then the part inside C copied lane by lane.
// Barriers: the square is complete before lanes read it, and read before it is overwritten.
// Called in uniform control flow (every subgroup of the workgroup, same fragment count).
fn edge_store(m: FragC, s: u32, lane: u32, row0: u32, col0: u32) {
    store_staged(m, s * FRAG * FRAG);
    workgroupBarrier();
    spill(s, lane, row0, col0);
    workgroupBarrier();
}

fn edge_store4(m0: FragC, m1: FragC, m2: FragC, m3: FragC, s: u32, lane: u32, row0: u32,
               col0: u32) {
    edge_store(m0, s, lane, row0, col0);
    edge_store(m1, s, lane, row0, col0 + FRAG);
    edge_store(m2, s, lane, row0, col0 + 2u * FRAG);
    edge_store(m3, s, lane, row0, col0 + 3u * FRAG);
}

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let tile = tile_of(wid, nwg);
    let n0 = tile.x * BN;
    let m0 = tile.y * BM;
    let wm = sg_id / SG_X;
    let wn = sg_id % SG_X;
    let k_tiles = params.k_tiles;
    let fa = (a_items() + WG - 1u) / WG;
    let fb = (b_items() + WG - 1u) / WG;

    // c<i><j>: fragment row i (16 rows each), column j of the subgroup's 64×64 block
    var c00 = FragC(); var c01 = FragC(); var c02 = FragC(); var c03 = FragC();
    var c10 = FragC(); var c11 = FragC(); var c12 = FragC(); var c13 = FragC();
    var c20 = FragC(); var c21 = FragC(); var c22 = FragC(); var c23 = FragC();
    var c30 = FragC(); var c31 = FragC(); var c32 = FragC(); var c33 = FragC();
    // load: tile 0 into buffer 0 (`pre` holds the prefetch registers)
    var pre = fetch_tile(lid, m0, n0, 0u, fa, fb);
    stash_tile(lid, 0u, pre, fa, fb);
    // barrier: tile 0 is staged before any fragment load
    workgroupBarrier();

    for (var t = 0u; t < k_tiles; t++) {
        let cur = t % 2u;
        let more = t + 1u < k_tiles;
        let k_next = (t + 1u) * BK;
        // prefetch tile t+1 into registers
        if more {
            pre = fetch_tile(lid, m0, n0, k_next, fa, fb);
        }
        // multiply: 4 B fragments, then each A fragment against them (4×4 per FRAG of K)
        for (var ks = 0u; ks < BK / FRAG; ks++) {
            let bbase = cur * BK * B_STRIDE + ks * FRAG * B_STRIDE + wn * WN;
            let b0 = coopLoadT<FragB>(&Bs[bbase], B_STRIDE);
            let b1 = coopLoadT<FragB>(&Bs[bbase + FRAG], B_STRIDE);
            let b2 = coopLoadT<FragB>(&Bs[bbase + 2u * FRAG], B_STRIDE);
            let b3 = coopLoadT<FragB>(&Bs[bbase + 3u * FRAG], B_STRIDE);
            let abase = cur * BM * A_STRIDE + wm * WM * A_STRIDE + ks * FRAG;
            let a0 = coopLoadT<FragA>(&As[abase], A_STRIDE);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c02 = coopMultiplyAdd(a0, b2, c02);
            c03 = coopMultiplyAdd(a0, b3, c03);
            let a1 = coopLoadT<FragA>(&As[abase + FRAG * A_STRIDE], A_STRIDE);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c12 = coopMultiplyAdd(a1, b2, c12);
            c13 = coopMultiplyAdd(a1, b3, c13);
            let a2 = coopLoadT<FragA>(&As[abase + 2u * FRAG * A_STRIDE], A_STRIDE);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c22 = coopMultiplyAdd(a2, b2, c22);
            c23 = coopMultiplyAdd(a2, b3, c23);
            let a3 = coopLoadT<FragA>(&As[abase + 3u * FRAG * A_STRIDE], A_STRIDE);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
            c32 = coopMultiplyAdd(a3, b2, c32);
            c33 = coopMultiplyAdd(a3, b3, c33);
        }
        // stash tile t+1 into the other buffer (its readers finished before the last barrier)
        if more {
            stash_tile(lid, 1u - cur, pre, fa, fb);
        }
        // barrier: tile t+1 staged; buffer `cur` free for step t+1's stash
        workgroupBarrier();
    }

    // store
    let r0 = m0 + wm * WM;
    let q0 = n0 + wn * WN;
    let full = m0 + BM <= params.m && n0 + BN <= params.n && params.n % 4u == 0u;
    if full {
        let ld = params.n;
        store_c4(c00, c01, c02, c03, r0 * ld + q0, ld);
        store_c4(c10, c11, c12, c13, (r0 + FRAG) * ld + q0, ld);
        store_c4(c20, c21, c22, c23, (r0 + 2u * FRAG) * ld + q0, ld);
        store_c4(c30, c31, c32, c33, (r0 + 3u * FRAG) * ld + q0, ld);
    } else {
        // edge tile (uniform over the workgroup)
        edge_store4(c00, c01, c02, c03, sg_id, lane, r0, q0);
        edge_store4(c10, c11, c12, c13, sg_id, lane, r0 + FRAG, q0);
        edge_store4(c20, c21, c22, c23, sg_id, lane, r0 + 2u * FRAG, q0);
        edge_store4(c30, c31, c32, c33, sg_id, lane, r0 + 3u * FRAG, q0);
    }
}
