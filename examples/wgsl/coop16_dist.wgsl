// Experiment (examples/gemm_sweep.rs, EXP_SOURCE): gemm/coop16 with its register prefetch
// DIST K steps ahead instead of one: tile t+1+DIST is loaded right after tile t+1 is stashed,
// into a register set named statically (r0, r1, r2 by tile number modulo DIST, through a
// switch: rotating the sets by moves would wait for the loads at the move). DIST sets of
// prefetch registers are live through the multiply. Full tiles only (M, N multiples of the
// tile, K a multiple of BK); takes coop16's plan (bindings, overrides, grid) as it is.
// tests/sim_coop.rs runs it on the simulator at every DIST.
//
// Measured on the H100 (2026-11-22, seventh session, f16 → f32, TFLOP/s at 8192³ / 4096³).
// Written first with each refill under `if more`, which made NVIDIA's compiler wait for the
// loads right after issuing them (the SASS finding in docs/gemm.md), it measured against the
// kernel of that time (128×128×32 178.5 / 163.7, 128×256×32 one buffer 189.6 / 172.1,
// 256×128×32 one buffer 184.9 / 170.9):
//   DIST 1: 168.7 / 156.8, 189.7 / 176.5, 182.9 / 170.6
//   DIST 2: 166.4 / 153.0, 191.1 / 174.7, 184.4 / 171.4
//   DIST 3: 158.2 / 145.7, 181.2 / 168.1, 177.0 / 164.8
// As it is now (refills unconditional), against gemm/coop16 with its prefetch unconditional
// (182.2 / 165.3, 265.0 / 234.4, 245.6 / 217.7):
//   DIST 1: 167.0 / 153.1, 210.8 / 190.9, 206.0 / 188.3
//   DIST 2: 164.3 / 150.5, 213.4 / 191.8, 204.6 / 185.2
//   DIST 3: 159.7 / 148.9, 164.9 / 149.6, 156.2 / 146.1
// Loading further ahead does not help, and loading right after the stash (here) is slower
// than at the top of the step (gemm/coop16).
// wgsimd: runtime checks off

enable f16;
enable wgpu_cooperative_matrix;

override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 32u;
override SG: u32 = 32u;
override NBUF: u32 = 2u;
const WM: u32 = 64u;
const WN: u32 = 32u;
const FRAG: u32 = 16u;
const PAD: u32 = 8u;
// how many K steps ahead the loads run (1..3)
const DIST: u32 = 2u;
override SG_X: u32 = BN / WN;
override SG_Y: u32 = BM / WM;
override WG: u32 = SG_X * SG_Y * SG;
override A_STRIDE: u32 = BK + PAD;
override B_STRIDE: u32 = BN + PAD;
override AS_LEN: u32 = NBUF * BM * A_STRIDE;
override BS_LEN: u32 = NBUF * BK * B_STRIDE;

alias FragA = coop_mat16x16<f16, A>;
alias FragB = coop_mat16x16<f16, B>;
alias FragC = coop_mat16x16<f32, C>;

struct Params {
    m: u32,
    n: u32,
    k: u32,
    a_row_vecs: u32,
    b_row_vecs: u32,
    k_tiles: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> As: array<f16, AS_LEN>;
var<workgroup> Bs: array<f16, BS_LEN>;

struct Staged {
    a0: vec4<u32>, a1: vec4<u32>, a2: vec4<u32>, a3: vec4<u32>,
    b0: vec4<u32>, b1: vec4<u32>, b2: vec4<u32>, b3: vec4<u32>,
}

fn a_items() -> u32 {
    return BM * BK / 8u;
}

fn b_items() -> u32 {
    return BK * BN / 8u;
}

fn fetch_a(li: u32, m0: u32, k0: u32) -> vec4<u32> {
    let per_row = BK / 8u;
    let row = m0 + li / per_row;
    let kv = k0 / 8u + li % per_row;
    return a[row * params.a_row_vecs + kv];
}

fn fetch_b(li: u32, k0: u32, n0: u32) -> vec4<u32> {
    let per_row = BN / 8u;
    let kr = k0 + li / per_row;
    let nv = n0 / 8u + li % per_row;
    return b[kr * params.b_row_vecs + nv];
}

// items lid, lid + WG, ... (fa, fb of them, at most 4 each)
fn fetch_tile(lid: u32, m0: u32, n0: u32, k0: u32) -> Staged {
    let fa = a_items() / WG;
    let fb = b_items() / WG;
    var s: Staged;
    s.a0 = fetch_a(lid, m0, k0);
    if fa > 1u { s.a1 = fetch_a(lid + WG, m0, k0); }
    if fa > 2u { s.a2 = fetch_a(lid + 2u * WG, m0, k0); }
    if fa > 3u { s.a3 = fetch_a(lid + 3u * WG, m0, k0); }
    s.b0 = fetch_b(lid, k0, n0);
    if fb > 1u { s.b1 = fetch_b(lid + WG, k0, n0); }
    if fb > 2u { s.b2 = fetch_b(lid + 2u * WG, k0, n0); }
    if fb > 3u { s.b3 = fetch_b(lid + 3u * WG, k0, n0); }
    return s;
}

fn stash_a(li: u32, buf: u32, v: vec4<u32>) {
    let per_row = BK / 8u;
    let at = buf * BM * A_STRIDE + (li / per_row) * A_STRIDE + (li % per_row) * 8u;
    let p0 = vec2<f16>(unpack2x16float(v.x));
    let p1 = vec2<f16>(unpack2x16float(v.y));
    let p2 = vec2<f16>(unpack2x16float(v.z));
    let p3 = vec2<f16>(unpack2x16float(v.w));
    As[at] = p0.x;
    As[at + 1u] = p0.y;
    As[at + 2u] = p1.x;
    As[at + 3u] = p1.y;
    As[at + 4u] = p2.x;
    As[at + 5u] = p2.y;
    As[at + 6u] = p3.x;
    As[at + 7u] = p3.y;
}

fn stash_b(li: u32, buf: u32, v: vec4<u32>) {
    let per_row = BN / 8u;
    let at = buf * BK * B_STRIDE + (li / per_row) * B_STRIDE + (li % per_row) * 8u;
    let p0 = vec2<f16>(unpack2x16float(v.x));
    let p1 = vec2<f16>(unpack2x16float(v.y));
    let p2 = vec2<f16>(unpack2x16float(v.z));
    let p3 = vec2<f16>(unpack2x16float(v.w));
    Bs[at] = p0.x;
    Bs[at + 1u] = p0.y;
    Bs[at + 2u] = p1.x;
    Bs[at + 3u] = p1.y;
    Bs[at + 4u] = p2.x;
    Bs[at + 5u] = p2.y;
    Bs[at + 6u] = p3.x;
    Bs[at + 7u] = p3.y;
}

fn stash_tile(lid: u32, buf: u32, s: Staged) {
    let fa = a_items() / WG;
    let fb = b_items() / WG;
    stash_a(lid, buf, s.a0);
    if fa > 1u { stash_a(lid + WG, buf, s.a1); }
    if fa > 2u { stash_a(lid + 2u * WG, buf, s.a2); }
    if fa > 3u { stash_a(lid + 3u * WG, buf, s.a3); }
    stash_b(lid, buf, s.b0);
    if fb > 1u { stash_b(lid + WG, buf, s.b1); }
    if fb > 2u { stash_b(lid + 2u * WG, buf, s.b2); }
    if fb > 3u { stash_b(lid + 3u * WG, buf, s.b3); }
}

fn frag_a(at: u32) -> FragA {
    return coopLoadT<FragA>(&As[at], A_STRIDE);
}

fn frag_b(at: u32) -> FragB {
    return coopLoadT<FragB>(&Bs[at], B_STRIDE);
}

fn store_c(m: FragC, at: u32, ld: u32) {
    coopStoreT(m, &c[at], ld);
}

const GROUP_M: u32 = 8u;

fn tile_of(wid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    let per_group = GROUP_M * nwg.x;
    let pid = wid.x + wid.y * nwg.x;
    let first_m = (pid / per_group) * GROUP_M;
    let rows = min(nwg.y - first_m, GROUP_M);
    let r = pid % per_group;
    return vec2<u32>(r / rows, first_m + r % rows);
}

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let tile = tile_of(wid, nwg);
    let n0 = tile.x * BN;
    let m0 = tile.y * BM;
    let k_tiles = params.k_tiles;
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
    var r0 = fetch_tile(lid, m0, n0, 0u);
    var r1: Staged;
    var r2: Staged;
    if DIST > 1u && k_tiles > 1u { r1 = fetch_tile(lid, m0, n0, BK); }
    if DIST > 2u && k_tiles > 2u { r2 = fetch_tile(lid, m0, n0, 2u * BK); }
    stash_tile(lid, 0u, r0);
    if DIST < k_tiles { r0 = fetch_tile(lid, m0, n0, DIST * BK); }
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
            // unconditional (see gemm/coop16), past the last tile wrapping to tile 0: its fetch has
            // no bounds checks
            let k_next = ((nt + DIST) % k_tiles) * BK;
            switch nt % DIST {
                case 0u: {
                    stash_tile(lid, buf, r0);
                    r0 = fetch_tile(lid, m0, n0, k_next);
                }
                case 1u: {
                    stash_tile(lid, buf, r1);
                    r1 = fetch_tile(lid, m0, n0, k_next);
                }
                default: {
                    stash_tile(lid, buf, r2);
                    r2 = fetch_tile(lid, m0, n0, k_next);
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
