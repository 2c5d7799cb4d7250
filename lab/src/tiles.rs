//! The tiles the lab sweeps (`gemm_sweep`) and inspects (`vk_stats`): the library keeps only the
//! tiles it uses (`GemmPolicy::default`, `GemmPolicy::skinny`, `coop::large_tile`, ...); these
//! lists of candidates are the lab's.

use wgsimd::gemm::coop::{self, CoopKernel, CoopVariant};
use wgsimd::gemm::GemmPolicy;

/// The portable kernel's tiles: the 8×8 tiles of the first sweeps (double-buffered, unrolled by
/// 4), then the K-loop knobs (`1buf` one workgroup buffer, `pair` two steps per iteration, `u8`
/// unrolled by 8). "64x128x8 w8x4 pair u8" is the default policy, "32x64x8" the skinny one.
pub fn tiled() -> Vec<(String, GemmPolicy)> {
    let t = GemmPolicy::tile;
    let d = t(64, 128, 8, 8);
    let v = vec![
        ("128x128x8", t(128, 128, 8, 0)),
        ("128x128x8 w8x4", t(128, 128, 8, 8)),
        ("128x128x8 w4x8", t(128, 128, 8, 4)),
        ("128x128x16", t(128, 128, 16, 0)),
        ("128x128x16 w8x4", t(128, 128, 16, 8)),
        ("128x256x8 w8x4", t(128, 256, 8, 8)),
        ("256x128x8 w8x4", t(256, 128, 8, 8)),
        ("128x256x16 w8x4", t(128, 256, 16, 8)),
        ("64x128x8 w8x4", d),
        ("64x128x8 w4x8", t(64, 128, 8, 4)),
        ("64x128x16 w8x4", t(64, 128, 16, 8)),
        ("64x256x8 w8x4", t(64, 256, 8, 8)),
        ("128x64x8 w8x4", t(128, 64, 8, 8)),
        ("64x64x8 w8x4", t(64, 64, 8, 8)),
        ("64x64x16 w8x4", t(64, 64, 16, 8)),
        ("32x64x8", GemmPolicy::skinny()),
        ("64x128x8 w8x4 u8", d.unrolled(8)),
        ("64x128x8 w8x4 pair", d.paired()),
        ("64x128x8 w8x4 pair u8", d.paired().unrolled(8)),
        ("64x128x8 w8x4 1buf", d.buffered(1)),
        ("64x128x16 w8x4 u8", t(64, 128, 16, 8).unrolled(8)),
        (
            "64x128x16 w8x4 1buf u8",
            t(64, 128, 16, 8).buffered(1).unrolled(8),
        ),
    ];
    v.into_iter().map(|(n, p)| (n.to_string(), p)).collect()
}

/// The cooperative kernels' tiles: coop16's (two buffers; `1buf` one staging buffer; `1a2b` one
/// A and two B buffers), the shipped ones among them (`coop::large_tile`, `large_tile_edges`,
/// `deep_tile`, the 128×128×32 default), and coop8's default.
pub fn coop() -> Vec<(String, CoopVariant)> {
    let k = |bm, bn, bk| CoopVariant::new(CoopKernel::K16, bm, bn, bk);
    let v = vec![
        ("coop16 128x128x32", k(128, 128, 32)),
        ("coop16 128x128x16", k(128, 128, 16)),
        ("coop16 128x256x16", k(128, 256, 16)),
        ("coop16 192x128x32", k(192, 128, 32)),
        ("coop16 128x128x64 1buf", k(128, 128, 64).one_buf()),
        ("coop16 256x128x32 1buf", k(256, 128, 32).one_buf()),
        ("coop16 128x256x32 1buf", k(128, 256, 32).one_buf()),
        ("coop16 128x256x32 1a2b", k(128, 256, 32).two_b_bufs()),
        ("coop16 256x128x32 1a2b", k(256, 128, 32).two_b_bufs()),
        // within 48 KiB only without the edge path's staging squares
        ("coop16 128x256x48 1buf", k(128, 256, 48).one_buf()),
        ("coop16 256x128x48 1buf", k(256, 128, 48).one_buf()),
        ("coop16 128x192x64 1buf", k(128, 192, 64).one_buf()),
        ("coop16 128x128x32 1buf", k(128, 128, 32).one_buf()),
        // the 16-row tile with two staging buffers (one resident on an H200 SM, where the
        // shipped tile's one buffer lets two be)
        ("coop16 16x256x32 2buf p2", k(16, 256, 32).prefetch(2)),
        ("coop8 64x64x32", CoopKernel::K8.variant()),
    ];
    let mut out: Vec<(String, CoopVariant)> =
        v.into_iter().map(|(n, c)| (n.to_string(), c)).collect();
    // the shipped tiles, where the list above does not name them already
    for (what, v) in [
        ("large_tile", coop::large_tile()),
        ("large_tile_edges", coop::large_tile_edges()),
        ("deep_tile", coop::deep_tile()),
        ("rows_tile 16", coop::rows_tile(16)),
        ("rows_tile 32", coop::rows_tile(32)),
        ("rows_tile 64", coop::rows_tile(64)),
    ] {
        if let Some(x) = out.iter_mut().find(|(_, c)| *c == v) {
            x.0 = format!("{} ({what})", x.0);
        } else {
            let p = v.policy;
            out.push((format!("coop16 {}x{}x{} ({what})", p.bm, p.bn, p.bk), v));
        }
    }
    out
}
