//! Top-k by sorting each whole row (for k past what the select takes, [`super::TopKPolicy`]):
//! each row copied to the object's scratch, sorted with its indices by the stable radix sort
//! ([`crate::sort`], descending for the largest, so equal values keep their index order), and its
//! first k values and indices copied out, a row after another. The input is left as it was;
//! every copy is checked before anything is recorded (`COPY_SRC` for the input, `COPY_DST` for
//! the outputs).

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::error::{Error, Result};
use crate::sort::{SortConfig, Sorter};

use super::TopKConfig;

/// The sort path of one configuration.
pub(super) struct Sorted {
    sorter: Sorter,
    /// A row's keys, sorted in place.
    keys: Buffer,
    /// Their indices.
    indices: Buffer,
}

impl Sorted {
    pub fn new(ctx: &Context, config: &TopKConfig) -> Result<Sorted> {
        let mut sort = SortConfig::keys(config.dtype, config.cols as u64).with_index();
        sort.descending = !config.smallest;
        let bytes = 4 * config.cols as u64;
        Ok(Sorted {
            sorter: Sorter::new(ctx, sort)?,
            keys: ctx.scratch("top-k keys", bytes)?,
            indices: ctx.scratch("top-k indices", bytes)?,
        })
    }

    /// Records `rows` rows (`rows > 0`; the outputs' overlaps checked by the caller).
    pub fn record<'a>(
        &self,
        config: &TopKConfig,
        mut enc: EncoderRef<'a>,
        [input, values, indices]: [BufferRef<'a>; 3],
        rows: u32,
    ) -> Result<()> {
        let (k, cols) = (config.k as u64 * 4, config.cols as u64 * 4);
        let (keys, idx) = (self.keys.slice(0, cols), self.indices.slice(0, cols));
        // every copy checked before anything is recorded (the last row's ranges hold the rest)
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
        for r in 0..rows as u64 {
            enc.copy(&input.range(r * cols, cols), &keys, cols)?;
            self.sorter
                .record(enc.reborrow(), keys, Some(idx), Count::Host(config.cols))?;
            enc.copy(&keys, &values.range(r * k, k), k)?;
            enc.copy(&idx, &indices.range(r * k, k), k)?;
        }
        Ok(())
    }
}
