//! The caller's layout of a GEMM's operands ([`GemmShape`], [`MatrixLayout`]): row strides,
//! offsets, B stored transposed, a batch of matrices with their strides. Resolved here against
//! the formats into what the kernels' params hold (`gemm/lib/layout.wgsl`); the kernels do the
//! indexing. The rules a layout must meet are the kernels' loads: A's and B's rows are read in
//! `vec4<u32>` loads (4 f32 or 8 f16), so their row strides, offsets and matrix strides are
//! whole loads; f16 C is written in words of two, so its are even.

use super::format::{Format, OutFormat};
use super::int4::GROUP;
use crate::error::{Error, Result};
use crate::plan::{BufferId, BufferInit, Plan};

/// Where one operand's matrices lie in the buffer range bound for it, in elements of the
/// operand (f32 or f16; for f16 C, f16). The default is the GEMM's own layout (rows padded to
/// whole loads for A and B, rows of exactly N for C; one matrix after the other).
///
/// Element (i, j) of matrix `b` of the batch is at `offset + b · matrix_stride + i ·
/// row_stride + j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatrixLayout {
    /// Elements before element (0, 0) of the first matrix.
    pub offset: usize,
    /// Elements from one row to the next (at least the row's length); `None`: the GEMM's own.
    pub row_stride: Option<usize>,
    /// Elements from one matrix of a batch to the next; `None`: rows × row stride. For A and B
    /// any value, 0 included (every matrix of the batch reads the same one); for C at least one
    /// matrix's extent, so no two matrices share an element.
    pub matrix_stride: Option<usize>,
}

impl MatrixLayout {
    /// Rows `row_stride` elements apart.
    pub fn rows(row_stride: usize) -> Self {
        MatrixLayout {
            row_stride: Some(row_stride),
            ..Self::default()
        }
    }

    /// The same, starting `offset` elements into the bound range.
    pub fn at(self, offset: usize) -> Self {
        MatrixLayout { offset, ..self }
    }

    /// The same, with the matrices of a batch `stride` elements apart.
    pub fn matrices(self, stride: usize) -> Self {
        MatrixLayout {
            matrix_stride: Some(stride),
            ..self
        }
    }
}

/// A GEMM's shape and the layout of its operands in the caller's buffers: C = A·B for each of
/// `batch` matrices, A M×K, B K×N (or stored transposed, N×K), C M×N, all row-major.
/// [`GemmShape::new`] is the GEMM's own layout, as [`Gemm::new`](super::Gemm::new) takes it.
///
/// Limits (each an [`Error::Layout`] naming the operand): a row stride at least the row's
/// length (K for A and transposed B, N for B and C); A's and B's row strides, offsets and (with
/// a batch) matrix strides multiples of their loads, 4 f32 or 8 f16; f16 C's even; C's matrices
/// not overlapping. int4 weights keep their packed layout
/// ([`Int4Weights`](super::int4::Int4Weights)), one matrix shared by the whole batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmShape {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Matrices (1: no batch).
    pub batch: usize,
    /// A's layout.
    pub a: MatrixLayout,
    /// B's layout (of its N×K storage when transposed).
    pub b: MatrixLayout,
    /// C's layout.
    pub c: MatrixLayout,
    /// B is stored transposed: N rows of K (row n holds column n of B).
    pub b_transposed: bool,
}

impl GemmShape {
    /// M×K times K×N in the GEMM's own layout, one matrix.
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        GemmShape {
            m,
            n,
            k,
            batch: 1,
            a: MatrixLayout::default(),
            b: MatrixLayout::default(),
            c: MatrixLayout::default(),
            b_transposed: false,
        }
    }

    /// With A laid out as `l`.
    pub fn a(self, l: MatrixLayout) -> Self {
        GemmShape { a: l, ..self }
    }

    /// With B laid out as `l`.
    pub fn b(self, l: MatrixLayout) -> Self {
        GemmShape { b: l, ..self }
    }

    /// With C laid out as `l`.
    pub fn c(self, l: MatrixLayout) -> Self {
        GemmShape { c: l, ..self }
    }

    /// With B stored transposed (N×K).
    pub fn transposed_b(self) -> Self {
        GemmShape {
            b_transposed: true,
            ..self
        }
    }

    /// With `count` matrices (their strides in each operand's [`MatrixLayout`]).
    pub fn batch(self, count: usize) -> Self {
        GemmShape {
            batch: count,
            ..self
        }
    }

    /// Whether this is the GEMM's own layout (nothing given): padding zero, one matrix, and the
    /// cooperative kernels' C with rows up to a whole tile.
    pub fn is_own(&self) -> bool {
        *self == GemmShape::new(self.m, self.n, self.k)
    }
}

/// One operand resolved: elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mat {
    pub off: u64,
    pub row: u64,
    pub mat: u64,
}

/// Where a product pass writes C, in elements: the caller's layout, or rows of N of the plan's
/// own (f32 C to be rounded, partial products; `split`: one K split's to the next).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CTarget {
    pub off: u64,
    pub row: u64,
    pub mat: u64,
    pub split: u64,
}

/// A shape resolved against its formats.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolved {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub bt: bool,
    /// The GEMM's own layout ([`GemmShape::is_own`]).
    pub own: bool,
    /// C is M·N elements from the range's start, rows of N, one matrix: f16 C may be rounded in
    /// words that straddle two rows (`gemm/to_f16`, the split-K sum without `STRIDED`).
    pub c_flat: bool,
    pub a: Mat,
    pub b: Mat,
    pub c: Mat,
    /// Elements per load of A and of B (int4: 8 of K per word).
    pub a_epl: u64,
    pub b_epl: u64,
    /// Bytes of A and B as bound (int4 B: the packed words; the scales apart).
    pub a_bytes: u64,
    pub b_bytes: u64,
    /// Elements of C from the bound range's start to its last element, plus one.
    pub c_extent: u64,
}

fn layout_err(operand: &'static str, message: String) -> Error {
    Error::Layout { operand, message }
}

/// Checks and resolves one operand of `rows` × `cols`, read or written in units of `align`
/// elements (`why` says why).
fn operand(
    name: &'static str,
    l: &MatrixLayout,
    [rows, cols, batch]: [usize; 3],
    own_row: usize,
    (align, why): (usize, &str),
) -> Result<Mat> {
    let err = |m: String| layout_err(name, m);
    let row = l.row_stride.unwrap_or(own_row);
    if row < cols {
        return Err(err(format!(
            "row stride {row} is below the row length {cols}"
        )));
    }
    let mat = if batch > 1 {
        l.matrix_stride
            .map_or_else(|| rows.checked_mul(row), Some)
            .ok_or_else(|| err("matrix stride beyond any buffer".into()))?
    } else {
        0
    };
    for (what, v) in [
        ("row stride", row),
        ("offset", l.offset),
        ("matrix stride", mat),
    ] {
        if !v.is_multiple_of(align) {
            return Err(err(format!(
                "{what} {v} is not a multiple of {align} elements ({why})"
            )));
        }
    }
    Ok(Mat {
        off: l.offset as u64,
        row: row as u64,
        mat: mat as u64,
    })
}

/// Elements from the range's start to one past the last element of a `rows` × `cols` operand
/// `x` of `batch` matrices, its rows' last load whole (`align`).
fn extent(x: &Mat, [rows, cols, batch]: [usize; 3], align: usize) -> Option<u64> {
    let last_row = (batch as u64 - 1)
        .checked_mul(x.mat)?
        .checked_add((rows as u64 - 1).checked_mul(x.row)?)?;
    x.off
        .checked_add(last_row)?
        .checked_add(cols.div_ceil(align) as u64 * align as u64)
}

/// Resolves `s` for A in `fa`, B in `fb` (F32, F16, or Int4 weights), C in `out`.
pub(crate) fn resolve(s: &GemmShape, fa: Format, fb: Format, out: OutFormat) -> Result<Resolved> {
    let (m, n, k, batch) = (s.m, s.n, s.k, s.batch);
    if batch == 0 {
        return Err(Error::InvalidInput("gemm batch of 0 matrices".into()));
    }
    let too_large = |what: &str| {
        Error::TooLarge(format!(
            "gemm {what} of {batch} × {m}×{k} · {k}×{n} beyond any adapter's binding"
        ))
    };
    let round = |x: usize, to: usize| x.div_ceil(to) * to;
    let a_epl = fa.per_load() as usize;
    let a_why = format!("A is read in loads of {a_epl} {fa:?}");
    let a = operand("A", &s.a, [m, k, batch], round(k, a_epl), (a_epl, &a_why))?;
    let a_extent = extent(&a, [m, k, batch], a_epl).ok_or_else(|| too_large("A"))?;
    let b_epl = fb.per_load() as usize;
    let (b, b_bytes) = if fb == Format::Int4 {
        if s.b != MatrixLayout::default() || s.b_transposed {
            return Err(layout_err(
                "B",
                "int4 weights take their packed layout (Int4Weights), one matrix for the whole \
                 batch: no row stride, offset, matrix stride or transposition"
                    .into(),
            ));
        }
        let b = Mat {
            off: 0,
            row: n as u64,
            mat: 0,
        };
        (b, int4_bytes(k, n).0)
    } else {
        let (rows, cols) = if s.b_transposed { (n, k) } else { (k, n) };
        let why = format!("B is read in loads of {b_epl} {fb:?}");
        let b = operand(
            "B",
            &s.b,
            [rows, cols, batch],
            round(cols, b_epl),
            (b_epl, &why),
        )?;
        let e = extent(&b, [rows, cols, batch], b_epl).ok_or_else(|| too_large("B"))?;
        (b, e * fb_bytes(fb))
    };
    // (f16 C in words of two: a caller's rows even; C as one block of M·N needs no rule)
    let c_flat = s.c == MatrixLayout::default() && batch == 1;
    let c_align = if out == OutFormat::F16 && !c_flat {
        2
    } else {
        1
    };
    let c = operand(
        "C",
        &s.c,
        [m, n, batch],
        n,
        (c_align, "f16 C is written in words of two"),
    )?;
    if batch > 1 {
        let one = (m as u64 - 1) * c.row + n as u64;
        if c.mat < one {
            return Err(layout_err(
                "C",
                format!(
                    "matrix stride {} is below one matrix's extent (M − 1) · row stride + N = \
                     {one}: the matrices would overlap",
                    c.mat
                ),
            ));
        }
    }
    let c_extent = extent(&c, [m, n, batch], 1).ok_or_else(|| too_large("C"))?;
    Ok(Resolved {
        m,
        n,
        k,
        batch,
        bt: s.b_transposed,
        own: s.is_own(),
        c_flat,
        a,
        b,
        c,
        a_epl: a_epl as u64,
        b_epl: b_epl as u64,
        a_bytes: a_extent * fb_bytes(fa),
        b_bytes,
        c_extent,
    })
}

/// Bytes of the int4 operands: packed words, scales (and zero points), as bound: words to
/// whole vec4s, halves to whole 16 bytes.
pub(crate) fn int4_bytes(k: usize, n: usize) -> (u64, u64) {
    let words = (k.div_ceil(8) * n) as u64;
    let groups = (k.div_ceil(GROUP) * n) as u64;
    (
        words.div_ceil(4).max(1) * 16,
        groups.div_ceil(8).max(1) * 16,
    )
}

/// The int4 operands as a plan's arguments, in the order a recording binds them after A: the
/// packed weights ("w"), the scales, and the zero points ("zeros", or with `zeros` false a
/// 16-byte stand-in that is not an input); with the scales' bytes and B's packed rows
/// (`Params::b_rows`, ceil(K/8)).
pub(crate) fn int4_args(plan: &mut Plan, k: usize, n: usize, zeros: bool) -> Result<Int4Args> {
    let (w_bytes, s_bytes) = int4_bytes(k, n);
    let w = plan.arg("w", w_bytes);
    let s = plan.arg("scales", s_bytes);
    let z = if zeros {
        plan.arg("zeros", s_bytes)
    } else {
        plan.buffer("no zeros", 16, BufferInit::Zeroed)
    };
    let rows = u32::try_from(k.div_ceil(8))
        .map_err(|_| Error::TooLarge(format!("int4 weights of K = {k}")))?;
    Ok(Int4Args {
        bufs: [w, s, z],
        inputs: if zeros { vec![w, s, z] } else { vec![w, s] },
        scale_bytes: s_bytes,
        rows,
    })
}

/// What [`int4_args`] made.
pub(crate) struct Int4Args {
    /// The weights, the scales, the zero points (or their stand-in).
    pub bufs: [BufferId; 3],
    /// The ones the caller binds.
    pub inputs: Vec<BufferId>,
    /// Bytes of the scales (and of the zero points).
    pub scale_bytes: u64,
    /// B's packed rows, ceil(K/8).
    pub rows: u32,
}

fn fb_bytes(f: Format) -> u64 {
    match f {
        Format::F32 => 4,
        _ => 2,
    }
}

fn u32_of(x: u64) -> Result<u32> {
    u32::try_from(x).map_err(|_| Error::TooLarge(format!("gemm layout value {x} beyond u32")))
}

impl Resolved {
    /// The caller's C as a product pass's target.
    pub fn caller_c(&self) -> CTarget {
        CTarget {
            off: self.c.off,
            row: self.c.row,
            mat: if self.own {
                (self.m * self.n) as u64
            } else {
                self.c.mat
            },
            split: 0,
        }
    }

    /// Rows of N, matrix after matrix, split after split: the plan's own C (scratch, partial
    /// products).
    pub fn packed_c(&self) -> CTarget {
        let mn = (self.m * self.n) as u64;
        CTarget {
            off: 0,
            row: self.n as u64,
            mat: mn,
            split: mn * self.batch as u64,
        }
    }

    /// Elements of C, all matrices (as the plan's own buffers hold them).
    pub fn c_elements(&self) -> u64 {
        (self.m * self.n) as u64 * self.batch as u64
    }

    /// Bytes of the caller's C in `out`: its extent, f16 in whole words.
    pub fn c_bytes(&self, out: OutFormat) -> u64 {
        match out {
            OutFormat::F32 => self.c_extent * 4,
            OutFormat::F16 => self.c_extent.div_ceil(2) * 4,
        }
    }

    /// Whether offsets or a batch are in use (the kernels' `LAYOUT`).
    pub fn has_bases(&self) -> bool {
        self.batch > 1 || self.a.off != 0 || self.b.off != 0 || self.c.off != 0
    }

    /// The overrides of the operands' layout (`gemm/lib/layout.wgsl`): `LAYOUT`, `MASK_K`,
    /// `B_T`.
    pub fn overrides(&self) -> [(crate::stages::Override, f64); 3] {
        use crate::stages::gemm::lib::layout::{B_T, LAYOUT, MASK_K};
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        // a K tail inside a load is garbage only in a caller's rows (the own layout's padding
        // is zero); int4 weights zero theirs in the kernel
        let tail = !self.k.is_multiple_of(self.a_epl as usize) && !self.own;
        [
            (LAYOUT, flag(self.has_bases())),
            (MASK_K, flag(tail)),
            (B_T, flag(self.bt)),
        ]
    }

    /// The params (`Params` in `gemm/lib/layout.wgsl`) for a pass writing C at `t`.
    pub fn params(
        &self,
        [k_tiles, b_rows, tiles_per_split, splits]: [u32; 4],
        t: CTarget,
    ) -> Result<[u32; 20]> {
        let (ae, be) = (self.a_epl, self.b_epl);
        let b_cols = if self.bt { self.k } else { self.n };
        let int4 = b_rows != 0;
        let (b_row_vecs, b_vecs) = if int4 {
            (self.n as u64, self.n as u64)
        } else {
            (self.b.row / be, (b_cols as u64).div_ceil(be))
        };
        let v = [
            self.m as u64,
            self.n as u64,
            self.k as u64,
            self.a.row / ae,
            b_row_vecs,
            k_tiles as u64,
            b_rows as u64,
            tiles_per_split as u64,
            (self.k as u64).div_ceil(ae),
            b_vecs,
            splits as u64,
            t.row,
            self.a.off / ae,
            if int4 { 0 } else { self.b.off / be },
            t.off,
            self.a.mat / ae,
            if int4 { 0 } else { self.b.mat / be },
            t.mat,
            t.split,
            0,
        ];
        let mut out = [0u32; 20];
        for (o, x) in out.iter_mut().zip(v) {
            *o = u32_of(x)?;
        }
        Ok(out)
    }
}
