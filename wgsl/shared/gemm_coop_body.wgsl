// include-only
// The helpers of the cooperative-matrix GEMMs (gemm/coop16, gemm/coop8 through
// shared/gemm_coop.wgsl, and gemm/coop16w): params and bindings, the staged f16 tiles with their
// global fetch and workgroup stash, the C store helpers, the grouped tile order. The stage file
// enables f16 and wgpu_cooperative_matrix and declares BM, BN, BK, SG, WM, WN, FRAG and the
// fragment types FragA, FragB, FragC before including this; the entry point follows it.

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

// One K step's share of A and B for this invocation, held in registers between the prefetch and
// the stash (double buffering): `fa` A items and `fb` B items (each ≤ MAX_FETCH), as named
// fields because a loop-indexed array would live in local memory.
struct Staged {
    a0: vec4<u32>, a1: vec4<u32>, a2: vec4<u32>, a3: vec4<u32>,
    b0: vec4<u32>, b1: vec4<u32>, b2: vec4<u32>, b3: vec4<u32>,
}

// load: the A tile at (m0, k0) and the B tile at (k0, n0), items lid, lid + WG, ...
fn fetch_tile(lid: u32, m0: u32, n0: u32, k0: u32, fa: u32, fb: u32) -> Staged {
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

// stash: a fetched tile into workgroup buffer `buf` (as f16)
fn stash_tile(lid: u32, buf: u32, s: Staged, fa: u32, fb: u32) {
    stash_a(lid, buf, s.a0);
    if fa > 1u { stash_a(lid + WG, buf, s.a1); }
    if fa > 2u { stash_a(lid + 2u * WG, buf, s.a2); }
    if fa > 3u { stash_a(lid + 3u * WG, buf, s.a3); }
    stash_b(lid, buf, s.b0);
    if fb > 1u { stash_b(lid + WG, buf, s.b1); }
    if fb > 2u { stash_b(lid + 2u * WG, buf, s.b2); }
    if fb > 3u { stash_b(lid + 3u * WG, buf, s.b3); }
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

