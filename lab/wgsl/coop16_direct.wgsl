// Experiment (lab gemm_sweep, variant `cand coop16_direct ...`): gemm/coop16's tiling with every fragment
// loaded straight from the storage buffers (L1 instead of workgroup staging): no stash, no
// barriers, the next 16 of K loaded into registers while this 16 is multiplied. Full tiles only
// (M, N multiples of the tile, K a multiple of 16); takes coop16's plan (bindings, overrides,
// grid) as it is, except a folded grid (override FOLDED, more tiles than one dispatch dimension
// allows): its tile_of reads the tile grid from the dispatch, as coop16's did when this ran.
//
// Measured on the H100 (2026-11-22, 8192³ f16 → f32, TFLOP/s): 48.7 on the
// 128×128 tile against 179.1 staged, 34.6 on 128×256 against 190.7; the same with 64×64 of C
// per subgroup (4×4 fragments) 41–47. Fragments loaded from storage buffers cost 4–5× the
// workgroup staging: the staging stays.

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
override SG_X: u32 = BN / WN;
override SG_Y: u32 = BM / WM;
override WG: u32 = SG_X * SG_Y * SG;

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
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

fn frag_a(at: u32, ld: u32) -> FragA {
    return coopLoadT<FragA>(&a[at], ld);
}

fn frag_b(at: u32, ld: u32) -> FragB {
    return coopLoadT<FragB>(&b[at], ld);
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
    @builtin(subgroup_id) sg_id: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let tile = tile_of(wid, nwg);
    let r0 = tile.y * BM + (sg_id / SG_X) * WM;
    let q0 = tile.x * BN + (sg_id % SG_X) * WN;
    let lda = params.a_row_vecs * 8u;
    let ldb = params.b_row_vecs * 8u;
    let steps = params.k / FRAG;

    var c00 = FragC();
    var c01 = FragC();
    var c10 = FragC();
    var c11 = FragC();
    var c20 = FragC();
    var c21 = FragC();
    var c30 = FragC();
    var c31 = FragC();
    var a0 = frag_a(r0 * lda, lda);
    var a1 = frag_a((r0 + FRAG) * lda, lda);
    var a2 = frag_a((r0 + 2u * FRAG) * lda, lda);
    var a3 = frag_a((r0 + 3u * FRAG) * lda, lda);
    var b0 = frag_b(q0, ldb);
    var b1 = frag_b(q0 + FRAG, ldb);
    for (var s = 0u; s < steps; s++) {
        // load the next 16 of K (the last step reloads its own)
        let kn = min(s + 1u, steps - 1u) * FRAG;
        let na0 = frag_a(r0 * lda + kn, lda);
        let na1 = frag_a((r0 + FRAG) * lda + kn, lda);
        let na2 = frag_a((r0 + 2u * FRAG) * lda + kn, lda);
        let na3 = frag_a((r0 + 3u * FRAG) * lda + kn, lda);
        let nb0 = frag_b(kn * ldb + q0, ldb);
        let nb1 = frag_b(kn * ldb + q0 + FRAG, ldb);
        // multiply
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c20 = coopMultiplyAdd(a2, b0, c20);
        c21 = coopMultiplyAdd(a2, b1, c21);
        c30 = coopMultiplyAdd(a3, b0, c30);
        c31 = coopMultiplyAdd(a3, b1, c31);
        a0 = na0;
        a1 = na1;
        a2 = na2;
        a3 = na3;
        b0 = nb0;
        b1 = nb1;
    }
    // store
    let ld = params.n;
    store_c(c00, r0 * ld + q0, ld);
    store_c(c01, r0 * ld + q0 + FRAG, ld);
    store_c(c10, (r0 + FRAG) * ld + q0, ld);
    store_c(c11, (r0 + FRAG) * ld + q0 + FRAG, ld);
    store_c(c20, (r0 + 2u * FRAG) * ld + q0, ld);
    store_c(c21, (r0 + 2u * FRAG) * ld + q0 + FRAG, ld);
    store_c(c30, (r0 + 3u * FRAG) * ld + q0, ld);
    store_c(c31, (r0 + 3u * FRAG) * ld + q0 + FRAG, ld);
}
