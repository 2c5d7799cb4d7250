//! GEMM tuning: the table of measured values the plans choose by (which kernel, split-K, the
//! few-rows kernel's slices, the cooperative tile), and the portable register-tiled kernel's
//! tile, one [`GemmPolicy`] per launch, checked against the rules the kernel declares.
//!
//! Rules: a tuning value lives in the table with the measurement that chose it (figures,
//! machine, date) and nowhere else; the modules that choose by it import it, and the public
//! ones are re-exported where they were (`gemm::COOP_MIN_M`, `gemm::GEMV_MAX_M`,
//! `gemm::GEMV_MAX_M_INT4`, `gemm::SPLIT_TARGET_INVOCATIONS`,
//! `gemm::coop::LARGE_TILE_MIN_WORKGROUPS`). A new measurement changes the value and its
//! evidence together.
//!
//! The per-invocation block (`TM × TN`, 8×8), the prefetch registers (`MAX_FETCH`) and the lane
//! layout live in `wgsl/gemm/tiled.wgsl` and `wgsl/gemm/lib/tiled.wgsl`; [`GemmPolicy::check`]
//! reads the constants from the module and holds the tile to them (divisibility, loads per
//! invocation, workgroup memory). That the invocations cover every element of every tile once
//! is proven on the simulator at the policies the host uses (tests/behaviour/gemm.rs), not mirrored here.

pub use super::format::Format;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::stages::gemm::tiled;
use crate::stages::Override;

// The tuning table: every measured value the GEMM's plans choose by, with its evidence.

// Which kernel: the few-rows kernel below GEMV_MAX_M rows, cooperative matrices from COOP_MIN_M
// (from COOP_MIN_M_LARGE_B for large weights, COOP_MIN_M_HUGE_B for huge ones).

/// Cooperative matrices are chosen (when offered) from this many rows of C up: below it the
/// portable kernels are faster. 17: H100 (`wgsimd bench --gemm-shapes`, 2026-11-23, f16
/// M×4096×4096, ms): coop16 0.076 / 0.077 / 0.078 / 0.080 at M = 9 / 16 / 32 / 64, the
/// register-tiled kernel 0.063 / 0.071 / 0.112 / 0.107, the few-rows kernel 0.061 at 16 and
/// 0.090 at 32.
pub const COOP_MIN_M: usize = 17;

/// Weights (B) of at least this many elements take cooperative matrices from
/// [`COOP_MIN_M_LARGE_B`] rows, on coop16's 16-row tile (`coop::rows_tile(16)`): the
/// few-rows kernel streams B once for each block of 8 rows and its time grows with M, the tile's
/// does not. 2^24 (4096² weights). H200 (the lab's few-rows sweep, 2026-11-30, f16, µs, the
/// few-rows kernel against the tile): M×4096×4096 at M = 2 / 4 13.1 / 17.1 against 18.1 / 18.7
/// (one call), at M = 8 / 16 24.7 / 33.8 against 18.7 / 18.9 (two calls).
pub const COOP_LARGE_B_ELEMENTS: u64 = 1 << 24;

/// The fewest rows that take cooperative matrices for weights of at least
/// [`COOP_LARGE_B_ELEMENTS`]: 8 (at 4 rows of 4096² the few-rows kernel leads, above).
pub const COOP_MIN_M_LARGE_B: usize = 8;

/// Weights of at least this many elements take cooperative matrices from
/// [`COOP_MIN_M_HUGE_B`] rows: 3 · 2^24 (a Llama-3-8B MLP's 14336×4096 weights are 3.5 · 2^24).
/// H200 (the lab's few-rows sweep, one call, 2026-11-30, f16, µs, the few-rows kernel against
/// the 16-row tile): 2 / 4 rows of 14336×4096 57.8 / 70.0 against 44.4 / 44.4, of 4096×14336
/// 63.2 / 79.8 against 43.3 / 44.0. One row stays on the few-rows kernel (37.3 / 41.7; the
/// tile was not timed at one row, and took 43–44 at two). Weights between 2^24 and 3.5 · 2^24
/// were not measured.
pub const COOP_HUGE_B_ELEMENTS: u64 = 3 << 24;

/// The fewest rows that take cooperative matrices for weights of at least
/// [`COOP_HUGE_B_ELEMENTS`]: 2.
pub const COOP_MIN_M_HUGE_B: usize = 2;

/// The fewest rows of C from which `PathChoice::Auto` takes cooperative matrices for a product
/// whose B is `k × n` ([`COOP_MIN_M`], [`COOP_MIN_M_LARGE_B`] for large weights,
/// [`COOP_MIN_M_HUGE_B`] for huge ones).
pub fn coop_min_m(n: usize, k: usize) -> usize {
    let elements = (n as u64).saturating_mul(k as u64);
    if elements >= COOP_HUGE_B_ELEMENTS {
        COOP_MIN_M_HUGE_B
    } else if elements >= COOP_LARGE_B_ELEMENTS {
        COOP_MIN_M_LARGE_B
    } else {
        COOP_MIN_M
    }
}

/// Products of at most this many rows take `gemm/gemv` when neither a path, a tile policy, a
/// split count nor a cooperative variant is forced, whatever B's format. H100 (`wgsimd bench
/// --gemm-shapes` and the lab's few-rows sweep, 2026-11-23, M×4096×4096, ms, the few-rows
/// kernel against the register-tiled one): f32 M = 1 0.031 / 0.065, 4 0.051 / 0.069, 8 0.046
/// / 0.071, 16 0.060 / 0.077, 32 0.090 / 0.098 (see GEMV_WIDE_F32_ROWS), 64 0.151 / 0.126;
/// f16 M = 1 0.015 / 0.055, 8 0.047 / 0.063, 16 0.061 / 0.071 (coop16 0.077), 32 0.090 /
/// 0.112 (coop16 0.078); int4 M = 1 0.012 / 0.062, 8 0.039 / 0.065, 16 0.057 / 0.071, 64 0.210
/// / 0.108.
pub const GEMV_MAX_M: usize = 16;

/// The same for int4 weights, which the few-rows kernel dequantizes once for all of a block's
/// rows: at 32 rows it leads the register-tiled kernel, at 64 it trails (H200, the bench,
/// 2026-11-29, µs): 32×4096×4096 54.3 against 89.2, 32×14336×4096 190.9 against 206.5;
/// 64×4096×4096 100.2 against 90.6, 64×14336×4096 339.2 against 236.9.
pub const GEMV_MAX_M_INT4: usize = 32;

/// The fewest rows that take cooperative matrices for int4 weights where the tile is
/// `coop::rows_tile_int4` (`gemm/coop16_int4` at subgroups of 32; below, the few-rows kernel,
/// whose FMAs grow with the rows, while the tile takes the same time at any row count to 16).
/// H200 (the lab's few-rows sweep, 2026-11-30, one call, int4, µs, the few-rows kernel against
/// that tile) at 14336×4096 / 4096×14336 / 4096×4096: 4 rows 35.5 / 34.6 / 16.3 against 38.5 /
/// 35.2 / 18.7; 5 rows 40.4 / 39.6 / 18.2 against 38.4 / 35.2 / 18.6; 6 rows 49.6 / 45.1 / 20.2
/// against 38.4 / 35.1 / 18.7; 7 rows 51.1 / 51.3 / 22.4 against 38.4 / 35.2 / 18.8. At 5 rows
/// the tile leads by 5 and 11% on Llama-3-8B's MLP shapes and trails by 2% at 4096².
pub const COOP_MIN_M_INT4: usize = 5;
/// The same with any other tile (subgroups of another width than 32 take `coop::rows_tile(16)`
/// or another tile of f16's; coop8 on Apple GPUs): H200, µs, the few-rows kernel against
/// `rows_tile(16)` with int4 weights at 4096² / 14336×4096 / 4096×14336, 8 rows 23.8 / 55.9 /
/// 55.1 against 21.8 / 48.4 / 44.6 (2026-11-30, one call); 4 rows 17.1 / 38.9 / 37.8 against
/// 23.1 / 51.4 / 47.4 (an earlier call). coop8 follows coop16's rule, not measured (no Apple
/// GPU here).
pub const COOP_MIN_M_INT4_OTHER_TILES: usize = 8;

// Split-K of the register-tiled kernel (`split_k`).

/// Invocations the split-K heuristic aims for: half of a 132-SM H100's 2048 resident threads
/// per SM. H100, 1×4096×4096 f32 on the register-tiled kernel: 3.67 ms unsplit (64 workgroups
/// of 32 invocations, 512 serial K steps each), 0.10 ms split to this target.
pub const SPLIT_TARGET_INVOCATIONS: u64 = 132 * 1024;

// The few-rows kernel's column blocks and K slices (`gemm/gemv`).

/// Column blocks from which the few-rows kernel takes all of K in each workgroup (no split-K
/// sum; up to GEMV_MAX_KSLICE), the widest column groups that still give this many: about one
/// per SM. Wider groups read longer runs of each B row. H200 (the lab's few-rows sweep,
/// 2026-11-29, µs, 128 against 256 / 64 / 32, one device call): f16 1×4096×4096 11.6 against
/// 13.6 / 15.5 / 24.5, 16×4096×4096 33.6 against 47.1 / 53.6 / 95.6, 1×14336×4096 37.3
/// against 45.7 / 49.2 / 81.1, 1×4096×14336 41.8 against 52.2 / 40.3 / 50.6; int4 the same
/// shapes 11.5 / 34.5 / 22.3 / 25.8 against 10.4 / 41.2 / 23.2 / 27.8 at 256. At 4 and 16 rows
/// of the 14336 shapes 64 or 32 gained 5–20% more (f16 4×4096×14336 61.4 µs at 32, 79.7 at
/// 128), and lost as much at 4096×4096: a rule by rows is not settled.
pub(super) const GEMV_WHOLE_K_WORKGROUPS: u64 = 128;
/// The same for f32 B: 256 (two per SM of a 132-SM H100: 1×4096×4096 0.031 ms against 0.041
/// for the best forced split, H100, 2026-11-23). At 128, f32 1×4096×4096 took 29.8 µs on the
/// H200 (the bench, 2026-11-29) against 25.2–25.5 at 256 (the bench, 2026-11-28); not
/// measured side by side.
pub(super) const GEMV_WHOLE_K_WORKGROUPS_F32: u64 = 256;

/// f32 products of more rows than this take the widest few-rows workgroups (32 column groups)
/// and slices of GEMV_WIDE_F32_KSLICE of K, rather than all of K in fewer columns: H100
/// (the lab's few-rows sweep, 2026-11-23, ms, M×4096×4096 at 5 / 8 / 16 / 32 rows) 0.042 /
/// 0.046 / 0.060 / 0.090 against 0.051 (4 rows) / 0.074 / 0.092 / 0.137 for all of K in
/// fewer columns and the register-tiled kernel's 0.069 / 0.071 / 0.077 / 0.098; slices of 256
/// (17 and 9 of them) took 0.048 / 0.055 / 0.072 / 0.138, all of K in 32 columns 0.098–0.117.
pub(super) const GEMV_WIDE_F32_ROWS: u64 = 4;
pub(super) const GEMV_WIDE_F32_KSLICE: u64 = 512;

/// At most this much of K per few-rows workgroup: 1×8192×8192 (same sweep) took 0.114 / 0.068
/// / 0.053 ms (f32 / f16 / int4) in one slice and 0.108 / 0.067 / 0.047 in two.
pub(super) const GEMV_MAX_KSLICE: u64 = 4096;

/// int4 weights of at most GEMV_INT4_LONG_SLICE_MAX_N columns take up to this much of K per
/// workgroup instead (one pass, no split-K sum). H200 (the lab's few-rows sweep, 2026-11-30,
/// µs, one slice against the slices of the rule above, the two builds alternated within each
/// of three calls): 2 / 4 / 8×4096×14336 31.6 / 39.2 / 59.8 against 38.9 / 46.7 / 70.9, 2 /
/// 4×8192×8192 31.6 / 39.4 against 37.0 / 46.8, 2×4096×16384 35.0 against 43.6. At one row,
/// with B's loads issued a step ahead (another call, two rounds; a round's outliers left out):
/// 1×4096×14336 21.6 against 25.6, 1×8192×8192 22.6–22.8 against 24.2, 1×2048×8192 11.8
/// against 13.2, 1×4096×8192 15.4 against 16.8, 1×4096×16384 23.5–23.7 against 26.3,
/// 1×8192×16384 46.0 against 46.1. Not on
/// wider weights (2×14336×14336 119.7 against 111.3 in slices of 3584, 4×16384×16384 154.4
/// against 151.6; 2×16384×16384 120.0 against 126.0 and 2×16384×8192 66.2 against 71.1 won,
/// and are left to the rule above).
pub(super) const GEMV_INT4_LONG_SLICE: u64 = 16384;
pub(super) const GEMV_INT4_LONG_SLICE_MAX_N: u64 = 8192;

/// Below that, workgroups the few-rows kernel aims for (its K slices times its column blocks):
/// 4 per SM of a 132-SM H100, so that enough loads of B are in flight...
pub(super) const GEMV_TARGET_WORKGROUPS: u64 = 528;
/// ...with at most this many K slices: the split-K sum reads every slice's partial product, and
/// with 256 slices of 1×4096 it took longer than the product.
pub(super) const GEMV_MAX_SPLITS: u64 = 32;

// The cooperative kernels' K slices (`coop::plan`).

/// Workgroups the cooperative kernels aim for with K split (products of few tiles: decode-sized
/// M). Unsplit, a tile's K steps ran about 1.3 µs each on the H200 whatever M (the 128×128×64
/// tile: M×4096×4096 at M = 8–64 80–83 µs in 64 steps; M×4096×14336 250 µs in 224; smaller
/// tiles, 64×32 to 128×64, slower still). Split, the lab's few-rows sweep (`--coop`,
/// 2026-11-29, µs at M = 8 / 64, 264 against 132 / 528): M×4096×4096 (32 tiles, 8 slices)
/// 46.4 / 47.6 against 50.3 / 52.1 and 61.7 / 64.1; M×4096×14336 (32 tiles, 9 slices of 25
/// steps) 111.6 / 115.2 against 120.8 / 124.5 and 104.3 / 108.0.
pub(super) const COOP_SPLIT_TARGET_WORKGROUPS: u64 = 264;
/// ...and only where that gives this many slices: 14336×4096 (112 tiles) took 85–87 µs unsplit
/// at M = 8–64, 98–103 in 2 slices and 102–108 in 3 (same sweep).
pub(super) const COOP_MIN_SLICES: u32 = 4;
/// K steps per slice at least.
pub(super) const COOP_MIN_SLICE_TILES: u32 = 4;
/// The few-rows tiles' slices (`coop::rows_tile`, by its rows: 16, 32, 64) aim instead for the
/// workgroups resident at once on a 132-SM H200, and never more: `target / tiles` slices, rounded
/// down, from 2 slices (the 4 of [`COOP_MIN_SLICES`] were measured on the deep tile; where the two
/// minimums differ, 34–66 column tiles of the 64-row tile: 64×14336×4096, 56 tiles, in 2 slices
/// 69.9 µs against 101.9 unsplit, f16, H200, 2026-12-01; 67–132 of the 16- and 32-row tiles not
/// measured). Two 16-row workgroups are resident on an SM with one staging buffer (17.8
/// KiB), one with two (35.5 KiB): with every global load and stash of the kernel removed (the lab's
/// `gemm_sweep`), 16×4096×14336 took 20.7 µs in 16 slices against 18.1 in 8 with two buffers, 17.7
/// against 19.2 with one. The 32-row tile (one buffer, 19.0 KiB) takes the same target by its times
/// (below); the 64-row tile's 132 is one an SM (one buffer was no faster there overall). A second,
/// partial wave of workgroups costs a whole slice's steps: f16, µs, 16×14336×4096 (56 tiles) in 4 /
/// 5 / 8 slices 44.5 / 56.2 / 51.3, 16×4096×14336 (16 tiles) in 8 / 16 / 17 53.5 / 42.8 / 46.9,
/// 32×14336×4096 4 / 5 slices 50.0 / 63.6; the 64-row tile at 64×4096×4096 in 8 / 16 slices 31.6 /
/// 42.8, 64×4096×14336 64.8 / 75.0 (H200, the lab's few-rows sweep, 2026-11-30).
pub(super) const COOP_ROWS_SPLIT_TARGET: [(u32, u64); 3] = [(16, 264), (32, 264), (64, 132)];
/// The slices of int4's few-rows tile (`coop::rows_tile_int4`, 128 invocations, 11 KiB) aim for
/// 528 workgroups, four an SM, by its times: µs at 8×14336×4096 (112 column tiles) in 2 / 4 /
/// 8 slices 44.8 / 38.2 / 39.9, 16×4096×14336 (32 tiles) in 8 / 16 40.8 / 35.6, 16×4096² (32
/// tiles) in 8 / 16 19.2 / 18.7 (H200, the lab's few-rows sweep, 2026-11-30, one call).
pub(super) const COOP_INT4_ROWS_SPLIT_TARGET: u64 = 528;

// The cooperative kernels' tile (`coop::variant_for`).

/// The cooperative kernels take coop16's large tile from this many of its workgroups up.
/// See [`large_tile`](super::coop::large_tile): at 2048³ (128 workgroups) 197.0 TFLOP/s
/// against 178.1 for [`deep_tile`](super::coop::deep_tile);
/// at 1024³ (32 workgroups) 45.8 against 75.1 (H100, 2026-11-22).
pub const LARGE_TILE_MIN_WORKGROUPS: usize = 128;

/// Tile sizes and K-loop knobs of the register-tiled kernel (`wgsl/gemm/tiled.wgsl`), passed
/// as overrides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmPolicy {
    /// Rows of C per workgroup.
    pub bm: u32,
    /// Columns of C per workgroup.
    pub bn: u32,
    /// K per step (staged in workgroup memory).
    pub bk: u32,
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
    /// 64×128×8 (128 invocations of 8×8), lanes in 8×4 patches (`warp_x = 8`), the K loop in
    /// pairs of steps unrolled by 8: 45.86 / 43.93 TFLOP/s at 8192³ / 4096³ against 40.62 /
    /// 39.12 with single steps (H100, 2026-11-22). Every other tile swept was slower; an 8×16
    /// block on 128×128×16 was 1% faster at 8192³ but gives half the workgroups on medium C.
    fn default() -> Self {
        Self::tile(64, 128, 8, 8).paired().unrolled(8)
    }
}

impl GemmPolicy {
    /// A policy for skinny M (≤ 32): 32 rows per workgroup so a matrix-vector-like product does
    /// not waste 3/4 of each tile; 32 invocations of 8×8.
    pub fn skinny() -> Self {
        Self::tile(32, 64, 8, 0)
    }

    /// A tile of `bm × bn × bk` with lane layout `warp_x`, double buffering, the K loop
    /// unrolled by 4.
    pub const fn tile(bm: u32, bn: u32, bk: u32, warp_x: u32) -> Self {
        GemmPolicy {
            bm,
            bn,
            bk,
            warp_x,
            buffers: 2,
            paired: false,
            unroll: 4,
        }
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

    /// The default policy for a problem of `m` rows.
    pub fn for_m(m: u64) -> Self {
        if m <= 32 {
            Self::skinny()
        } else {
            Self::default()
        }
    }

    /// Override constants for the kernel.
    pub fn overrides(&self, a: Format, b: Format, has_zeros: bool) -> Vec<(Override, f64)> {
        vec![
            (tiled::BM, self.bm as f64),
            (tiled::BN, self.bn as f64),
            (tiled::BK, self.bk as f64),
            (tiled::A_FMT, a.code() as f64),
            (tiled::B_FMT, b.code() as f64),
            (tiled::HAS_ZEROS, if has_zeros { 1.0 } else { 0.0 }),
            (tiled::WARP_X, self.warp_x as f64),
            (tiled::BUFFERS, self.buffers as f64),
            (tiled::PAIRED, if self.paired { 1.0 } else { 0.0 }),
            (tiled::UNROLL, self.unroll as f64),
        ]
    }

    /// Workgroup memory the kernel declares for this policy (`buffers` copies of each tile),
    /// bytes.
    pub fn workgroup_bytes(&self) -> u64 {
        self.buffers as u64 * (self.bk as u64) * (self.bm as u64 + self.bn as u64) * 4
    }

    /// The tile's own rules, checked before the kernel is specialized (a zero there is a
    /// policy error, not a shader's): BM, BN, BK positive.
    pub fn check_tile(&self) -> Result<()> {
        if self.bm == 0 || self.bn == 0 || self.bk == 0 {
            return Err(Error::InvalidInput(format!(
                "gemm policy {self:?}: BM, BN and BK must be positive"
            )));
        }
        Ok(())
    }

    /// Checks the policy against `kernel`'s rules for formats `a`, `b` at its `reflected`
    /// workgroup size (`gemm/tiled` specialized for this policy): BM and BN multiples of the
    /// block `TM × TN`, BK and BN of the load width, int4 groups, the knobs' ranges, the lane
    /// patch, loads per invocation within `MAX_FETCH`, workgroup memory within the device's.
    pub fn check(
        &self,
        kernel: &Kernel,
        reflected: [u32; 3],
        a: Format,
        b: Format,
        max_workgroup_storage: u32,
    ) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidInput(format!("gemm policy {self:?}: {m}")));
        let p = *self;
        p.check_tile()?;
        let (tm, tn) = (kernel.constant(tiled::TM)?, kernel.constant(tiled::TN)?);
        let max_fetch = kernel.constant(tiled::MAX_FETCH)?;
        if !p.bm.is_multiple_of(tm) || !p.bn.is_multiple_of(tn) {
            return bad(format!(
                "BM and BN must be multiples of the kernel's {tm}×{tn} block"
            ));
        }
        // (per_load ≥ 4 also makes BK a multiple of 4, the kernel's unrolled k loop)
        if !p.bk.is_multiple_of(a.per_load()) || !p.bn.is_multiple_of(b.per_load()) {
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
        if p.workgroup_bytes() > max_workgroup_storage as u64 {
            return bad(format!(
                "needs {} bytes of workgroup memory, the device has {max_workgroup_storage}",
                p.workgroup_bytes()
            ));
        }
        let [wg_x, wg_y, _] = reflected;
        if p.warp_x != 0
            && (!32u32.is_multiple_of(p.warp_x)
                || !wg_x.is_multiple_of(p.warp_x)
                || !wg_y.is_multiple_of(32 / p.warp_x))
        {
            return bad(format!(
                "lane patch {}×{} must divide 32 and the {wg_x}×{wg_y} invocations",
                p.warp_x,
                32 / p.warp_x,
            ));
        }
        let inv = reflected.iter().product::<u32>();
        for (what, fmt, elems) in [("A", a, p.bm * p.bk), ("B", b, p.bk * p.bn)] {
            let loads = (elems / fmt.per_load()).div_ceil(inv);
            if loads > max_fetch {
                return bad(format!(
                    "{what} needs {loads} loads per invocation, the kernel holds {max_fetch}"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(p: GemmPolicy) -> Result<()> {
        p.check_tile()?;
        let k = tiled::STAGE.load(crate::kernel::Flavor::Subgroup)?;
        for (a, b) in [
            (Format::F32, Format::F32),
            (Format::F16, Format::F16),
            (Format::F16, Format::Int4),
        ] {
            let wg = k.workgroup_size(tiled::entry::main, &p.overrides(a, b, false))?;
            p.check(&k, wg, a, b, 48 << 10)?;
        }
        Ok(())
    }

    #[test]
    fn shipped_policies_hold_the_kernel_rules() {
        check(GemmPolicy::default()).unwrap();
        check(GemmPolicy::skinny()).unwrap();
        check(GemmPolicy::tile(64, 64, 8, 0)).unwrap();
    }

    #[test]
    fn bad_policies_are_refused() {
        // a patch that does not divide the invocation grid: 32×64 tile, 8×4 invocations,
        // patch 16×2
        let e = check(GemmPolicy {
            warp_x: 16,
            ..GemmPolicy::skinny()
        })
        .unwrap_err();
        assert!(e.to_string().contains("lane patch"), "{e}");
        assert!(check(GemmPolicy::tile(128, 128, 8, 3)).is_err());
        assert!(
            check(GemmPolicy::tile(60, 128, 8, 0)).is_err(),
            "BM off the block"
        );
        assert!(check(GemmPolicy::default().unrolled(16)).is_err());
        assert!(check(GemmPolicy::tile(64, 128, 4, 0).unrolled(8)).is_err());
        assert!(check(GemmPolicy::default().buffered(3)).is_err());
        assert!(check(GemmPolicy::tile(0, 128, 8, 0)).is_err());
        let k = tiled::STAGE.load(crate::kernel::Flavor::Subgroup).unwrap();
        let p = GemmPolicy::tile(128, 128, 32, 0);
        let e = p
            .check(&k, [16, 16, 1], Format::F32, Format::F32, 32 << 10)
            .unwrap_err();
        assert!(e.to_string().contains("workgroup memory"), "{e}");
        // one buffer halves it: 128×128×32 fits 32 KiB
        p.buffered(1)
            .check(&k, [16, 16, 1], Format::F32, Format::F32, 32 << 10)
            .unwrap();
    }
}
