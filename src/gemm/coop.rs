//! The cooperative-matrix paths: f16 × f16 → f32 on subgroup-scoped matrices, for adapters that
//! offer the shape. `wgsl/gemm/coop16.wgsl` uses 16×16×16 fragments (the H100 under Vulkan);
//! `wgsl/gemm/coop8.wgsl` the same structure on 8×8×8 (Apple GPUs under Metal);
//! `wgsl/gemm/coop16_int4.wgsl` and `coop8_int4.wgsl` the same with int4 weights dequantized
//! as they are staged ([`CoopB`]). Every tile may use one staging buffer instead of two ([`CoopPolicy::bufs`],
//! override `NBUF`: two barriers per K step, twice the BK in the same memory). Here: the
//! variants and the checks; `coop/tiles.rs` the shipped tiles and which one a product takes;
//! `coop/pass.rs` the product pass (`plan`).
//!
//! Rules: a variant is chosen only when [`usable`] says so — its shape (f16 inputs, f32
//! accumulator) is in `caps.cooperative_matrix`, the subgroup size is known ([`planned_subgroup`]:
//! the layout maps one WM×WN block of C to each subgroup, so the subgroup count must be known),
//! f16 and subgroups are on, and the tile fits workgroup memory; 16×16 is preferred. Where the
//! size is planned rather than reported (Metal), every workgroup checks it first and stops
//! without computing at any other width; [`Gemm::subgroup_mismatch`](super::Gemm::subgroup_mismatch) then
//! says so and [`gemm`](super::gemm) reruns the product on the portable kernel. [`check`] holds
//! the tile to the kernel's rules (multiples of its WM, WN and fragment, read from the kernel; the
//! staged loads within its prefetch registers); that the subgroups' blocks cover every element
//! of C once is proven on the simulator (tests/behaviour/gemm.rs), not restated here.

use crate::device::{Caps, CoopShape};
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::stages::gemm::coop16::{self, entry};
use crate::stages::gemm::coop16_int4;
use crate::stages::gemm::coop8;
use crate::stages::gemm::coop8_int4;
use crate::stages::{Override, Stage};

use super::format::OutFormat;
use super::gemm_plan::Path;
use super::layout::{CTarget, Resolved};
use super::limits::{check_limits, check_z, tile_dispatch};
use super::split::kernel_may_round;

pub use super::policy::LARGE_TILE_MIN_WORKGROUPS;
pub(crate) use tiles::variant_for_edges;
pub use tiles::{
    deep_tile, large_tile, large_tile_edges, rows_tile, rows_tile_int4, variant_for, variant_for_b,
    ROWS_TILES,
};

mod pass;
mod tiles;

pub(crate) use pass::plan;

/// Tile of a cooperative-matrix kernel (overrides; the per-subgroup block is the kernel's
/// `WM`×`WN` constant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoopPolicy {
    /// Rows of C per workgroup (a multiple of WM).
    pub bm: u32,
    /// Columns of C per workgroup (a multiple of WN).
    pub bn: u32,
    /// K per step (a multiple of the fragment size and of 8).
    pub bk: u32,
    /// Staged tile buffers (override `NBUF`): 2, one barrier per K step; or 1, two barriers
    /// per K step and half the staging memory.
    pub bufs: u32,
    /// Staged B buffers (override `NBUF_B`): `bufs`, or 2 with `bufs` = 1: B of the next tile
    /// is staged before the step's first barrier and only A between the two
    /// ([`CoopVariant::two_b_bufs`]).
    pub b_bufs: u32,
    /// K tiles in flight in registers (override `PREFETCH`): 1, tile t+1 fetched at the start
    /// of step t; or 2, tile t+2, so a step's loads have two steps' time to land
    /// ([`CoopVariant::prefetch`]; the few-rows tiles, whose steps are short).
    pub prefetch: u32,
    /// Sub-steps of B in a K step (override `B_SUB`; int4 weights only): 1; or `bk` / 32, B's
    /// packed words held in registers through the step and dequantized 32 rows at a time into
    /// one staged buffer ([`CoopVariant::sub_steps`]).
    pub b_sub: u32,
}

/// The cooperative-matrix kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoopKernel {
    /// 16×16×16 fragments (`gemm/coop16`).
    K16,
    /// 8×8×8 fragments (`gemm/coop8`).
    K8,
}

impl CoopKernel {
    /// Every kernel.
    pub const ALL: [CoopKernel; 2] = [CoopKernel::K16, CoopKernel::K8];

    /// The WGSL stage's path.
    pub fn name(self) -> &'static str {
        self.stage().name()
    }

    /// The WGSL stage.
    pub fn stage(self) -> Stage {
        match self {
            CoopKernel::K16 => coop16::STAGE,
            CoopKernel::K8 => coop8::STAGE,
        }
    }

    /// The shape it needs offered.
    pub fn shape(self) -> CoopShape {
        CoopShape::f16_f32(match self {
            CoopKernel::K16 => 16,
            CoopKernel::K8 => 8,
        })
    }

    /// Its default tile, for products below [`LARGE_TILE_MIN_WORKGROUPS`] where
    /// [`deep_tile`] does not fit.
    pub fn policy(self) -> CoopPolicy {
        match self {
            // 128×128×32: 8 subgroups of 32 on the H100, 45 KiB of workgroup memory (of 48);
            // the tile for subgroups of 16, where the deep tile does not fit (182.2 TFLOP/s at
            // 8192³, H100, 2026-11-22).
            CoopKernel::K16 => CoopPolicy {
                bm: 128,
                bn: 128,
                bk: 32,
                bufs: 2,
                b_bufs: 2,
                prefetch: 1,
                b_sub: 1,
            },
            // 64×64×32: 8 subgroups of 32 on Apple GPUs, 21 KiB. Not measured (no Apple GPU
            // here); validated by naga (MSL 2.4, SPIR-V) and on the simulator.
            CoopKernel::K8 => CoopPolicy {
                bm: 64,
                bn: 64,
                bk: 32,
                bufs: 2,
                b_bufs: 2,
                prefetch: 1,
                b_sub: 1,
            },
        }
    }

    /// The path it gives.
    pub fn path(self) -> Path {
        match self {
            CoopKernel::K16 => Path::Coop16,
            CoopKernel::K8 => Path::Coop8,
        }
    }

    /// Its default tile, as a variant.
    pub fn variant(self) -> CoopVariant {
        CoopVariant {
            kernel: self,
            policy: self.policy(),
        }
    }
}

/// A cooperative-matrix kernel with a tile
/// ([`GemmOptions::coop`](super::choose::GemmOptions::coop) forces one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoopVariant {
    /// The kernel.
    pub kernel: CoopKernel,
    /// Its tile.
    pub policy: CoopPolicy,
}

impl CoopVariant {
    /// `kernel` with a `bm × bn × bk` tile, two staging buffers.
    pub fn new(kernel: CoopKernel, bm: u32, bn: u32, bk: u32) -> Self {
        CoopVariant {
            kernel,
            policy: CoopPolicy {
                bm,
                bn,
                bk,
                bufs: 2,
                b_bufs: 2,
                prefetch: 1,
                b_sub: 1,
            },
        }
    }

    /// The same with one staging buffer (two barriers per K step).
    pub fn one_buf(mut self) -> Self {
        self.policy.bufs = 1;
        self.policy.b_bufs = 1;
        self
    }

    /// The same with one A buffer and two B buffers: B of tile t+1 is staged before step t's
    /// first barrier, A between its two.
    pub fn two_b_bufs(mut self) -> Self {
        self.policy.bufs = 1;
        self.policy.b_bufs = 2;
        self
    }

    /// The same with `tiles` K tiles in flight in registers (1 or 2).
    pub fn prefetch(mut self, tiles: u32) -> Self {
        self.policy.prefetch = tiles;
        self
    }

    /// The same with B staged in `n` sub-steps of 32 rows a K step (int4 weights; one staging
    /// buffer, one tile in flight).
    pub fn sub_steps(mut self, n: u32) -> Self {
        self.policy.b_sub = n;
        self
    }

    /// Invocations per workgroup at subgroup size `sg`, reflected from the kernel.
    pub fn invocations(&self, sg: u32) -> Result<u32> {
        let k = self.kernel.stage().load(crate::kernel::Flavor::Subgroup)?;
        Ok(k.workgroup_size(entry::main, &overrides(&k, &self.policy, sg, true)?)?[0])
    }

    /// Workgroup memory it declares, in bytes (at any subgroup size), for a C with tiles across
    /// its right edge (`edges`, see [`has_edges`]) or without.
    pub fn workgroup_bytes(&self, edges: bool) -> Result<u64> {
        let k = self.kernel.stage().load(crate::kernel::Flavor::Subgroup)?;
        workgroup_bytes(&k, &self.policy, edges)
    }
}

/// The shape coop16 needs.
pub fn wanted_shape() -> CoopShape {
    CoopKernel::K16.shape()
}

/// Whether a C of `n` columns has tiles of `p` that cross its right edge (or rows not 16-byte
/// aligned, which BN, a multiple of 8, already implies): then the kernel needs its edge path
/// (override `EDGES`) and the staging squares of that path. The bottom edge never does: the plan
/// pads C with rows up to a whole tile ([`padded_rows`]).
pub fn has_edges(p: &CoopPolicy, n: usize) -> bool {
    !n.is_multiple_of(p.bn as usize) || !n.is_multiple_of(4)
}

/// Where the kernel writes C for `res` with C in `out`: the caller's C (f32, or the plan's own
/// f32 C at the same element layout where the kernel rounds f16 C itself), or the plan's own f32
/// C, rows of N, for the rounding pass (f16 C with N odd).
pub(crate) fn target(res: &Resolved, out: OutFormat) -> CTarget {
    if out == OutFormat::F32 || rounds_itself(out, res.n) {
        res.caller_c()
    } else {
        res.packed_c()
    }
}

/// [`has_edges`] for `res`'s C in `out`: in the GEMM's own layout the right edge alone (C's
/// rows are padded to whole tiles); a caller's C has no rows past M, so the bottom edge too, and
/// rows at a stride or offset off 16 bytes.
pub(crate) fn edges_for(p: &CoopPolicy, res: &Resolved, out: OutFormat) -> bool {
    if res.own {
        return has_edges(p, res.n);
    }
    let t = target(res, out);
    let aligned = t.row.is_multiple_of(4) && t.off.is_multiple_of(4) && t.mat.is_multiple_of(4);
    has_edges(p, res.n) || !res.m.is_multiple_of(p.bm as usize) || !aligned
}

/// Rows of the C buffer for `m` rows of C: whole tiles of `p` (the kernels store whole tiles
/// into the rows past `m`; they come out zero and are not part of the result).
pub fn padded_rows(p: &CoopPolicy, m: usize) -> usize {
    m.div_ceil(p.bm as usize) * p.bm as usize
}

/// Workgroup memory the kernel declares: `bufs` staged f16 tiles with rows padded by `PAD` (the
/// same bytes whether staged as f16, `vec2<f16>` or `vec4<f16>`; B's rows `bk / b_sub`), and, with `edges`, one fragment square
/// of f32 per subgroup (without, four words: `CS_LEN`), and 16 bytes each for the subgroup
/// guard's width and the folded grid's exit (`sg_width`, `fold_past`).
fn workgroup_bytes(k: &Kernel, p: &CoopPolicy, edges: bool) -> Result<u64> {
    let pad = k.constant(coop16::PAD)? as u64;
    let (wm, wn, frag) = (
        block_rows(k, p)?,
        k.constant(coop16::WN)?,
        k.constant(coop16::FRAG)? as u64,
    );
    let subgroups = ((p.bm / wm) * (p.bn / wn)) as u64;
    let (bm, bn, bk) = (p.bm as u64, p.bn as u64, p.bk as u64);
    let (bufs, b_bufs) = (p.bufs as u64, p.b_bufs as u64);
    let b_rows = bk / p.b_sub.max(1) as u64;
    let squares = if edges { subgroups * frag * frag } else { 0 };
    Ok((bufs * bm * (bk + pad) + b_bufs * b_rows * (bn + pad)) * 2 + (squares + 4) * 4 + 32)
}

/// The subgroup size the cooperative kernels are planned for on `caps`: the adapter's one size,
/// or 32 on Metal, which wgpu reports as the range 4..64 whatever the GPU, where Apple GPUs
/// (the ones offering `simdgroup_matrix`, with Macs of the Mac2 family) run SIMD groups of 32.
/// A GPU that runs another width meets the kernels' guard (`subgroup_guard` in
/// `wgsl/gemm/lib/coop.wgsl`): no wrong C, an error. `None` where a range is reported
/// elsewhere (Vulkan on AMD or Intel: no size to plan for).
pub fn planned_subgroup(caps: &Caps) -> Option<u32> {
    if caps.subgroup_min == 0 {
        return None;
    }
    if caps.subgroup_min == caps.subgroup_max {
        return Some(caps.subgroup_min);
    }
    let apple = 32;
    (caps.backend == crate::device::Backend::Metal
        && (caps.subgroup_min..=caps.subgroup_max).contains(&apple))
    .then_some(apple)
}

/// B's format on the cooperative path: f16 (`gemm/coop16`, `gemm/coop8`), or int4 weights
/// dequantized to f16 as they are staged (`gemm/coop16_int4`, `gemm/coop8_int4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoopB {
    /// f16, K×N or stored transposed.
    F16,
    /// int4 weights ([`Int4Weights`](super::int4::Int4Weights)), with or without zero points.
    Int4 {
        /// The weights have zero points.
        zeros: bool,
    },
}

impl CoopB {
    /// The stage that multiplies by this B on `v`'s tile; `Error::InvalidInput` for int4
    /// weights on a tile whose K step is not a whole part of a quantization group (each step
    /// takes one group's scales).
    pub fn stage(self, v: &CoopVariant) -> Result<Stage> {
        match self {
            CoopB::F16 if v.policy.b_sub != 1 => Err(Error::InvalidInput(format!(
                "cooperative-matrix GEMM: sub-steps of B are for int4 weights, not f16 B ({} {:?})",
                v.kernel.name(),
                v.policy
            ))),
            CoopB::F16 => Ok(v.kernel.stage()),
            CoopB::Int4 { .. } => {
                let group = super::int4::GROUP as u32;
                if !group.is_multiple_of(v.policy.bk) {
                    return Err(Error::InvalidInput(format!(
                        "cooperative-matrix GEMM of int4 weights: a tile whose K step divides \
                         the group of {group}, not {} {:?}",
                        v.kernel.name(),
                        v.policy
                    )));
                }
                Ok(match v.kernel {
                    CoopKernel::K16 => coop16_int4::STAGE,
                    CoopKernel::K8 => coop8_int4::STAGE,
                })
            }
        }
    }
}

/// The cooperative kernel to use on `caps` (16×16 preferred), or why there is none.
pub fn usable(caps: &Caps) -> Result<CoopKernel> {
    let no = |m: &str| Error::InvalidInput(format!("cooperative-matrix GEMM: {m}"));
    let needs = |feature| Error::MissingFeature {
        feature,
        needed_for: "the cooperative-matrix GEMM".into(),
    };
    if !caps.f16 {
        return Err(needs("SHADER_F16"));
    }
    if !caps.subgroups {
        return Err(needs("SUBGROUP"));
    }
    if caps.cooperative_matrix.is_empty() {
        return Err(needs("EXPERIMENTAL_COOPERATIVE_MATRIX"));
    }
    if planned_subgroup(caps).is_none() {
        return Err(no("needs a single subgroup size"));
    }
    let mut why = no("the adapter offers no f16 → f32 cooperative matrix of 16×16×16 or 8×8×8");
    for kind in [CoopKernel::K16, CoopKernel::K8] {
        if !caps.cooperative_matrix.contains(&kind.shape()) {
            continue;
        }
        match variant_fits(caps, &kind.variant(), true) {
            Ok(()) => return Ok(kind),
            Err(e) => why = e,
        }
    }
    Err(why)
}

/// Whether `v` runs on `caps` for an `m × n` C (as [`usable`] decides for the default tiles),
/// or why not. Any `m` does: C's rows are padded to whole tiles.
pub fn usable_variant(caps: &Caps, v: &CoopVariant, _m: usize, n: usize) -> Result<()> {
    usable_variant_edges(caps, v, has_edges(&v.policy, n))
}

/// [`usable_variant`] with the edge path or without (`edges`).
pub(crate) fn usable_variant_edges(caps: &Caps, v: &CoopVariant, edges: bool) -> Result<()> {
    let no = |m: &str| Error::InvalidInput(format!("cooperative-matrix GEMM: {m}"));
    let needs = |feature| Error::MissingFeature {
        feature,
        needed_for: "the cooperative-matrix GEMM".into(),
    };
    if !caps.f16 {
        return Err(needs("SHADER_F16"));
    }
    if !caps.subgroups {
        return Err(needs("SUBGROUP"));
    }
    if caps.cooperative_matrix.is_empty() {
        return Err(needs("EXPERIMENTAL_COOPERATIVE_MATRIX"));
    }
    if planned_subgroup(caps).is_none() {
        return Err(no("needs a single subgroup size"));
    }
    if !caps.cooperative_matrix.contains(&v.kernel.shape()) {
        return Err(no(&format!(
            "the adapter does not offer {}'s shape",
            v.kernel.name()
        )));
    }
    variant_fits(caps, v, edges)
}

/// The tile fits workgroup memory (with the edge path's squares where `edges`) and the layout
/// holds at the adapter's subgroup size.
fn variant_fits(caps: &Caps, v: &CoopVariant, edges: bool) -> Result<()> {
    let no = |m: &str| Error::InvalidInput(format!("cooperative-matrix GEMM: {m}"));
    let name = v.kernel.name();
    if v.policy.bm == 0 || v.policy.bn == 0 || v.policy.bk == 0 {
        // (before the kernel is specialized: zero-length arrays fail naga's validation)
        return Err(no(&format!(
            "{name} {:?}: BM, BN and BK must be positive",
            v.policy
        )));
    }
    let k = v.kernel.stage().load(caps.flavor())?;
    if workgroup_bytes(&k, &v.policy, edges)? > caps.max_workgroup_storage as u64 {
        let with = if edges {
            " with tiles across C's right edge"
        } else {
            ""
        };
        return Err(no(&format!(
            "{name} {:?} does not fit workgroup memory{with}",
            v.policy
        )));
    }
    // at small subgroup sizes the workgroup has too few invocations to stage the tiles
    // (e.g. coop16 at subgroup size 8): then the portable kernel is the fallback
    let sg = planned_subgroup(caps).ok_or_else(|| no("needs a single subgroup size"))?;
    layout_fits(&k, &v.policy, sg).map_err(|e| no(&format!("{name}: {e}")))
}

/// Rows of C each subgroup owns under `p`: the kernel's `WM`, or the whole tile where it is one
/// or two fragment rows (the few-rows tiles of 16 and 32 rows, [`rows_tile`]: override `FM` = 1
/// or 2).
fn block_rows(k: &Kernel, p: &CoopPolicy) -> Result<u32> {
    let frag = k.constant(coop16::FRAG)?;
    Ok(if p.bm == frag || p.bm == 2 * frag {
        p.bm
    } else {
        k.constant(coop16::WM)?
    })
}

/// The policy's overrides for kernel `k` at subgroup size `sg`, with or without the edge path.
fn overrides(k: &Kernel, p: &CoopPolicy, sg: u32, edges: bool) -> Result<[(Override, f64); 10]> {
    let fm = block_rows(k, p)? / k.constant(coop16::FRAG)?;
    Ok([
        (coop16::FM, fm as f64),
        (coop16::PREFETCH, p.prefetch as f64),
        (coop16::BM, p.bm as f64),
        (coop16::BN, p.bn as f64),
        (coop16::BK, p.bk as f64),
        (coop16::SG, sg as f64),
        (coop16::NBUF, p.bufs as f64),
        (coop16::NBUF_B, p.b_bufs as f64),
        (coop16::EDGES, if edges { 1.0 } else { 0.0 }),
        (coop16::B_SUB, p.b_sub as f64),
    ])
}

/// [`check`] against the workgroup size reflected from `k` specialised for `p` at `sg`.
fn layout_fits(k: &Kernel, p: &CoopPolicy, sg: u32) -> Result<()> {
    let reflected = k.workgroup_size(entry::main, &overrides(k, p, sg, true)?)?;
    check(k, p, reflected)
}

/// Checks the tile against the kernel's rules: BM, BN, BK multiples of its `WM`, `WN` and
/// fragment (BK and BN of 8, the staging's vec4 of f16), one or two staging buffers, and the
/// staged loads within the kernel's prefetch registers (`MAX_FETCH`) at the `reflected`
/// workgroup size.
pub fn check(k: &Kernel, p: &CoopPolicy, reflected: [u32; 3]) -> Result<()> {
    let bad = |m: String| Err(Error::InvalidInput(format!("coop policy {p:?}: {m}")));
    let wm = block_rows(k, p)?;
    let wn = k.constant(coop16::WN)?;
    let frag = k.constant(coop16::FRAG)?;
    let max_fetch = k.constant(coop16::MAX_FETCH)?;
    if !p.bm.is_multiple_of(wm)
        || !p.bn.is_multiple_of(wn)
        || !p.bk.is_multiple_of(frag)
        || !p.bk.is_multiple_of(8)
    {
        return bad(format!(
            "BM, BN, BK must be multiples of {wm}, {wn}, {frag}"
        ));
    }
    if !(1..=2).contains(&p.bufs)
        || !(p.bufs..=2).contains(&p.b_bufs)
        || !(1..=2).contains(&p.prefetch)
        || !p.bn.is_multiple_of(8)
    {
        return bad(
            "one or two staging buffers, as many or more for B (at most 2), one or two tiles \
             in flight, BN a multiple of 8"
                .into(),
        );
    }
    // vec4 loads of 8 f16 per invocation, per operand (with sub-steps, B's of 4 packed words)
    let inv = reflected.iter().product::<u32>();
    if p.b_sub != 1 {
        let fm = wm / frag;
        if !(2..=max_fetch).contains(&p.b_sub)
            || p.bk != 32 * p.b_sub
            || (p.bufs, p.b_bufs, p.prefetch) != (1, 1, 1)
            || inv != p.bn
            || fm > 2
        {
            return bad(format!(
                "sub-steps of B: 2 to {max_fetch} of 32 rows (BK = 32 · sub-steps), one staging \
                 buffer, one tile in flight, as many invocations as the tile's columns (BN {}, \
                 {inv} invocations), at most two fragment rows a subgroup",
                p.bn
            ));
        }
    }
    let b_items = if p.b_sub == 1 {
        p.bk * p.bn / 8
    } else {
        p.b_sub * p.bn
    };
    for (what, items) in [("A", p.bm * p.bk / 8), ("B", b_items)] {
        if items.div_ceil(inv) > max_fetch {
            return bad(format!(
                "{what} needs more than {max_fetch} loads per invocation"
            ));
        }
    }
    Ok(())
}

/// Whether the cooperative kernels round an `out` C of `n` columns to f16 (`OUT_F16` in
/// wgsl/gemm/lib/coop.wgsl: each workgroup reads its tile back after storing it; with K in
/// slices the split-K sum rounds instead): the product kernels' rule (`kernel_may_round`), so
/// with N odd the `gemm/to_f16` pass rounds after the product. 4.09 against 4.25 ms with the
/// pass at 8192³ (f32 C: 4.07; H100, 2026-11-26).
pub fn rounds_itself(out: OutFormat, n: usize) -> bool {
    kernel_may_round(out, 1, n)
}

/// C's tiles under `p`: [columns, rows].
fn tiles(p: &CoopPolicy, m: usize, n: usize) -> [u64; 2] {
    [
        (n as u64).div_ceil(p.bn as u64),
        (m as u64).div_ceil(p.bm as u64),
    ]
}

/// Whether variant `v` runs an M×N product on this adapter, beyond [`usable_variant`]'s rules:
/// its layout, its workgroup memory for this N, its grid, and C with rows padded to whole tiles
/// within the binding limit. Returns the grid and C's bytes. `PathChoice::Auto` asks before it
/// takes the cooperative path, so a product whose padded C is too large takes the portable
/// kernel instead of failing.
pub fn fits(caps: &Caps, v: &CoopVariant, m: usize, n: usize) -> Result<([u64; 2], u64)> {
    let p = v.policy;
    variant_fits(caps, v, has_edges(&p, n))?;
    own_c_fits(caps, &p, m, n)
}

/// The grid and the GEMM's own C, rows padded to whole tiles, within the adapter's limits.
fn own_c_fits(caps: &Caps, p: &CoopPolicy, m: usize, n: usize) -> Result<([u64; 2], u64)> {
    let p = *p;
    let [nx, ny] = tiles(&p, m, n);
    let grid = tile_dispatch(caps, nx, ny);
    // C's rows padded to whole tiles (the kernels store whole tiles in M)
    let c_bytes = padded_rows(&p, m)
        .checked_mul(n)
        .and_then(|e| e.checked_mul(4))
        .ok_or_else(|| Error::TooLarge(format!("gemm C of {m}×{n} padded to whole tiles")))?
        as u64;
    check_limits(caps, &[("C", c_bytes)], grid)?;
    Ok((grid, c_bytes))
}

/// [`fits`] for `res`'s layout with C in `out`: the grid and the bytes of the f32 C the kernel
/// writes (the GEMM's own, rows padded to whole tiles; or the caller's extent, or the plan's
/// own rows of N: [`target`]).
pub(crate) fn fits_layout(
    caps: &Caps,
    v: &CoopVariant,
    res: &Resolved,
    out: OutFormat,
) -> Result<([u64; 2], u64)> {
    if res.own {
        return fits(caps, v, res.m, res.n);
    }
    let p = v.policy;
    variant_fits(caps, v, edges_for(&p, res, out))?;
    let [nx, ny] = tiles(&p, res.m, res.n);
    let grid = tile_dispatch(caps, nx, ny);
    let c_bytes = if out == OutFormat::F32 || rounds_itself(out, res.n) {
        res.c_bytes(OutFormat::F32)
    } else {
        res.c_elements() * 4
    };
    check_limits(caps, &[("C", c_bytes)], grid)?;
    check_z(caps, res.batch as u64, "matrices")?;
    Ok((grid, c_bytes))
}

#[cfg(test)]
mod tests;
