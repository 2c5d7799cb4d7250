//! The cooperative-matrix product pass: the plan of one product on a chosen variant (its
//! buffers, K slices for decode-sized products, the overrides and the bindings of the stage B's
//! format takes), then the split-K sum where K was sliced.
//!
//! Rules: the caller chose and checked the variant ([`usable_variant`](super::usable_variant),
//! [`fits_layout`]); every limit this pass adds (B, the scales, the partial products) is
//! checked before anything is planned.

use crate::device::Caps;
use crate::error::{Error, Result};
use crate::plan::{BufferInit, Plan, Workgroups};
// (the cooperative stages declare the same overrides, constants, entry point and resource
// variables, the int4 ones their scales and zero points besides; the plan checks each against the
// stage it binds)
use crate::stages::gemm::coop16::{self, bind, entry};
use crate::stages::gemm::coop16_int4;

use super::super::format::OutFormat;
use super::super::gemm_plan::{shape_label, GemmPlan};
use super::super::layout::{int4_args, CTarget, Resolved};
use super::super::limits::check_limits;
use super::super::split::{coop_splits, sum_pass};
use super::{
    edges_for, fits_layout, overrides, padded_rows, planned_subgroup, rounds_itself, target, tiles,
    CoopB, CoopVariant,
};

/// The plan for f16 A and B (f16, or int4 weights: `b_fmt`) laid out as `res` says, on variant
/// `v` (checked with `usable_variant` by the caller), with C in f32, or in f16 where the kernel can round it
/// itself (`out` = F16 and N even: [`rounds_itself`]; else the caller adds the rounding pass).
/// In the GEMM's own layout C has rows up to a whole tile ([`padded_rows`]); a caller's C has
/// none past M (`MASK_M`). `split` asks for that many K slices, at most one a K step, evened out
/// (each but the last the same number of steps, so there may be fewer); more than one where the
/// product cannot be split is `Error::InvalidInput` (`None`: [`coop_splits`]).
pub(crate) fn plan(
    caps: &Caps,
    v: CoopVariant,
    (b_fmt, out): (CoopB, OutFormat),
    res: &Resolved,
    split: Option<u32>,
) -> Result<GemmPlan> {
    let kind = v.kernel;
    let p = v.policy;
    let (m, n, k) = (res.m, res.n, res.k);
    let stage = b_fmt.stage(&v)?;
    let kern = stage.load(caps.flavor())?;
    let (grid, c_bytes) = fits_layout(caps, &v, res, out)?;
    let sg = planned_subgroup(caps).expect("fits checked it");
    let edges = edges_for(&p, res, out);
    check_limits(caps, &[("A", res.a_bytes), ("B", res.b_bytes)], grid)?;
    let mut plan = Plan::new(format!(
        "gemm {} {} {} {}x{}x{}",
        shape_label(res),
        if b_fmt == CoopB::F16 { "f16" } else { "int4" },
        kind.name(),
        p.bm,
        p.bn,
        p.bk
    ));
    let a = plan.arg("a", res.a_bytes);
    // B, or the int4 weights, their scales and zero points (a stand-in without)
    let (b, int4) = match b_fmt {
        CoopB::F16 => (plan.arg("b", res.b_bytes), None),
        CoopB::Int4 { zeros } => {
            let w = int4_args(&mut plan, k, n, zeros)?;
            check_limits(caps, &[("scales", w.scale_bytes)], grid)?;
            (w.bufs[0], Some((w, zeros)))
        }
    };
    let b_rows = int4.as_ref().map_or(0, |(w, _)| w.rows);
    let k_tiles = (k as u32).div_ceil(p.bk);
    // K slices where the tiles are too few to keep the GPU's loads in flight: decode-sized
    // products (C one row of tiles, where it was measured), in the GEMM's own layout with one
    // matrix and C in f32 or rounded by the kernel's rule, so C's buffer is the same either way
    let [nx, ny] = tiles(&p, m, n);
    let splitable =
        ny == 1 && res.own && res.batch == 1 && (out == OutFormat::F32 || rounds_itself(out, n));
    let splits = match split {
        Some(s) if s > 1 && !splitable => {
            return Err(Error::InvalidInput(format!(
                "{} K slices asked of the cooperative-matrix GEMM {}: it splits K only where C \
                 is one row of its {}-row tiles in the GEMM's own layout, one matrix, in f32 or \
                 f16 with N even",
                s,
                shape_label(res),
                p.bm
            )))
        }
        _ if !splitable => 1,
        Some(s) => s.clamp(1, k_tiles),
        None => coop_splits(nx * ny, k_tiles, tiles::rows_resident(&p)),
    };
    let per_split = k_tiles.div_ceil(splits);
    let splits = k_tiles.div_ceil(per_split);
    // each slice's partial product keeps C's rows padded to whole tiles
    let padded = (padded_rows(&p, m) * n) as u64;
    let at = if splits > 1 {
        CTarget {
            off: 0,
            row: n as u64,
            mat: padded,
            split: padded,
        }
    } else {
        target(res, out)
    };
    let params = plan.upload(
        "params",
        &res.params([k_tiles, b_rows, per_split, splits], at)?,
    );
    // f16 output rounded by the kernel (OUT_F16): C's f32 buffer stays, as the kernel's scratch
    // (at C's element layout); the binding the kernel does not write gets a stand-in. C is the
    // caller's where this pass leaves it in the dtype asked for. With K slices the sum rounds.
    let fused = rounds_itself(out, n);
    let c_arg = |plan: &mut Plan| {
        if out == OutFormat::F32 {
            plan.arg("c", c_bytes)
        } else if res.own {
            plan.arg("c", c_bytes / 2)
        } else {
            plan.arg("c", res.c_bytes(out))
        }
    };
    let caller_c = (splits > 1).then(|| c_arg(&mut plan));
    let c = if splits > 1 {
        check_limits(
            caps,
            &[("partial products", padded * 4 * splits as u64)],
            grid,
        )?;
        plan.buffer("partials", padded * 4 * splits as u64, BufferInit::Poison)
    } else if out == OutFormat::F32 {
        plan.arg("c", c_bytes)
    } else {
        plan.buffer("c f32", c_bytes, BufferInit::Poison)
    };
    let fused = fused && splits == 1;
    let c16 = if fused {
        c_arg(&mut plan)
    } else {
        plan.buffer("no f16 output", 16, BufferInit::Zeroed)
    };
    let mut ov = overrides(&kern, &p, sg, edges)?.to_vec();
    ov.push((coop16::OUT_F16, if fused { 1.0 } else { 0.0 }));
    // the exit of workgroups without a tile only where the grid was folded (it costs a barrier)
    ov.push((
        coop16::FOLDED,
        if grid == tiles(&p, m, n) { 0.0 } else { 1.0 },
    ));
    // the width check only where the width is planned, not reported (it costs a barrier)
    let reported = caps.subgroup_min == caps.subgroup_max;
    ov.push((coop16::SG_GUARD, if reported { 0.0 } else { 1.0 }));
    // a caller's C: no rows past M
    ov.push((coop16::MASK_M, if res.own { 0.0 } else { 1.0 }));
    ov.extend(res.overrides());
    // the subgroup width a workgroup met, where it was not `sg` (0: none)
    let guard = plan.buffer("subgroup guard", 4, BufferInit::Zeroed);
    plan.read_back(guard);
    let mut binds = vec![
        (bind::params, params),
        (bind::a, a),
        (bind::b, b),
        (bind::c, c),
        (bind::c16, c16),
        (bind::sg_guard, guard),
    ];
    let mut inputs = vec![a, b];
    if let Some((w, zeros)) = int4 {
        let [_, s, z] = w.bufs;
        binds.extend([
            (coop16_int4::bind::scales, s),
            (coop16_int4::bind::zeros, z),
        ]);
        ov.push((coop16_int4::HAS_ZEROS, if zeros { 1.0 } else { 0.0 }));
        inputs = [vec![a], w.inputs].concat();
    }
    plan.pass(
        stage.name(),
        &kern,
        entry::main,
        &ov,
        &binds,
        Workgroups::Direct([grid[0] as u32, grid[1] as u32, res.batch as u32 * splits]),
    )?;
    let (c, out) = if let Some(caller_c) = caller_c {
        sum_pass(
            caps,
            &mut plan,
            (c, caller_c),
            (splits, out),
            res,
            ("split-k sum", Some(padded)),
        )?;
        (caller_c, out)
    } else if fused {
        (c16, OutFormat::F16)
    } else {
        (c, OutFormat::F32)
    };
    plan.read_back(c);
    Ok(GemmPlan {
        plan,
        c,
        out,
        m,
        n,
        path: kind.path(),
        guard: Some(guard),
        inputs,
        layout: *res,
    })
}
