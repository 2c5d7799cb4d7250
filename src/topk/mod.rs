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
//!   start. An array is one row. The input is left as it was.
//! - **How** ([`TopKPolicy`] chooses): for k up to [`TopKPolicy::select_max_k`] a radix select
//!   (`select.rs`: the k-th largest key found a digit at a time over all rows at once, then
//!   the k keys that reach it gathered and ranked), its ranges bound as storage (`STORAGE`,
//!   offsets multiples of the binding alignment, the rows within one binding); past it each
//!   row sorted whole (`sorted.rs`: copies, `COPY_SRC` for the input and `COPY_DST` for the
//!   outputs, offsets multiples of 4).
//! - Everything is checked before anything is recorded: ranges, their usages and overlaps.

mod select;
mod sorted;

use crate::context::{BufferRef, Context, EncoderRef};
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};

pub use select::MAX_K;

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

/// Tuning of top-k: which path a configuration takes and the wide select's grid (docs/topk.md
/// has the table; the lab's `prims_sweep --only topk` times each field over the bench's shapes,
/// H200, 2026-11-30).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopKPolicy {
    /// The largest k the radix select takes (at most [`MAX_K`]); past it, a sort of each row:
    /// 1024. The select reads a row about 2 to 9 times (a round per digit until the k-th key's
    /// bucket is all needed, then the gather) and orders its k keys in workgroup memory (a
    /// bitonic sort past 32 keys); a row's sort reads and writes keys and indices 4 times and runs
    /// a row after another. The select wins wherever it applies, so the bound is the
    /// workgroup memory of its ranking.
    pub select_max_k: u32,
    /// Rows at least this long take the wide select (several workgroups a row, two dispatches a
    /// round): 16384. 4096 and 8192 time the same (within 1%); 32768 or never leaves rows of
    /// 32000 to a workgroup each, 0.114 against 0.104 ms for 256 of them (k = 40), and one row of
    /// 2^22 takes 13 ms.
    pub wide_cols: u32,
    /// The most rows a wide run takes (its scratch: 1060 bytes a row); more take the
    /// workgroup per row, which then fills the GPU with rows: 4096 (4.3 MB).
    pub wide_max_rows: u32,
    /// Elements a wide workgroup takes a step (8 per invocation): 2048. 4096 is within 2% either
    /// way with 1024 workgroups (faster at one row of 2^22, slower at 64 × 128256).
    pub chunk: u32,
    /// About how many workgroups the wide select's passes over elements dispatch, over all
    /// rows (each strides over its row's steps): 1024, about 8 per SM of the H200's 132. Against
    /// 2048: 0.078 / 0.209 ms at one row of 2^22 / 2^24 (k = 16; 0.084 / 0.214), 0.101 ms at 64 ×
    /// 128256 (0.110), 0.096 at 256 × 32000 (0.105); 768 and 1536 lose at 2^24 (0.249, 0.239).
    pub wide_workgroups: u32,
}

impl Default for TopKPolicy {
    fn default() -> Self {
        TopKPolicy {
            select_max_k: MAX_K,
            wide_cols: 16384,
            wide_max_rows: 4096,
            chunk: 2048,
            wide_workgroups: 1024,
        }
    }
}

/// How a [`TopK`] records.
enum Path {
    Select(Box<select::Select>),
    Sort(sorted::Sorted),
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
    path: Path,
}

impl TopK {
    /// Top-k for `config` on `ctx`.
    pub fn new(ctx: &Context, config: TopKConfig) -> Result<TopK> {
        Self::with_policy(ctx, config, TopKPolicy::default())
    }

    /// [`TopK::new`] with a policy of the caller's.
    pub fn with_policy(ctx: &Context, config: TopKConfig, policy: TopKPolicy) -> Result<TopK> {
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
        // the rows one binding holds (and whose elements a u32 indexes)
        let max_rows =
            (ctx.caps().max_storage_binding / 4).min(u32::MAX as u64) / config.cols as u64;
        // (the select's keys keep an index below 2^31: `topk/lib/rank.wgsl`)
        let path =
            if config.k <= policy.select_max_k.min(MAX_K) && max_rows > 0 && config.cols <= 1 << 31
            {
                Path::Select(Box::new(select::Select::new(
                    ctx,
                    &config,
                    &policy,
                    max_rows as u32,
                )?))
            } else {
                Path::Sort(sorted::Sorted::new(ctx, &config)?)
            };
        Ok(TopK { config, path })
    }

    /// Whether it records the radix select (else a sort of each row).
    pub fn selects(&self) -> bool {
        matches!(self.path, Path::Select(_))
    }

    /// Its configuration.
    pub fn config(&self) -> &TopKConfig {
        &self.config
    }

    /// Records the top-k of each of `rows` rows of `input` (`rows · cols` elements) into the
    /// first `rows · k` elements of `values` and `indices` (see the module docs: the select
    /// binds them, at offsets that are multiples of the binding alignment, with `STORAGE`; the
    /// sort copies, at offsets that are multiples of 4, `COPY_SRC` from the input and
    /// `COPY_DST` to the outputs); the outputs may overlap neither the input nor each other.
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        values: impl Into<BufferRef<'a>>,
        indices: impl Into<BufferRef<'a>>,
        rows: u32,
    ) -> Result<()> {
        let enc = enc.into();
        let (input, values, indices) = (input.into(), values.into(), indices.into());
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
        if rows == 0 {
            return Ok(());
        }
        let bufs = [input, values, indices];
        match &self.path {
            Path::Select(s) => s.record(enc, bufs, rows),
            Path::Sort(s) => s.record(&self.config, enc, bufs, rows),
        }
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
