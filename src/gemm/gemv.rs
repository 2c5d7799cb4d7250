//! The few-rows pass (`gemm/gemv`): columns per invocation, K over the lanes, for products of
//! up to [`GEMV_MAX_M`](super::policy::GEMV_MAX_M) rows by default
//! ([`GEMV_MAX_M_INT4`](super::policy::GEMV_MAX_M_INT4) for int4 weights; any M in blocks of
//! the kernel's `MAX_ROWS` when forced). Its params and bindings are the register-tiled pass's.
//!
//! Rules: the column groups, K slices and chunks are chosen here from the kernel's constants
//! (read from the module) and the tuning table (`policy.rs`: the `GEMV_*` values and their
//! evidence); several K slices end in the split-K sum ([`finish_split_k`]).

use std::sync::Arc;

use super::format::{Format, OutFormat};
use super::gemm_plan::{GemmPlan, Path};
use super::layout::Resolved;
use super::limits::{binding_limit, check_z, tile_dispatch};
use super::policy::{
    GEMV_INT4_LONG_SLICE, GEMV_INT4_LONG_SLICE_MAX_N, GEMV_MAX_KSLICE, GEMV_MAX_SPLITS,
    GEMV_TARGET_WORKGROUPS, GEMV_WHOLE_K_WORKGROUPS, GEMV_WHOLE_K_WORKGROUPS_F32,
    GEMV_WIDE_F32_KSLICE, GEMV_WIDE_F32_ROWS,
};
use super::split::{finish_split_k, kernel_may_round, output_bindings, product_buffers, rounded_c};
use super::tiled::portable_bindings;
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::plan::{BufferId, Plan, Workgroups};
use crate::stages::gemm::gemv;

/// The few-rows kernel's pass (`gemm/gemv`) and the output buffer; `bufs` and the params are
/// the tiled kernel's (a, b, scales, zeros; `b_rows`: int4 weights' packed rows, else 0).
pub(super) fn gemv_pass(
    caps: &Caps,
    plan: &mut Plan,
    (fb, has_zeros): (Format, bool),
    bufs: [BufferId; 4],
    res: &Resolved,
    b_rows: u32,
    (split, out): (Option<u32>, OutFormat),
) -> Result<GemmPlan> {
    let (m, n, k) = (res.m, res.n, res.k);
    let batch = res.batch as u64;
    let kern: Arc<Kernel> = gemv::STAGE.load(caps.flavor())?;
    let wg = kern.invocations(gemv::entry::main, &[])? as u64;
    let kconst = |name| kern.constant(name).map(|v| v as u64);
    // columns per invocation (the kernel's COLS_*), and bytes of B per k (per packed row of
    // 8 k, int4) each reads: its columns' elements (int4: each column's 4-byte word)
    // (transposed B: one column each, a load along K of its row per lane, like int4's words;
    // a subgroup's lanes read consecutive loads of a row, so any number of column groups reads
    // whole sectors)
    let (cols, element_bytes): (u64, u64) = match fb {
        _ if res.bt => (kconst(gemv::COLS_BT)?, 32),
        Format::F32 => (kconst(gemv::COLS_F32)?, 4),
        Format::F16 => (kconst(gemv::COLS_F16)?, 2),
        Format::Int4 => (kconst(gemv::COLS_INT4)?, 4),
    };
    let run_bytes = cols * element_bytes;
    let (step_loads, red_words) = (kconst(gemv::STEP_LOADS)?, kconst(gemv::RED_WORDS)?);
    // rows per workgroup (the kernel's MAX_ROWS at most), and blocks of them: workgroups of
    // one column block, consecutive
    let rows = (m as u64).min(kconst(gemv::MAX_ROWS)?);
    let row_blocks = (m as u64).div_ceil(rows);
    // one K slice's f32 products, every matrix
    let c_bytes = res.c_elements() * 4;
    // K per step of the KT = wg / cv lanes (STEP_LOADS loads each; int4: words of 8), and the
    // workgroup memory left for the chunk of A beside the reduction's RED_WORDS per invocation
    // (int4 words and transposed B's loads along K hold per_load of K each)
    let along_k = fb == Format::Int4 || res.bt;
    let step_of = |cv: u64| (wg / cv) * step_loads * if along_k { fb.per_load() as u64 } else { 1 };
    let free = (caps.max_workgroup_storage as u64).saturating_sub(4 * red_words * wg);
    // K of A a chunk may hold per row: its f32 copy within the free workgroup memory, and its
    // loads (a vec4<u32> of A: f32 with f32 B, else f16) within the A_LOADS an invocation holds
    // in registers
    let a_format = if fb == Format::F32 { fb } else { Format::F16 };
    let a_epl = a_format.per_load() as u64;
    let room = (free / 4).min(kconst(gemv::A_LOADS)? * wg * a_epl) / rows;
    // column groups per workgroup: the most that still gives GEMV_WHOLE_K_WORKGROUPS (f32:
    // GEMV_WHOLE_K_WORKGROUPS_F32) workgroups (each then takes all of K: no split-K sum), else
    // the fewest; at least one 32-byte sector of each B row, at most 32, and one step of A
    // within `room`
    let blocks_of = |cv: u64| (n as u64).div_ceil(cv * cols) * row_blocks;
    let cv_min = (32 / run_bytes).max(1);
    let usable: Vec<u64> = [32u64, 16, 8, 4, 2, 1]
        .into_iter()
        .filter(|&cv| cv >= cv_min && step_of(cv) <= room)
        .collect();
    let Some(&fewest) = usable.last() else {
        return Err(Error::TooLarge(format!(
            "the few-rows GEMM needs {} bytes of workgroup memory; the adapter has {}",
            4 * red_words * wg + 4 * rows * step_of(32),
            caps.max_workgroup_storage
        )));
    };
    // (f32 with more than 4 rows: the widest, splitting K instead; see GEMV_WIDE_F32_ROWS)
    let wide = fb == Format::F32 && rows > GEMV_WIDE_F32_ROWS;
    let whole = if fb == Format::F32 {
        GEMV_WHOLE_K_WORKGROUPS_F32
    } else {
        GEMV_WHOLE_K_WORKGROUPS
    };
    let cv = usable
        .iter()
        .copied()
        .find(|&cv| wide || blocks_of(cv) >= whole)
        .unwrap_or(fewest);
    let blocks = blocks_of(cv);
    let step = step_of(cv);
    // the chunk of K staged at once: whole steps within `room`
    let fits = room / step * step;
    // K slices: one when the column blocks fill the GPU (up to GEMV_MAX_KSLICE of K each;
    // int4 weights of few columns: GEMV_INT4_LONG_SLICE), else enough
    // workgroups to keep B's loads in flight; whole steps, partial products within a binding
    let long = fb == Format::Int4 && n as u64 <= GEMV_INT4_LONG_SLICE_MAX_N;
    let max_kslice = if long {
        GEMV_INT4_LONG_SLICE
    } else {
        GEMV_MAX_KSLICE
    };
    let want = match split {
        Some(s) => s.max(1) as u64,
        None if wide => (k as u64)
            .div_ceil(GEMV_WIDE_F32_KSLICE)
            .clamp(1, GEMV_MAX_SPLITS),
        None if blocks >= whole => (k as u64).div_ceil(max_kslice),
        None => GEMV_TARGET_WORKGROUPS
            .div_ceil(blocks)
            .clamp(1, GEMV_MAX_SPLITS),
    };
    let k = k as u64;
    let mut kslice = k.div_ceil(want).div_ceil(step) * step;
    while k.div_ceil(kslice) > 1
        && (k.div_ceil(kslice) * c_bytes > binding_limit(caps)
            || k.div_ceil(kslice) * batch > caps.max_workgroups_per_dim as u64)
    {
        kslice *= 2;
    }
    // ...worked through in equal chunks of whole steps
    let chunks = kslice.div_ceil(fits);
    let chunk = kslice.div_ceil(chunks).div_ceil(step) * step;
    let kslice = chunks * chunk;
    let splits = k.div_ceil(kslice);
    // f16 output written by this pass itself (`OUT_F16`), where also each workgroup has an
    // even number of columns (the kernel pairs column c with c + 1)
    let fused = kernel_may_round(out, splits, n) && (cv * cols).is_multiple_of(2);
    let c_format = rounded_c(out, splits, fused);
    // a slice's blocks in rows of the dispatch where they are more than one dimension allows
    // (the kernel numbers them row by row), the slices in z
    let grid = tile_dispatch(caps, blocks, 1);
    let z = check_z(caps, splits * batch, "K slices × matrices")?;
    let (target, c, at) = product_buffers(caps, plan, &bufs, res, (c_format, out), splits, grid)?;
    let (c32, c16) = output_bindings(plan, target, fused);
    let mut overrides = vec![
        (gemv::OUT_F16, if fused { 1.0 } else { 0.0 }),
        (gemv::B_FMT, fb.code() as f64),
        (gemv::HAS_ZEROS, if has_zeros { 1.0 } else { 0.0 }),
        // (int4: a column group's words in one load where rows of packed words are whole vec4s)
        (
            gemv::INT4_VEC,
            if fb == Format::Int4 && n.is_multiple_of(4) {
                1.0
            } else {
                0.0
            },
        ),
        (gemv::ROWS, rows as f64),
        (gemv::ROW_BLOCKS, row_blocks as f64),
        (gemv::BLOCKS, blocks as f64),
        (gemv::CV, cv as f64),
        (gemv::CHUNK, chunk as f64),
        (gemv::KSLICE, kslice as f64),
    ];
    overrides.extend(res.overrides());
    let params = plan.upload("params", &res.params([0, b_rows, 0, splits as u32], at)?);
    plan.pass(
        "gemv",
        &kern,
        gemv::entry::main,
        &overrides,
        &portable_bindings(params, bufs, c32, c16),
        Workgroups::Direct([grid[0] as u32, grid[1] as u32, z]),
    )?;
    finish_split_k(
        caps,
        plan,
        (target, c),
        (splits as u32, c_format),
        res,
        Path::Gemv,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{plan, plan_int4, GemmOptions, PathChoice};

    /// A chunk's loads of A fit the registers the kernel holds them in (`A_LOADS` an
    /// invocation; the kernel drops any past them), on adapters whose workgroup memory would
    /// hold a longer chunk: 48 KiB (f32 alone is capped there) and 96 KiB (every format), at
    /// every row count of a block and K past several chunks (plans only: nothing runs).
    #[test]
    fn a_chunk_fits_the_registers_that_hold_its_loads() {
        let kern = gemv::STAGE.load(crate::kernel::Flavor::Subgroup).unwrap();
        let a_loads = kern.constant(gemv::A_LOADS).unwrap() as f64;
        let wg = kern.invocations(gemv::entry::main, &[]).unwrap() as f64;
        for storage in [48u32 << 10, 96 << 10] {
            let caps = Caps {
                max_workgroup_storage: storage,
                ..Caps::h100()
            };
            for m in 1..=8 {
                for (fmt, epl) in [(Format::F32, 4.0), (Format::F16, 8.0), (Format::Int4, 8.0)] {
                    let (n, k) = (4096, 32768);
                    let opts = GemmOptions {
                        path: PathChoice::Gemv,
                        ..Default::default()
                    };
                    let built = match fmt {
                        Format::Int4 => plan_int4(&caps, m, k, n, false, opts),
                        _ => plan(&caps, fmt, m, n, k, opts),
                    }
                    .unwrap();
                    let pass = built
                        .plan
                        .passes
                        .iter()
                        .find(|p| p.label == "gemv")
                        .unwrap();
                    let knob = |name: &str| pass.override_value(name).unwrap();
                    let (rows, chunk) = (knob("ROWS"), knob("CHUNK"));
                    assert!(
                        rows * chunk / epl <= a_loads * wg,
                        "{fmt:?} {m} rows, {storage} B: {rows} × {chunk} past {a_loads} loads"
                    );
                    assert!(chunk < k as f64, "{fmt:?} {m} rows: one chunk");
                }
            }
        }
    }
}
