// include-only
// The entry point of the cooperative-matrix GEMM with a wide warp tile: 4×4 accumulator
// fragments (WM×WN = 64×64 of C) per subgroup, shared by gemm/coop16w.wgsl and
// gemm/coop16vw.wgsl (read coop16w.wgsl's header for why). The structure of
// shared/gemm_coop.wgsl; the stage file declares the same constants and includes a staging file
// (shared/gemm_coop_stage_h or _v) before this.

//!include shared/gemm_coop_body

// One row of four fragments straight to C at element `at` (row stride `ld`).
fn store_c4(m0: FragC, m1: FragC, m2: FragC, m3: FragC, at: u32, ld: u32) {
    store_c(m0, at, ld);
    store_c(m1, at + FRAG, ld);
    store_c(m2, at + 2u * FRAG, ld);
    store_c(m3, at + 3u * FRAG, ld);
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
    @builtin(subgroup_size) width: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    // subgroups of another width than planned: stop, and say so (shared/gemm_coop_body.wgsl)
    if SG_GUARD != 0u {
        if !subgroup_guard(lid, width) {
            return;
        }
    }
    let tile = tile_of(wid, nwg);
    if FOLDED != 0u {
        if no_tile(lid, past_c(tile)) {
            return;
        }
    }
    let n0 = tile.x * BN;
    let m0 = tile.y * BM;
    let wm = sg_id / SG_X;
    let wn = sg_id % SG_X;
    let k_tiles = params.k_tiles;
    let fa = fetches_a();
    let fb = fetches_b();

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
        let cur = t % NBUF;
        let cur_b = t % NBUF_B;
        let more = t + 1u < k_tiles;
        let k_next = (t + 1u) * BK;
        // prefetch tile t+1 into registers, unconditionally: after the last tile the fetch's
        // bounds checks give zeros without loading. Under `if more`, NVIDIA's compiler merged
        // the loads into `pre` with moves right after them, so each step waited for its global
        // loads before its first multiply-add (SASS in docs/gemm.md, "Seventh session").
        pre = fetch_tile(lid, m0, n0, k_next, fa, fb);
        // multiply: 4 B fragments, then each A fragment against them (4×4 per FRAG of K)
        for (var ks = 0u; ks < BK / FRAG; ks++) {
            let bbase = cur_b * BK * B_STRIDE + ks * FRAG * B_STRIDE + wn * WN;
            let b0 = frag_b(bbase);
            let b1 = frag_b(bbase + FRAG);
            let b2 = frag_b(bbase + 2u * FRAG);
            let b3 = frag_b(bbase + 3u * FRAG);
            let abase = cur * BM * A_STRIDE + wm * WM * A_STRIDE + ks * FRAG;
            let a0 = frag_a(abase);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c02 = coopMultiplyAdd(a0, b2, c02);
            c03 = coopMultiplyAdd(a0, b3, c03);
            let a1 = frag_a(abase + FRAG * A_STRIDE);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c12 = coopMultiplyAdd(a1, b2, c12);
            c13 = coopMultiplyAdd(a1, b3, c13);
            let a2 = frag_a(abase + 2u * FRAG * A_STRIDE);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c22 = coopMultiplyAdd(a2, b2, c22);
            c23 = coopMultiplyAdd(a2, b3, c23);
            let a3 = frag_a(abase + 3u * FRAG * A_STRIDE);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
            c32 = coopMultiplyAdd(a3, b2, c32);
            c33 = coopMultiplyAdd(a3, b3, c33);
        }
        // stash tile t+1 and barrier(s) (shared/gemm_coop_body.wgsl)
        stage_next(lid, t, more, pre, fa, fb);
    }

    // store
    let r0 = m0 + wm * WM;
    let q0 = n0 + wn * WN;
    // (C's rows are padded to whole tiles by the host: only the right edge needs the edge path)
    let full = EDGES == 0u || (n0 + BN <= params.n && params.n % 4u == 0u);
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
    // round: f16 output (shared/gemm_coop_body.wgsl)
    if OUT_F16 != 0u {
        round_tile(lid, m0, n0);
    }
}
