// Experiment (lab gemm_sweep, variant `cand coop16w_fp ...`): lab/wgsl/coop16_fp.wgsl (read it for the
// design and the measurements) on gemm/coop16w's 4×4 fragments, 64×64 of C per subgroup: the
// fragments of tile t+1 loaded while tile t's are multiplied, BK = 16, two buffers of A and B,
// one barrier per step. Two sets of fragments are live (2 × 32 registers). gemm/coop16w is not in the
// library; this runs on coop16's plan of the same tile (e.g. `coop16 128x256x16`: its bindings,
// overrides and grid; the workgroup size follows from this file's WN); full tiles only.
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

// the block of C each subgroup owns
const WM: u32 = 64u;
const WN: u32 = 64u;

// The tile (the plan sets BM, BN, BK and SG: src/gemm/coop.rs), the fragment shape, then
// gemm/coop16's helpers (gemm/lib/coop_stage.wgsl, gemm/lib/coop.wgsl: params, fetch, stash,
// stage_next, the C store, the tile order) and the bindings they expect, as gemm/coop16.wgsl
// declares them. (gemm/lib/coop.wgsl also brings coop16's own kernel, coop_main, unused here.)
override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 32u;
override SG: u32 = 32u;

const FRAG: u32 = 16u;
alias FragA = coop_mat16x16<f16, A>;
alias FragB = coop_mat16x16<f16, B>;
alias FragC = coop_mat16x16<f32, C>;

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
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let tile = tile_of(wid, nwg);
    if FOLDED != 0u {
        if no_tile(lid, past_c(tile)) {
            return;
        }
    }
    let n0 = tile.x * BN;
    let m0 = tile.y * BM;
    let k_tiles = params.k_tiles;
    let fa = fetches_a();
    let fb = fetches_b();
    let a_off = (sg_id / SG_X) * WM * A_STRIDE;
    let b_off = (sg_id % SG_X) * WN;

    // c<i><j>: fragment row i, column j of the subgroup's 64×64 block
    var c00 = FragC(); var c01 = FragC(); var c02 = FragC(); var c03 = FragC();
    var c10 = FragC(); var c11 = FragC(); var c12 = FragC(); var c13 = FragC();
    var c20 = FragC(); var c21 = FragC(); var c22 = FragC(); var c23 = FragC();
    var c30 = FragC(); var c31 = FragC(); var c32 = FragC(); var c33 = FragC();
    // load: tile 0 into buffer 0, its fragments, then tile 1 into buffer 1 (zeros past K)
    var pre = fetch_tile(lid, m0, n0, 0u, fa, fb);
    stash_tile(lid, 0u, pre, fa, fb);
    // barrier: tile 0 staged before its fragments are loaded
    workgroupBarrier();
    var a0 = frag_a(a_off);
    var a1 = frag_a(a_off + FRAG * A_STRIDE);
    var a2 = frag_a(a_off + 2u * FRAG * A_STRIDE);
    var a3 = frag_a(a_off + 3u * FRAG * A_STRIDE);
    var b0 = frag_b(b_off);
    var b1 = frag_b(b_off + FRAG);
    var b2 = frag_b(b_off + 2u * FRAG);
    var b3 = frag_b(b_off + 3u * FRAG);

    pre = fetch_tile(lid, m0, n0, BK, fa, fb);
    stash_tile(lid, 1u, pre, fa, fb);
    // barrier: tile 1 staged before step 0 loads it, and buffer 0 read (just above) before
    // step 0 stashes tile 2 into it
    workgroupBarrier();

    for (var t = 0u; t < k_tiles; t++) {
        let cur = t % 2u;
        let nxt = 1u - cur;
        // prefetch tile t+2 into registers (zeros past K, no load)
        pre = fetch_tile(lid, m0, n0, (t + 2u) * BK, fa, fb);
        // load tile t+1's fragments (buffer nxt; after the last tile, stale but written)
        let abase = nxt * BM * A_STRIDE + a_off;
        let na0 = frag_a(abase);
        let na1 = frag_a(abase + FRAG * A_STRIDE);
        let na2 = frag_a(abase + 2u * FRAG * A_STRIDE);
        let na3 = frag_a(abase + 3u * FRAG * A_STRIDE);
        let bbase = nxt * BK * B_STRIDE + b_off;
        let nb0 = frag_b(bbase);
        let nb1 = frag_b(bbase + FRAG);
        let nb2 = frag_b(bbase + 2u * FRAG);
        let nb3 = frag_b(bbase + 3u * FRAG);
        // multiply tile t's fragments, loaded in step t−1
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c02 = coopMultiplyAdd(a0, b2, c02);
        c03 = coopMultiplyAdd(a0, b3, c03);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c12 = coopMultiplyAdd(a1, b2, c12);
        c13 = coopMultiplyAdd(a1, b3, c13);
        c20 = coopMultiplyAdd(a2, b0, c20);
        c21 = coopMultiplyAdd(a2, b1, c21);
        c22 = coopMultiplyAdd(a2, b2, c22);
        c23 = coopMultiplyAdd(a2, b3, c23);
        c30 = coopMultiplyAdd(a3, b0, c30);
        c31 = coopMultiplyAdd(a3, b1, c31);
        c32 = coopMultiplyAdd(a3, b2, c32);
        c33 = coopMultiplyAdd(a3, b3, c33);
        // stash tile t+2 into buffer cur, read last by step t−1's loads (the prologue's for t = 0)
        if t + 2u < k_tiles {
            stash_tile(lid, cur, pre, fa, fb);
        }
        // barrier: tile t+2 staged before step t+1 loads it, and buffer nxt read by every
        // subgroup before step t+1 stashes tile t+3 into it
        workgroupBarrier();
        a0 = na0; a1 = na1; a2 = na2; a3 = na3;
        b0 = nb0; b1 = nb1; b2 = nb2; b3 = nb3;
    }

    // store
    let r = m0 + (sg_id / SG_X) * WM;
    let q = n0 + b_off;
    let ld = params.n;
    store_c(c00, r * ld + q, ld);
    store_c(c01, r * ld + q + FRAG, ld);
    store_c(c02, r * ld + q + 2u * FRAG, ld);
    store_c(c03, r * ld + q + 3u * FRAG, ld);
    store_c(c10, (r + FRAG) * ld + q, ld);
    store_c(c11, (r + FRAG) * ld + q + FRAG, ld);
    store_c(c12, (r + FRAG) * ld + q + 2u * FRAG, ld);
    store_c(c13, (r + FRAG) * ld + q + 3u * FRAG, ld);
    store_c(c20, (r + 2u * FRAG) * ld + q, ld);
    store_c(c21, (r + 2u * FRAG) * ld + q + FRAG, ld);
    store_c(c22, (r + 2u * FRAG) * ld + q + 2u * FRAG, ld);
    store_c(c23, (r + 2u * FRAG) * ld + q + 3u * FRAG, ld);
    store_c(c30, (r + 3u * FRAG) * ld + q, ld);
    store_c(c31, (r + 3u * FRAG) * ld + q + FRAG, ld);
    store_c(c32, (r + 3u * FRAG) * ld + q + 2u * FRAG, ld);
    store_c(c33, (r + 3u * FRAG) * ld + q + 3u * FRAG, ld);
}
