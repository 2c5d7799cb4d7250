//! The cooperative-matrix path (`wgsl/gemm/coop16.wgsl`): f16 × f16 → f32 on 16×16×16
//! subgroup-scoped matrices, for adapters that offer that shape (the H100 under Vulkan).
//!
//! Rules: chosen only when [`usable`] says so — the shape (16, 16, 16, f16, f32) is in
//! `caps.cooperative_matrix`, the adapter has one subgroup size (the layout maps one 64×32 block
//! of C to each subgroup, so the subgroup count must be known), and the tile fits workgroup
//! memory. [`check`] ties the tile to the reflected workgroup size: (BM/WM)·(BN/WN) subgroups of
//! SG invocations, each owning a distinct WM×WN block, together covering the BM×BN tile.

use crate::error::{Error, Result};
use crate::exec::{Caps, CoopShape};
use crate::kernel::{self, Kernel};
use crate::plan::{BufferInit, Plan, Workgroups};

use super::{check_limits, kernel_const, GemmPlan, Path};

/// Tile of the cooperative-matrix kernel (overrides; the per-subgroup block is the kernel's
/// `WM`×`WN` constant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoopPolicy {
    /// Rows of C per workgroup (a multiple of WM = 64).
    pub bm: u32,
    /// Columns of C per workgroup (a multiple of WN = 32).
    pub bn: u32,
    /// K per step (a multiple of 16).
    pub bk: u32,
}

impl Default for CoopPolicy {
    /// 128×128×32: 8 subgroups of 32 on the H100, 45 KiB of workgroup memory (fits its 48 KiB).
    /// Not yet tuned on the H100 (the owner's run records the figure in docs/gemm.md).
    fn default() -> Self {
        CoopPolicy {
            bm: 128,
            bn: 128,
            bk: 32,
        }
    }
}

/// The shape the kernel needs.
pub fn wanted_shape() -> CoopShape {
    CoopShape {
        m: 16,
        n: 16,
        k: 16,
        ab: "f16".into(),
        acc: "f32".into(),
    }
}

const PAD: u64 = 8;

fn workgroup_bytes(p: &CoopPolicy, subgroups: u64) -> u64 {
    let (bm, bn, bk) = (p.bm as u64, p.bn as u64, p.bk as u64);
    2 * bm * (bk + PAD) * 2 + 2 * bk * (bn + PAD) * 2 + subgroups * 256 * 4
}

/// Why the cooperative path cannot run on `caps` (Ok when it can).
pub fn usable(caps: &Caps) -> Result<()> {
    let no = |m: &str| Err(Error::InvalidInput(format!("cooperative-matrix GEMM: {m}")));
    if !caps.cooperative_matrix.contains(&wanted_shape()) {
        return no("the adapter offers no f16 16×16×16 → f32 cooperative matrix");
    }
    if !caps.f16 || !caps.subgroups {
        return no("needs f16 and subgroups");
    }
    if caps.subgroup_min != caps.subgroup_max || caps.subgroup_min == 0 {
        return no("needs a single subgroup size");
    }
    let p = CoopPolicy::default();
    let subgroups = (p.bm / 64 * (p.bn / 32)) as u64;
    if workgroup_bytes(&p, subgroups) > caps.max_workgroup_storage as u64 {
        return no("the tile does not fit workgroup memory");
    }
    Ok(())
}

/// Checks the layout: the reflected workgroup holds exactly one subgroup per WM×WN block of the
/// tile, and the staged loads fit the kernel's prefetch registers.
pub fn check(k: &Kernel, p: &CoopPolicy, sg: u32, reflected: [u32; 3]) -> Result<()> {
    let bad = |m: String| Err(Error::Plan(format!("coop policy {p:?}: {m}")));
    let wm = kernel_const(k, "WM")?;
    let wn = kernel_const(k, "WN")?;
    let frag = kernel_const(k, "FRAG")?;
    let max_fetch = kernel_const(k, "MAX_FETCH")?;
    if !p.bm.is_multiple_of(wm)
        || !p.bn.is_multiple_of(wn)
        || !p.bk.is_multiple_of(frag)
        || !p.bk.is_multiple_of(8)
    {
        return bad(format!(
            "BM, BN, BK must be multiples of {wm}, {wn}, {frag}"
        ));
    }
    let blocks = (p.bm / wm) * (p.bn / wn);
    if reflected != [blocks * sg, 1, 1] {
        return bad(format!(
            "workgroup {reflected:?} is not {blocks} subgroups of {sg}"
        ));
    }
    // each subgroup s owns rows wm·(s / SG_X) .., columns wn·(s % SG_X) ..: distinct, covering
    let sg_x = p.bn / wn;
    let mut owned = vec![false; (p.bm * p.bn) as usize];
    for s in 0..blocks {
        let (r0, c0) = (wm * (s / sg_x), wn * (s % sg_x));
        for r in r0..r0 + wm {
            for c in c0..c0 + wn {
                if r >= p.bm
                    || c >= p.bn
                    || std::mem::replace(&mut owned[(r * p.bn + c) as usize], true)
                {
                    return bad(format!(
                        "subgroup {s} overlaps or leaves the tile at ({r}, {c})"
                    ));
                }
            }
        }
    }
    if owned.iter().any(|o| !o) {
        return bad("a part of the tile is owned by no subgroup".into());
    }
    let inv = blocks * sg;
    for (what, items) in [("A", p.bm * p.bk / 8), ("B", p.bk * p.bn / 8)] {
        if items.div_ceil(inv) > max_fetch {
            return bad(format!(
                "{what} needs more than {max_fetch} loads per invocation"
            ));
        }
    }
    Ok(())
}

/// The plan for the packed f16 operands (rows padded to 8 halves).
#[allow(clippy::too_many_arguments)]
pub fn plan(
    caps: &Caps,
    a_bytes: Vec<u8>,
    b_bytes: Vec<u8>,
    a_row_vecs: u32,
    b_row_vecs: u32,
    m: usize,
    n: usize,
    k: usize,
) -> Result<GemmPlan> {
    usable(caps)?;
    let p = CoopPolicy::default();
    let sg = caps.subgroup_min;
    let kern = kernel::load("gemm/coop16", caps.flavor())?;
    let overrides = [
        ("BM", p.bm as f64),
        ("BN", p.bn as f64),
        ("BK", p.bk as f64),
        ("SG", sg as f64),
    ];
    let reflected = kern.workgroup_size("main", &overrides)?;
    check(&kern, &p, sg, reflected)?;
    let grid = [
        (n as u64).div_ceil(p.bn as u64),
        (m as u64).div_ceil(p.bm as u64),
    ];
    let c_bytes = (m * n * 4) as u64;
    check_limits(
        caps,
        &[
            ("A", a_bytes.len() as u64),
            ("B", b_bytes.len() as u64),
            ("C", c_bytes),
        ],
        grid,
    )?;
    let mut plan = Plan::new(format!("gemm {m}x{n}x{k} f16 coop16"));
    let a = plan.buffer("a", a_bytes.len() as u64, BufferInit::Bytes(a_bytes));
    let b = plan.buffer("b", b_bytes.len() as u64, BufferInit::Bytes(b_bytes));
    let k_tiles = (k as u32).div_ceil(p.bk);
    let params = plan.upload(
        "params",
        &[
            m as u32, n as u32, k as u32, a_row_vecs, b_row_vecs, k_tiles, 0, 0,
        ],
    );
    let c = plan.buffer("c", c_bytes, BufferInit::Poison);
    plan.pass(
        "gemm coop16",
        &kern,
        "main",
        &overrides,
        &[params, a, b, c],
        Workgroups::Direct([grid[0] as u32, grid[1] as u32, 1]),
    );
    plan.read_back(c);
    Ok(GemmPlan {
        plan,
        c,
        m,
        n,
        path: Path::Coop16,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coop_kernel_validates_and_its_layout_covers_the_tile() {
        let k = kernel::load("gemm/coop16", crate::kernel::Flavor::Subgroup).unwrap();
        let p = CoopPolicy::default();
        for sg in [32u32, 64] {
            let ov = [
                ("BM", p.bm as f64),
                ("BN", p.bn as f64),
                ("BK", p.bk as f64),
                ("SG", sg as f64),
            ];
            let wg = k.workgroup_size("main", &ov).unwrap();
            check(&k, &p, sg, wg).unwrap();
            // a workgroup that is one subgroup short is refused
            assert!(check(&k, &p, sg, [wg[0] - sg, 1, 1]).is_err());
        }
        assert!(workgroup_bytes(&p, 8) <= 48 << 10);
    }
}
