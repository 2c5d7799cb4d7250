//! Top-k: the k largest (or smallest) elements of an array, or of every row of a matrix, with
//! their u32 indices, of u32, i32 and f32 values.
//!
//! Rules:
//! - **Order**: the k values in order, largest first (smallest first with
//!   [`TopKConfig::smallest`]); ties broken by the lower index; floats in the sort's total order
//!   ([`f32::total_cmp`]: −0 below +0, NaNs above +inf or below −inf by sign), as torch.topk
//!   puts NaNs above every number. `k` from 1 to the row length.
//! - **Rows**: the input is `rows` rows of `cols` elements, row-major; row r's results go to
//!   elements `r·k .. (r+1)·k` of `values` and `indices`, its indices counting from the row's
//!   start. An array is one row.
//! - **How**: each row copied to the object's scratch, sorted with its indices (the stable radix
//!   sort, [`crate::sort`], descending for the largest), and the first k of both copied out;
//!   the input is left as it was. A sort per row: the cost of the whole row's sort, whatever k
//!   (a radix select would stop at k).
//! - Everything is checked before anything is recorded: ranges, their usages (`COPY_SRC` for
//!   the input, `COPY_DST` for the outputs) and overlaps.

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::sort::{SortConfig, Sorter};

/// What a [`TopK`] is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopKConfig {
    /// The values' type: u32, i32 or f32.
    pub dtype: Dtype,
    /// How many to keep of each row (1 to `cols`).
    pub k: u32,
    /// Elements in a row (the array's length for one row).
    pub cols: u32,
    /// The smallest instead of the largest.
    pub smallest: bool,
}

impl TopKConfig {
    /// The `k` largest of each row of `cols` elements of `dtype`.
    pub fn largest(dtype: Dtype, k: u32, cols: u32) -> TopKConfig {
        TopKConfig {
            dtype,
            k,
            cols,
            smallest: false,
        }
    }

    /// The same, the smallest.
    pub fn smallest(mut self) -> TopKConfig {
        self.smallest = true;
        self
    }
}

/// Top-k made for one configuration (see the module docs).
///
/// The two best scores of each of two rows, with their columns:
/// ```
/// use wgsimd::{dtype::Dtype, topk::{TopK, TopKConfig}, Context};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let t = TopK::new(&ctx, TopKConfig::largest(Dtype::F32, 2, 4))?;
/// let logits = ctx.upload("logits", &[0.1f32, 2.5, -1.0, 2.5, /* row 1 */ 7.0, 0.0, 3.0, 9.0])?;
/// let (values, indices) = (ctx.zeroed("values", 16)?, ctx.zeroed("indices", 16)?);
/// let mut enc = ctx.encoder();
/// t.record(&mut enc, &logits, &values, &indices, 2)?;
/// ctx.submit(enc)?.clean("top-k")?;
/// assert_eq!(ctx.read::<f32>(&values)?, [2.5, 2.5, 9.0, 7.0]);
/// assert_eq!(ctx.read::<u32>(&indices)?, [1, 3, 3, 0]); // ties: the lower index first
/// # Ok(()) }
/// ```
pub struct TopK {
    config: TopKConfig,
    sorter: Sorter,
    /// A row's keys, sorted in place.
    keys: Buffer,
    /// Their indices.
    indices: Buffer,
}

impl TopK {
    /// Top-k for `config` on `ctx`.
    pub fn new(ctx: &Context, config: TopKConfig) -> Result<TopK> {
        if !matches!(config.dtype, Dtype::U32 | Dtype::I32 | Dtype::F32) {
            return Err(Error::UnsupportedDtype {
                dtype: config.dtype.to_string(),
                op: "top-k",
                supported: "u32, i32, f32",
            });
        }
        if config.k == 0 || config.k > config.cols {
            return Err(Error::InvalidInput(format!(
                "k = {} of rows of {}: k must be 1 to the row length",
                config.k, config.cols
            )));
        }
        let mut sort = SortConfig::keys(config.dtype, config.cols as u64).with_index();
        sort.descending = !config.smallest;
        let bytes = 4 * config.cols as u64;
        Ok(TopK {
            config,
            sorter: Sorter::new(ctx, sort)?,
            keys: ctx.scratch("top-k keys", bytes)?,
            indices: ctx.scratch("top-k indices", bytes)?,
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &TopKConfig {
        &self.config
    }

    /// Records the top-k of each of `rows` rows of `input` (`rows · cols` elements) into the
    /// first `rows · k` elements of `values` and `indices` (see the module docs). Offsets are
    /// multiples of 4; `input` needs `COPY_SRC`, the outputs `COPY_DST`; the outputs may
    /// overlap neither the input nor each other.
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        values: impl Into<BufferRef<'a>>,
        indices: impl Into<BufferRef<'a>>,
        rows: u32,
    ) -> Result<()> {
        let mut enc = enc.into();
        let (input, values, indices) = (input.into(), values.into(), indices.into());
        let (k, cols) = (self.config.k as u64 * 4, self.config.cols as u64 * 4);
        for (a, b, what) in [
            (&values, &input, "`values` overlaps `input`"),
            (&indices, &input, "`indices` overlaps `input`"),
            (&values, &indices, "`values` overlaps `indices`"),
        ] {
            if a.overlaps(b) {
                return Err(Error::InvalidInput(format!(
                    "{what}: {} and {}",
                    a.describe(),
                    b.describe()
                )));
            }
        }
        let (keys, idx) = (self.keys.slice(0, cols), self.indices.slice(0, cols));
        // every copy checked before anything is recorded (the last row's ranges hold the rest)
        if rows > 0 {
            let r = rows as u64 - 1;
            let row = |b: BufferRef<'a>, at: u64, len: u64| {
                if b.len() < at + len {
                    Err(Error::InvalidInput(format!(
                        "{rows} rows need {} bytes of {}",
                        at + len,
                        b.describe()
                    )))
                } else {
                    Ok(b.range(at, len))
                }
            };
            enc.check_copy(&row(input, r * cols, cols)?, &keys, cols)?;
            enc.check_copy(&keys, &row(values, r * k, k)?, k)?;
            enc.check_copy(&idx, &row(indices, r * k, k)?, k)?;
        }
        for r in 0..rows as u64 {
            enc.copy(&input.range(r * cols, cols), &keys, cols)?;
            self.sorter.record(
                enc.reborrow(),
                keys,
                Some(idx),
                Count::Host(self.config.cols),
            )?;
            enc.copy(&keys, &values.range(r * k, k), k)?;
            enc.copy(&idx, &indices.range(r * k, k), k)?;
        }
        Ok(())
    }
}

/// The `k` largest (or `smallest`) of each row of `cols` elements of `data` (one row for
/// `cols = data.len()`), with their indices in the row, row by row.
///
/// ```
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let (v, i) = wgsimd::topk::topk(&ctx, &[5u32, 1, 9, 7], 4, 2, false)?;
/// assert_eq!((v, i), (vec![9, 7], vec![2, 3]));
/// # Ok(()) }
/// ```
pub fn topk<T: Element>(
    ctx: &Context,
    data: &[T],
    cols: usize,
    k: u32,
    smallest: bool,
) -> Result<(Vec<T>, Vec<u32>)> {
    if cols == 0 || !data.len().is_multiple_of(cols) || cols > u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "{} elements are not rows of {cols}",
            data.len()
        )));
    }
    let mut config = TopKConfig::largest(T::DTYPE, k, cols as u32);
    config.smallest = smallest;
    let t = TopK::new(ctx, config)?;
    let rows = data.len() / cols;
    let input = ctx.upload("input", data)?;
    let out = (rows * k as usize * 4) as u64;
    let (values, indices) = (ctx.zeroed("values", out)?, ctx.zeroed("indices", out)?);
    let mut enc = ctx.encoder();
    t.record(&mut enc, &input, &values, &indices, rows as u32)?;
    ctx.submit(enc)?.clean("top-k")?;
    Ok((ctx.read(&values)?, ctx.read(&indices)?))
}
