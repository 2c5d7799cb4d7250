//! coop16's tiles, and which one a product takes ([`variant_for`]): the large tile for products
//! of many tiles, the deep one below them, the one-fragment-row tile for C of at most 16 rows.
//! Each is taken only where it fits the device (`variant_fits`); else the kernel's default.

use crate::device::Caps;

use super::{
    has_edges, variant_fits, CoopKernel, CoopPolicy, CoopVariant, LARGE_TILE_MIN_WORKGROUPS,
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

/// coop16's tile for C of at most 16 rows (decode-sized products): 16×256×32, two staging
/// buffers, one fragment row a subgroup (override `FM` = 1: 8 subgroups of 32 each own 16×32 of
/// C), where the other tiles stage and multiply 112 rows of padding for every 16 of C. K is split
/// over about `COOP_SPLIT_TARGET_WORKGROUPS` workgroups as for every cooperative tile, and its
/// partial products are an eighth of the deep tile's. H200 (the lab's few-rows sweep,
/// 2026-11-30, f16, µs, against [`deep_tile`]): M×4096×4096 24.0–24.3 against 48.0–48.3 at M =
/// 4–16, M×4096×14336 71–72 against 113–114, M×14336×4096 82–83 against 84–85; with two tiles
/// in flight (override `PREFETCH` 2, which it takes) 23.7, 62.5 and 71.7 at 16 rows.
pub fn rows_tile() -> CoopVariant {
    CoopVariant::new(CoopKernel::K16, 16, 256, 32)
}

/// The variant of `kind` for an `m × n` C: coop16 takes [`rows_tile`] for at most 16 rows, else
/// [`large_tile`] (or, where that does not fit, [`large_tile_edges`]) when that gives at least
/// [`LARGE_TILE_MIN_WORKGROUPS`] workgroups, else [`deep_tile`], each where it fits `caps`,
/// else `kind`'s default.
pub fn variant_for(caps: &Caps, kind: CoopKernel, m: usize, n: usize) -> CoopVariant {
    variant_for_edges(caps, kind, m, n, &|p: &CoopPolicy| has_edges(p, n))
}

/// [`variant_for`] where `edges` says whether a tile needs the edge path.
pub(crate) fn variant_for_edges(
    caps: &Caps,
    kind: CoopKernel,
    m: usize,
    n: usize,
    edges: &dyn Fn(&CoopPolicy) -> bool,
) -> CoopVariant {
    let fits = |v: &CoopVariant| variant_fits(caps, v, edges(&v.policy)).is_ok();
    if kind == CoopKernel::K16 {
        let rows = rows_tile();
        if m <= rows.policy.bm as usize && fits(&rows) {
            return rows;
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
