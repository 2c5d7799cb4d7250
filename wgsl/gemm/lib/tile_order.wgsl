// include-only
// Which tile of C a workgroup computes, for the GEMM kernels with a 2-D tile grid
// (gemm/lib/tiled.wgsl, gemm/lib/coop.wgsl). The includer declares `params` (with
// `m` and `n`, C's rows and columns) and the tile's `BM` × `BN`; a kernel that may meet a
// folded grid calls `past_c` on its tile before anything else and exits when it says so.

// Workgroup -> tile: groups of GROUP_M tile rows walked column by column (Triton's grouped
// ordering), so the workgroups resident at once share rows of A and columns of B in L2. A
// bijection of the workgroups onto the tiles; mirrored and checked in src/gemm/policy.rs
// (`tile_of`). Workgroups are numbered row by row of the grid, which is the tile grid itself
// unless that has more rows than a dispatch dimension allows (M past 65535 tiles): then the
// host folds it into fewer, wider rows, and the workgroups past the last tile get a tile row
// past C's (`past_c`) and do nothing.
const GROUP_M: u32 = 8u;

fn tile_of(wid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    // the tile grid: the dispatch itself unless folded (FOLDED, a constant: the unfolded
    // kernel compiles as it did before folding existed; computed from params, the f16
    // register-tiled kernel measured 2% slower on the H100, 2026-11-26)
    var nx = nwg.x;
    var ny = nwg.y;
    if FOLDED != 0u {
        nx = (params.n + BN - 1u) / BN;
        ny = (params.m + BM - 1u) / BM;
    }
    // (without a return under a condition: naga would then count what follows the call as
    // non-uniform control flow, where the cooperative operations may not be)
    let past = FOLDED != 0u && wid.x + wid.y * nwg.x >= nx * ny;
    let pid = select(wid.x + wid.y * nwg.x, 0u, past);
    let per_group = GROUP_M * nx;
    let first_m = (pid / per_group) * GROUP_M;
    let rows = min(ny - first_m, GROUP_M);
    let r = pid % per_group;
    // (tile column, tile row)
    return select(vec2<u32>(r / rows, first_m + r % rows), vec2<u32>(0u, ny), past);
}

// Whether `tile_of` gave a workgroup of a folded grid no tile (uniform in the workgroup).
fn past_c(tile: vec2<u32>) -> bool {
    return tile.y * BM >= params.m;
}

// 1: the host folded the tile grid (src/gemm/limits.rs, `tile_dispatch`), so some workgroups
// have no tile and exit; 0 (every product whose tile grid fits the dispatch): no check.
override FOLDED: u32 = 0u;
