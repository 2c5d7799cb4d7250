//! Dense GEMM: C = A·B, row-major, any M, N, K ≥ 1, f32 accumulation, f32 output or (on
//! request) f16.
//!
//! Rules:
//! - **Three inputs:** f32 × f32, f16 × f16 (u16 bits on the host), and f16 activations × int4
//!   weights ([`int4::Int4Weights`], the Marlin use case).
//! - **Three kinds of kernel.** `gemm/tiled` is the portable register-tiled kernel (every
//!   adapter, no feature needed: f16 is unpacked with `unpack2x16float`). `gemm/gemv`, the
//!   few-rows kernel, takes products of up to [`GEMV_MAX_M`] rows by default (int4 weights:
//!   [`GEMV_MAX_M_INT4`]).
//!   `gemm/coop16` and `gemm/coop8` use cooperative matrices (f16 16×16×16 or 8×8×8 → f32,
//!   `Features::EXPERIMENTAL_COOPERATIVE_MATRIX`) and are chosen for f16 × f16 from
//!   [`COOP_MIN_M`] rows ([`coop_min_m`]: 8 for large weights, 2 for huge ones),
//!   `gemm/coop16_int4` and `coop8_int4` for int4
//!   weights from [`COOP_MIN_M_INT4`] rows on coop16's int4 tile ([`COOP_MIN_M_INT4_OTHER_TILES`]
//!   on the others), only when the adapter offers that shape, has one
//!   subgroup size, and the tile fits its workgroup memory ([`coop::usable`]); otherwise the
//!   portable kernel runs. Cooperative matrices take int4 weights as f16: a weight past 65504
//!   would be inf there, so [`execute_int4`] routes such weights
//!   ([`Int4Weights::beyond_f16`](int4::Int4Weights::beyond_f16)) to the portable kernels, and a
//!   recorded [`Gemm`] of such weights must ask for them (`PathChoice::Tiled` or `Gemv`).
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
//!
//! Files, from the public face down: each imports only files below it, and none imports this
//! one (the shared types live in leaves of their own):
//! - `mod.rs`: the public face: [`Gemm`] and its [`GemmLayout`], the host-slice helpers
//!   ([`gemm`], [`execute`], [`gemm_int4`], [`execute_int4`]), the re-exports;
//! - `choose.rs`: [`GemmOptions`], [`PathChoice`], the path choice and the plan builders
//!   ([`plan`], [`plan_int4`]);
//! - `tiled.rs`, `gemv.rs`, `coop.rs`: one product pass each (register-tiled, few-rows,
//!   cooperative matrices);
//! - `split.rs`: split-K ([`split_k`], the partial products, their sum) and C after a product
//!   (its buffers, the rounding to f16);
//! - `gemm_plan.rs`: [`GemmPlan`], [`Path`]; `limits.rs`: the adapter's limits a plan meets;
//! - the leaves: `layout.rs` ([`GemmShape`]), `policy.rs` (the tuning table, [`GemmPolicy`]),
//!   `format.rs` ([`Format`], [`OutFormat`]), `int4.rs` ([`Int4Weights`]).

pub mod coop;
pub mod int4;
pub mod layout;
pub mod policy;

mod choose;
mod format;
mod gemm_plan;
mod gemv;
mod limits;
mod split;
mod tiled;

pub use choose::{
    coop_offered, plan, plan_int4, plan_int4_shape, plan_shape, GemmOptions, PathChoice,
};
pub use format::{Format, OutFormat};
pub use gemm_plan::{GemmPlan, Path};
pub use int4::Int4Weights;
pub use layout::{GemmShape, MatrixLayout};
pub use policy::{
    coop_min_m, GemmPolicy, COOP_HUGE_B_ELEMENTS, COOP_LARGE_B_ELEMENTS, COOP_MIN_M,
    COOP_MIN_M_HUGE_B, COOP_MIN_M_INT4, COOP_MIN_M_INT4_OTHER_TILES, COOP_MIN_M_LARGE_B,
    GEMV_MAX_M, GEMV_MAX_M_INT4, SPLIT_TARGET_INVOCATIONS,
};
pub use split::split_k;

use limits::check_dims;

use crate::context::{BufferRef, Context, EncoderRef};
use crate::error::{Error, Result};
use crate::plan::Plan;
use crate::record::{Arg, Recorder, Timestamps};
use crate::stages::gemm::coop16;

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

/// The `SG` override of a plan's cooperative pass (for messages).
fn coop_planned_width(plan: &Plan) -> u32 {
    plan.passes
        .iter()
        .find_map(|p| p.override_value(coop16::SG.name()))
        .map_or(0, |v| v as u32)
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
    // cooperative matrices take each weight as f16: weights past its range take the portable
    // kernels under `Auto`, and are an error where `Coop` is asked for
    let opts = match (w.beyond_f16(), opts.path) {
        (None, _) => opts,
        (Some(_), PathChoice::Auto) => {
            let portable = GemmOptions { coop: None, ..opts };
            GemmOptions {
                path: if choose::takes_gemv(&portable, m, GEMV_MAX_M_INT4) {
                    PathChoice::Gemv
                } else {
                    PathChoice::Tiled
                },
                ..portable
            }
        }
        (Some((g, c, x)), PathChoice::Coop) => {
            return Err(Error::InvalidInput(format!(
                "int4 weights: group {g} of column {c} dequantizes to {x}, beyond f16's \
                 65504, and cooperative matrices take the weights as f16 (Tiled or Gemv \
                 multiply in f32)"
            )))
        }
        (Some(_), _) => opts,
    };
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
