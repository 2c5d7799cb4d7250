//! The sorter: a sort made for one configuration, recorded any number of times, and the
//! host-slice functions built on it.

use crate::context::{BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::error::{Error, Result};
use crate::record::{Arg, Recorder, Timestamps};

use super::build::{build, workgroup_bytes_for};
use super::wide::{checked_values, Step, Wide};
use super::wide_segments::WideSegments;
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
    body: Body,
}

enum Body {
    /// One plan: binds the keys, and the values with a payload (both counted): 32-bit keys,
    /// and OneSweep's fused sorts of 64-bit keys.
    Narrow(Box<Recorder>),
    /// 64-bit keys composed of 32-bit sorters, and segmented sorts: parts over scratch
    /// ([`super::wide`]).
    Wide(Box<Wide>),
    /// Segmented sorts of 64-bit keys: two segmented sorts of 32-bit words
    /// ([`super::wide_segments`]).
    WideSegments(Box<WideSegments>),
}

impl Sorter {
    /// A sorter for `config` on `ctx`: checks it against the device, picks the strategy, makes
    /// the scratch for `config.max_count` keys and compiles the passes.
    pub fn new(ctx: &Context, config: SortConfig) -> Result<Sorter> {
        Sorter::made(ctx, config, false)
    }

    /// A 32-bit pairs sorter whose keys carry a second value word too (`VALUES2` of
    /// `wgsl/sort/lib/tile.wgsl`), recorded by [`Sorter::recorder`] on (keys, values, second
    /// values): the halves' passes of a sort of 64-bit keys or of segments.
    pub(super) fn with_second_values(ctx: &Context, config: SortConfig) -> Result<Sorter> {
        Sorter::made(ctx, config, true)
    }

    fn made(ctx: &Context, config: SortConfig, values2: bool) -> Result<Sorter> {
        let caps = ctx.caps();
        let kt = key_type(config.key)?;
        let width = if config.key.is_wide() { 64 } else { 32 };
        if config.begin_bit > config.end_bit || config.end_bit > width {
            return Err(Error::InvalidInput(format!(
                "bit range {}..{} is not within 0..{width} ({} keys)",
                config.begin_bit, config.end_bit, config.key
            )));
        }
        let n = config.max_count.max(1);
        check_size(caps, n, width / 8)?;
        if config.max_segments == Some(0) {
            return Err(Error::InvalidInput(
                "a segmented sort of at most 0 segments: give at least one".into(),
            ));
        }
        if config.key.is_wide() && config.max_segments.is_some() {
            let ws = WideSegments::new(ctx, &config, kt)?;
            return Ok(Sorter {
                config,
                strategy: ws.strategy(),
                body: Body::WideSegments(Box::new(ws)),
            });
        }
        // 64-bit keys: OneSweep's passes read and write the caller's keys themselves (the
        // fused sort, `sort/build.rs`); other strategies and segmented sorts compose 32-bit
        // sorters between a split and a join (`sort/wide.rs`). Each pass of either carries the
        // other word of a 64-bit key as its values: the ranking of pairs.
        let fused = config.key.is_wide()
            && config.max_segments.is_none()
            && config.policy.fused_wide
            && config
                .strategy
                .unwrap_or_else(|| config.policy.choose(caps, n, true))
                == Strategy::OneSweep;
        if (config.key.is_wide() && !fused) || config.max_segments.is_some() {
            let wide = Wide::new(ctx, &config, kt)?;
            return Ok(Sorter {
                config,
                strategy: wide.strategy(),
                body: Body::Wide(Box::new(wide)),
            });
        }
        let pairs = config.payload != Payload::None;
        let ranked_pairs = pairs || fused;
        let strategy = config
            .strategy
            .unwrap_or_else(|| config.policy.choose(caps, n, ranked_pairs));
        if strategy == Strategy::OneSweep && !caps.subgroups {
            return Err(Error::MissingFeature {
                feature: "SUBGROUP",
                needed_for: "the onesweep sort".into(),
            });
        }
        if !fits(caps, strategy, ranked_pairs, n, &config.policy) {
            return Err(Error::Limit {
                limit: "max_compute_workgroup_storage_size",
                needed: workgroup_bytes_for(
                    strategy,
                    ranked_pairs,
                    n,
                    &config.policy,
                    caps.flavor(),
                )?,
                available: caps.max_workgroup_storage as u64,
                needed_for: format!("the {strategy} sort"),
            });
        }
        let built = build(caps, &config, kt, strategy, values2 && pairs)?;
        let mut args = vec![Arg::counted(built.keys, "keys", u64::from(width / 8))];
        if pairs {
            args.push(Arg::counted(built.values, "values", 4));
        }
        if let Some(v2) = built.values2 {
            args.push(Arg::counted(v2, "values", 4));
        }
        Ok(Sorter {
            config,
            strategy: built.strategy,
            body: Body::Narrow(Box::new(Recorder::new(
                ctx,
                built.plan,
                args,
                Some(built.counting),
            )?)),
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
    /// A composed sort of 64-bit keys or of segments records several plans: this is its first
    /// digit passes'.
    pub fn plan(&self) -> &crate::plan::Plan {
        match &self.body {
            Body::Narrow(r) => r.plan(),
            Body::Wide(w) => w.plan(),
            Body::WideSegments(w) => w.plan(),
        }
    }

    /// The passes one recording dispatches, by label (two timestamps each with
    /// [`Sorter::record_timed`]).
    pub fn passes(&self) -> Vec<String> {
        match &self.body {
            Body::Narrow(r) => r.plan().pass_labels(),
            Body::Wide(w) => w.passes(),
            Body::WideSegments(w) => w.passes(),
        }
    }

    /// A segmented sort's local path: the longest segment of each of its buckets, ascending
    /// (a segment of up to the last, `L`, is sorted where it lies by one invocation or one
    /// workgroup; a run with a longer one takes the global path for every key). Empty for
    /// other sorts, and where the policy leaves no bucket
    /// ([`SortPolicy::segment_local_max`](super::SortPolicy::segment_local_max)).
    pub fn segment_buckets(&self) -> &[u64] {
        match &self.body {
            Body::Narrow(_) => &[],
            Body::Wide(w) => w.local_buckets(),
            Body::WideSegments(w) => w.local_buckets(),
        }
    }

    /// The recorder of a one-plan sort (32-bit keys, and the fused sort of 64-bit keys; a
    /// composed sort of 64-bit keys records its digit passes by it); of a composed sort, its
    /// first part's.
    pub(super) fn recorder(&self) -> &Recorder {
        match &self.body {
            Body::Narrow(r) => r,
            Body::Wide(w) => w.split(),
            Body::WideSegments(w) => w.split(),
        }
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

    /// [`Sorter::record`], with timestamps around each pass (see [`Sorter::passes`]; a
    /// composed sort of 64-bit keys, `SortPolicy::fused_wide`, records several plans and takes
    /// per-pass timestamps only).
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
        let rec = match &self.body {
            Body::Narrow(r) => r,
            Body::Wide(w) => return w.record(enc.into(), keys, values, None, count, stamps),
            Body::WideSegments(_) => {
                return Err(Error::InvalidInput(
                    "a segmented sorter records with Sorter::record_segmented".into(),
                ));
            }
        };
        match checked_values(pairs, values)? {
            Some(v) => rec.record(enc.into(), &[keys, v], Some(count), stamps),
            None => rec.record(enc.into(), &[keys], Some(count), stamps),
        }
    }
}

impl Sorter {
    /// Records a segmented sort (a sorter made with [`SortConfig::segmented`]): the first
    /// `count` keys (and values) sorted within each segment, in place. `offsets` holds the
    /// segments' CSR offsets, segment j being keys `[offsets[j], offsets[j + 1])`; `segments`
    /// counts them (`offsets` holds one more word), from the host or a GPU word (clamped to the
    /// sorter's maximum and to what `offsets` holds). Offsets should rise from 0 to the count;
    /// whatever they hold, the first segment is taken to start at 0 and the last to end at the
    /// count, so every key is in one segment and the output is a permutation of the input.
    /// `offsets` is bound at an offset that is a multiple of the binding alignment; a GPU
    /// segment count needs `COPY_SRC`.
    ///
    /// ```
    /// use wgsimd::{dtype::Dtype, BufferRef, Context, Count};
    /// use wgsimd::sort::{SortConfig, Sorter};
    /// # fn main() -> wgsimd::Result<()> {
    /// let ctx = Context::simulator(Default::default())?;
    /// let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::U32, 64).segmented(8))?;
    /// let keys = ctx.upload("tile keys", &[5u32, 3, 9, 1, 7, 2, 8])?;
    /// let offsets = ctx.upload("tile offsets", &[0u32, 3, 3, 7])?; // 3 tiles, one empty
    /// let mut enc = ctx.encoder();
    /// sorter.record_segmented(&mut enc, &keys, None, &offsets, Count::Host(3), Count::Host(7))?;
    /// ctx.submit(enc)?.clean("the segmented sort")?;
    /// assert_eq!(ctx.read::<u32>(&keys)?, [3, 5, 9, 1, 2, 7, 8]);
    /// # Ok(()) }
    /// ```
    pub fn record_segmented<'a>(
        &'a self,
        enc: impl Into<EncoderRef<'a>>,
        keys: impl Into<BufferRef<'a>>,
        values: Option<BufferRef<'a>>,
        offsets: impl Into<BufferRef<'a>>,
        segments: Count<'a>,
        count: Count<'a>,
    ) -> Result<()> {
        match &self.body {
            Body::Wide(w) if self.config.max_segments.is_some() => w.record(
                enc.into(),
                keys.into(),
                values,
                Some((offsets.into(), segments)),
                count,
                None,
            ),
            Body::WideSegments(w) => w.record(
                enc.into(),
                keys.into(),
                values,
                offsets.into(),
                segments,
                count,
                None,
            ),
            _ => Err(Error::InvalidInput(
                "this sorter is not segmented (SortConfig::segmented)".into(),
            )),
        }
    }

    /// The checked recordings of a segmented sort of 32-bit keys ([`Sorter::record_segmented`]),
    /// nothing recorded: a part of a composed sort.
    pub(super) fn segmented_steps<'a>(
        &'a self,
        enc: &EncoderRef<'a>,
        keys: BufferRef<'a>,
        values: Option<BufferRef<'a>>,
        offsets: BufferRef<'a>,
        segments: Count<'a>,
        count: Count<'a>,
    ) -> Result<Vec<Step<'a>>> {
        match &self.body {
            Body::Wide(w) if self.config.max_segments.is_some() => {
                w.steps(enc, keys, values, Some((offsets, segments)), count)
            }
            _ => Err(Error::Plan(
                "a composed sort's part is a segmented sort of 32-bit keys".into(),
            )),
        }
    }
}

/// Sorts `keys` (and `values`, when given) within each segment of the CSR `offsets` (S + 1
/// rising offsets from 0 to the key count: segment j is `[offsets[j], offsets[j + 1])`),
/// stably; the offsets are checked first.
///
/// ```
/// use wgsimd::sort::{sort_segments, SortOptions};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let (k, v) = sort_segments(&ctx, &[2.5f32, -1.0, 0.0, 4.0], Some(&[0, 1, 2, 3]), &[0, 2, 4],
///     &SortOptions::default())?;
/// assert_eq!((k, v), (vec![-1.0, 2.5, 0.0, 4.0], vec![1, 0, 2, 3]));
/// # Ok(()) }
/// ```
pub fn sort_segments<T: SortKey>(
    ctx: &Context,
    keys: &[T],
    values: Option<&[u32]>,
    offsets: &[u32],
    opts: &SortOptions,
) -> Result<(Vec<T>, Vec<u32>)> {
    let n = keys.len();
    check_offsets(offsets, n)?;
    if values.is_some_and(|v| v.len() != n) {
        return Err(Error::InvalidInput(format!(
            "{} values for {n} keys: a sort of pairs needs one value per key",
            values.map_or(0, <[u32]>::len)
        )));
    }
    let segments = offsets.len() as u32 - 1;
    let payload = if values.is_some() {
        Payload::Values
    } else {
        Payload::None
    };
    let mut config = host_config::<T>(n, payload, opts, &SortPolicy::default());
    config.max_segments = Some(segments.max(1));
    let sorter = Sorter::new(ctx, config)?;
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let kb = ctx.upload("keys", keys)?;
    let vb = values.map(|v| ctx.upload("values", v)).transpose()?;
    let ob = ctx.upload("offsets", offsets)?;
    let mut enc = ctx.encoder();
    sorter.record_segmented(
        &mut enc,
        &kb,
        vb.as_ref().map(BufferRef::from),
        &ob,
        Count::Host(segments),
        Count::Host(n as u32),
    )?;
    ctx.submit(enc)?.clean("the segmented sort")?;
    read_sorted(ctx, &kb, vb.as_ref(), n)
}

/// Checks CSR offsets of segments over `n` keys: at least one entry, rising from 0 to `n`.
pub fn check_offsets(offsets: &[u32], n: usize) -> Result<()> {
    if offsets.first() != Some(&0) || offsets.last().map(|&o| o as usize) != Some(n) {
        let end = |o: Option<&u32>| o.map_or("nothing (no offsets)".to_string(), u32::to_string);
        return Err(Error::InvalidInput(format!(
            "segment offsets must run from 0 to the key count {n}; they run from {} to {}",
            end(offsets.first()),
            end(offsets.last())
        )));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(Error::InvalidInput(format!(
            "segment offsets must not decrease: offsets[{}] = {} after {}",
            i + 1,
            offsets[i + 1],
            offsets[i]
        )));
    }
    Ok(())
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
    let config = host_config::<T>(n, payload, opts, policy);
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
    read_sorted(ctx, &kb, vb.as_ref(), n)
}

/// The configuration of a host-slice sort of `n` keys.
fn host_config<T: SortKey>(
    n: usize,
    payload: Payload,
    opts: &SortOptions,
    policy: &SortPolicy,
) -> SortConfig {
    let mut c = SortConfig::keys(T::KEY, n.max(1) as u64);
    c.payload = payload;
    c.descending = opts.descending;
    c.begin_bit = opts.begin_bit;
    c.end_bit = opts.end_bit.unwrap_or(c.end_bit);
    c.strategy = opts.strategy;
    c.policy = *policy;
    c
}

/// The first `n` keys (and values) after a host-slice sort.
fn read_sorted<T: SortKey>(
    ctx: &Context,
    keys: &crate::Buffer,
    values: Option<&crate::Buffer>,
    n: usize,
) -> Result<(Vec<T>, Vec<u32>)> {
    let mut out: Vec<T> = ctx.read(keys)?;
    out.truncate(n);
    let vals = match values {
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
            crate::record::assert_host_grids(s.recorder(), &counts);
        }
    }
}
