//! Sorts of 64-bit keys (u64, i64, f64), built from the 32-bit sort's digit passes.
//!
//! Rules:
//! - **Two halves, least significant first.** A key is two words, low first (the layout of a
//!   `u64` slice). A split stage writes each key's sortable halves (`wgsl/sort/lib/wide.wgsl`:
//!   the 32-bit image extended to 64 bits, [`f64::total_cmp`] order for f64) to scratch; the
//!   low halves are sorted by 32-bit digit passes, then the high halves, each pass stable, so
//!   the result is the stable sort of the whole key (LSD radix sort); a join stage writes the
//!   keys back, raw, into the caller's buffer. A bit range `[begin, end)` of `0..64` sorts the
//!   halves' parts of it and skips a half it does not reach.
//! - **What rides along.** Keys alone: each half's passes carry the other half as their value
//!   (8 bytes a key a pass, as CUB's 64-bit keys). With values or indices: the low half's
//!   passes carry the keys' indices, the high halves are gathered into that order, the high
//!   half's passes carry the indices on, and the final order gathers the raw low halves from
//!   the caller's keys and the values from the caller's values (12 bytes a key a pass, and
//!   three gathers).
//! - **One recording, several plans.** The split, the gathers and the join are plans of their
//!   own (elementwise over the count, `wgsl/sort/wide_*.wgsl`); the digit passes are 32-bit
//!   [`Sorter`]s over scratch. A recording checks every part with the caller's buffers and the
//!   count before it records the first ([`Recorder::check`]); the scratch ranges hold exactly
//!   what the caller's ranges hold, so a GPU count is clamped alike in every part. The parts
//!   are recorded together or not at all, and their control-block rings move in step.

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::error::{Error, Result};
use crate::fold::ChunkGrid;
use crate::kernel;
use crate::plan::Plan;
use crate::record::{Arg, Counting, HostArgs, Recorder, Timestamps};

use super::{Payload, SortConfig, Sorter};

/// The elementwise stages' tile: 256 invocations × 4 keys, at most this many workgroups.
const ITEMS: u64 = 4;

/// A sort of 64-bit keys (see the module docs).
pub(super) struct Wide {
    /// The most keys a recording sorts.
    max: u64,
    /// Bytes of a key: 8, or 4 in a segmented sort.
    key_bytes: u64,
    /// A segmented sort's segment count as its split stage reads it (copied in at every
    /// recording: the caller's GPU word, or `all_segments`, the most the offsets bound hold).
    segment_word: Option<Buffer>,
    all_segments: Option<Buffer>,
    /// A segmented sort's most segments (0 otherwise).
    max_segments: u32,
    /// Sortable halves of the keys (keys alone: sorted, each carrying the other).
    low: Buffer,
    high: Buffer,
    /// With a payload: the order (the keys' input indices), the high halves gathered into the
    /// low halves' order, and the values gathered into the final order.
    order: Option<Buffer>,
    high_moved: Option<Buffer>,
    values_moved: Option<Buffer>,
    /// The split stage: keys → low, high.
    split: Recorder,
    /// The low halves' passes and the high halves' (each absent where the bit range does not
    /// reach its half; the low one stands for both where the range is empty).
    first: Option<Sorter>,
    second: Option<Sorter>,
    /// With a payload and the low halves sorted: the high halves into their order.
    between: Option<Recorder>,
    /// The last stages: the keys (and values) into the caller's buffers.
    finish: Recorder,
}

/// One part of a recording: a recorder and the buffers it binds.
type Part<'p, 'a> = (&'p Recorder, Vec<BufferRef<'a>>);

/// What the high words hold: the keys' high halves, or their segments' indices.
#[derive(Clone, Copy)]
enum Shape {
    /// 64-bit keys.
    Wide,
    /// 32-bit keys in up to this many segments.
    Segmented(u32),
}

impl Wide {
    /// A sort of 64-bit keys (`config.key` u64, i64 or f64), or with `config.max_segments` a
    /// segmented sort of 32-bit keys, of kernel key type `key_type`.
    pub fn new(ctx: &Context, config: &SortConfig, key_type: u32) -> Result<Wide> {
        let n = config.max_count.max(1);
        let caps = ctx.caps();
        let shape = match config.max_segments {
            Some(s) => Shape::Segmented(s.max(1)),
            None => Shape::Wide,
        };
        let (begin, end) = (config.begin_bit, config.end_bit);
        let (low_bits, high_bits, key_bytes) = match shape {
            Shape::Wide => (
                (begin.min(32), end.min(32)),
                (begin.max(32) - 32, end.max(32) - 32),
                8,
            ),
            // the bits of the largest segment index
            Shape::Segmented(s) => ((begin, end), (0, 32 - (s - 1).leading_zeros()), 4),
        };
        let sorts_high = high_bits.0 < high_bits.1;
        let sorts_low = low_bits.0 < low_bits.1 || !sorts_high;
        let pairs = config.payload != Payload::None;
        let half = |bits: (u32, u32), payload: Payload| -> Result<Sorter> {
            let mut c = SortConfig::keys(crate::dtype::Dtype::U32, n).bits(bits.0, bits.1);
            c.payload = payload;
            c.strategy = config.strategy;
            c.policy = config.policy;
            Sorter::new(ctx, c)
        };
        // with a payload, the first half sorted makes the indices; the second carries them
        let (first, second) = match (sorts_low, sorts_high, pairs) {
            (true, true, true) => (
                Some(half(low_bits, Payload::Index)?),
                Some(half(high_bits, Payload::Values)?),
            ),
            (true, true, false) => (
                Some(half(low_bits, Payload::Values)?),
                Some(half(high_bits, Payload::Values)?),
            ),
            (true, false, p) => (Some(half(low_bits, index_or(p))?), None),
            (false, _, p) => (None, Some(half(high_bits, index_or(p))?)),
        };
        let words = |label: &str| ctx.scratch(label, 4 * n);
        let key_ov = [
            ("KEY_TYPE", key_type as f64),
            ("DESCENDING", config.descending as u32 as f64),
        ];
        let label = match shape {
            Shape::Wide => format!("sort {}", config.key),
            Shape::Segmented(_) => format!("segmented sort {}", config.key),
        };
        // split: keys → low, high
        let mut s = Steps::new(caps, format!("{label} split"), n)?;
        let keys = s.arg("keys", key_bytes);
        match shape {
            Shape::Wide => {
                let (lo, hi) = (s.arg("low", 4), s.arg("high", 4));
                s.pass(
                    "split",
                    "sort/wide_split",
                    &key_ov,
                    &[("keys", keys), ("low", lo), ("high", hi)],
                )?;
            }
            Shape::Segmented(max) => {
                let (offsets, segments) = (s.fixed("offsets"), s.fixed("segment count"));
                let (lo, hi) = (s.arg("low", 4), s.arg("high", 4));
                let mut ov = key_ov.to_vec();
                ov.push(("MAX_SEGMENTS", max as f64));
                s.pass(
                    "split",
                    "sort/segment_split",
                    &ov,
                    &[
                        ("keys", keys),
                        ("offsets", offsets),
                        ("segments", segments),
                        ("low", lo),
                        ("high", hi),
                    ],
                )?;
            }
        }
        let split = s.recorder(ctx)?;
        // with a payload, the high words follow the low halves' order
        let between = if pairs && first.is_some() {
            let mut s = Steps::new(caps, format!("{label} gather"), n)?;
            let (src, order, dst) = (s.arg("high", 4), s.arg("order", 4), s.arg("moved", 4));
            s.gather("gather high", (src, 1, 0), order, dst, true)?;
            Some(s.recorder(ctx)?)
        } else {
            None
        };
        let mut s = Steps::new(caps, format!("{label} join"), n)?;
        let keys = s.arg("keys", key_bytes);
        let (lo, hi) = (s.arg("low", 4), s.arg("high", 4));
        if pairs {
            let order = s.arg("order", 4);
            let values = s.arg("values", 4);
            // the raw keys (their low halves) in the final order
            s.gather(
                "gather keys",
                (keys, key_bytes as u32 / 4, 0),
                order,
                lo,
                true,
            )?;
            if config.payload == Payload::Values {
                let moved = s.arg("moved values", 4);
                s.gather("gather values", (values, 1, 0), order, moved, true)?;
                s.gather("values out", (moved, 1, 0), order, values, false)?;
            } else {
                s.gather("indices out", (order, 1, 0), order, values, false)?;
            }
        }
        match shape {
            Shape::Wide => {
                let mut ov = key_ov.to_vec();
                ov.push(("RAW_LOW", pairs as u32 as f64));
                s.pass(
                    "join",
                    "sort/wide_join",
                    &ov,
                    &[("low", lo), ("high", hi), ("keys", keys)],
                )?;
            }
            Shape::Segmented(_) if pairs => {
                s.gather("keys out", (lo, 1, 0), hi, keys, false)?;
            }
            Shape::Segmented(_) => {
                s.pass(
                    "join",
                    "sort/segment_join",
                    &key_ov,
                    &[("low", lo), ("keys", keys)],
                )?;
            }
        }
        let finish = s.recorder(ctx)?;
        let segmented = matches!(shape, Shape::Segmented(_));
        Ok(Wide {
            max: n,
            key_bytes,
            max_segments: match shape {
                Shape::Segmented(s) => s,
                Shape::Wide => 0,
            },
            segment_word: segmented
                .then(|| ctx.scratch("sort segment count", 4))
                .transpose()?,
            all_segments: segmented
                .then(|| ctx.upload("sort: every segment the offsets hold", &[u32::MAX]))
                .transpose()?,
            low: words("sort low halves")?,
            high: words("sort high halves")?,
            order: pairs.then(|| words("sort order")).transpose()?,
            high_moved: between
                .is_some()
                .then(|| words("sort high halves moved"))
                .transpose()?,
            values_moved: (config.payload == Payload::Values)
                .then(|| words("sort values moved"))
                .transpose()?,
            split,
            first,
            second,
            between,
            finish,
        })
    }

    /// The strategy of its digit passes.
    pub fn strategy(&self) -> super::Strategy {
        self.sorts()
            .next()
            .map(|s| s.strategy())
            .unwrap_or(super::Strategy::ReduceThenScan)
    }

    fn sorts(&self) -> impl Iterator<Item = &Sorter> {
        self.first.iter().chain(self.second.iter())
    }

    /// The plan of its first digit passes.
    pub fn plan(&self) -> &Plan {
        self.sorts()
            .next()
            .map(|s| s.plan())
            .unwrap_or(self.split.plan())
    }

    /// Its first part: the split stage's recorder.
    pub fn split(&self) -> &Recorder {
        &self.split
    }

    /// The passes of a recording, in order.
    pub fn passes(&self) -> Vec<String> {
        let mut v = self.split.plan().pass_labels();
        let of_half = |s: &Sorter, half: &'static str| {
            s.passes().into_iter().map(move |p| format!("{half} {p}"))
        };
        if let Some(s) = &self.first {
            v.extend(of_half(s, "low"));
        }
        if let Some(b) = &self.between {
            v.extend(b.plan().pass_labels());
        }
        if let Some(s) = &self.second {
            v.extend(of_half(s, "high"));
        }
        v.extend(self.finish.plan().pass_labels());
        v
    }

    /// The parts of a recording of the caller's `keys` (and `values`) in order, each with the
    /// buffers it binds, for `m` keys (what every range holds).
    fn parts<'p, 'a>(
        &'p self,
        keys: BufferRef<'a>,
        values: Option<BufferRef<'a>>,
        offsets: Option<BufferRef<'a>>,
        m: u64,
    ) -> Result<Vec<Part<'p, 'a>>>
    where
        'p: 'a,
    {
        let w = |b: &'p Buffer| b.slice(0, 4 * m.max(1));
        let (lo, hi) = (w(&self.low), w(&self.high));
        let split = match (offsets, &self.segment_word) {
            (None, None) => vec![keys, lo, hi],
            (Some(o), Some(word)) => vec![keys, o, word.into(), lo, hi],
            (None, Some(_)) => {
                return Err(Error::InvalidInput(
                    "a segmented sorter records with Sorter::record_segmented".into(),
                ));
            }
            (Some(_), None) => {
                return Err(Error::InvalidInput(
                    "this sorter is not segmented (SortConfig::segmented)".into(),
                ));
            }
        };
        let mut parts: Vec<Part<'p, 'a>> = vec![(&self.split, split)];
        let sort = |s: &'p Sorter| s.recorder();
        match (&self.order, values) {
            (None, None) => {
                // keys alone: each half's passes carry the other half
                if let Some(s) = &self.first {
                    parts.push((sort(s), vec![lo, hi]));
                }
                if let Some(s) = &self.second {
                    parts.push((sort(s), vec![hi, lo]));
                }
                parts.push((&self.finish, vec![keys, lo, hi]));
            }
            (Some(order), Some(values)) => {
                let order = w(order);
                let mut high = hi;
                if let Some(s) = &self.first {
                    parts.push((sort(s), vec![lo, order]));
                }
                if let (Some(b), Some(moved)) = (&self.between, &self.high_moved) {
                    high = w(moved);
                    parts.push((b, vec![hi, order, high]));
                }
                if let Some(s) = &self.second {
                    parts.push((sort(s), vec![high, order]));
                }
                let mut bufs = vec![keys, lo, high, order, values];
                if let Some(v) = &self.values_moved {
                    bufs.push(w(v));
                }
                parts.push((&self.finish, bufs));
            }
            (Some(_), None) => {
                return Err(Error::InvalidInput(
                    "this sorter carries values (or indices): give a values buffer".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(Error::InvalidInput(
                    "this sorter sorts keys alone: give no values buffer".into(),
                ));
            }
        }
        Ok(parts)
    }

    /// Records the sort (see [`Sorter::record_timed`]); `segments`: a segmented sort's
    /// offsets and segment count ([`Sorter::record_segmented`]). Per-pass timestamps follow
    /// [`Wide::passes`]; whole-run ones are refused (the parts are separate recordings).
    pub fn record<'a>(
        &'a self,
        mut enc: EncoderRef<'a>,
        keys: BufferRef<'a>,
        values: Option<BufferRef<'a>>,
        segments: Option<(BufferRef<'a>, Count<'a>)>,
        count: Count<'a>,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        if stamps.is_some_and(|s| s.whole) {
            return Err(Error::InvalidInput(
                "a sort of 64-bit keys or of segments records several plans: ask for per-pass \
                 timestamps (two per pass of Sorter::passes)"
                    .into(),
            ));
        }
        let m = [
            Some(keys.len() / self.key_bytes),
            values.map(|v| v.len() / 4),
        ]
        .into_iter()
        .flatten()
        .fold(self.max, u64::min);
        // a segment count: the caller's word copied in, or every segment of the offsets given
        let (offsets, copy) = match (segments, &self.segment_word, &self.all_segments) {
            (Some((offsets, count)), Some(word), Some(all)) => {
                let (offsets, src) = match count {
                    Count::Host(s) => {
                        let bytes = 4 * (s as u64 + 1);
                        if s > self.max_segments() || offsets.len() < bytes {
                            return Err(Error::InvalidInput(format!(
                                "{s} segments: the sorter takes at most {}, and their offsets \
                                 {} words ({} holds {})",
                                self.max_segments(),
                                s as u64 + 1,
                                offsets.describe(),
                                offsets.len() / 4
                            )));
                        }
                        (offsets.range(0, bytes), BufferRef::from(all))
                    }
                    Count::Gpu(src) => {
                        if src.len() < 4 || offsets.len() < 4 {
                            return Err(Error::InvalidInput(format!(
                                "a GPU segment count is a u32 ({}) over offsets of at least one \
                                 word ({})",
                                src.describe(),
                                offsets.describe()
                            )));
                        }
                        (offsets, src.range(0, 4))
                    }
                };
                let dst = BufferRef::from(word);
                enc.check_copy(&src, &dst, 4)?;
                (Some(offsets), Some((src, dst, 4)))
            }
            _ => (None, None),
        };
        let parts = self.parts(keys, values, offsets, m)?;
        // every part checked with its buffers before the first is recorded
        for (rec, bufs) in &parts {
            rec.check(bufs, count)?;
        }
        let mut at = 0;
        for (i, (rec, bufs)) in parts.iter().enumerate() {
            let s = stamps.map(|s| Timestamps {
                first: s.first + 2 * at,
                ..s
            });
            let pre: Vec<_> = copy.iter().filter(|_| i == 0).copied().collect();
            rec.record_after(enc.reborrow(), bufs, Some(count), s, &pre)?;
            at += rec.plan().passes.len() as u32;
        }
        Ok(())
    }

    /// A segmented sort's most segments.
    fn max_segments(&self) -> u32 {
        self.max_segments
    }
}

fn index_or(pairs: bool) -> Payload {
    if pairs {
        Payload::Index
    } else {
        Payload::Values
    }
}

/// An elementwise plan over the count: its control block, grid and prepare pass, the
/// caller's buffers it binds, and its passes.
struct Steps<'c> {
    caps: &'c crate::device::Caps,
    plan: Plan,
    grid: ChunkGrid,
    args: Vec<Arg>,
}

impl<'c> Steps<'c> {
    fn new(caps: &'c crate::device::Caps, label: String, max: u64) -> Result<Steps<'c>> {
        let mut plan = Plan::new(label.clone());
        let control = crate::record::control(&mut plan, 32);
        let grid = ChunkGrid {
            control,
            args_at: 16,
            max_count: max,
            items: ITEMS,
            max_workgroups: caps.max_workgroups_per_dim as u64,
        };
        grid.append_prepare(&mut plan, format!("{label} prepare"))?;
        Ok(Steps {
            caps,
            plan,
            grid,
            args: Vec::new(),
        })
    }

    /// A caller's buffer of `bytes` per key.
    fn arg(&mut self, label: &'static str, bytes: u64) -> crate::plan::BufferId {
        let id = self.plan.arg(label, bytes * self.grid.max_count);
        self.args.push(Arg::counted(id, label, bytes));
        id
    }

    /// A caller's buffer the count does not size.
    fn fixed(&mut self, label: &'static str) -> crate::plan::BufferId {
        let id = self.plan.arg(label, 4);
        self.args.push(Arg::fixed(id));
        id
    }

    fn pass(
        &mut self,
        label: &str,
        stage: &str,
        overrides: &[(&str, f64)],
        binds: &[(&str, crate::plan::BufferId)],
    ) -> Result<()> {
        let k = kernel::load(stage, self.caps.flavor())?;
        let mut ov = self.grid.params();
        ov.extend_from_slice(overrides);
        let mut binds = binds.to_vec();
        binds.push(("count_word", self.grid.control));
        self.plan
            .pass(label, &k, "main", &ov, &binds, self.grid.workgroups())?
            .range("count_word", 0, 16)?;
        Ok(())
    }

    /// dst[i] = src[order[i] · stride + offset], or src[i · stride + offset] unless `ordered`.
    fn gather(
        &mut self,
        label: &str,
        (src, stride, offset): (crate::plan::BufferId, u32, u32),
        order: crate::plan::BufferId,
        dst: crate::plan::BufferId,
        ordered: bool,
    ) -> Result<()> {
        self.pass(
            label,
            "sort/wide_gather",
            &[
                ("STRIDE", stride as f64),
                ("OFFSET", offset as f64),
                ("ORDERED", ordered as u32 as f64),
            ],
            &[("src", src), ("order", order), ("dst", dst)],
        )
    }

    fn recorder(self, ctx: &Context) -> Result<Recorder> {
        let grid = self.grid;
        let counting = Counting {
            control: grid.control,
            max: grid.max_count,
            derived: true,
            marks: Vec::new(),
            args: Some(Box::new(move |n| -> HostArgs { vec![grid.args(n)] })),
            blocks: None,
        };
        Recorder::new(ctx, self.plan, self.args, Some(counting))
    }
}
