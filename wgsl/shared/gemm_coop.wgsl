// include-only
// The body of the cooperative-matrix GEMM shared by gemm/coop16.wgsl and gemm/coop8.wgsl (read
// coop16.wgsl's header for the design). The stage file enables f16 and
// wgpu_cooperative_matrix, declares BM, BN, BK, SG, WM, WN, FRAG and the fragment types
// FragA, FragB (f16 operands) and FragC (f32 accumulator) of its shape, then includes this.

// f16 of padding per staged row: keeps rows 16-byte aligned and staggers the banks
const PAD: u32 = 8u;
const MAX_FETCH: u32 = 4u;

override SG_X: u32 = BN / WN;
override SG_Y: u32 = BM / WM;
override WG: u32 = SG_X * SG_Y * SG;
override A_STRIDE: u32 = BK + PAD;
override B_STRIDE: u32 = BN + PAD;

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

// [buffer][BM][A_STRIDE]
var<workgroup> As: array<f16, 2u * BM * A_STRIDE>;
// [buffer][BK][B_STRIDE]
var<workgroup> Bs: array<f16, 2u * BK * B_STRIDE>;
// one FRAG×FRAG staging square per subgroup, for edge tiles
var<workgroup> Cs: array<f32, SG_X * SG_Y * FRAG * FRAG>;

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
    if li < a_items() && row < params.m && kv < params.a_row_vecs {
        return a[row * params.a_row_vecs + kv];
    }
    return vec4<u32>(0u);
}

fn fetch_b(li: u32, k0: u32, n0: u32) -> vec4<u32> {
    let per_row = BN / 8u;
    let kr = k0 + li / per_row;
    let nv = n0 / 8u + li % per_row;
    if li < b_items() && kr < params.k && nv < params.b_row_vecs {
        return b[kr * params.b_row_vecs + nv];
    }
    return vec4<u32>(0u);
}

fn stash_a(li: u32, buf: u32, v: vec4<u32>) {
    if li >= a_items() {
        return;
    }
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
    if li >= b_items() {
        return;
    }
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

// naga 30's WGSL front end pushes a cooperative store without flushing the pending expressions
// of its operands (the SPIR-V writer then panics, "Expression is not cached"); a store inside a
// function sees only arguments, which need no flushing. Matrices are passed by value, never arrays.
fn store_c(m: FragC, at: u32, ld: u32) {
    coopStoreT(m, &c[at], ld);
}

fn store_staged(m: FragC, at: u32) {
    coopStoreT(m, &Cs[at], FRAG);
}

// Copies subgroup `s`'s staged FRAG×FRAG square to C at (row0, col0), skipping what is outside C.
// Call between two barriers (after the coopStoreT into Cs, before Cs is reused).
fn spill(s: u32, lane: u32, row0: u32, col0: u32) {
    for (var e = lane; e < FRAG * FRAG; e += SG) {
        let row = row0 + e / FRAG;
        let col = col0 + e % FRAG;
        if row < params.m && col < params.n {
            c[row * params.n + col] = Cs[s * FRAG * FRAG + e];
        }
    }
}

// Workgroup -> tile: groups of GROUP_M tile rows walked column by column (Triton's grouped
// ordering), so the workgroups resident at once share rows of A and columns of B in L2. A
// bijection of the grid onto itself; mirrored and checked in src/gemm/policy.rs (`tile_of`).
const GROUP_M: u32 = 8u;

fn tile_of(wid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    let per_group = GROUP_M * nwg.x;
    let pid = wid.x + wid.y * nwg.x;
    let first_m = (pid / per_group) * GROUP_M;
    let rows = min(nwg.y - first_m, GROUP_M);
    let r = pid % per_group;
    // (tile column, tile row)
    return vec2<u32>(r / rows, first_m + r % rows);
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

    var c00 = FragC();
    var c01 = FragC();
    var c10 = FragC();
    var c11 = FragC();
    var c20 = FragC();
    var c21 = FragC();
    var c30 = FragC();
    var c31 = FragC();
    // prefetch registers as named variables (a loop-indexed array would live in local memory)
    var pa0: vec4<u32>; var pa1: vec4<u32>; var pa2: vec4<u32>; var pa3: vec4<u32>;
    var pb0: vec4<u32>; var pb1: vec4<u32>; var pb2: vec4<u32>; var pb3: vec4<u32>;

    // load: tile 0 into buffer 0
    pa0 = fetch_a(lid, m0, 0u);
    if fa > 1u { pa1 = fetch_a(lid + WG, m0, 0u); }
    if fa > 2u { pa2 = fetch_a(lid + 2u * WG, m0, 0u); }
    if fa > 3u { pa3 = fetch_a(lid + 3u * WG, m0, 0u); }
    pb0 = fetch_b(lid, 0u, n0);
    if fb > 1u { pb1 = fetch_b(lid + WG, 0u, n0); }
    if fb > 2u { pb2 = fetch_b(lid + 2u * WG, 0u, n0); }
    if fb > 3u { pb3 = fetch_b(lid + 3u * WG, 0u, n0); }
    stash_a(lid, 0u, pa0);
    if fa > 1u { stash_a(lid + WG, 0u, pa1); }
    if fa > 2u { stash_a(lid + 2u * WG, 0u, pa2); }
    if fa > 3u { stash_a(lid + 3u * WG, 0u, pa3); }
    stash_b(lid, 0u, pb0);
    if fb > 1u { stash_b(lid + WG, 0u, pb1); }
    if fb > 2u { stash_b(lid + 2u * WG, 0u, pb2); }
    if fb > 3u { stash_b(lid + 3u * WG, 0u, pb3); }
    // barrier: tile 0 is staged before any fragment load
    workgroupBarrier();

    for (var t = 0u; t < k_tiles; t++) {
        let cur = t % 2u;
        let more = t + 1u < k_tiles;
        let k_next = (t + 1u) * BK;
        // prefetch tile t+1 into registers
        if more {
            pa0 = fetch_a(lid, m0, k_next);
            if fa > 1u { pa1 = fetch_a(lid + WG, m0, k_next); }
            if fa > 2u { pa2 = fetch_a(lid + 2u * WG, m0, k_next); }
            if fa > 3u { pa3 = fetch_a(lid + 3u * WG, m0, k_next); }
            pb0 = fetch_b(lid, k_next, n0);
            if fb > 1u { pb1 = fetch_b(lid + WG, k_next, n0); }
            if fb > 2u { pb2 = fetch_b(lid + 2u * WG, k_next, n0); }
            if fb > 3u { pb3 = fetch_b(lid + 3u * WG, k_next, n0); }
        }
        // multiply: 4×2 fragments per FRAG of K
        for (var ks = 0u; ks < BK / FRAG; ks++) {
            let abase = cur * BM * A_STRIDE + wm * WM * A_STRIDE + ks * FRAG;
            let a0 = coopLoadT<FragA>(&As[abase], A_STRIDE);
            let a1 = coopLoadT<FragA>(&As[abase + FRAG * A_STRIDE], A_STRIDE);
            let a2 = coopLoadT<FragA>(&As[abase + 2u * FRAG * A_STRIDE], A_STRIDE);
            let a3 = coopLoadT<FragA>(&As[abase + 3u * FRAG * A_STRIDE], A_STRIDE);
            let bbase = cur * BK * B_STRIDE + ks * FRAG * B_STRIDE + wn * WN;
            let b0 = coopLoadT<FragB>(&Bs[bbase], B_STRIDE);
            let b1 = coopLoadT<FragB>(&Bs[bbase + FRAG], B_STRIDE);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
        }
        // stash tile t+1 into the other buffer (its readers finished before the last barrier)
        if more {
            stash_a(lid, 1u - cur, pa0);
            if fa > 1u { stash_a(lid + WG, 1u - cur, pa1); }
            if fa > 2u { stash_a(lid + 2u * WG, 1u - cur, pa2); }
            if fa > 3u { stash_a(lid + 3u * WG, 1u - cur, pa3); }
            stash_b(lid, 1u - cur, pb0);
            if fb > 1u { stash_b(lid + WG, 1u - cur, pb1); }
            if fb > 2u { stash_b(lid + 2u * WG, 1u - cur, pb2); }
            if fb > 3u { stash_b(lid + 3u * WG, 1u - cur, pb3); }
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
        store_c(c00, r0 * ld + q0, ld);
        store_c(c01, r0 * ld + q0 + FRAG, ld);
        store_c(c10, (r0 + FRAG) * ld + q0, ld);
        store_c(c11, (r0 + FRAG) * ld + q0 + FRAG, ld);
        store_c(c20, (r0 + 2u * FRAG) * ld + q0, ld);
        store_c(c21, (r0 + 2u * FRAG) * ld + q0 + FRAG, ld);
        store_c(c30, (r0 + 3u * FRAG) * ld + q0, ld);
        store_c(c31, (r0 + 3u * FRAG) * ld + q0 + FRAG, ld);
    } else {
        // edge tile (uniform over the workgroup): stage each fragment, copy what is inside C.
        // Barriers: the staged square is complete before lanes read it, and read before the
        // next fragment overwrites it.
        let cs = sg_id * FRAG * FRAG;
        store_staged(c00, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0, q0);
        workgroupBarrier();
        store_staged(c01, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0, q0 + FRAG);
        workgroupBarrier();
        store_staged(c10, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0 + FRAG, q0);
        workgroupBarrier();
        store_staged(c11, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0 + FRAG, q0 + FRAG);
        workgroupBarrier();
        store_staged(c20, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0 + 2u * FRAG, q0);
        workgroupBarrier();
        store_staged(c21, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0 + 2u * FRAG, q0 + FRAG);
        workgroupBarrier();
        store_staged(c30, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0 + 3u * FRAG, q0);
        workgroupBarrier();
        store_staged(c31, cs);
        workgroupBarrier();
        spill(sg_id, lane, r0 + 3u * FRAG, q0 + FRAG);
    }
}
