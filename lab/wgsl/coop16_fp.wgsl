// Experiment (lab gemm_sweep, variant `cand coop16_fp ...`): gemm/coop16 with its fragments pipelined
// across the barrier. In gemm/coop16 every subgroup loads a K step's fragments from workgroup
// memory and then multiplies them, and the barrier lines the subgroups up, so all of them load
// at once (the shared memory busy, the tensor cores idle) and then all multiply (the reverse):
// docs/gemm.md estimates the two phases nearly serialized. Here the fragments of tile t+1 are
// loaded while tile t's, loaded during step t−1, are multiplied: the loads no longer feed the
// multiply-adds that follow them, so a subgroup can issue both at once.
//
// Needs BK = 16 (one fragment slice per tile) and two buffers of A and B (coop16's two-buffer
// variants with BK 16, e.g. `coop16 128x256x16`): step t loads tile t+1 from buffer (t+1) % 2
// and stashes tile t+2 into buffer t % 2, whose last readers were step t−1's loads (for t = 0,
// the prologue's), before the barrier that ended it. One barrier per step. Two sets of
// fragments are live (2 × 24 registers). Full tiles only (it stores straight to C); takes
// coop16's plan (bindings, overrides, grid) and helpers (gemm/lib/coop.wgsl: the fetch
// gives zeros past K). lab/wgsl/coop16w_fp.wgsl is the same on coop16w's 4×4 fragments.
// The simulator ran both (race-free, the right product; `LAB_SIM=h100 gemm_sweep --sizes 256
// cand` runs them there again; its first
// version stashed tile 2 while the prologue's loads of buffer 0 were unfenced, and the
// simulator reported the race).
//
// Measured on the H100 (2026-11-26; gemm_sweep, two calls, median
// TFLOP/s at 4096³ / 8192³; the shipped large tile, coop16 128×256×32 1a2b, 240.8–241.8 /
// 270.3–271.0 in the same calls):
//   coop16 128×256×16: kernel 172.6 / 192.7, this file 179.7–180.1 / 199.5–199.7 (128
//     registers and 96 bytes of local memory: spilled at 512 invocations)
//   coop16 128×128×16: this file 139.1–139.5 / 149.4–149.5 (176 registers)
//   coop16w_fp.wgsl, 128×256×16: kernel 176.1–176.2 / 193.4–194.0, pipelined 231.0–232.2 /
//     262.0–263.7 (+31% / +36%; 255 registers and 96 bytes of local memory)
//   coop16w_fp.wgsl, 256×128×16: 210.9–211.6 / 238.0–238.4
// Each row's A fragment replaced by the next tile's right after its multiply-adds (fewer
// fragments live at once) compiled to the same registers and spills and measured level or
// slower (coop16 128×256×16 165.9 / 183.3, coop16w 231.4–231.9 / 262.1–263.2). The pipelining
// lifts the BK = 16 two-buffer tiles by up to a third but stops short of the shipped tile, which
// has 16 subgroups, BK = 32 and no spills: not kept.
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

// The tile, the fragment shape (gemm/lib/coop16_tile.wgsl), then gemm/coop16's helpers
// (gemm/lib/coop_stage.wgsl, coop_b.wgsl, coop.wgsl: params, fetch, stash, stage_next, the C
// store, the tile order) and the bindings they expect, as gemm/coop16.wgsl declares them.
// (gemm/lib/coop.wgsl also brings coop16's own kernel, coop_main, unused here.)
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

    var c00 = FragC();
    var c01 = FragC();
    var c10 = FragC();
    var c11 = FragC();
    var c20 = FragC();
    var c21 = FragC();
    var c30 = FragC();
    var c31 = FragC();
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
        // multiply tile t's fragments, loaded in step t−1
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c20 = coopMultiplyAdd(a2, b0, c20);
        c21 = coopMultiplyAdd(a2, b1, c21);
        c30 = coopMultiplyAdd(a3, b0, c30);
        c31 = coopMultiplyAdd(a3, b1, c31);
        // stash tile t+2 into buffer cur, read last by step t−1's loads (the prologue's for t = 0)
        if t + 2u < k_tiles {
            stash_tile(lid, cur, pre, fa, fb);
        }
        // barrier: tile t+2 staged before step t+1 loads it, and buffer nxt read by every
        // subgroup before step t+1 stashes tile t+3 into it
        workgroupBarrier();
        a0 = na0;
        a1 = na1;
        a2 = na2;
        a3 = na3;
        b0 = nb0;
        b1 = nb1;
    }

    // store
    let r = m0 + (sg_id / SG_X) * WM;
    let q = n0 + b_off;
    let ld = params.n;
    store_c(c00, r * ld + q, ld);
    store_c(c01, r * ld + q + FRAG, ld);
    store_c(c10, (r + FRAG) * ld + q, ld);
    store_c(c11, (r + FRAG) * ld + q + FRAG, ld);
    store_c(c20, (r + 2u * FRAG) * ld + q, ld);
    store_c(c21, (r + 2u * FRAG) * ld + q + FRAG, ld);
    store_c(c30, (r + 3u * FRAG) * ld + q, ld);
    store_c(c31, (r + 3u * FRAG) * ld + q + FRAG, ld);
}
