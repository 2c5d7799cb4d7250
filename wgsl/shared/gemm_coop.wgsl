// include-only
// The entry point of the cooperative-matrix GEMM with 4×2 accumulator fragments per subgroup,
// shared by gemm/coop16.wgsl, gemm/coop16v.wgsl and gemm/coop8.wgsl (read coop16.wgsl's header
// for the design; the helpers are in shared/gemm_coop_body.wgsl). The stage file enables f16 and
// wgpu_cooperative_matrix, declares BM, BN, BK, SG, WM, WN, FRAG and the fragment types FragA,
// FragB (f16 operands) and FragC (f32 accumulator) of its shape, includes a staging file
// (shared/gemm_coop_stage_h or _v), then this.

//!include shared/gemm_coop_body

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

    var c00 = FragC();
    var c01 = FragC();
    var c10 = FragC();
    var c11 = FragC();
    var c20 = FragC();
    var c21 = FragC();
    var c30 = FragC();
    var c31 = FragC();
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
        // multiply: 4×2 fragments per FRAG of K
        for (var ks = 0u; ks < BK / FRAG; ks++) {
            let abase = cur * BM * A_STRIDE + wm * WM * A_STRIDE + ks * FRAG;
            let a0 = frag_a(abase);
            let a1 = frag_a(abase + FRAG * A_STRIDE);
            let a2 = frag_a(abase + 2u * FRAG * A_STRIDE);
            let a3 = frag_a(abase + 3u * FRAG * A_STRIDE);
            let bbase = cur_b * BK * B_STRIDE + ks * FRAG * B_STRIDE + wn * WN;
            let b0 = frag_b(bbase);
            let b1 = frag_b(bbase + FRAG);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
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
        store_c(c00, r0 * ld + q0, ld);
        store_c(c01, r0 * ld + q0 + FRAG, ld);
        store_c(c10, (r0 + FRAG) * ld + q0, ld);
        store_c(c11, (r0 + FRAG) * ld + q0 + FRAG, ld);
        store_c(c20, (r0 + 2u * FRAG) * ld + q0, ld);
        store_c(c21, (r0 + 2u * FRAG) * ld + q0 + FRAG, ld);
        store_c(c30, (r0 + 3u * FRAG) * ld + q0, ld);
        store_c(c31, (r0 + 3u * FRAG) * ld + q0 + FRAG, ld);
    } else {
        // edge tile (uniform over the workgroup): each fragment staged, then copied lane by lane
        edge_store(c00, sg_id, lane, r0, q0);
        edge_store(c01, sg_id, lane, r0, q0 + FRAG);
        edge_store(c10, sg_id, lane, r0 + FRAG, q0);
        edge_store(c11, sg_id, lane, r0 + FRAG, q0 + FRAG);
        edge_store(c20, sg_id, lane, r0 + 2u * FRAG, q0);
        edge_store(c21, sg_id, lane, r0 + 2u * FRAG, q0 + FRAG);
        edge_store(c30, sg_id, lane, r0 + 3u * FRAG, q0);
        edge_store(c31, sg_id, lane, r0 + 3u * FRAG, q0 + FRAG);
    }
    // round: f16 output (shared/gemm_coop_body.wgsl)
    if OUT_F16 != 0u {
        round_tile(lid, m0, n0);
    }
}
