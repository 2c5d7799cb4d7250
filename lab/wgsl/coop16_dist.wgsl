// Experiment (lab gemm_sweep, variant `cand coop16_dist ...`): gemm/coop16 with its register prefetch
// DIST K steps ahead instead of one: tile t+1+DIST is loaded right after tile t+1 is stashed,
// into a register set named statically (r0, r1, r2 by tile number modulo DIST, through a
// switch: rotating the sets by moves would wait for the loads at the move). DIST sets of
// prefetch registers are live through the multiply. Full tiles only (M, N multiples of the
// tile: it stores straight to C); takes coop16's plan (bindings, overrides, grid) as it is and
// coop16's helpers (gemm/lib/coop.wgsl: the fetch's bounds checks give zeros past K). It uses
// one buffer index for A and B, so only tiles with as many A as B buffers (not `1a2b`).
// `LAB_SIM=h100 gemm_sweep --sizes 256 cand` runs it on the simulator (DIST as written).
//
// Measured on the H100 (2026-11-22, f16 → f32, TFLOP/s at 8192³ / 4096³).
// Written first with each refill under `if more`, which made NVIDIA's compiler wait for the
// loads right after issuing them (the SASS finding in docs/gemm.md), it measured against the
// kernel of that time (128×128×32 178.5 / 163.7, 128×256×32 one buffer 189.6 / 172.1,
// 256×128×32 one buffer 184.9 / 170.9):
//   DIST 1: 168.7 / 156.8, 189.7 / 176.5, 182.9 / 170.6
//   DIST 2: 166.4 / 153.0, 191.1 / 174.7, 184.4 / 171.4
//   DIST 3: 158.2 / 145.7, 181.2 / 168.1, 177.0 / 164.8
// With the refills unconditional and its own fetch without bounds checks (wrapping to tile 0
// past K), against gemm/coop16 with its prefetch unconditional (182.2 / 165.3, 265.0 / 234.4,
// 245.6 / 217.7):
//   DIST 1: 167.0 / 153.1, 210.8 / 190.9, 206.0 / 188.3
//   DIST 2: 164.3 / 150.5, 213.4 / 191.8, 204.6 / 185.2
//   DIST 3: 159.7 / 148.9, 164.9 / 149.6, 156.2 / 146.1
// As it is now, on coop16's helpers (checked fetch), against the kernel's 181.8 / 167.0,
// 263.2 / 234.1, 242.7 / 220.4 in the same call:
//   DIST 1: 135.0 / 129.6, 202.1 / 187.5, 200.8 / 186.4
//   DIST 2: 123.9 / 116.2, 178.6 / 164.9, 168.8 / 155.9
//   DIST 3: 120.1 / 112.7, 168.9 / 157.9, 161.0 / 149.3
// Loading further ahead does not help, and loading right after the stash (here) is slower
// than at the top of the step (gemm/coop16).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

// how many K steps ahead the loads run (1..3)
const DIST: u32 = 2u;

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
    let wm = sg_id / SG_X;
    let wn = sg_id % SG_X;

    var c00 = FragC();
    var c01 = FragC();
    var c10 = FragC();
    var c11 = FragC();
    var c20 = FragC();
    var c21 = FragC();
    var c30 = FragC();
    var c31 = FragC();
    // load: tiles 0 .. DIST-1 (tile i in set i % DIST), tile 0 staged, set 0 refilled
    var r0 = fetch_tile(lid, m0, n0, 0u, fa, fb);
    var r1: Staged;
    var r2: Staged;
    if DIST > 1u && k_tiles > 1u { r1 = fetch_tile(lid, m0, n0, BK, fa, fb); }
    if DIST > 2u && k_tiles > 2u { r2 = fetch_tile(lid, m0, n0, 2u * BK, fa, fb); }
    stash_tile(lid, 0u, r0, fa, fb);
    if DIST < k_tiles { r0 = fetch_tile(lid, m0, n0, DIST * BK, fa, fb); }
    // barrier: tile 0 is staged before any fragment load
    workgroupBarrier();

    for (var t = 0u; t < k_tiles; t++) {
        // multiply: 4×2 fragments per FRAG of K
        let cur = t % NBUF;
        for (var ks = 0u; ks < BK / FRAG; ks++) {
            let abase = cur * BM * A_STRIDE + wm * WM * A_STRIDE + ks * FRAG;
            let a0 = frag_a(abase);
            let a1 = frag_a(abase + FRAG * A_STRIDE);
            let a2 = frag_a(abase + 2u * FRAG * A_STRIDE);
            let a3 = frag_a(abase + 3u * FRAG * A_STRIDE);
            let bbase = cur * BK * B_STRIDE + ks * FRAG * B_STRIDE + wn * WN;
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
        // barrier (one buffer): every subgroup has read tile t before the stash overwrites it
        if NBUF == 1u {
            workgroupBarrier();
        }
        // stash tile t+1 (set (t+1) % DIST), refill the set with tile t+1+DIST
        let nt = t + 1u;
        if nt < k_tiles {
            let buf = nt % NBUF;
            // unconditional, as in gemm/coop16 (past K the fetch gives zeros)
            let k_next = (nt + DIST) * BK;
            switch nt % DIST {
                case 0u: {
                    stash_tile(lid, buf, r0, fa, fb);
                    r0 = fetch_tile(lid, m0, n0, k_next, fa, fb);
                }
                case 1u: {
                    stash_tile(lid, buf, r1, fa, fb);
                    r1 = fetch_tile(lid, m0, n0, k_next, fa, fb);
                }
                default: {
                    stash_tile(lid, buf, r2, fa, fb);
                    r2 = fetch_tile(lid, m0, n0, k_next, fa, fb);
                }
            }
        }
        // barrier: tile t+1 staged; two buffers: `cur` free for step t+1's stash
        workgroupBarrier();
    }

    // store
    let r = m0 + wm * WM;
    let q = n0 + wn * WN;
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
