//! coop16's tiles, and which one a product takes ([`variant_for`]): the large tile for products
//! of many tiles, the deep one below them, the few-rows tiles for C of at most 64 rows.
//! Each is taken only where it fits the device (`variant_fits`); else the kernel's default.

use crate::device::Caps;

use super::super::policy::{COOP_INT4_ROWS_SPLIT_TARGET, COOP_ROWS_SPLIT_TARGET};

use super::{
    has_edges, variant_fits, CoopB, CoopKernel, CoopPolicy, CoopVariant, LARGE_TILE_MIN_WORKGROUPS,
};

/// coop16's tile for large products: 128×256×32 with one A buffer and two B buffers (16
/// subgroups of 32 on the H100; 43 KiB, so only without the edge path's squares: a C with
/// tiles across its right edge takes [`large_tile_edges`]), taken by [`variant_for`] from
/// [`LARGE_TILE_MIN_WORKGROUPS`] of its workgroups up: 271.0 / 242.0 TFLOP/s at 8192³ / 4096³
/// against 259.7 / 233.2 with one buffer of each (H100, 2026-11-26).
pub fn large_tile() -> CoopVariant {
    CoopVariant::new(CoopKernel::K16, 128, 256, 32).two_b_bufs()
}

/// [`large_tile`] with one staging buffer of each (16 subgroups of 32 on the H100, 43 KiB with
/// the edge path's squares), taken by [`variant_for`] from [`LARGE_TILE_MIN_WORKGROUPS`] of its
/// workgroups up where C has tiles across its right edge: 265.0 / 234.4 TFLOP/s at 8192³ /
/// 4096³ against 182.2 / 165.3 for the 128×128×32 tile (H100, 2026-11-22). Each K step reads 25%
/// fewer bytes from L2 per multiply-add.
pub fn large_tile_edges() -> CoopVariant {
    CoopVariant::new(CoopKernel::K16, 128, 256, 32).one_buf()
}

/// coop16's tile below [`LARGE_TILE_MIN_WORKGROUPS`]: 128×128×64 with one staging buffer (8
/// subgroups of 32 on the H100, 43 KiB): a K step of 64 between two barriers; 187.1 against
/// 147.1 TFLOP/s for the 128×128×32 tile at 3072³ (H100, 2026-11-22). It stages 8 loads per
/// invocation per operand at 32 lanes, so at subgroups of 16 it does not fit and the default
/// stays.
pub fn deep_tile() -> CoopVariant {
    CoopVariant::new(CoopKernel::K16, 128, 128, 64).one_buf()
}

/// coop16's tile for C of at most `rows` rows (decode-sized products; `rows` 16, 32 or 64):
/// `rows`×256×32, two K tiles in flight (`PREFETCH` 2: the steps are short and wait on their
/// loads), one, two or four fragment rows a subgroup (override `FM`: 8 subgroups of 32 each own
/// `rows`×32 of C), where the other tiles stage and multiply padding rows: 112 for every 16 of C in
/// the deep tile. The 16- and 32-row tiles stage in one buffer (two barriers a step; 17.8 / 19.0
/// KiB against 35.5 / 38.0 with two): with two buffers one 16-row workgroup was resident on an H200
/// SM, with one two are (`COOP_ROWS_SPLIT_TARGET` has the measurement; the 32-row tile gains as
/// much, its residency not measured). The 64-row tile keeps two buffers (with one, 64×4096×4096 f16
/// 4% faster, int4 4% slower; 64×4096×14336 level). K is split into as many workgroups as are
/// resident, never more (`COOP_ROWS_SPLIT_TARGET`). H200, µs, one buffer against two, each at its
/// best slices (the lab's few-rows sweep, 2026-11-30): f16 16×4096×4096 18.5 against 18.9,
/// 16×14336×4096 44.5 against 62.5, 16×4096×14336 42.8 against 53.5, 32×14336×4096 50.0 against
/// 68.0, 32×4096×14336 48.8 against 57.2; int4 16×14336×4096 51.5 against 63.9, 16×4096×14336 47.4
/// against 53.9, 32×14336×4096 61.4 against 76.6. Against the deep tile (the same sweep in an
/// earlier call that day, two staging buffers, K slices for 264 workgroups rounded up): 16 rows of
/// 4096² 24.0–24.3 against 48.0–48.3, of 4096×14336 71–72 against 113–114, of 14336×4096 82–83
/// against 84–85; the 64-row tile at M = 64 43.3 and 83.5 against 48.4 and 117.0 for 4096² and
/// 4096×14336, and 93.3 against 87.0 on 14336×4096 in K slices for 264 workgroups rounded up (5),
/// where its own slices (2, for 132) take 69.5 against the deep tile's 80.2 (2026-12-01;
/// [`variant_for`] has the wider C). Two tiles in flight against one, with two buffers:
/// 30.6 / 80.1 / 69.6 against 31.5 / 90.7 / 78.1 (32 rows of 4096² / 14336×4096 / 4096×14336),
/// 43.3 / 93.3 / 83.5 against 44.8 / 105.3 / 90.8 (64 rows). Two 16-row tiles for 32 rows: 69.8,
/// 93.5 and 292.8 (no K slices past one row of tiles). f16 on 16×128×32 (one buffer, two tiles in flight, 128
/// invocations; the width int4's tile gains by, [`rows_tile_int4`]) ran level at its best slices:
/// 44.4 / 43.4 / 18.2 µs against 44.0 / 43.5 / 18.2 at 16 rows of 14336×4096 / 4096×14336 /
/// 4096² (one call, 2026-11-30).
pub fn rows_tile(rows: u32) -> CoopVariant {
    let v = CoopVariant::new(CoopKernel::K16, rows, 256, 32).prefetch(2);
    if rows <= 32 {
        v.one_buf()
    } else {
        v
    }
}

/// coop16's tile for int4 weights in C of at most 16 rows: 16×128×64 with B in two sub-steps of
/// 32 rows (`B_SUB`, wgsl/gemm/lib/coop.wgsl): a K step's packed weights (each invocation two
/// adjacent columns and half a sub-step's rows: four words a sub-step, and once a step the
/// columns' scales and zero points) stay in registers through the step and are dequantized a
/// sub-step at a time into one staged buffer, a pair of weights one store
/// (gemm/lib/coop_stage_b2.wgsl), so a step's loads have the whole step to land. 128
/// invocations, 11 KiB of workgroup memory (15 with the edge path's squares); its K slices aim
/// for `COOP_INT4_ROWS_SPLIT_TARGET`. H200, µs, each tile in its best K slices (the lab's
/// few-rows sweep, 2026-11-30): against [`rows_tile`]`(16)` (16×256×32, two tiles in flight,
/// staged a column an invocation), 16×256×64 in two sub-steps a column an invocation took 44.0 /
/// 40.7 / 21.0 against 48.8 / 44.8 / 21.9 at 16 rows of 14336×4096 / 4096×14336 / 4096² (one
/// call); two columns an invocation 40.9 / 38.0 / 20.0 against 44.5 / 40.8 / 21.0 (another call,
/// two rounds); 128 columns a tile 38.2 (8 rows) / 35.6 / 18.7 against 40.4 / 37.7 / 19.9 (a
/// third call). Four sub-steps (BK 128) ran level or slower (two columns an invocation, the
/// second call: 41.1 / 37.2 / 21.1; 16×128×128 in the third 42.6 / 40.4 / 19.1), 64 columns a tile slower (43.7 / 40.0 / 18.8); at 32 rows the
/// 32×256×128 tile in four sub-steps ran slower on 14336×4096 (65.5 against 58.9), so 32 rows
/// keep [`rows_tile`].
pub fn rows_tile_int4() -> CoopVariant {
    CoopVariant::new(CoopKernel::K16, 16, 128, 64)
        .one_buf()
        .sub_steps(2)
}

/// The row counts of [`rows_tile`], smallest first.
pub const ROWS_TILES: [u32; 3] = [16, 32, 64];

/// The tiles for C of at most `rows` rows (one of [`ROWS_TILES`]) with B in `b`, the first
/// that fits taken: int4 weights' sub-steps need an invocation a column pair of the tile
/// (subgroups of 32), else [`rows_tile`].
fn rows_tiles_for(rows: u32, b: CoopB) -> Vec<CoopVariant> {
    match b {
        CoopB::Int4 { .. } if rows == 16 => vec![rows_tile_int4(), rows_tile(rows)],
        _ => vec![rows_tile(rows)],
    }
}

/// Where `p` is the policy of a tile for C of few rows ([`rows_tile`], [`rows_tile_int4`]),
/// the workgroups its K slices aim for (`COOP_ROWS_SPLIT_TARGET`, `COOP_INT4_ROWS_SPLIT_TARGET`:
/// those resident at once).
pub(crate) fn rows_resident(p: &CoopPolicy) -> Option<u64> {
    if *p == rows_tile_int4().policy {
        return Some(COOP_INT4_ROWS_SPLIT_TARGET);
    }
    COOP_ROWS_SPLIT_TARGET
        .into_iter()
        .find(|&(rows, _)| rows_tile(rows).policy == *p)
        .map(|(_, target)| target)
}

/// The variant of `kind` for an `m × n` C of f16 B: coop16 takes the smallest [`rows_tile`] that
/// holds the rows where it fits (the 64-row tile does not beside the edge path's squares); else
/// [`large_tile`] (or, where that does not fit, [`large_tile_edges`]) when that gives at least
/// [`LARGE_TILE_MIN_WORKGROUPS`] workgroups, else [`deep_tile`], each where it fits `caps`, else
/// `kind`'s default.
pub fn variant_for(caps: &Caps, kind: CoopKernel, m: usize, n: usize) -> CoopVariant {
    variant_for_b(caps, kind, CoopB::F16, m, n)
}

/// [`variant_for`] with B in `b`: int4 weights take [`rows_tile_int4`] where C has at most 16
/// rows.
pub fn variant_for_b(caps: &Caps, kind: CoopKernel, b: CoopB, m: usize, n: usize) -> CoopVariant {
    variant_for_edges(caps, kind, b, m, n, &|p: &CoopPolicy| has_edges(p, n))
}

/// [`variant_for_b`] where `edges` says whether a tile needs the edge path.
pub(crate) fn variant_for_edges(
    caps: &Caps,
    kind: CoopKernel,
    b: CoopB,
    m: usize,
    n: usize,
    edges: &dyn Fn(&CoopPolicy) -> bool,
) -> CoopVariant {
    let fits = |v: &CoopVariant| variant_fits(caps, v, edges(&v.policy)).is_ok();
    if kind == CoopKernel::K16 {
        let rows = ROWS_TILES.into_iter().find(|&r| m <= r as usize);
        let rows = rows.map_or(vec![], |r| rows_tiles_for(r, b));
        if let Some(v) = rows.into_iter().find(fits) {
            return v;
        }
        let large = large_tile();
        let tiles = m.div_ceil(large.policy.bm as usize) * n.div_ceil(large.policy.bn as usize);
        if tiles >= LARGE_TILE_MIN_WORKGROUPS {
            if let Some(v) = [large, large_tile_edges()].into_iter().find(fits) {
                return v;
            }
        }
        let deep = deep_tile();
        if fits(&deep) {
            return deep;
        }
    }
    kind.variant()
}
