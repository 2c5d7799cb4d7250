//! Dense GEMM: C = A·B, row-major, any M, N, K ≥ 1, f32 accumulation, f32 output or (on
//! request) f16.
//!
//! Rules:
//! - **Three inputs:** f32 × f32, f16 × f16 (u16 bits on the host), and f16 activations × int4
//!   weights ([`int4::Int4Weights`], the Marlin use case).
//! - **Three kinds of kernel.** `gemm/tiled` is the portable register-tiled kernel (every
//!   adapter, no feature needed: f16 is unpacked with `unpack2x16float`). `gemm/gemv`, the
//!   few-rows kernel, takes products of up to [`GEMV_MAX_M`] rows by default.
//!   `gemm/coop16` and `gemm/coop8` use cooperative matrices (f16 16×16×16 or 8×8×8 → f32,
//!   `Features::EXPERIMENTAL_COOPERATIVE_MATRIX`) and are chosen for f16 × f16 from
//!   [`COOP_MIN_M`] rows only when the adapter offers that shape, has one subgroup size, and
//!   the tile fits its workgroup memory ([`coop::usable`]); otherwise the portable kernel runs.
//! - **Coverage is proven, not mirrored.** Policies are checked against the rules the kernels
//!   declare ([`GemmPolicy::check`], [`coop::check`]: divisibility, register and workgroup-memory
//!   budgets read from the module); that every element of C is written exactly once at every
//!   policy the host uses is proven on the simulator (tests/behaviour/gemm.rs: poisoned C, partial tiles on
//!   every edge, at several subgroup sizes), where a missed row is an `unwritten-output` finding.
//! - **Host packing:** in the GEMM's own layout ([`Gemm::new`]) A rows are padded with zeros to a
//!   whole vec4 load along K (4 f32 or 8 f16) and B rows to a whole load along N, so a load is
//!   entirely in or out of the matrix; all other edges (partial tiles in M, N and K) are handled
//!   in the kernels. C holds M×N elements (the cooperative kernels' buffer has rows up to a whole
//!   tile more, which decoding drops).
//! - **The caller's layout** ([`GemmShape`], [`Gemm::with_shape`]): row strides in whole loads,
//!   element offsets, B stored transposed, a batch with matrix strides; resolved into the
//!   kernels' params and overrides (`layout.rs`, `wgsl/gemm/lib/layout.wgsl`), the indexing in
//!   WGSL. Padding is never read as data (K tails zeroed after the load) and C is written only
//!   at its M×N elements per matrix; a layout the loads cannot take is [`Error::Layout`] naming
//!   the operand.
//! - **f16 output** ([`OutFormat::F16`]): C's f32 elements rounded to nearest even, packed two
//!   per word, by the split-K sum where K is split, by the few-rows and register-tiled kernels'
//!   own stores with one K slice and N even (`rounded_c`), by the cooperative kernels reading
//!   their tile back with N even (`coop::rounds_itself`), else (N odd) by one more pass after
//!   the kernel (`gemm/to_f16`). Rounding once, after the f32 sum, gives the same bits on every
//!   path, and every adapter gives the bits of the host's `half::f16::from_f32` (all of them
//!   round in integer arithmetic).
//! - Bad shapes or dtypes are [`Error::InvalidInput`]; grids beyond the device's dispatch limit
//!   are [`Error::Limit`]; buffers beyond what one binding holds are [`Error::TooLarge`].

pub mod coop;
pub mod int4;
pub mod layout;
pub mod policy;

use std::sync::Arc;

pub use int4::Int4Weights;
pub use layout::{GemmShape, MatrixLayout};
pub use policy::{Format, GemmPolicy, COOP_MIN_M, GEMV_MAX_M, SPLIT_TARGET_INVOCATIONS};

use policy::{
    GEMV_MAX_KSLICE, GEMV_MAX_SPLITS, GEMV_TARGET_WORKGROUPS, GEMV_WHOLE_K_WORKGROUPS,
    GEMV_WIDE_F32_KSLICE, GEMV_WIDE_F32_ROWS,
};

use layout::{resolve, CTarget, Resolved};

use crate::context::{BufferRef, Context, EncoderRef};
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};
use crate::record::{Arg, Recorder, Timestamps};
use crate::stages::gemm::{coop16, gemv, splitk_sum, tiled, to_f16};
use crate::stages::Resource;

/// A dense operand, row-major.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// f32 values.
    F32(&'a [f32]),
    /// f16 values as u16 bits.
    F16(&'a [u16]),
}

impl Operand<'_> {
    fn len(&self) -> usize {
        match self {
            Operand::F32(x) => x.len(),
            Operand::F16(x) => x.len(),
        }
    }
    fn format(&self) -> Format {
        match self {
            Operand::F32(_) => Format::F32,
            Operand::F16(_) => Format::F16,
        }
    }
}

/// Which kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// The portable register-tiled kernel.
    Tiled,
    /// Cooperative matrices, f16 16×16×16 → f32.
    Coop16,
    /// Cooperative matrices, f16 8×8×8 → f32 (Apple).
    Coop8,
    /// The few-rows kernel (`gemm/gemv`): M ≤ [`GEMV_MAX_M`] with the default path and
    /// policy.
    Gemv,
}

/// How to choose the kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathChoice {
    /// The few-rows kernel for M ≤ [`GEMV_MAX_M`], cooperative matrices when offered (f16
    /// inputs, M ≥ [`COOP_MIN_M`]), else the register-tiled kernel.
    #[default]
    Auto,
    /// The register-tiled portable kernel.
    Tiled,
    /// Cooperative matrices, or an error when the adapter does not offer them (or the product
    /// does not fit them, and for int4 weights, which have no cooperative kernel).
    Coop,
    /// The few-rows kernel (`gemm/gemv`) at any M, in blocks of its `MAX_ROWS` (8) rows (its
    /// workgroups, row blocks × column blocks, fold into rows of the dispatch where they are
    /// more than one dimension allows).
    Gemv,
}

/// The dtype of C.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutFormat {
    /// f32, as accumulated.
    #[default]
    F32,
    /// f16 (u16 bits on the host), rounded to nearest even from the f32 result.
    F16,
}

/// Options of a GEMM plan.
#[derive(Clone, Copy, Debug, Default)]
pub struct GemmOptions {
    /// Kernel choice.
    pub path: PathChoice,
    /// Portable-kernel policy; `None` picks [`GemmPolicy::for_m`]. `Some` keeps
    /// `PathChoice::Auto` on the register-tiled kernel (no few-rows or cooperative kernel).
    pub policy: Option<GemmPolicy>,
    /// Portable kernels: split K over this many workgroups per tile (the few-rows kernel: per
    /// column block); `None` picks [`split_k`] (the few-rows kernel: its own rule). Values are
    /// clamped to the number of K tiles (steps). `Some` keeps `PathChoice::Auto` off the
    /// cooperative kernel (it does not split K).
    pub split: Option<u32>,
    /// Cooperative-matrix kernel and tile; `None` picks [`coop::usable`]'s default. With
    /// `Some`, `PathChoice::Auto` takes it for f16 inputs from [`COOP_MIN_M`] rows when it runs
    /// on the adapter (else, and for f32 or fewer rows, the register-tiled kernel: a named
    /// variant also keeps the few-rows kernel out), `PathChoice::Coop` requires it.
    pub coop: Option<coop::CoopVariant>,
    /// The dtype of C.
    pub out: OutFormat,
}

/// The split-K factor for `tiles` output tiles of `invocations` each and `k_tiles` K steps: 1
/// when the tiles alone fill the GPU, else enough splits to reach [`SPLIT_TARGET_INVOCATIONS`],
/// keeping at least 8 K steps per split and at most 64 splits.
pub fn split_k(tiles: u64, invocations: u64, k_tiles: u64) -> u32 {
    let have = tiles * invocations;
    if have >= SPLIT_TARGET_INVOCATIONS {
        return 1;
    }
    SPLIT_TARGET_INVOCATIONS
        .div_ceil(have.max(1))
        .min(k_tiles / 8)
        .clamp(1, 64) as u32
}

/// A GEMM's plan and what a recording binds ([`Gemm`] records it).
pub struct GemmPlan {
    /// The passes.
    pub plan: Plan,
    /// C, the caller's: M·N f32, or with f16 output M·N f16 packed two per word, then possibly
    /// padding (the cooperative kernels' C has rows up to a whole tile, `coop::padded_rows`).
    pub c: BufferId,
    /// C's dtype.
    pub out: OutFormat,
    /// Rows of C.
    pub m: usize,
    /// Columns of C.
    pub n: usize,
    /// The kernel chosen.
    pub path: Path,
    /// The cooperative kernels' subgroup guard: a word that holds the subgroup width they met
    /// where it was not the planned one ([`coop::planned_subgroup`]), else 0.
    pub guard: Option<BufferId>,
    /// The caller's operands: A, B (or the int4 weights), then the int4 scales and zero points.
    pub inputs: Vec<BufferId>,
    /// The shape and layout it was planned for.
    pub(crate) layout: Resolved,
}

impl GemmPlan {
    fn with_inputs(mut self, inputs: Vec<BufferId>) -> GemmPlan {
        self.inputs = inputs;
        self
    }

    /// With `out` = F16 and C still f32, adds the rounding pass (`gemm/to_f16`) after the
    /// product and reads back its f16 output instead of the f32 C.
    fn with_output(mut self, caps: &Caps, out: OutFormat) -> Result<GemmPlan> {
        // (the split-K sum or the product kernel has rounded already)
        if self.out == out {
            return Ok(self);
        }
        if !self.layout.c_flat {
            return self.rounded_into_caller_c(caps, out);
        }
        let kern = to_f16::STAGE.load(caps.flavor())?;
        let wg = kern.invocations(to_f16::entry::main, &[])? as u64;
        let count = (self.m * self.n) as u64;
        let quads = count.div_ceil(4);
        let plan = &mut self.plan;
        // the pass reads C in vec4s: its buffer rounded up to whole quads (the padding is
        // never read: the last quad, when partial, is read element by element)
        let c_buf = &mut plan.buffers[self.c.0];
        c_buf.size = c_buf.size.max(quads * 16);
        if c_buf.size > binding_limit(caps) {
            return Err(Error::TooLarge(format!(
                "gemm C rounded to whole vec4s needs {} bytes; the kernels bind at most {} \
                 (the adapter's limit, and below 4 GiB)",
                c_buf.size,
                binding_limit(caps)
            )));
        }
        let params = plan.upload("f16 params", &[count as u32, 0, 0, 0]);
        let c16 = plan.arg("c", quads * 8);
        plan.pass(
            "to f16",
            &kern,
            to_f16::entry::main,
            &[],
            &[
                (to_f16::bind::params, params),
                (to_f16::bind::c, self.c),
                (to_f16::bind::out, c16),
            ],
            Workgroups::Direct(crate::device::grid_2d(
                quads.div_ceil(wg),
                caps.max_workgroups_per_dim,
            )),
        )?;
        self.c = c16;
        self.out = out;
        Ok(self)
    }

    /// [`GemmPlan::with_output`] for a caller's C: the f32 C (rows of N, the plan's own) rounded
    /// into the caller's f16 C at its layout, by the split-K sum's strided pass with one split.
    fn rounded_into_caller_c(mut self, caps: &Caps, out: OutFormat) -> Result<GemmPlan> {
        let res = self.layout;
        let bytes = res.c_bytes(out);
        check_limits(caps, &[("C", bytes)], [1, 1])?;
        let c16 = self.plan.arg("c", bytes);
        sum_pass(
            caps,
            &mut self.plan,
            (self.c, c16),
            (1, out),
            &res,
            "to f16",
        )?;
        self.c = c16;
        self.out = out;
        Ok(self)
    }
}

/// The `SG` override of a plan's cooperative pass (for messages).
fn coop_planned_width(plan: &Plan) -> u32 {
    plan.passes
        .iter()
        .find_map(|p| p.overrides.iter().find(|(k, _)| k == coop16::SG.name()))
        .map_or(0, |(_, v)| *v as u32)
}

/// Rows padded to `cols_pad` (zeros), as bytes; `data` is rows×cols.
fn pad_rows<T: bytemuck::Pod + Default>(
    data: &[T],
    rows: usize,
    cols: usize,
    cols_pad: usize,
) -> Vec<u8> {
    if cols == cols_pad {
        return bytemuck::cast_slice(data).to_vec();
    }
    let mut out = vec![T::default(); rows * cols_pad];
    for r in 0..rows {
        out[r * cols_pad..r * cols_pad + cols].copy_from_slice(&data[r * cols..(r + 1) * cols]);
    }
    bytemuck::cast_slice(&out).to_vec()
}

/// An operand as the kernels read it: rows padded to whole vec4<u32> loads. Returns the bytes and
/// the vec4 count per row.
fn pack(x: Operand, rows: usize, cols: usize) -> (Vec<u8>, u32) {
    let per = x.format().per_load() as usize;
    let pad = cols.div_ceil(per) * per;
    let bytes = match x {
        Operand::F32(v) => pad_rows(v, rows, cols, pad),
        Operand::F16(v) => pad_rows(v, rows, cols, pad),
    };
    (bytes, (pad / per) as u32)
}

fn check_shape(m: usize, n: usize, k: usize, a_len: usize, b_len: usize) -> Result<()> {
    check_dims(m, n, k)?;
    if m.checked_mul(k) != Some(a_len) {
        return Err(Error::InvalidInput(format!(
            "A has {a_len} elements, expected M·K = {m}·{k}"
        )));
    }
    if k.checked_mul(n) != Some(b_len) {
        return Err(Error::InvalidInput(format!(
            "B has {b_len} elements, expected K·N = {k}·{n}"
        )));
    }
    Ok(())
}

/// M, N, K positive and within what the kernels index.
fn check_dims(m: usize, n: usize, k: usize) -> Result<()> {
    if m == 0 || n == 0 || k == 0 {
        return Err(Error::InvalidInput(format!(
            "gemm needs M, N, K ≥ 1 (got {m}×{k} · {k}×{n})"
        )));
    }
    // the kernels index in u32, and C's bytes (M·N·4) must be countable: beyond that no
    // adapter's binding holds the product (the plans check their real limits later)
    let c_bytes = m.checked_mul(n).and_then(|e| e.checked_mul(4));
    if [m, n, k].iter().any(|&d| d > u32::MAX as usize) || c_bytes.is_none() {
        return Err(Error::TooLarge(format!(
            "gemm {m}×{k} · {k}×{n}: dimensions beyond any adapter's limits"
        )));
    }
    Ok(())
}

/// The largest buffer a GEMM kernel binds: the adapter's binding limit, and below 4 GiB, since
/// the kernels index in u32 (elements of 2 or 4 bytes, words, vec4s), where an adapter binds
/// more (Metal's `maxBufferLength`).
fn binding_limit(caps: &Caps) -> u64 {
    caps.max_storage_binding.min(u32::MAX as u64)
}

/// The dispatch of an `nx × ny` grid of tiles: the tile grid itself where both fit a
/// dimension, else folded into rows of up to the adapter's limit (the kernels number
/// workgroups row by row and let those past the last tile exit: `tile_of` and `past_c` in
/// `shared/gemm_tile_order.wgsl`). A fold that needs more rows than a dimension allows is left
/// to [`check_limits`] to refuse.
fn tile_dispatch(caps: &Caps, nx: u64, ny: u64) -> [u64; 2] {
    let max = caps.max_workgroups_per_dim.max(1) as u64;
    if nx <= max && ny <= max {
        return [nx, ny];
    }
    let count = nx.saturating_mul(ny);
    let x = count.min(max);
    [x, count.div_ceil(x)]
}

fn check_limits(caps: &Caps, buffers: &[(&str, u64)], grid: [u64; 2]) -> Result<()> {
    let limit = binding_limit(caps);
    for &(name, bytes) in buffers {
        if bytes > limit {
            return Err(Error::TooLarge(format!(
                "gemm {name} needs {bytes} bytes; the adapter binds at most {} and the kernels \
                 index buffers below 4 GiB",
                caps.max_storage_binding
            )));
        }
    }
    if let Some(&g) = grid
        .iter()
        .max()
        .filter(|&&g| g > caps.max_workgroups_per_dim as u64)
    {
        return Err(Error::Limit {
            limit: "max_compute_workgroups_per_dimension",
            needed: g,
            available: caps.max_workgroups_per_dim as u64,
            needed_for: format!("a GEMM grid of {grid:?} workgroups"),
        });
    }
    Ok(())
}

/// Whether the adapter offers the cooperative-matrix path for f16 × f16.
pub fn coop_offered(caps: &Caps) -> bool {
    coop::usable(caps).is_ok()
}

/// Builds the plan for C = A·B (A M×K, B K×N, both in `fmt`, f32 or f16; C in `opts.out`'s
/// dtype), the operands and C the caller's, in the GEMM's own layout.
pub fn plan(
    caps: &Caps,
    fmt: Format,
    m: usize,
    n: usize,
    k: usize,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    plan_shape(caps, fmt, &GemmShape::new(m, n, k), opts)
}

/// [`plan`] for `shape` with its operands' layout.
pub fn plan_shape(
    caps: &Caps,
    fmt: Format,
    shape: &GemmShape,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    product(caps, fmt, shape, opts)?.with_output(caps, opts.out)
}

/// The product's passes; C f32, or f16 where they round it themselves ([`rounded_c`]).
fn product(caps: &Caps, fmt: Format, shape: &GemmShape, opts: GemmOptions) -> Result<GemmPlan> {
    let (m, n, k) = (shape.m, shape.n, shape.k);
    check_dims(m, n, k)?;
    if fmt == Format::Int4 {
        return Err(Error::InvalidInput(
            "int4 is a weight format: use the int4 GEMM".into(),
        ));
    }
    let res = resolve(shape, fmt, fmt, opts.out)?;
    let f16 = fmt == Format::F16;
    let edges = |p: &coop::CoopPolicy| coop::edges_for(p, &res, opts.out);
    let choose = || match opts.coop {
        Some(v) => coop::usable_variant_edges(caps, &v, edges(&v.policy)).map(|_| v),
        None => coop::usable(caps).map(|kind| coop::variant_for_edges(caps, kind, m, n, &edges)),
    };
    let coop = match opts.path {
        PathChoice::Tiled | PathChoice::Gemv => None,
        // (where the cooperative kernel cannot take this shape, the portable one may; a
        // forced split or portable policy asks for the portable kernels, as in `takes_gemv`)
        PathChoice::Auto
            if f16 && m >= COOP_MIN_M && opts.split.is_none() && opts.policy.is_none() =>
        {
            choose()
                .ok()
                .filter(|v| coop::fits_layout(caps, v, &res, opts.out).is_ok())
        }
        PathChoice::Auto => None,
        PathChoice::Coop => {
            if !f16 {
                return Err(Error::InvalidInput(
                    "the cooperative-matrix GEMM takes f16 inputs".into(),
                ));
            }
            Some(choose()?)
        }
    };
    if let Some(v) = coop {
        return coop::plan(caps, v, opts.out, &res);
    }
    let gemv = takes_gemv(&opts, m);
    let kind = if gemv { "gemv" } else { "tiled" };
    let mut plan = Plan::new(format!("gemm {} {fmt:?} {kind}", shape_label(&res)).to_lowercase());
    let a_buf = plan.arg("a", res.a_bytes);
    let b_buf = plan.arg("b", res.b_bytes);
    let dummy = plan.buffer("no scales", 16, BufferInit::Zeroed);
    if gemv {
        return gemv_pass(
            caps,
            &mut plan,
            (fmt, false),
            [a_buf, b_buf, dummy, dummy],
            &res,
            0,
            (opts.split, opts.out),
        )
        .map(|p| p.with_inputs(vec![a_buf, b_buf]));
    }
    let policy = opts.policy.unwrap_or_else(|| GemmPolicy::for_m(m as u64));
    tiled_pass(
        caps,
        &mut plan,
        policy,
        (opts.split, opts.out),
        (fmt, fmt, false),
        [a_buf, b_buf, dummy, dummy],
        &res,
        0,
    )
    .map(|p| p.with_inputs(vec![a_buf, b_buf]))
}

/// `MxNxK`, with the batch and a transposed B where there are.
fn shape_label(res: &Resolved) -> String {
    let (m, n, k) = (res.m, res.n, res.k);
    let batch = if res.batch > 1 {
        format!("{}x", res.batch)
    } else {
        String::new()
    };
    let t = if res.bt { " bt" } else { "" };
    format!("{batch}{m}x{n}x{k}{t}")
}

#[allow(clippy::too_many_arguments)]
/// Adds the portable kernel's pass and the output buffer; `bufs` = a, b, scales, zeros; `split`
/// forces a split count, `out` is C's dtype (taken by the split-K sum when there is one);
/// `b_rows`: int4 weights' packed rows (0 otherwise).
fn tiled_pass(
    caps: &Caps,
    plan: &mut Plan,
    policy: GemmPolicy,
    (split, out): (Option<u32>, OutFormat),
    (fa, fb, has_zeros): (Format, Format, bool),
    bufs: [BufferId; 4],
    res: &Resolved,
    b_rows: u32,
) -> Result<GemmPlan> {
    let (m, n, k) = (res.m, res.n, res.k);
    let batch = res.batch as u64;
    policy.check_tile()?;
    let kern: Arc<Kernel> = tiled::STAGE.load(caps.flavor())?;
    let overrides = policy.overrides(fa, fb, has_zeros);
    let reflected = kern.workgroup_size(tiled::entry::main, &overrides)?;
    policy.check(&kern, reflected, fa, fb, caps.max_workgroup_storage)?;
    let invocations = reflected.iter().product::<u32>() as u64;
    let tiles = [
        (n as u64).div_ceil(policy.bn as u64),
        (m as u64).div_ceil(policy.bm as u64),
    ];
    let grid = tile_dispatch(caps, tiles[0], tiles[1]);
    // one split's f32 products, every matrix
    let c_bytes = res.c_elements() * 4;
    let k_tiles = (k as u32).div_ceil(policy.bk);
    let mut splits = split
        .unwrap_or_else(|| split_k(tiles[0] * tiles[1] * batch, invocations, k_tiles as u64))
        .clamp(1, k_tiles);
    // the partial products must fit one binding, and the splits of every matrix the dispatch
    while splits > 1
        && (splits as u64 * c_bytes > binding_limit(caps)
            || splits as u64 * batch > caps.max_workgroups_per_dim as u64)
    {
        splits /= 2;
    }
    let tiles_per_split = k_tiles.div_ceil(splits);
    let splits = k_tiles.div_ceil(tiles_per_split);
    // f16 output stored by this pass itself (`OUT_F16`)
    let fused = kernel_may_round(out, splits as u64, n);
    let c_format = rounded_c(out, splits as u64, fused);
    let (target, c, at) =
        product_buffers(caps, plan, &bufs, res, (c_format, out), splits as u64, grid)?;
    let z = check_z(caps, splits as u64 * batch, "K splits × matrices")?;
    let (c32, c16) = output_bindings(plan, target, fused);
    let mut overrides = overrides;
    overrides.push((tiled::OUT_F16, if fused { 1.0 } else { 0.0 }));
    overrides.push((tiled::FOLDED, if grid == tiles { 0.0 } else { 1.0 }));
    overrides.extend(res.overrides());
    let params = plan.upload(
        "params",
        &res.params([k_tiles, b_rows, tiles_per_split, splits], at)?,
    );
    plan.pass(
        "gemm",
        &kern,
        tiled::entry::main,
        &overrides,
        &portable_bindings(params, bufs, c32, c16),
        Workgroups::Direct([grid[0] as u32, grid[1] as u32, z]),
    )?;
    finish_split_k(
        caps,
        plan,
        (target, c),
        (splits, c_format),
        res,
        Path::Tiled,
    )
}

/// A dispatch's z extent (`what`): within the adapter's limit, else [`Error::Limit`].
fn check_z(caps: &Caps, z: u64, what: &str) -> Result<u32> {
    if z > caps.max_workgroups_per_dim as u64 {
        return Err(Error::Limit {
            limit: "max_compute_workgroups_per_dimension",
            needed: z,
            available: caps.max_workgroups_per_dim as u64,
            needed_for: format!("a GEMM's {what}"),
        });
    }
    Ok(z as u32)
}

/// Whether a product of `m` rows with `opts` takes the few-rows kernel.
fn takes_gemv(opts: &GemmOptions, m: usize) -> bool {
    match opts.path {
        PathChoice::Gemv => true,
        PathChoice::Auto => {
            m <= GEMV_MAX_M && opts.policy.is_none() && opts.split.is_none() && opts.coop.is_none()
        }
        PathChoice::Tiled | PathChoice::Coop => false,
    }
}

/// The few-rows kernel's pass (`gemm/gemv`) and the output buffer; `bufs` and the params are
/// the tiled kernel's (a, b, scales, zeros; `b_rows`: int4 weights' packed rows, else 0).
fn gemv_pass(
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
    // columns per invocation (the kernel's COLS_*), and bytes of B per k (per packed word of
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
    // column groups per workgroup: the most that still gives GEMV_WHOLE_K_WORKGROUPS
    // workgroups (each then takes all of K: no split-K sum), else the fewest; at least one
    // 32-byte sector of each B row, at most 32, and one step of A within workgroup memory
    let blocks_of = |cv: u64| (n as u64).div_ceil(cv * cols) * row_blocks;
    let cv_min = (32 / run_bytes).max(1);
    let usable: Vec<u64> = [32u64, 16, 8, 4, 2, 1]
        .into_iter()
        .filter(|&cv| cv >= cv_min && 4 * rows * step_of(cv) <= free)
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
    let cv = usable
        .iter()
        .copied()
        .find(|&cv| wide || blocks_of(cv) >= GEMV_WHOLE_K_WORKGROUPS)
        .unwrap_or(fewest);
    let blocks = blocks_of(cv);
    let step = step_of(cv);
    // the chunk of K staged at once: whole steps, its f32 copy of A within workgroup memory
    let fits = free / (4 * rows) / step * step;
    // K slices: one when the column blocks fill the GPU, else enough workgroups to keep B's
    // loads in flight; whole steps, partial products within a binding
    let want = match split {
        Some(s) => s.max(1) as u64,
        None if wide => (k as u64)
            .div_ceil(GEMV_WIDE_F32_KSLICE)
            .clamp(1, GEMV_MAX_SPLITS),
        None if blocks >= GEMV_WHOLE_K_WORKGROUPS => (k as u64).div_ceil(GEMV_MAX_KSLICE),
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

/// The bindings of the portable kernels (`gemm/tiled`, `gemm/gemv`): params, A, B, scales and
/// zeros (`bufs`), f32 C and f16 C.
fn portable_bindings(
    params: BufferId,
    bufs: [BufferId; 4],
    c32: BufferId,
    c16: BufferId,
) -> [(Resource, BufferId); 7] {
    // (the two portable stages declare the same resource variables; the plan checks each
    // against the stage it binds)
    use crate::stages::gemm::tiled::bind;
    [
        (bind::params, params),
        (bind::a, bufs[0]),
        (bind::b, bufs[1]),
        (bind::scales, bufs[2]),
        (bind::zeros, bufs[3]),
        (bind::c, c32),
        (bind::c16, c16),
    ]
}

/// A portable product pass's two output bindings (f32 C `c`, f16 C `c16`): `target` at the one
/// it writes (f16 where it rounds C itself, `fused`), and at the other a stand-in of its own (a
/// read-write binding may not share a buffer with the read-only ones).
fn output_bindings(plan: &mut Plan, target: BufferId, fused: bool) -> (BufferId, BufferId) {
    let stand_in = plan.buffer("no output", 16, BufferInit::Zeroed);
    if fused {
        (stand_in, target)
    } else {
        (target, stand_in)
    }
}

/// Whether a product kernel may store f16 C itself (`OUT_F16`): f16 output, one K slice (else
/// the split-K sum rounds) and N even, so a word of two f16 never straddles two rows (nor two
/// workgroups' tiles). The register-tiled, few-rows (with a condition of its own) and
/// cooperative kernels ([`coop::rounds_itself`]) share it.
fn kernel_may_round(out: OutFormat, splits: u64, n: usize) -> bool {
    out == OutFormat::F16 && splits == 1 && n.is_multiple_of(2)
}

/// C's dtype as a portable product's passes leave it: `out` where the split-K sum rounds (several
/// `splits`) or the product kernel does (`kernel_rounds`), else f32 (then
/// [`GemmPlan::with_output`] adds the rounding pass).
fn rounded_c(out: OutFormat, splits: u64, kernel_rounds: bool) -> OutFormat {
    if splits > 1 || kernel_rounds {
        out
    } else {
        OutFormat::F32
    }
}

/// Checks A, B, the scales (`bufs`), C and the partial products of `splits` K splits against
/// the adapter's limits for a `grid` of workgroups, then adds C in `c_format` (f16: two per
/// word; the caller's where that is `out`, at its layout, else the plan's own f32 C, rows of
/// N, for the rounding pass) and, with several K splits, the buffer of partial products:
/// (where the product pass writes, C, and the layout it writes at).
fn product_buffers(
    caps: &Caps,
    plan: &mut Plan,
    bufs: &[BufferId; 4],
    res: &Resolved,
    (c_format, out): (OutFormat, OutFormat),
    splits: u64,
    grid: [u64; 2],
) -> Result<(BufferId, BufferId, CTarget)> {
    // the plan's own f32 C, every matrix (one split's products)
    let own = res.c_elements() * 4;
    let callers = c_format == out;
    let c_bytes = if callers { res.c_bytes(out) } else { own };
    let sizes: Vec<(&str, u64)> = [("A", bufs[0]), ("B", bufs[1]), ("scales", bufs[2])]
        .iter()
        .map(|&(s, id)| (s, plan.buffers[id.0].size))
        .chain([("C", c_bytes), ("partial products", own * splits)])
        .collect();
    check_limits(caps, &sizes, grid)?;
    let c = if callers {
        plan.arg("c", c_bytes)
    } else {
        plan.buffer("c f32", c_bytes, BufferInit::Poison)
    };
    if splits > 1 {
        let partials = plan.buffer("partials", own * splits, BufferInit::Poison);
        return Ok((partials, c, res.packed_c()));
    }
    let at = if callers {
        res.caller_c()
    } else {
        res.packed_c()
    };
    Ok((c, c, at))
}

/// The split-K sum pass (`gemm/splitk_sum`, `label`): `splits` partial products of the plan's
/// own (rows of N, matrix after matrix, split after split) summed into `c` in `c_format`, at the
/// caller's layout where it is not the GEMM's own (`STRIDED`).
fn sum_pass(
    caps: &Caps,
    plan: &mut Plan,
    (partials, c): (BufferId, BufferId),
    (splits, c_format): (u32, OutFormat),
    res: &Resolved,
    label: &str,
) -> Result<()> {
    let sum = splitk_sum::STAGE.load(caps.flavor())?;
    let wg = sum.invocations(splitk_sum::entry::main, &[])? as u64;
    let count = res.c_elements();
    let strided = !res.c_flat;
    // f16: one word of two elements per invocation (strided: words of a row, the last of an
    // odd row alone)
    let (f16, items) = match c_format {
        OutFormat::F32 => (0.0, count),
        OutFormat::F16 if strided => (1.0, (res.m * res.batch) as u64 * res.n.div_ceil(2) as u64),
        OutFormat::F16 => (1.0, count.div_ceil(2)),
    };
    let c_at = res.caller_c();
    let v = [
        count,
        splits as u64,
        res.m as u64,
        res.n as u64,
        c_at.row,
        c_at.off,
        c_at.mat,
        0,
    ];
    let words: Vec<u32> = v
        .iter()
        .map(|&x| {
            u32::try_from(x).map_err(|_| Error::TooLarge(format!("gemm C of {count} elements")))
        })
        .collect::<Result<_>>()?;
    let sp = plan.upload("sum params", &words);
    plan.pass(
        label,
        &sum,
        splitk_sum::entry::main,
        &[
            (splitk_sum::OUT_F16, f16),
            (splitk_sum::STRIDED, if strided { 1.0 } else { 0.0 }),
        ],
        &[
            (splitk_sum::bind::params, sp),
            (splitk_sum::bind::partials, partials),
            (splitk_sum::bind::c, c),
        ],
        Workgroups::Direct(crate::device::grid_2d(
            items.div_ceil(wg),
            caps.max_workgroups_per_dim,
        )),
    )?;
    Ok(())
}

/// The split-K sum pass (when `splits` > 1, from `partials` into `c`, rounding to f16 itself
/// when C is f16), the read-back of C (in `c_format`), and the plan.
fn finish_split_k(
    caps: &Caps,
    plan: &mut Plan,
    (partials, c): (BufferId, BufferId),
    (splits, c_format): (u32, OutFormat),
    res: &Resolved,
    path: Path,
) -> Result<GemmPlan> {
    if splits > 1 {
        sum_pass(
            caps,
            plan,
            (partials, c),
            (splits, c_format),
            res,
            "split-k sum",
        )?;
    }
    Ok(GemmPlan {
        plan: std::mem::take(plan),
        c,
        out: c_format,
        m: res.m,
        n: res.n,
        path,
        guard: None,
        inputs: Vec::new(),
        layout: *res,
    })
}

/// Builds the plan for C = A·W: A f16 (M×K), W int4 weights (K×N, with or without zero
/// points, [`Int4Weights`]'s layout); C in `opts.out`'s dtype; the operands and C the caller's.
pub fn plan_int4(
    caps: &Caps,
    m: usize,
    k: usize,
    n: usize,
    has_zeros: bool,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    plan_int4_shape(caps, &GemmShape::new(m, n, k), has_zeros, opts)
}

/// [`plan_int4`] for `shape` (A's and C's layout, a batch sharing the weights; B's layout must
/// be the default: the weights keep their packed layout).
pub fn plan_int4_shape(
    caps: &Caps,
    shape: &GemmShape,
    has_zeros: bool,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    product_int4(caps, shape, has_zeros, opts)?.with_output(caps, opts.out)
}

/// Bytes of the int4 operands: packed words, scales (and zero points), as bound: words to
/// whole vec4s, halves to whole 16 bytes.
fn int4_bytes(k: usize, n: usize) -> (u64, u64) {
    let words = (k.div_ceil(8) * n) as u64;
    let groups = (k.div_ceil(int4::GROUP) * n) as u64;
    (
        words.div_ceil(4).max(1) * 16,
        groups.div_ceil(8).max(1) * 16,
    )
}

/// The int4 product's passes; C as in [`product`].
fn product_int4(
    caps: &Caps,
    shape: &GemmShape,
    has_zeros: bool,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    let (m, n, k) = (shape.m, shape.n, shape.k);
    check_dims(m, n, k)?;
    if opts.path == PathChoice::Coop {
        return Err(Error::InvalidInput(
            "int4 weights have no cooperative-matrix kernel (Auto, Tiled or Gemv)".into(),
        ));
    }
    let res = resolve(shape, Format::F16, Format::Int4, opts.out)?;
    let (w_bytes, s_bytes) = int4_bytes(k, n);
    let gemv = takes_gemv(&opts, m);
    let kind = if gemv { "gemv" } else { "tiled" };
    let mut plan = Plan::new(format!("gemm {} int4 {kind}", shape_label(&res)));
    let a_buf = plan.arg("a", res.a_bytes);
    let b_buf = plan.arg("w", w_bytes);
    let s_buf = plan.arg("scales", s_bytes);
    let z_buf = if has_zeros {
        plan.arg("zeros", s_bytes)
    } else {
        plan.buffer("no zeros", 16, BufferInit::Zeroed)
    };
    let inputs = if has_zeros {
        vec![a_buf, b_buf, s_buf, z_buf]
    } else {
        vec![a_buf, b_buf, s_buf]
    };
    let bufs = [a_buf, b_buf, s_buf, z_buf];
    let b_rows = u32::try_from(k.div_ceil(8))
        .map_err(|_| Error::TooLarge(format!("int4 weights of K = {k}")))?;
    let built = if gemv {
        gemv_pass(
            caps,
            &mut plan,
            (Format::Int4, has_zeros),
            bufs,
            &res,
            b_rows,
            (opts.split, opts.out),
        )?
    } else {
        let policy = opts.policy.unwrap_or_else(|| GemmPolicy::for_m(m as u64));
        tiled_pass(
            caps,
            &mut plan,
            policy,
            (opts.split, opts.out),
            (Format::F16, Format::Int4, has_zeros),
            bufs,
            &res,
            b_rows,
        )?
    };
    Ok(built.with_inputs(inputs))
}

/// A GEMM made for one shape, formats and options, recorded any number of times on the
/// caller's operands (see [`Gemm::layout`] for what they hold).
///
/// C = A·B on operands laid out as [`Gemm::layout`] says (rows padded to whole loads):
/// ```
/// use wgsimd::gemm::{Format, Gemm, GemmOptions};
/// use wgsimd::{BufferRef, Context};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let g = Gemm::new(&ctx, Format::F32, 2, 2, 3, GemmOptions::default())?;
/// let l = g.layout(); // rows of A padded to l.a_row elements, of B to l.b_row
/// let mut a = vec![0f32; 2 * l.a_row];
/// a[..3].copy_from_slice(&[1.0, 2.0, 3.0]);
/// a[l.a_row..l.a_row + 3].copy_from_slice(&[4.0, 5.0, 6.0]);
/// let mut b = vec![0f32; 3 * l.b_row];
/// for r in 0..3 {
///     b[r * l.b_row] = 1.0; // B = [[1, 0], [1, 0], [1, 0]]
/// }
/// let (a, b) = (ctx.upload("a", &a)?, ctx.upload("b", &b)?);
/// let c = ctx.uninit("c", l.c_bytes)?;
/// let mut enc = ctx.encoder();
/// g.record(&mut enc, &[BufferRef::from(&a), BufferRef::from(&b)], &c)?;
/// ctx.submit(enc)?.clean("the GEMM")?;
/// assert_eq!(ctx.read::<f32>(&c)?[..4], [6.0, 0.0, 15.0, 0.0]);
/// # Ok(()) }
/// ```
pub struct Gemm {
    ctx: Context,
    built: GemmPlan,
    /// Binds the operands, then C.
    rec: Recorder,
    layout: GemmLayout,
}

/// What a [`Gemm`]'s operands hold, row-major. In the GEMM's own layout ([`Gemm::new`]): A's
/// rows (K) padded to whole loads of 4 f32 or 8 f16 with zeros, B's rows (N) likewise; C's
/// `c_bytes` may exceed M·N elements (the cooperative kernels write rows up to a whole tile,
/// which come out zero); the first M·N elements are C. With a [`GemmShape`]
/// ([`Gemm::with_shape`]), the strides it gives, and the bytes each operand's range must hold
/// (from its offset to its last load). f16 values are their bits, two per word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmLayout {
    /// A's row stride, elements (in the own layout K padded).
    pub a_row: usize,
    /// B's row stride, elements (in the own layout N padded; transposed, of its N×K storage),
    /// or for int4 weights the packed words per row of 8 K (N).
    pub b_row: usize,
    /// C's row stride, elements.
    pub c_row: usize,
    /// Bytes A's range must hold.
    pub a_bytes: u64,
    /// Bytes B's range must hold (int4: the packed weights).
    pub b_bytes: u64,
    /// Bytes C's range must hold.
    pub c_bytes: u64,
    /// C's dtype.
    pub out: OutFormat,
}

impl Gemm {
    /// C = A·B for A M×K and B K×N, both `fmt` (f32 or f16), with `opts`.
    pub fn new(
        ctx: &Context,
        fmt: Format,
        m: usize,
        n: usize,
        k: usize,
        opts: GemmOptions,
    ) -> Result<Gemm> {
        Self::with_shape(ctx, fmt, GemmShape::new(m, n, k), opts)
    }

    /// C = A·B for each matrix of `shape`'s batch, A M×K and B K×N (or stored N×K), both `fmt`
    /// (f32 or f16), on the caller's buffers laid out as `shape` says (row strides, offsets,
    /// matrix strides; [`GemmShape`] has the limits, each an [`Error::Layout`] naming the
    /// operand). Nothing of C's range is written but its M×N elements per matrix.
    ///
    /// ```
    /// use wgsimd::gemm::{Format, Gemm, GemmOptions, GemmShape, MatrixLayout};
    /// use wgsimd::{BufferRef, Context};
    /// # fn main() -> wgsimd::Result<()> {
    /// let ctx = Context::simulator(Default::default())?;
    /// // A 2×3 at row stride 4 (an application's padded rows), B 3×2 stored transposed (2×3
    /// // at row stride 4), C the 2×2 block at column 1 of a 2×4 matrix
    /// let shape = GemmShape::new(2, 2, 3)
    ///     .a(MatrixLayout::rows(4))
    ///     .b(MatrixLayout::rows(4))
    ///     .transposed_b()
    ///     .c(MatrixLayout::rows(4).at(1));
    /// let g = Gemm::with_shape(&ctx, Format::F32, shape, GemmOptions::default())?;
    /// let nan = f32::NAN; // padding: never read as data
    /// let a = ctx.upload("a", &[1.0f32, 2.0, 3.0, nan, 4.0, 5.0, 6.0, nan])?;
    /// let bt = ctx.upload("bt", &[1.0f32, 1.0, 1.0, nan, 1.0, 0.0, 0.0, nan])?;
    /// let c = ctx.upload("c", &[-1.0f32; 8])?;
    /// let mut enc = ctx.encoder();
    /// g.record(&mut enc, &[BufferRef::from(&a), BufferRef::from(&bt)], &c)?;
    /// ctx.submit(enc)?.clean("the GEMM")?;
    /// assert_eq!(ctx.read::<f32>(&c)?, [-1.0, 6.0, 1.0, -1.0, -1.0, 15.0, 4.0, -1.0]);
    /// # Ok(()) }
    /// ```
    pub fn with_shape(
        ctx: &Context,
        fmt: Format,
        shape: GemmShape,
        opts: GemmOptions,
    ) -> Result<Gemm> {
        Self::ready(ctx, plan_shape(ctx.caps(), fmt, &shape, opts)?)
    }

    /// C = A·W for f16 A M×K and int4 weights W K×N (`has_zeros`: with zero points).
    pub fn new_int4(
        ctx: &Context,
        m: usize,
        k: usize,
        n: usize,
        has_zeros: bool,
        opts: GemmOptions,
    ) -> Result<Gemm> {
        Self::int4_with_shape(ctx, GemmShape::new(m, n, k), has_zeros, opts)
    }

    /// C = A·W for each matrix of `shape`'s batch: f16 A and C laid out as `shape` says, one
    /// int4 weight matrix W (K×N, [`Int4Weights`]' packed layout) for the whole batch, so B's
    /// layout must be the default.
    pub fn int4_with_shape(
        ctx: &Context,
        shape: GemmShape,
        has_zeros: bool,
        opts: GemmOptions,
    ) -> Result<Gemm> {
        Self::ready(ctx, plan_int4_shape(ctx.caps(), &shape, has_zeros, opts)?)
    }

    fn ready(ctx: &Context, built: GemmPlan) -> Result<Gemm> {
        let res = built.layout;
        let layout = GemmLayout {
            a_row: res.a.row as usize,
            b_row: res.b.row as usize,
            c_row: res.c.row as usize,
            a_bytes: res.a_bytes,
            b_bytes: res.b_bytes,
            c_bytes: built.plan.buffers[built.c.0].size,
            out: built.out,
        };
        let mut args: Vec<Arg> = built.inputs.iter().map(|&id| Arg::fixed(id)).collect();
        args.push(Arg::fixed(built.c));
        let rec = Recorder::new(ctx, built.plan.clone(), args, None)?;
        Ok(Gemm {
            ctx: ctx.clone(),
            built,
            rec,
            layout,
        })
    }

    /// The kernel chosen.
    pub fn path(&self) -> Path {
        self.built.path
    }

    /// `operands` (A, B or the int4 weights, scales, zero points, as bound) each padded with
    /// zeros to the bytes it is bound with.
    pub fn pad_operands(&self, mut operands: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        for (bytes, id) in operands.iter_mut().zip(&self.built.inputs) {
            let size = self.built.plan.buffers[id.0].size as usize;
            if bytes.len() < size {
                bytes.resize(size, 0);
            }
        }
        operands
    }

    /// What the operands hold.
    pub fn layout(&self) -> GemmLayout {
        self.layout
    }

    /// The plan it records (its passes, buffers and overrides, for inspection: the lab's
    /// driver statistics compile exactly these passes).
    pub fn plan(&self) -> &crate::plan::Plan {
        self.rec.plan()
    }

    /// The passes one recording dispatches, by label.
    pub fn passes(&self) -> Vec<String> {
        self.rec.plan().pass_labels()
    }

    /// Records C = A·B into `c`: `inputs` are A and B (for int4: A, the packed weights, the
    /// scales, and the zero points where the GEMM was made with them), each bound from its
    /// offset (a multiple of the binding alignment).
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        inputs: &[BufferRef<'a>],
        c: impl Into<BufferRef<'a>>,
    ) -> Result<()> {
        self.record_timed(enc, inputs, c, None)
    }

    /// [`Gemm::record`], with timestamps around each pass (see [`Gemm::passes`]).
    pub fn record_timed<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        inputs: &[BufferRef<'a>],
        c: impl Into<BufferRef<'a>>,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        if inputs.len() != self.built.inputs.len() {
            return Err(Error::InvalidInput(format!(
                "this GEMM takes {} operand buffers, got {}",
                self.built.inputs.len(),
                inputs.len()
            )));
        }
        let c = c.into();
        if c.len() < self.layout.c_bytes {
            return Err(Error::Layout {
                operand: "C",
                message: format!(
                    "its range needs {} bytes for its layout, got {}",
                    self.layout.c_bytes,
                    c.len()
                ),
            });
        }
        for (i, (id, b)) in self.built.inputs.iter().zip(inputs).enumerate() {
            let need = self.built.plan.buffers[id.0].size;
            if b.len() < need {
                let message = format!(
                    "its range needs {need} bytes for its layout, got {}",
                    b.len()
                );
                return Err(match i {
                    0 => Error::Layout {
                        operand: "A",
                        message,
                    },
                    1 => Error::Layout {
                        operand: "B",
                        message,
                    },
                    _ => Error::InvalidInput(format!(
                        "operand `{}`: {message}",
                        self.built.plan.buffers[id.0].label
                    )),
                });
            }
        }
        let mut bufs = inputs.to_vec();
        bufs.push(c);
        self.rec.record(enc.into(), &bufs, None, stamps)
    }

    /// The subgroup width the cooperative kernel met where it was not the one it was planned
    /// for (Metal reports a range and the plan assumes 32): it then computed nothing. Reads a
    /// word back (waits for the work submitted before). `None` for other kernels.
    pub fn subgroup_mismatch(&self) -> Result<Option<u32>> {
        let Some(guard) = self.built.guard else {
            return Ok(None);
        };
        let own = self
            .rec
            .prepared()
            .own(guard)
            .ok_or_else(|| Error::Plan("the guard is the caller's".into()))?;
        let width = self
            .ctx
            .read_ref::<u32>(&own)?
            .first()
            .copied()
            .unwrap_or(0);
        Ok((width != 0).then_some(width))
    }
}

/// C = A·B on `ctx` (A M×K, B K×N, row-major, both f32 or both f16); C f32 M×N.
///
/// ```
/// use wgsimd::gemm::{gemm, Operand};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let c = gemm(&ctx, Operand::F32(&[1.0, 2.0]), Operand::F32(&[3.0, 4.0]), 1, 1, 2)?;
/// assert_eq!(c, [11.0]);
/// # Ok(()) }
/// ```
pub fn gemm(
    ctx: &Context,
    a: Operand,
    b: Operand,
    m: usize,
    n: usize,
    k: usize,
) -> Result<Vec<f32>> {
    let (c, _) = execute(ctx, a, b, m, n, k, GemmOptions::default())?;
    match c {
        GemmOutput::F32(c) => Ok(c),
        GemmOutput::F16(_) => Err(Error::InvalidInput("f32 output expected".into())),
    }
}

/// C of a host-slice GEMM.
#[derive(Clone, Debug, PartialEq)]
pub enum GemmOutput {
    /// f32 elements, row-major M×N.
    F32(Vec<f32>),
    /// f16 bits, row-major M×N.
    F16(Vec<u16>),
}

/// C = A·B with `opts` on `ctx`, and the kernel that computed it. With `PathChoice::Auto`, a
/// cooperative kernel that met another subgroup width than planned
/// ([`Gemm::subgroup_mismatch`]) is followed by a run of the portable kernel.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    ctx: &Context,
    a: Operand,
    b: Operand,
    m: usize,
    n: usize,
    k: usize,
    opts: GemmOptions,
) -> Result<(GemmOutput, Path)> {
    check_shape(m, n, k, a.len(), b.len())?;
    if a.format() != b.format() {
        return Err(Error::InvalidInput(format!(
            "A and B must have the same dtype (got {:?} and {:?})",
            a.format(),
            b.format()
        )));
    }
    let g = Gemm::new(ctx, a.format(), m, n, k, opts)?;
    let (a_bytes, _) = pack(a, m, k);
    let (b_bytes, _) = pack(b, k, n);
    let out = run_host(ctx, &g, &[a_bytes, b_bytes], m * n)?;
    if opts.path == PathChoice::Auto && g.subgroup_mismatch()?.is_some() {
        let tiled = GemmOptions {
            path: PathChoice::Tiled,
            ..opts
        };
        return execute(ctx, a, b, m, n, k, tiled);
    }
    if let Some(width) = g.subgroup_mismatch()? {
        return Err(Error::Gpu(format!(
            "the cooperative-matrix GEMM was planned for subgroups of {} and the GPU ran them \
             {width} wide, so it computed nothing; use PathChoice::Tiled",
            coop_planned_width(g.rec.plan())
        )));
    }
    Ok((out, g.path()))
}

/// Uploads `inputs` (as bound), records `g` into a poisoned C, submits, reads the first
/// `elements` of C.
fn run_host(ctx: &Context, g: &Gemm, inputs: &[Vec<u8>], elements: usize) -> Result<GemmOutput> {
    let bufs = inputs
        .iter()
        .enumerate()
        .map(|(i, bytes)| ctx.upload(&format!("operand {i}"), bytes))
        .collect::<Result<Vec<_>>>()?;
    let c = ctx.uninit("c", g.layout.c_bytes)?;
    let refs: Vec<BufferRef> = bufs.iter().map(BufferRef::from).collect();
    let mut enc = ctx.encoder();
    g.record(&mut enc, &refs, &c)?;
    ctx.submit(enc)?.clean("the GEMM")?;
    Ok(match g.layout.out {
        OutFormat::F32 => {
            let mut v: Vec<f32> = ctx.read(&c)?;
            v.truncate(elements);
            GemmOutput::F32(v)
        }
        OutFormat::F16 => {
            let mut v: Vec<u16> = ctx.read(&c)?;
            v.truncate(elements);
            GemmOutput::F16(v)
        }
    })
}

/// C = A·W on `ctx` with `opts`: A f16 M×K (u16 bits), W int4 K×N.
pub fn execute_int4(
    ctx: &Context,
    a: &[u16],
    w: &Int4Weights,
    m: usize,
    opts: GemmOptions,
) -> Result<(GemmOutput, Path)> {
    w.validate()?;
    let (n, k) = (w.n, w.k);
    check_shape(m, n, k, a.len(), k.saturating_mul(n))?;
    let g = Gemm::new_int4(ctx, m, k, n, w.zeros.is_some(), opts)?;
    let (a_bytes, _) = pack(Operand::F16(a), m, k);
    let halves = |h: &[u16]| bytemuck::cast_slice::<u16, u8>(h).to_vec();
    let mut inputs = vec![
        a_bytes,
        bytemuck::cast_slice::<u32, u8>(&w.packed).to_vec(),
        halves(&w.scales),
    ];
    if let Some(z) = &w.zeros {
        inputs.push(halves(z));
    }
    let inputs = g.pad_operands(inputs);
    Ok((run_host(ctx, &g, &inputs, m * n)?, g.path()))
}

/// C = A·W on `ctx`: A f16 M×K (u16 bits), W int4 K×N; C f32 M×N.
///
/// ```
/// use wgsimd::gemm::{gemm_int4, Int4Weights};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let w = Int4Weights::quantize(&[0.5, -1.0, 0.25, 1.0], 2, 2)?; // K = 2, N = 2
/// let a: Vec<u16> = [1.0f32, 2.0].iter().map(|&x| half::f16::from_f32(x).to_bits()).collect();
/// let c = gemm_int4(&ctx, &a, &w, 1)?;
/// let want = w.dequantize()?; // what the kernel multiplies by
/// assert_eq!(c, [want[0] + 2.0 * want[2], want[1] + 2.0 * want[3]]);
/// # Ok(()) }
/// ```
pub fn gemm_int4(ctx: &Context, a: &[u16], w: &Int4Weights, m: usize) -> Result<Vec<f32>> {
    match execute_int4(ctx, a, w, m, GemmOptions::default())?.0 {
        GemmOutput::F32(c) => Ok(c),
        GemmOutput::F16(_) => Err(Error::InvalidInput("f32 output expected".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shapes whose element counts overflow (a crafted .npy header with no data) are errors,
    /// not panics or wrapped lengths that match empty operands.
    #[test]
    fn shapes_past_usize_are_errors() {
        let caps = Caps::h100();
        let big = 1usize << 32;
        for (m, n, k) in [
            (big, big, big),
            (1 << 63, 2, 2),
            (2, 2, 1 << 63),
            (4, 4, 1 << 62),
            (1 << 31, 1 << 31, 1),
        ] {
            for fmt in [Format::F32, Format::F16] {
                let r = plan(&caps, fmt, m, n, k, GemmOptions::default());
                assert!(
                    matches!(r, Err(Error::TooLarge(_) | Error::InvalidInput(_))),
                    "{m}x{n}x{k}: {:?}",
                    r.err()
                );
            }
        }
        assert!(plan_int4(
            &caps,
            1 << 32,
            1 << 32,
            1 << 39,
            false,
            GemmOptions::default()
        )
        .is_err());
    }

    /// Tiles of zero size are policy errors before any kernel is specialized (a zero-length
    /// workgroup array would fail naga's validation as a shader error instead).
    #[test]
    fn zero_tiles_are_policy_errors() {
        let caps = Caps::h100();
        let base = GemmPolicy::for_m(64);
        for bad in [
            GemmPolicy { bk: 0, ..base },
            GemmPolicy { bm: 0, ..base },
            GemmPolicy { bn: 0, ..base },
        ] {
            let opts = GemmOptions {
                path: PathChoice::Tiled,
                policy: Some(bad),
                ..Default::default()
            };
            let r = plan(&caps, Format::F32, 64, 64, 64, opts);
            assert!(
                matches!(r, Err(Error::InvalidInput(_))),
                "{bad:?}: {:?}",
                r.err()
            );
        }
        let mut v = coop::CoopKernel::K16.variant();
        v.policy.bk = 0;
        let mut offered = caps.clone();
        (offered.f16, offered.subgroups) = (true, true);
        (offered.subgroup_min, offered.subgroup_max) = (32, 32);
        offered.cooperative_matrix = vec![v.kernel.shape()];
        let r = coop::usable_variant(&offered, &v, 256, 256);
        assert!(matches!(r, Err(Error::InvalidInput(_))), "{:?}", r.err());
    }

    /// Where the cooperative kernel is offered, `Auto` takes it for f16, unless a split or a
    /// portable policy is forced: those ask for the portable kernel.
    #[test]
    fn a_forced_split_or_policy_keeps_the_cooperative_kernel_out() {
        let mut caps = Caps::h100();
        (caps.f16, caps.subgroups) = (true, true);
        (caps.subgroup_min, caps.subgroup_max) = (32, 32);
        caps.max_workgroup_storage = 48 << 10;
        caps.cooperative_matrix = vec![coop::CoopKernel::K16.shape()];
        let path = |opts| plan(&caps, Format::F16, 64, 64, 64, opts).unwrap().path;
        assert_eq!(path(GemmOptions::default()), Path::Coop16);
        let split = GemmOptions {
            split: Some(2),
            ..Default::default()
        };
        assert_eq!(path(split), Path::Tiled);
        let policy = GemmOptions {
            policy: Some(GemmPolicy::for_m(64)),
            ..Default::default()
        };
        assert_eq!(path(policy), Path::Tiled);
    }
}
