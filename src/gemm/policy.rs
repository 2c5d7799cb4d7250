//! GEMM tuning: one [`GemmPolicy`] per kernel launch, and the check that its invocations cover
//! every element of every tile.
//!
//! The seed this crate replaces had a simdgroup layout that covered only rows 0–31 of a 64-row
//! tile. Here the layout is a function of the policy alone, mirrored from `wgsl/gemm/tiled.wgsl`,
//! `tiled_wide.wgsl` and `shared/gemm_tiled.wgsl` in [`c_block`], [`a_item`] and [`b_item`], and
//! [`GemmPolicy::check`] enumerates it against the workgroup size naga reflects from the
//! specialized kernel: every C element of the tile owned by exactly one invocation, every A and B
//! element of a K step loaded by exactly one item, within the register and workgroup-memory
//! budgets the kernel declares. The per-invocation block (`tm × tn`) picks the kernel
//! ([`GemmPolicy::kernel`]): 8×8 `gemm/tiled`, 8×16 `gemm/tiled_wide`.

use crate::error::{Error, Result};

/// Element format of a GEMM operand as the portable kernel reads it (`A_FMT` / `B_FMT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// f32, 4 per vec4 load.
    F32,
    /// f16 (u16 bits on the host), 8 per vec4 load.
    F16,
    /// int4, 8 per u32 along K (B only).
    Int4,
}

impl Format {
    /// The override value the kernel expects.
    pub fn code(self) -> u32 {
        match self {
            Format::F32 => 0,
            Format::F16 => 1,
            Format::Int4 => 2,
        }
    }
    /// Elements per `vec4<u32>` load (per `u32` for int4).
    pub fn per_load(self) -> u32 {
        match self {
            Format::F32 => 4,
            Format::F16 | Format::Int4 => 8,
        }
    }
}

/// Tile sizes and K-loop knobs of the portable kernels (`wgsl/gemm/tiled.wgsl`,
/// `tiled_wide.wgsl`); passed as overrides, except `tm × tn`, which picks the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmPolicy {
    /// Rows of C per workgroup.
    pub bm: u32,
    /// Columns of C per workgroup.
    pub bn: u32,
    /// K per step (staged in workgroup memory, two buffers).
    pub bk: u32,
    /// Rows of C per invocation: the kernel's `TM` (8; the accumulators are written out as
    /// variables, see tiled.wgsl), checked at plan time.
    pub tm: u32,
    /// Columns of C per invocation: the kernel's `TN`, 8 (`gemm/tiled`) or 16
    /// (`gemm/tiled_wide`).
    pub tn: u32,
    /// Lane layout (`WARP_X`): 0 = row-major (`tx = lid % (BN/TN)`); `w` (dividing 32) =
    /// each 32 consecutive invocations form a `w × 32/w` patch of (tx, ty), so a subgroup of 32
    /// reads fewer distinct workgroup-memory words per k (CUTLASS's 8×4 warp arrangement at 8).
    pub warp_x: u32,
    /// Workgroup buffers per operand (`BUFFERS`): 2 = double buffering, one barrier per K step;
    /// 1 = half the workgroup memory, two barriers per step (both with a register prefetch).
    pub buffers: u32,
    /// `PAIRED`: the K loop unrolled by two steps so each step's buffer index is a literal.
    pub paired: bool,
    /// `UNROLL`: k per inner-loop iteration, 4 or 8 (must divide `bk`).
    pub unroll: u32,
}

impl Default for GemmPolicy {
    /// 64×128×8 with 8×8 per invocation (128 invocations), lanes in 8×4 patches
    /// (`warp_x = 8`), the K loop in pairs of steps and unrolled by 8. H100 (Vulkan,
    /// 2026-11-22, examples/gemm_sweep.rs, kernels without runtime checks): 43.97 TFLOP/s at
    /// 8192³ and 42.50 at 4096³, against 41.52 / 39.49 for the same tile with single steps
    /// unrolled by 4. The 8×16 block on 128×128×16 with one buffer was 1% faster at 8192³
    /// (44.33 / 43.37), but its 128-row tiles give half as many workgroups on medium sizes
    /// (64 on a 1024² C for 132 SMs), so the 64-row tile stays the default. Every other tile
    /// and knob of the sweep (docs/gemm.md) was slower. Seventh session, with the prefetch
    /// unconditional: 45.86 / 43.93 TFLOP/s (single steps 40.62 / 39.12, the 8×16 block
    /// 44.53 / 43.55).
    fn default() -> Self {
        Self::tile(64, 128, 8, 8).paired().unrolled(8)
    }
}

/// What the kernel declares about its own budgets (read from the module, never restated).
#[derive(Clone, Copy, Debug)]
pub struct KernelBudget {
    /// `TM`: rows of C per invocation (the kernel's accumulators are spelled out).
    pub tm: u32,
    /// `TN`: columns of C per invocation.
    pub tn: u32,
    /// `MAX_FETCH`: prefetched vec4 per operand per invocation.
    pub max_fetch: u32,
}

impl GemmPolicy {
    /// A policy for skinny M (≤ 32): 32 rows per workgroup so a matrix-vector-like product does
    /// not waste 3/4 of each tile; 32 invocations of 8×8.
    pub fn skinny() -> Self {
        Self::tile(32, 64, 8, 0)
    }

    /// A tile of `bm × bn × bk` with the 8×8 block (`gemm/tiled`), lane layout `warp_x`, double
    /// buffering, the K loop unrolled by 4.
    pub const fn tile(bm: u32, bn: u32, bk: u32, warp_x: u32) -> Self {
        GemmPolicy {
            bm,
            bn,
            bk,
            tm: 8,
            tn: 8,
            warp_x,
            buffers: 2,
            paired: false,
            unroll: 4,
        }
    }

    /// The same tile with an 8×16 block per invocation (`gemm/tiled_wide`): half the
    /// invocations.
    pub const fn wide(self) -> Self {
        GemmPolicy { tn: 16, ..self }
    }

    /// The same tile with `buffers` workgroup buffers (1 or 2).
    pub const fn buffered(self, buffers: u32) -> Self {
        GemmPolicy { buffers, ..self }
    }

    /// The same tile with the K loop unrolled by two steps (literal buffer indices).
    pub const fn paired(self) -> Self {
        GemmPolicy {
            paired: true,
            ..self
        }
    }

    /// The same tile with `unroll` k per inner-loop iteration (4 or 8).
    pub const fn unrolled(self, unroll: u32) -> Self {
        GemmPolicy { unroll, ..self }
    }

    /// The kernel that has this policy's per-invocation block.
    pub fn kernel(&self) -> Result<&'static str> {
        match (self.tm, self.tn) {
            (8, 8) => Ok("gemm/tiled"),
            (8, 16) => Ok("gemm/tiled_wide"),
            (tm, tn) => Err(Error::Plan(format!(
                "gemm policy {self:?}: no portable kernel has a {tm}×{tn} block (8×8, 8×16)"
            ))),
        }
    }

    /// Candidate tiles for the portable kernels (the sweep, `examples/gemm_sweep.rs`, compares
    /// them with the default; docs/gemm.md has the H100 figures): `(name, policy)`. Names carry
    /// the block (`wide`: 8×16, else 8×8) and the knobs that differ from the default: `1buf` (one
    /// workgroup buffer), `pair` (K loop by two steps), `u8` (8 k per inner iteration).
    pub fn candidates() -> Vec<(&'static str, GemmPolicy)> {
        let mut c = Self::tile_candidates();
        c.extend(Self::kernel_candidates());
        c
    }

    /// The 8×8 tiles of the first sweeps (double-buffered, unrolled by 4).
    pub fn tile_candidates() -> Vec<(&'static str, GemmPolicy)> {
        let t = Self::tile;
        vec![
            ("128x128x8", t(128, 128, 8, 0)),
            ("128x128x8 w8x4", t(128, 128, 8, 8)),
            ("128x128x8 w4x8", t(128, 128, 8, 4)),
            ("128x128x16", t(128, 128, 16, 0)),
            ("128x128x16 w8x4", t(128, 128, 16, 8)),
            ("128x256x8 w8x4", t(128, 256, 8, 8)),
            ("256x128x8 w8x4", t(256, 128, 8, 8)),
            ("128x256x16 w8x4", t(128, 256, 16, 8)),
            ("64x128x8 w8x4", t(64, 128, 8, 8)),
            ("64x128x8 w4x8", t(64, 128, 8, 4)),
            ("64x128x16 w8x4", t(64, 128, 16, 8)),
            ("64x256x8 w8x4", t(64, 256, 8, 8)),
            ("128x64x8 w8x4", t(128, 64, 8, 8)),
            ("64x64x8 w8x4", t(64, 64, 8, 8)),
            ("64x64x16 w8x4", t(64, 64, 16, 8)),
        ]
    }

    /// The 8×16 block (`gemm/tiled_wide`) and the K-loop knobs, on the 64×128×8 tile and on
    /// the tiles the 8×16 block makes natural (H100 figures in docs/gemm.md; "pair u8" is the
    /// default). Workgroup memory, `buffers·bk·(bm+bn)·4` bytes, is listed per line.
    pub fn kernel_candidates() -> Vec<(&'static str, GemmPolicy)> {
        let t = Self::tile;
        let d = t(64, 128, 8, 8);
        vec![
            // 8×8 on 64×128×8 (12 KiB; 1buf 6 KiB)
            ("64x128x8 w8x4 u8", d.unrolled(8)),
            ("64x128x8 w8x4 pair", d.paired()),
            ("64x128x8 w8x4 pair u8", d.paired().unrolled(8)),
            ("64x128x8 w8x4 1buf", d.buffered(1)),
            // 8×8, BK = 16 unrolled by 8 (24 KiB; 1buf 12 KiB)
            ("64x128x16 w8x4 u8", t(64, 128, 16, 8).unrolled(8)),
            (
                "64x128x16 w8x4 1buf u8",
                t(64, 128, 16, 8).buffered(1).unrolled(8),
            ),
            // 8×16: 128 invocations at 128×128 (16 KiB), 64 at 64×128 (12 KiB), 128 at
            // 64×256 (20 KiB), 256 at 128×256 (24 KiB) and 256×128 (24 KiB)
            ("wide 128x128x8 w4x8", t(128, 128, 8, 4).wide()),
            ("wide 128x128x8 w8x4", t(128, 128, 8, 8).wide()),
            (
                "wide 128x128x8 w4x8 pair u8",
                t(128, 128, 8, 4).wide().paired().unrolled(8),
            ),
            ("wide 64x128x8 w4x8", t(64, 128, 8, 4).wide()),
            ("wide 64x256x8 w8x4", t(64, 256, 8, 8).wide()),
            ("wide 128x256x8 w4x8", t(128, 256, 8, 4).wide()),
            ("wide 128x256x8 w8x4", t(128, 256, 8, 8).wide()),
            ("wide 256x128x8 w4x8", t(256, 128, 8, 4).wide()),
            // 8×16 at BK = 16: 32 KiB double-buffered, 16 KiB with one buffer
            (
                "wide 128x128x16 w4x8 u8",
                t(128, 128, 16, 4).wide().unrolled(8),
            ),
            (
                "wide 128x128x16 w4x8 1buf u8",
                t(128, 128, 16, 4).wide().buffered(1).unrolled(8),
            ),
        ]
    }

    /// The default policy for a problem of `m` rows.
    pub fn for_m(m: u64) -> Self {
        if m <= 32 {
            Self::skinny()
        } else {
            Self::default()
        }
    }

    /// Override constants for the kernel.
    pub fn overrides(&self, a: Format, b: Format, has_zeros: bool) -> Vec<(&'static str, f64)> {
        vec![
            ("BM", self.bm as f64),
            ("BN", self.bn as f64),
            ("BK", self.bk as f64),
            ("A_FMT", a.code() as f64),
            ("B_FMT", b.code() as f64),
            ("HAS_ZEROS", if has_zeros { 1.0 } else { 0.0 }),
            ("WARP_X", self.warp_x as f64),
            ("BUFFERS", self.buffers as f64),
            ("PAIRED", if self.paired { 1.0 } else { 0.0 }),
            ("UNROLL", self.unroll as f64),
        ]
    }

    /// Invocations the layout needs: (BN/TN)·(BM/TM).
    pub fn invocations(&self) -> u32 {
        (self.bn / self.tn.max(1)) * (self.bm / self.tm.max(1))
    }

    /// Workgroup memory the kernel declares for this policy (`buffers` copies of each tile),
    /// bytes.
    pub fn workgroup_bytes(&self) -> u64 {
        self.buffers as u64 * (self.bk as u64) * (self.bm as u64 + self.bn as u64) * 4
    }

    /// The tile's own rules, which the workgroup size derives from (checked before the kernel
    /// is specialized: a zero there is a policy error, not a shader's): TM and TN positive
    /// multiples of 4 dividing BM and BN, which are positive.
    pub fn check_tile(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::Plan(format!("gemm policy {self:?}: {m}")));
        let p = *self;
        if p.tm == 0 || p.tn == 0 || !p.tm.is_multiple_of(4) || !p.tn.is_multiple_of(4) {
            return bad("TM and TN must be positive multiples of 4");
        }
        if p.bm == 0 || p.bn == 0 || !p.bm.is_multiple_of(p.tm) || !p.bn.is_multiple_of(p.tn) {
            return bad("BM and BN must be positive, TM must divide BM and TN divide BN");
        }
        // (checked again with the load width in `check`; a zero BK would leave the kernel a
        // zero-length workgroup array, which naga refuses before `check` could run)
        if p.bk == 0 {
            return bad("BK must be positive");
        }
        Ok(())
    }

    /// Checks that the policy's layout covers every tile exactly once for formats `a`, `b`,
    /// given the workgroup size reflected from the specialized kernel, its register budget and
    /// the device's workgroup memory.
    pub fn check(
        &self,
        reflected: [u32; 3],
        budget: KernelBudget,
        a: Format,
        b: Format,
        max_workgroup_storage: u32,
    ) -> Result<()> {
        let bad = |m: String| Err(Error::Plan(format!("gemm policy {self:?}: {m}")));
        let p = *self;
        p.check_tile()?;
        // (per_load ≥ 4 also makes BK a multiple of 4, the kernel's unrolled k loop)
        if p.bk == 0 || !p.bk.is_multiple_of(a.per_load()) || !p.bn.is_multiple_of(b.per_load()) {
            return bad("BK and BN must be multiples of the vec4 load width".into());
        }
        if b == Format::Int4 && (!p.bk.is_multiple_of(8) || !128u32.is_multiple_of(p.bk)) {
            return bad("int4 needs BK a multiple of 8 dividing the group size 128".into());
        }
        if !matches!(p.unroll, 4 | 8) || !p.bk.is_multiple_of(p.unroll) {
            return bad("UNROLL must be 4 or 8 and divide BK".into());
        }
        if !matches!(p.buffers, 1 | 2) {
            return bad("BUFFERS must be 1 or 2".into());
        }
        if p.tm != budget.tm || p.tn != budget.tn {
            return bad(format!(
                "TM×TN = {}×{} is not the kernel's block {}×{}",
                p.tm, p.tn, budget.tm, budget.tn
            ));
        }
        if p.workgroup_bytes() > max_workgroup_storage as u64 {
            return bad(format!(
                "needs {} bytes of workgroup memory, the device has {max_workgroup_storage}",
                p.workgroup_bytes()
            ));
        }
        let wg = [p.bn / p.tn, p.bm / p.tm, 1];
        if p.warp_x != 0
            && (!32u32.is_multiple_of(p.warp_x)
                || !wg[0].is_multiple_of(p.warp_x)
                || !wg[1].is_multiple_of(32 / p.warp_x))
        {
            return bad(format!(
                "lane patch {}×{} must divide 32 and the {}×{} invocations",
                p.warp_x,
                32 / p.warp_x,
                wg[0],
                wg[1]
            ));
        }
        if reflected != wg {
            return bad(format!(
                "the kernel's workgroup size {reflected:?} is not the layout's {wg:?}"
            ));
        }
        let inv = reflected.iter().product::<u32>();
        // C: every element of the BM×BN tile owned by exactly one invocation
        let mut owner = vec![u32::MAX; (p.bm * p.bn) as usize];
        for lid in 0..inv {
            for (row, col) in c_block(&p, lid) {
                if row >= p.bm || col >= p.bn {
                    return bad(format!(
                        "invocation {lid} owns ({row}, {col}) outside the tile"
                    ));
                }
                let slot = &mut owner[(row * p.bn + col) as usize];
                if *slot != u32::MAX {
                    return bad(format!(
                        "C ({row}, {col}) owned by invocations {} and {lid}",
                        *slot
                    ));
                }
                *slot = lid;
            }
        }
        if let Some(i) = owner.iter().position(|&o| o == u32::MAX) {
            let (row, col) = (i as u32 / p.bn, i as u32 % p.bn);
            return bad(format!(
                "C ({row}, {col}) of the tile is owned by no invocation"
            ));
        }
        // A and B: every element of one K step loaded exactly once, within MAX_FETCH per operand
        for (what, fmt, rows, cols) in [("A", a, p.bm, p.bk), ("B", b, p.bk, p.bn)] {
            let items = rows * cols / fmt.per_load();
            if items.div_ceil(inv) > budget.max_fetch {
                return bad(format!(
                    "{what} needs {} loads per invocation, the kernel holds {}",
                    items.div_ceil(inv),
                    budget.max_fetch
                ));
            }
            let mut seen = vec![false; (rows * cols) as usize];
            for li in 0..items {
                let cells = if what == "A" {
                    a_item(&p, fmt, li)
                } else {
                    b_item(&p, fmt, li)
                };
                for (r, c) in cells {
                    if r >= rows
                        || c >= cols
                        || std::mem::replace(&mut seen[(r * cols + c) as usize], true)
                    {
                        return bad(format!(
                            "{what} load item {li} covers ({r}, {c}) twice or outside"
                        ));
                    }
                }
            }
            if let Some(i) = seen.iter().position(|s| !s) {
                return bad(format!("{what} tile element {i} is loaded by no item"));
            }
        }
        Ok(())
    }
}

/// The C elements (row, column within the tile) invocation `lid` owns; mirrors the store loop of
/// `tiled.wgsl`.
pub fn c_block(p: &GemmPolicy, lid: u32) -> Vec<(u32, u32)> {
    let wg_x = p.bn / p.tn;
    let wg_y = p.bm / p.tm;
    let (tx, ty) = lane_xy(p, lid);
    let mut out = Vec::new();
    for i in 0..p.tm / 4 {
        for r in 0..4 {
            for j in 0..p.tn / 4 {
                for e in 0..4 {
                    out.push((4 * (ty + i * wg_y) + r, 4 * (tx + j * wg_x) + e));
                }
            }
        }
    }
    out
}

/// Invocation `lid`'s (tx, ty); mirrors `lane_xy` in the WGSL.
pub fn lane_xy(p: &GemmPolicy, lid: u32) -> (u32, u32) {
    let wg_x = p.bn / p.tn;
    if p.warp_x == 0 {
        return (lid % wg_x, lid / wg_x);
    }
    let w = p.warp_x;
    let (blk, l) = (lid / 32, lid % 32);
    let bx = wg_x / w;
    ((blk % bx) * w + l % w, (blk / bx) * (32 / w) + l / w)
}

/// The tile (column, row) of an `nx × ny` tile grid that workgroup number `pid` (row by row of
/// the dispatch, folded or not) computes, `None` past the last tile; mirrors `tile_of` and
/// `past_c` in the WGSL (grouped ordering, `group` tile rows per group).
pub fn tile_of(pid: u32, nx: u32, ny: u32, group: u32) -> Option<(u32, u32)> {
    if pid >= nx * ny {
        return None;
    }
    let per_group = group * nx;
    let first_m = (pid / per_group) * group;
    let rows = (ny - first_m).min(group);
    let r = pid % per_group;
    Some((r / rows, first_m + r % rows))
}

/// The A tile elements (row, k) that load item `li` brings in; mirrors `fetch_a`/`stash_a`.
pub fn a_item(p: &GemmPolicy, fmt: Format, li: u32) -> Vec<(u32, u32)> {
    let per_row = p.bk / fmt.per_load();
    let row = li / per_row;
    let k = (li % per_row) * fmt.per_load();
    (0..fmt.per_load()).map(|e| (row, k + e)).collect()
}

/// The B tile elements (k, column) that load item `li` brings in; mirrors `fetch_b`/`stash_b`.
pub fn b_item(p: &GemmPolicy, fmt: Format, li: u32) -> Vec<(u32, u32)> {
    if fmt == Format::Int4 {
        let (kb, n) = (li / p.bn, li % p.bn);
        return (0..8).map(|j| (kb * 8 + j, n)).collect();
    }
    let per_row = p.bn / fmt.per_load();
    let k = li / per_row;
    let n = (li % per_row) * fmt.per_load();
    (0..fmt.per_load()).map(|e| (k, n + e)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: KernelBudget = KernelBudget {
        tm: 8,
        tn: 8,
        max_fetch: 4,
    };

    /// The budget the policy's kernel declares (read from the module, as the plan does).
    fn budget(p: &GemmPolicy) -> Result<KernelBudget> {
        let k = crate::kernel::load(p.kernel()?, crate::kernel::Flavor::Subgroup)?;
        let c = |name| k.const_u32(name);
        Ok(KernelBudget {
            tm: c("TM")?,
            tn: c("TN")?,
            max_fetch: c("MAX_FETCH")?,
        })
    }

    fn check(p: GemmPolicy) -> Result<()> {
        let wg = [p.bn / p.tn, p.bm / p.tm, 1];
        let budget = budget(&p)?;
        for (a, b) in [
            (Format::F32, Format::F32),
            (Format::F16, Format::F16),
            (Format::F16, Format::Int4),
        ] {
            p.check(wg, budget, a, b, 48 << 10)?;
        }
        Ok(())
    }

    #[test]
    fn shipped_policies_cover_their_tiles() {
        check(GemmPolicy::default()).unwrap();
        check(GemmPolicy::skinny()).unwrap();
        check(GemmPolicy::tile(64, 64, 8, 0)).unwrap();
    }

    #[test]
    fn candidate_tiles_and_lane_patches_cover_their_tiles() {
        for (name, p) in GemmPolicy::candidates() {
            check(p).unwrap_or_else(|e| panic!("{name}: {e}"));
            // the lane patch is a bijection onto the WG_X × WG_Y grid
            let mut seen = std::collections::HashSet::new();
            for lid in 0..p.invocations() {
                let (x, y) = lane_xy(&p, lid);
                assert!(
                    x < p.bn / p.tn && y < p.bm / p.tm && seen.insert((x, y)),
                    "{name}"
                );
            }
        }
        check(GemmPolicy {
            warp_x: 8,
            ..GemmPolicy::skinny()
        })
        .unwrap();
        // a patch that does not divide the invocation grid is refused: 32×64 tile, 8×4
        // invocations, patch 16×2
        let e = check(GemmPolicy {
            warp_x: 16,
            ..GemmPolicy::skinny()
        })
        .unwrap_err();
        assert!(e.to_string().contains("lane patch"), "{e}");
        assert!(check(GemmPolicy::tile(128, 128, 8, 3)).is_err());
    }

    #[test]
    fn seed_layout_covering_half_the_rows_is_rejected() {
        // the seed's bug: a 64-row tile whose invocations reach rows 0..31 only. With a
        // workgroup sized for 32 rows (the layout's own count for BM=32) the check sees that
        // the reflected size does not match a 64-row tile.
        let p = GemmPolicy::tile(64, 64, 8, 0);
        let half = [8, 4, 1];
        let e = p
            .check(half, BUDGET, Format::F32, Format::F32, 48 << 10)
            .unwrap_err();
        assert!(e.to_string().contains("workgroup size"), "{e}");
    }

    #[test]
    fn budgets_are_enforced() {
        let p = GemmPolicy {
            tm: 16,
            ..GemmPolicy::tile(128, 128, 8, 0)
        };
        assert!(check(p).is_err(), "no kernel has a 16×8 block");
        // an 8×16 policy checked against the 8×8 kernel's budget is refused
        let wide = GemmPolicy::tile(128, 128, 8, 0).wide();
        let e = wide
            .check([8, 16, 1], BUDGET, Format::F32, Format::F32, 48 << 10)
            .unwrap_err();
        assert!(e.to_string().contains("not the kernel's block"), "{e}");
        // knobs out of range
        assert!(check(GemmPolicy::default().unrolled(16)).is_err());
        assert!(check(GemmPolicy::tile(64, 128, 4, 0).unrolled(8)).is_err());
        assert!(check(GemmPolicy::default().buffered(3)).is_err());
        let p = GemmPolicy::tile(128, 128, 32, 0);
        let e = p
            .check([16, 16, 1], BUDGET, Format::F32, Format::F32, 32 << 10)
            .unwrap_err();
        assert!(e.to_string().contains("workgroup memory"), "{e}");
        // one buffer halves it: 128×128×32 fits 32 KiB
        p.buffered(1)
            .check([16, 16, 1], BUDGET, Format::F32, Format::F32, 32 << 10)
            .unwrap();
    }

    /// Every tile once, whatever the dispatch's width (folded grids end in workgroups with
    /// no tile).
    #[test]
    fn grouped_tile_order_is_a_bijection() {
        for (nx, ny) in [(1, 1), (1, 9), (9, 1), (7, 8), (32, 32), (5, 17), (64, 3)] {
            let mut seen = std::collections::HashSet::new();
            // a folded dispatch rounds the workgroups up to whole rows
            for pid in 0..nx * ny + 5 {
                match tile_of(pid, nx, ny, 8) {
                    Some((c, r)) => {
                        assert!(c < nx && r < ny, "{nx}x{ny}: {pid} -> ({c},{r})");
                        assert!(seen.insert((c, r)), "{nx}x{ny}: ({c},{r}) twice");
                    }
                    None => assert!(pid >= nx * ny, "{nx}x{ny}: {pid} has no tile"),
                }
            }
            assert_eq!(seen.len() as u32, nx * ny);
        }
    }

    #[test]
    fn coverage_enumeration_detects_a_hole() {
        // a layout function with a hole must be caught: emulate by checking a c_block from a
        // smaller tile against the bigger one
        let p = GemmPolicy::default();
        let small = GemmPolicy { bm: 64, ..p };
        let covered: std::collections::HashSet<_> = (0..small.invocations())
            .flat_map(|l| c_block(&small, l))
            .collect();
        assert_eq!(covered.len() as u32, 64 * 128);
        assert!(!covered.contains(&(64, 0)));
    }
}
