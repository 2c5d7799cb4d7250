//! Histograms with even bins over u8, u32, i32 and f32 samples.
//!
//! Rules:
//! - **The bins, exactly.** `bins` bins over `[lo, hi)`: the edges are e_i = lo + i·w in f64,
//!   w = (hi − lo)/bins, and e_bins = hi (numpy's `linspace`); bin i holds the samples x with
//!   e_i ≤ x < e_(i+1), compared as real numbers (every sample is exact in f64). Samples below
//!   lo, at or above hi, and NaN are not counted; −0 is 0. Counts are u32.
//!   (`reference::histogram::even` is the definition.)
//! - **No float arithmetic decides a bin.** The host turns the edges into the samples' own
//!   terms once, when the object is made: for 32-bit samples each edge's least order key
//!   reached (the least u32, i32 or f32 at or above it, as the sort's order keys: f32 by its
//!   bits), searched by binary search per sample; for bytes a 256-entry table of each byte's
//!   bin. So every device bins alike, flushed subnormals and approximate division included.
//! - **Recorded once, run for any count** ([`Histogram::record`], the recording protocol of
//!   `record.rs`): the caller's counts are cleared, then a capped grid sweeps the samples, each
//!   workgroup counting in workgroup memory and adding its counts to the caller's with atomics.
//!   The counting stage takes its grid and count from the head of its control block, so no
//!   count runs a pass before it ([`HistogramPolicy`]).
//! - **Limits:** the samples fit one storage binding; a workgroup holds the counts and the
//!   table, 8 bytes a bin: up to 2047 bins in WebGPU's 16 KiB of workgroup memory
//!   ([`Error::Limit`] names it).

use crate::context::{BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::kernel::Flavor;
use crate::plan::{BufferId, Fills, Plan, Workgroups};
use crate::record::{Arg, Counting, HostArgs, Recorder, Timestamps};
use crate::stages::histogram::{even, prepare};

/// A sample type a histogram takes: u8, u32, i32, f32.
pub trait Sample: bytemuck::Pod + Copy + Send + Sync + 'static {
    /// Its dtype.
    const DTYPE: Dtype;
    /// Its value (NaN for NaN).
    fn value(self) -> f64;
}

macro_rules! samples {
    ($($t:ty => $d:ident),*) => {$(
        impl Sample for $t {
            const DTYPE: Dtype = Dtype::$d;
            fn value(self) -> f64 {
                self as f64
            }
        }
    )*};
}

samples!(u8 => U8, u32 => U32, i32 => I32, f32 => F32);

/// Tuning of the histogram: a capped grid of 256-invocation workgroups sweeping vec4s of
/// samples. Figures: the lab's `prims_sweep` on the H200 (2026-11-29, timestamps, every result
/// checked), u8 samples in 256 bins / f32 samples in 1024 bins, Gsamples/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistogramPolicy {
    /// Most workgroups of the counting stage: each clears, fills and adds `bins` counts, so
    /// fewer, fuller workgroups add less to the caller's atomics. 528 (4 per SM of 132): at
    /// 2^28 1179 / 90.9 against 1098 / 88.1 at 1024, 971 / 79.7 at 264 and 1159 / 88.2 at 4096;
    /// at 2^24 692 / 85.5 against 626 / 75.0 at 1024 (vecs 4).
    pub max_workgroups: u32,
    /// vec4s of samples per invocation before the grid grows past one workgroup: 4. At 2^22,
    /// 325 / 73.4 against 298 / 71.5 at 8 and 215 / 66.1 at 16 (528 workgroups); from 2^24 on
    /// within 3% of one another.
    pub vecs_per_invocation: u32,
    /// Copies of the counts in a workgroup's memory for byte samples (invocation i counts into
    /// copy i mod copies; as many as fit, up to this): 8. 256 bins over [0, 256) at 2^28
    /// 2068–2077 Gsamples/s against 1931–1944 with one copy and 1971–1981 with 4; at 2^26
    /// 1606–1610 against 1551–1570; at 2^24 989–1003 against 1029–1031 (two rounds of
    /// alternating builds, one call). 32-bit samples keep one: four copies took f32 samples in
    /// 1024 bins from 90.8 to 79.2 at 2^28, eight to 45.0 (the workgroups hold 4 or 8 times the
    /// counts).
    pub byte_copies: u32,
}

impl Default for HistogramPolicy {
    fn default() -> Self {
        HistogramPolicy {
            max_workgroups: 528,
            vecs_per_invocation: 4,
            byte_copies: 8,
        }
    }
}

/// The bin table of `dtype` samples for `edges` (see the module docs) and the first edge no
/// sample reaches (`edges.len()` where every edge is reached): for bytes each byte's bin (or
/// `u32::MAX`), for 32-bit samples each edge's least order key.
fn table(dtype: Dtype, edges: &[f64]) -> (Vec<u32>, u32) {
    let bins = edges.len() - 1;
    // the least sample at or above e, as its order key; None where no sample reaches e
    let least = |e: f64| -> Option<u32> {
        match dtype {
            Dtype::U8 | Dtype::U32 => {
                let max = if dtype == Dtype::U8 {
                    255.0
                } else {
                    u32::MAX as f64
                };
                (e <= max).then(|| e.max(0.0).ceil() as u32)
            }
            Dtype::I32 => (e <= i32::MAX as f64)
                .then(|| (e.max(i32::MIN as f64).ceil() as i32 as u32) ^ 0x8000_0000),
            _ => {
                let mut f = e as f32;
                if (f as f64) < e {
                    f = f.next_up();
                }
                Some(f32_key(f))
            }
        }
    };
    let keys: Vec<Option<u32>> = edges.iter().map(|&e| least(e)).collect();
    let never = keys.iter().position(Option::is_none).unwrap_or(keys.len()) as u32;
    if dtype != Dtype::U8 {
        return (keys.iter().map(|k| k.unwrap_or(u32::MAX)).collect(), never);
    }
    // bytes: each byte's bin, the last edge it reaches
    let reaches = |v: u32, i: usize| keys[i].is_some_and(|t| v >= t);
    let lut = (0..256u32)
        .map(|v| {
            if !reaches(v, 0) || reaches(v, bins) {
                return u32::MAX;
            }
            (0..bins).rev().find(|&i| reaches(v, i)).unwrap_or(0) as u32
        })
        .collect();
    (lut, never)
}

/// An f32's order key, −0 as +0 (`key_of` in `wgsl/histogram/even.wgsl`).
fn f32_key(f: f32) -> u32 {
    let x = f.to_bits();
    if x & 0x7fff_ffff == 0 {
        0x8000_0000
    } else if x & 0x8000_0000 != 0 {
        !x
    } else {
        x | 0x8000_0000
    }
}

/// The counting stage's grid for a count: `hist_grid` of `wgsl/histogram/lib/params.wgsl`,
/// restated for the host's grids (`record.rs`); the simulator runs the prepare stage at every
/// run that dispatches it and fails on any difference.
#[derive(Clone, Copy, Debug)]
struct HistogramArgs {
    control: BufferId,
    /// Byte offset of the dispatch arguments in the control block.
    args_at: u64,
    max_count: u64,
    per_word: u64,
    vecs: u64,
    max_workgroups: u64,
}

impl HistogramArgs {
    fn for_count(&self, word: u32) -> HostArgs {
        let n = (word as u64).min(self.max_count);
        let vecs = n.div_ceil(4 * self.per_word);
        let grid = vecs.div_ceil(256 * self.vecs).clamp(1, self.max_workgroups);
        vec![(self.control, self.args_at, [grid as u32, 1, 1])]
    }
}

/// A histogram made for one sample type, bins, range and maximum count (see the module docs).
///
/// Bytes into four bins of 64:
/// ```
/// use wgsimd::{dtype::Dtype, histogram::Histogram, Context, Count};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let h = Histogram::new(&ctx, Dtype::U8, 4, 0.0, 256.0, 1 << 16)?;
/// let pixels = ctx.upload("pixels", &[0u8, 63, 64, 200, 255, 255])?;
/// let counts = ctx.uninit("counts", h.counts_bytes())?;
/// let mut enc = ctx.encoder();
/// h.record(&mut enc, &pixels, &counts, Count::Host(6))?;
/// ctx.submit(enc)?.clean("the histogram")?;
/// assert_eq!(ctx.read::<u32>(&counts)?, [2, 1, 0, 3]);
/// # Ok(()) }
/// ```
pub struct Histogram {
    bins: u32,
    rec: Recorder,
}

impl Histogram {
    /// A histogram of up to `max_count` `dtype` samples (u8, u32, i32, f32) in `bins` even bins
    /// over `[lo, hi)`.
    pub fn new(
        ctx: &Context,
        dtype: Dtype,
        bins: u32,
        lo: f64,
        hi: f64,
        max_count: u64,
    ) -> Result<Histogram> {
        Self::with_policy(
            ctx,
            dtype,
            bins,
            lo,
            hi,
            max_count,
            HistogramPolicy::default(),
        )
    }

    /// [`Histogram::new`] with a policy of the caller's.
    pub fn with_policy(
        ctx: &Context,
        dtype: Dtype,
        bins: u32,
        lo: f64,
        hi: f64,
        max_count: u64,
        policy: HistogramPolicy,
    ) -> Result<Histogram> {
        let caps = ctx.caps();
        let per_word: u64 = match dtype {
            Dtype::U8 => 4,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 1,
            other => {
                return Err(Error::UnsupportedDtype {
                    dtype: other.to_string(),
                    op: "histogram",
                    supported: "u8, u32, i32, f32",
                })
            }
        };
        if bins == 0 {
            return Err(Error::InvalidInput(
                "a histogram needs at least one bin".into(),
            ));
        }
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::InvalidInput(format!(
                "a histogram's range is finite with lo < hi; got [{lo}, {hi})"
            )));
        }
        let max_count = max_count.max(1);
        if max_count > u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "{max_count} samples: a histogram takes fewer than 2^32"
            )));
        }
        let bytes = max_count.div_ceil(per_word).div_ceil(4) * 16;
        caps.check_buffer(bytes, || format!("a histogram of {max_count} samples"))?;
        caps.check_binding(bytes, || {
            format!("a histogram of {max_count} {dtype} samples")
        })?;
        let edges = crate::reference::histogram::edges(bins, lo, hi);
        let (table, never_from) = table(dtype, &edges);
        // bytes that are their own bins count without the table (KIND 2)
        let own_bins = dtype == Dtype::U8 && table.iter().enumerate().all(|(v, &b)| b == v as u32);
        // the counts and the table in workgroup memory (bytes that are their own bins keep a
        // table of one word, unread)
        let table_len = if own_bins { 1 } else { table.len() as u64 };
        let wg_bytes = 4 * (bins as u64 + table_len);
        if wg_bytes > caps.max_workgroup_storage as u64 {
            return Err(Error::Limit {
                limit: "max_compute_workgroup_storage_size",
                needed: wg_bytes,
                available: caps.max_workgroup_storage as u64,
                needed_for: format!("a histogram of {bins} bins"),
            });
        }
        let prep = prepare::STAGE.load(Flavor::Emulated)?;
        let even = even::STAGE.load(Flavor::Emulated)?;
        let mut plan = Plan::new(format!("histogram {dtype} {bins} bins"));
        let control =
            crate::record::control(&mut plan, 4 * prep.constant(prepare::CONTROL_WORDS)? as u64);
        let samples = plan.arg("samples", bytes);
        let counts = plan.arg("counts", 4 * bins as u64);
        let table_buf = plan.upload("bin table", &table);
        let max_wg = policy.max_workgroups.clamp(1, caps.max_workgroups_per_dim);
        let vecs = policy.vecs_per_invocation.max(1);
        let params = [
            (prepare::MAX_COUNT, max_count as f64),
            (prepare::PER_WORD, per_word as f64),
            (prepare::VECS, vecs as f64),
            (prepare::MAX_WORKGROUPS, max_wg as f64),
        ];
        plan.pass(
            "histogram prepare",
            &prep,
            prepare::entry::main,
            &params,
            &[(prepare::bind::control, control)],
            Workgroups::Direct([1, 1, 1]),
        )?;
        plan.fill("histogram clear", counts, 0)?;
        // byte samples: as many copies of the counts as fit beside the table, up to the
        // policy's
        let room = (caps.max_workgroup_storage as u64 / 4 - table_len) / bins as u64;
        let copies = match dtype {
            Dtype::U8 => (policy.byte_copies as u64).clamp(1, room.max(1)),
            _ => 1,
        };
        let kind = match dtype {
            Dtype::U8 if own_bins => 2,
            Dtype::U8 => 0,
            _ => 1,
        };
        let mut overrides = params.to_vec();
        overrides.extend([
            (even::KIND, kind as f64),
            (even::COPIES, copies as f64),
            (
                even::KEY,
                match dtype {
                    Dtype::I32 => 1.0,
                    Dtype::F32 => 2.0,
                    _ => 0.0,
                },
            ),
            (even::BINS, bins as f64),
            (even::NEVER_FROM, never_from as f64),
            (even::TABLE_LEN, table_len as f64),
        ]);
        let args_at = 4 * prep.constant(prepare::ARGS_AT)? as u64;
        plan.pass(
            "histogram",
            &even,
            even::entry::main,
            &overrides,
            &[
                (even::bind::count_word, control),
                (even::bind::samples, samples),
                (even::bind::sample_words, samples),
                (even::bind::table, table_buf),
                (even::bind::counts, counts),
            ],
            Workgroups::Indirect {
                buffer: control,
                offset: args_at,
            },
        )?
        .range(even::bind::count_word, 0, 16)?;
        let grid = HistogramArgs {
            control,
            args_at,
            max_count,
            per_word,
            vecs: vecs as u64,
            max_workgroups: max_wg as u64,
        };
        let counting = Counting {
            control,
            max: max_count,
            derived: true,
            marks: Vec::new(),
            args: Some(Box::new(move |n| grid.for_count(n))),
            blocks: None,
        };
        let args = vec![
            Arg::counted(samples, "samples", 4 / per_word),
            Arg::fixed(counts),
        ];
        Ok(Histogram {
            bins,
            rec: Recorder::new(ctx, plan, args, Some(counting))?,
        })
    }

    /// The bins.
    pub fn bins(&self) -> u32 {
        self.bins
    }

    /// Bytes of the counts: one u32 per bin.
    pub fn counts_bytes(&self) -> u64 {
        4 * self.bins as u64
    }

    /// The plan it records (its passes, buffers and overrides, for inspection).
    pub fn plan(&self) -> &Plan {
        self.rec.plan()
    }

    /// The passes one recording dispatches, by label.
    pub fn passes(&self) -> Vec<String> {
        self.rec.plan().pass_labels()
    }

    /// Records the histogram of the first `count` samples of `samples` into the first
    /// [`Histogram::counts_bytes`] of `counts` (both bound at multiples of the binding
    /// alignment; `samples` need hold no more than the count, bytes four to a word).
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        samples: impl Into<BufferRef<'a>>,
        counts: impl Into<BufferRef<'a>>,
        count: Count,
    ) -> Result<()> {
        self.record_timed(enc, samples, counts, count, None)
    }

    /// [`Histogram::record`], with timestamps around each pass (see [`Histogram::passes`]).
    pub fn record_timed<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        samples: impl Into<BufferRef<'a>>,
        counts: impl Into<BufferRef<'a>>,
        count: Count,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        let (samples, counts) = (samples.into(), counts.into());
        if counts.len() < self.counts_bytes() {
            return Err(Error::InvalidInput(format!(
                "`counts` ({}) holds fewer than its {} bins of 4 bytes",
                counts.describe(),
                self.bins
            )));
        }
        let counts = counts.range(0, self.counts_bytes());
        self.rec
            .record(enc.into(), &[samples, counts], Some(count), stamps)
    }
}

/// The histogram of `data` in `bins` even bins over `[lo, hi)` on `ctx` (uploads the samples,
/// records, submits, waits, reads the counts back).
///
/// ```
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let xs = [0.1f32, 0.5, 0.5, 0.99, 1.0, f32::NAN, -0.0];
/// assert_eq!(wgsimd::histogram::histogram(&ctx, &xs, 2, 0.0, 1.0)?, [2, 3]);
/// # Ok(()) }
/// ```
pub fn histogram<T: Sample>(
    ctx: &Context,
    data: &[T],
    bins: u32,
    lo: f64,
    hi: f64,
) -> Result<Vec<u32>> {
    let n = data.len() as u64;
    let h = Histogram::new(ctx, T::DTYPE, bins, lo, hi, n)?;
    let counts = ctx.uninit("counts", h.counts_bytes())?;
    let mut enc = ctx.encoder();
    if n > 0 {
        let samples = ctx.upload("samples", data)?;
        h.record(&mut enc, &samples, &counts, Count::Host(n as u32))?;
    } else {
        let samples = ctx.zeroed("samples", 16)?;
        h.record(&mut enc, &samples, &counts, Count::Host(0))?;
    }
    ctx.submit(enc)?.clean("the histogram")?;
    ctx.read(&counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's grid is the prepare stage's at counts around every step, bytes and words.
    #[test]
    fn host_grids_are_the_prepare_stages() {
        let ctx = Context::simulator(Default::default()).unwrap();
        let policy = HistogramPolicy {
            max_workgroups: 5,
            vecs_per_invocation: 2,
            ..Default::default()
        };
        for dtype in [Dtype::U8, Dtype::F32] {
            let h = Histogram::with_policy(&ctx, dtype, 7, 0.0, 1.0, 100_000, policy).unwrap();
            let step = 256 * 2 * 4 * if dtype == Dtype::U8 { 4 } else { 1 };
            let mut counts = vec![0, 1, 3, 4, 5, 15, 16, 17, 100_000];
            for k in 1..7 {
                counts.extend([k * step - 1, k * step, k * step + 1]);
            }
            crate::record::assert_host_grids(&h.rec, &counts);
        }
    }

    /// Each edge's threshold is the least sample at or above it: integers rounded up, f32 to
    /// the next float up, none past the type's largest value; bytes map to their bins.
    #[test]
    fn thresholds_are_the_least_samples_reached() {
        let (t, never) = table(Dtype::U32, &[-1.0, 0.5, 2.0, 5e9]);
        assert_eq!((&t[..3], never), (&[0u32, 1, 2][..], 3));
        let (t, never) = table(Dtype::I32, &[-3e9, -1.5, 3e9]);
        assert_eq!(
            (&t[..2], never),
            (&[0u32, (-1i32 as u32) ^ 0x8000_0000][..], 2)
        );
        let e = 0.1f64; // between two f32s
        let (t, _) = table(Dtype::F32, &[e, 1.0]);
        let from_key = |k: u32| {
            f32::from_bits(if k & 0x8000_0000 != 0 {
                k & 0x7fff_ffff
            } else {
                !k
            })
        };
        let f = from_key(t[0]);
        assert!(f as f64 >= e && (f.next_down() as f64) < e, "{f}");
        assert_eq!(table(Dtype::F32, &[0.0, 1.0]).0[0], f32_key(-0.0));
        let (lut, _) = table(Dtype::U8, &[10.0, 20.5, 256.0]);
        assert_eq!(
            (lut[9], lut[10], lut[20], lut[21], lut[255]),
            (u32::MAX, 0, 0, 1, 1)
        );
    }
}
