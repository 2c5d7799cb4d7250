//! The sorter: a sort made for one configuration, recorded any number of times, and the
//! host-slice functions built on it.

use crate::context::{BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::error::{Error, Result};
use crate::record::{Arg, Recorder, Timestamps};

use super::build::{build, workgroup_bytes_for};
use super::{
    check_size, fits, key_type, Payload, SortConfig, SortKey, SortOptions, SortPolicy, Strategy,
};

/// A sort made for one [`SortConfig`] (see the module docs).
///
/// Sorting depth keys with an index payload, the count read from a GPU word (here on the
/// simulator; on a GPU the buffers and the encoder are the application's):
/// ```
/// use wgsimd::{dtype::Dtype, BufferRef, Context, Count};
/// use wgsimd::sort::{SortConfig, Sorter};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::F32, 1024).with_index())?;
/// let depths = ctx.upload("depths", &[0.5f32, -1.0, 2.0, 0.25])?;
/// let order = ctx.zeroed("order", 16)?;
/// let visible = ctx.upload("visible count", &[3u32])?;
/// let mut enc = ctx.encoder();
/// sorter.record(&mut enc, &depths, Some(BufferRef::from(&order)), Count::Gpu((&visible).into()))?;
/// ctx.submit(enc)?.clean("the sort")?;
/// assert_eq!(ctx.read::<f32>(&depths)?, [-1.0, 0.5, 2.0, 0.25]); // the first three, sorted
/// assert_eq!(ctx.read::<u32>(&order)?[..3], [1, 0, 2]);
/// # Ok(()) }
/// ```
pub struct Sorter {
    config: SortConfig,
    strategy: Strategy,
    /// Binds the keys, and the values with a payload (both counted).
    rec: Recorder,
}

impl Sorter {
    /// A sorter for `config` on `ctx`: checks it against the device, picks the strategy, makes
    /// the scratch for `config.max_count` keys and compiles the passes.
    pub fn new(ctx: &Context, config: SortConfig) -> Result<Sorter> {
        let caps = ctx.caps();
        let kt = key_type(config.key)?;
        if config.begin_bit > config.end_bit || config.end_bit > 32 {
            return Err(Error::InvalidInput(format!(
                "bit range {}..{} is not within 0..32",
                config.begin_bit, config.end_bit
            )));
        }
        let n = config.max_count.max(1);
        check_size(caps, n)?;
        let pairs = config.payload != Payload::None;
        let strategy = config
            .strategy
            .unwrap_or_else(|| config.policy.choose(caps, n, pairs));
        if strategy == Strategy::OneSweep && !caps.subgroups {
            return Err(Error::MissingFeature {
                feature: "SUBGROUP",
                needed_for: "the onesweep sort".into(),
            });
        }
        if !fits(caps, strategy, pairs, n, &config.policy) {
            return Err(Error::Limit {
                limit: "max_compute_workgroup_storage_size",
                needed: workgroup_bytes_for(strategy, pairs, n, &config.policy, caps.flavor())?,
                available: caps.max_workgroup_storage as u64,
                needed_for: format!("the {strategy} sort"),
            });
        }
        let built = build(caps, &config, kt, strategy)?;
        let mut args = vec![Arg::counted(built.keys, "keys", 4)];
        if pairs {
            args.push(Arg::counted(built.values, "values", 4));
        }
        Ok(Sorter {
            config,
            strategy: built.strategy,
            rec: Recorder::new(ctx, built.plan, args, Some(built.counting))?,
        })
    }

    /// The strategy it runs.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Its configuration.
    pub fn config(&self) -> &SortConfig {
        &self.config
    }

    /// The plan it records (its passes, buffers and overrides, for inspection: the lab's
    /// driver statistics compile exactly these passes).
    pub fn plan(&self) -> &crate::plan::Plan {
        self.rec.plan()
    }

    /// The passes one recording dispatches, by label (two timestamps each with
    /// [`Sorter::record_timed`]).
    pub fn passes(&self) -> Vec<String> {
        self.rec.plan().pass_labels()
    }

    /// Records the sort of the first `count` keys of `keys` (and of `values`, with a payload:
    /// the values to carry, or for [`Payload::Index`] the buffer the indices go to), in place.
    /// Both are bound at offsets that are multiples of the binding alignment (the device's
    /// `min_storage_buffer_offset_alignment`, at least 16) and need `STORAGE`.
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        keys: impl Into<BufferRef<'a>>,
        values: Option<BufferRef<'a>>,
        count: Count,
    ) -> Result<()> {
        self.record_timed(enc, keys, values, count, None)
    }

    /// [`Sorter::record`], with timestamps around each pass (see [`Sorter::passes`]).
    pub fn record_timed<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        keys: impl Into<BufferRef<'a>>,
        values: Option<BufferRef<'a>>,
        count: Count,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        let keys = keys.into();
        let pairs = self.config.payload != Payload::None;
        match (pairs, values) {
            (true, Some(v)) => self.rec.record(enc.into(), &[keys, v], Some(count), stamps),
            (false, None) => self.rec.record(enc.into(), &[keys], Some(count), stamps),
            (true, None) => Err(Error::InvalidInput(
                "this sorter carries values (or indices): give a values buffer".into(),
            )),
            (false, Some(_)) => Err(Error::InvalidInput(
                "this sorter sorts keys alone: give no values buffer".into(),
            )),
        }
    }
}

/// Sorts `keys` on `ctx` (stable; see [`SortOptions`]).
///
/// ```
/// use wgsimd::sort::{sort_keys, SortOptions};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let down = SortOptions { descending: true, ..Default::default() };
/// assert_eq!(sort_keys(&ctx, &[3i32, -7, 12], &down)?, [12, 3, -7]);
/// # Ok(()) }
/// ```
pub fn sort_keys<T: SortKey>(ctx: &Context, keys: &[T], opts: &SortOptions) -> Result<Vec<T>> {
    sort_keys_with(ctx, keys, opts, &SortPolicy::default())
}

/// [`sort_keys`] under `policy`.
pub fn sort_keys_with<T: SortKey>(
    ctx: &Context,
    keys: &[T],
    opts: &SortOptions,
    policy: &SortPolicy,
) -> Result<Vec<T>> {
    Ok(host_sort(ctx, keys, None, Payload::None, opts, policy)?.0)
}

/// Sorts `keys` and carries `values` along (stable: equal keys keep their input order).
///
/// ```
/// use wgsimd::sort::{sort_pairs, SortOptions};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let (k, v) = sort_pairs(&ctx, &[2u32, 1, 2], &[10, 20, 30], &SortOptions::default())?;
/// assert_eq!((k, v), (vec![1, 2, 2], vec![20, 10, 30]));
/// # Ok(()) }
/// ```
pub fn sort_pairs<T: SortKey>(
    ctx: &Context,
    keys: &[T],
    values: &[u32],
    opts: &SortOptions,
) -> Result<(Vec<T>, Vec<u32>)> {
    sort_pairs_with(ctx, keys, values, opts, &SortPolicy::default())
}

/// [`sort_pairs`] under `policy`.
pub fn sort_pairs_with<T: SortKey>(
    ctx: &Context,
    keys: &[T],
    values: &[u32],
    opts: &SortOptions,
    policy: &SortPolicy,
) -> Result<(Vec<T>, Vec<u32>)> {
    if values.len() != keys.len() {
        return Err(Error::InvalidInput(format!(
            "{} values for {} keys: sort_pairs needs one value per key",
            values.len(),
            keys.len()
        )));
    }
    host_sort(ctx, keys, Some(values), Payload::Values, opts, policy)
}

/// Sorts `keys` and returns, with them, each sorted key's index in the input (a stable
/// argsort).
///
/// ```
/// use wgsimd::sort::{sort_indices, SortOptions};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let (_, idx) = sort_indices(&ctx, &[0.5f32, f32::NAN, -0.0], &SortOptions::default())?;
/// assert_eq!(idx, [2, 0, 1]); // f32::total_cmp order: -0 < 0.5 < NaN
/// # Ok(()) }
/// ```
pub fn sort_indices<T: SortKey>(
    ctx: &Context,
    keys: &[T],
    opts: &SortOptions,
) -> Result<(Vec<T>, Vec<u32>)> {
    host_sort(
        ctx,
        keys,
        None,
        Payload::Index,
        opts,
        &SortPolicy::default(),
    )
}

fn host_sort<T: SortKey>(
    ctx: &Context,
    keys: &[T],
    values: Option<&[u32]>,
    payload: Payload,
    opts: &SortOptions,
    policy: &SortPolicy,
) -> Result<(Vec<T>, Vec<u32>)> {
    let n = keys.len();
    let config = SortConfig {
        key: T::DTYPE,
        payload,
        descending: opts.descending,
        begin_bit: opts.begin_bit,
        end_bit: opts.end_bit,
        max_count: n.max(1) as u64,
        strategy: opts.strategy,
        policy: *policy,
    };
    // checks the options and the size even where there is nothing to sort
    let sorter = Sorter::new(ctx, config)?;
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let kb = ctx.upload("keys", keys)?;
    let vb = match (payload, values) {
        (Payload::Values, Some(v)) => Some(ctx.upload("values", v)?),
        (Payload::Index, _) => Some(ctx.uninit("indices", n as u64 * 4)?),
        _ => None,
    };
    let mut enc = ctx.encoder();
    sorter.record(
        &mut enc,
        &kb,
        vb.as_ref().map(BufferRef::from),
        Count::Host(n as u32),
    )?;
    ctx.submit(enc)?.clean("the sort")?;
    let mut out: Vec<T> = ctx.read(&kb)?;
    out.truncate(n);
    let vals = match &vb {
        Some(b) => {
            let mut v: Vec<u32> = ctx.read(b)?;
            v.truncate(n);
            v
        }
        None => Vec::new(),
    };
    Ok((out, vals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;

    /// The host grids of both strategies are the prepare stage's, and reduce-then-scan's blocks
    /// word for word its prepare passes', at counts around every boundary: the tiles (small and
    /// large), the histograms' tiles and caps, 2-D tile grids past 3 workgroups a dimension,
    /// the copy's 256-word steps, and the scans of reduce-then-scan's histograms.
    #[test]
    fn host_grids_are_the_prepare_stages() {
        let mut caps = crate::Caps::h100();
        caps.max_workgroups_per_dim = 3;
        let ctx = Context::simulator(crate::sim::SimConfig::for_profile(caps)).unwrap();
        let cases = [
            (100_000u32, 32, Strategy::OneSweep),
            (3_000_000, 8, Strategy::OneSweep),
            (300_000, 32, Strategy::ReduceThenScan),
            (100_000, 8, Strategy::ReduceThenScan),
        ];
        for (max, bits, strategy) in cases {
            let c = SortConfig::keys(Dtype::U32, max as u64)
                .strategy(strategy)
                .bits(0, bits);
            let s = Sorter::new(&ctx, c).unwrap();
            let mut counts = vec![0, 1, 255, 256, 257, 4095, 4096, 4097, 5119, 5120, 5121];
            counts.extend([8191, 8192, 8193, 4 * 5120 + 1, 40 * 5120, max - 1, max]);
            counts.extend([2_000_000, 1 << 20, 4096 * 9 + 1, 3072, 3073, 3072 * 8 + 1]);
            counts.extend([3072 * 64 + 5, 3072 * 96]);
            counts.retain(|&n| n <= max);
            crate::record::assert_host_grids(&s.rec, &counts);
        }
    }
}
