//! Sorts of 64-bit keys (u64, i64, f64) and segmented sorts of 32-bit keys, composed of 32-bit
//! sorters between a split and a join: segmented sorts, and sorts of 64-bit keys by
//! reduce-then-scan or with `SortPolicy::fused_wide` off. (OneSweep sorts of 64-bit keys are
//! otherwise one plan whose first and last passes read and write the caller's keys themselves:
//! `src/sort/fused.rs`.)
//!
//! Rules:
//! - **Two words, least significant first.** A 64-bit key is two words, low first (the layout
//!   of a `u64` slice); a key of a segmented sort is its segment's index (high) over the key
//!   (low). A split stage writes each key's two sortable words to scratch
//!   (`wgsl/sort/wide_split.wgsl`: the 32-bit order extended, `wgsl/sort/lib/wide.wgsl`, with
//!   [`f64::total_cmp`] order for f64; `wgsl/sort/segment_split.wgsl`: the key's sortable image
//!   and its segment by binary search in the offsets). The low words are sorted by 32-bit digit
//!   passes, then the high words, each pass stable, so the result is the stable sort of the
//!   whole key (LSD radix sort); a join stage writes the keys back, raw, into the caller's
//!   buffer. A bit range `[begin, end)` of `0..64` sorts the words' parts of it and skips a word
//!   it does not reach; a segmented sort's high words take the bits of its largest segment index.
//! - **What rides along.** Each word's passes carry the other word as their value, and with a
//!   payload the caller's values (or the indices, written first) as a second value word
//!   (`VALUES2` of `wgsl/sort/lib/tile.wgsl`), sorted in place in the caller's buffer: 8 bytes
//!   a key a pass for keys alone, 12 with values, as CUB's 64-bit sorts.
//! - **One recording, several plans.** The split and the join are plans of their own
//!   (elementwise over the count, `wgsl/sort/wide_*.wgsl`, `segment_*.wgsl`); the digit passes
//!   are 32-bit [`Sorter`]s over scratch. A recording checks every part with the caller's
//!   buffers and the count before it records the first ([`Recorder::check`]); the scratch
//!   ranges hold exactly what the caller's ranges hold, so a GPU count is clamped alike in every
//!   part. The parts are recorded together or not at all, and their control-block rings move
//!   in step.
//! - **Segmented sorts of 64-bit keys** are two segmented sorts of this kind, one a word, with
//!   gathers between (`src/sort/wide_segments.rs`); they take a recording's parts from
//!   [`Wide::steps`], which checks and records nothing.
//! - **Small segments first.** A segmented sort records its local path
//!   (`src/sort/segments.rs`) before the split; where it has one, the parts here count the
//!   word its route writes (a GPU count): 0 when it sorted every segment, the run's count when
//!   a segment was too long for it or the offsets decrease.

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::error::{Error, Result};
use crate::fold::ChunkGrid;
use crate::plan::{BufferId, Plan};
use crate::record::{Arg, Recorder, Timestamps};
// (every elementwise stage of these sorts has the one entry point `main`)
use crate::stages::shared::order;
use crate::stages::sort::wide_split::entry;
use crate::stages::sort::{segment_join, segment_split, wide_iota, wide_join, wide_split};
use crate::stages::{Override, Resource, Stage};

use super::segments::Local;
use super::{Payload, SortConfig, Sorter};

/// What the high words hold: the keys' high halves, or their segments' indices.
#[derive(Clone, Copy)]
enum Shape {
    /// 64-bit keys.
    Wide,
    /// 32-bit keys in up to this many segments.
    Segmented(u32),
}

/// A sort of 64-bit keys or of segments (see the module docs).
pub(super) struct Wide {
    /// The most keys a recording sorts.
    max: u64,
    /// Bytes of a key: 8, or 4 in a segmented sort.
    key_bytes: u64,
    /// A segmented sort's segments.
    segments: Option<Segments>,
    /// The keys' sortable low and high words.
    low: Buffer,
    high: Buffer,
    /// Whether the caller's values ride along (values or indices), and whether the split
    /// writes them (the indices).
    pairs: bool,
    indices: bool,
    /// The split stage (keys → low, high, and the indices) and the low words' passes and the
    /// high words' (the low ones stand for both where the range is empty).
    words: WordSorts,
    /// The join stage: low, high → keys.
    finish: Recorder,
}

/// The split stage and the two 32-bit word sorts of a 64-bit sort, each sort absent where the
/// bit range does not reach its word: what [`Wide`] and the segmented 64-bit sort
/// (`wide_segments.rs`) both hold and report from.
pub(super) struct WordSorts {
    /// keys → their sortable low and high words.
    pub split: Recorder,
    /// The low words' sort and the high words'.
    pub first: Option<Sorter>,
    pub second: Option<Sorter>,
}

impl WordSorts {
    /// The word sorts that run, low first.
    pub fn iter(&self) -> impl Iterator<Item = &Sorter> {
        self.first.iter().chain(self.second.iter())
    }

    /// The strategy of the first word sort's digit passes.
    pub fn strategy(&self) -> super::Strategy {
        self.iter()
            .next()
            .map(|s| s.strategy())
            .unwrap_or(super::Strategy::ReduceThenScan)
    }

    /// The plan of the first word sort (the split's where neither runs).
    pub fn plan(&self) -> &Plan {
        self.iter()
            .next()
            .map(|s| s.plan())
            .unwrap_or(self.split.plan())
    }

    /// The low and the high word sort's passes, each labelled by its word.
    pub fn passes(&self) -> [Vec<String>; 2] {
        let of_word = |s: &Option<Sorter>, word: &str| -> Vec<String> {
            s.iter()
                .flat_map(|s| s.passes())
                .map(|p| format!("{word} {p}"))
                .collect()
        };
        [of_word(&self.first, "low"), of_word(&self.second, "high")]
    }
}

/// A segmented sort's most segments, and its segment count as its split stage reads it
/// (`word`): copied in at every recording, the caller's GPU word or `all`, the most the offsets
/// bound hold.
struct Segments {
    max: u32,
    word: Buffer,
    all: Buffer,
    /// The local path (src/sort/segments.rs), recorded first; where it is, the parts here
    /// take its gate word as their GPU count.
    local: Option<Local>,
}

/// One part of a recording: a recorder and the buffers it binds.
type Part<'p, 'a> = (&'p Recorder, Vec<BufferRef<'a>>);

/// One recording of a composed sort: a recorder, the buffers it binds, its count and the
/// copies recorded before it.
pub(super) struct Step<'a> {
    rec: &'a Recorder,
    bufs: Vec<BufferRef<'a>>,
    count: Count<'a>,
    pre: Vec<(BufferRef<'a>, BufferRef<'a>, u64)>,
}

impl<'a> Step<'a> {
    pub(super) fn new(rec: &'a Recorder, bufs: Vec<BufferRef<'a>>, count: Count<'a>) -> Self {
        Step {
            rec,
            bufs,
            count,
            pre: Vec::new(),
        }
    }

    /// Checks it as its recording would, recording nothing.
    pub(super) fn check(&self) -> Result<()> {
        self.rec.check(&self.bufs, self.count)
    }
}

/// Records `steps` in order (each checked already), per-pass timestamps in their passes'
/// order.
pub(super) fn record_steps<'a>(
    mut enc: EncoderRef<'a>,
    steps: &[Step<'a>],
    stamps: Option<Timestamps>,
) -> Result<()> {
    let mut at = 0;
    for st in steps {
        let s = stamps.map(|s| Timestamps {
            first: s.first + 2 * at,
            ..s
        });
        st.rec
            .record_after(enc.reborrow(), &st.bufs, Some(st.count), s, &st.pre)?;
        at += st.rec.plan().passes.len() as u32;
    }
    Ok(())
}

/// Refuses whole-run timestamps for a sort that records several plans.
pub(super) fn refuse_whole(stamps: Option<Timestamps>) -> Result<()> {
    if stamps.is_some_and(|s| s.whole) {
        return Err(Error::InvalidInput(
            "a sort of 64-bit keys or of segments records several plans: ask for per-pass \
             timestamps (two per pass of Sorter::passes)"
                .into(),
        ));
    }
    Ok(())
}

/// The caller's values buffer of a recording: given exactly when the sorter `carries` values or
/// indices, else an error saying which the sorter wants.
pub(super) fn checked_values(
    carries: bool,
    values: Option<BufferRef<'_>>,
) -> Result<Option<BufferRef<'_>>> {
    match (carries, values) {
        (true, None) => Err(Error::InvalidInput(
            "this sorter carries values (or indices): give a values buffer".into(),
        )),
        (false, Some(_)) => Err(Error::InvalidInput(
            "this sorter sorts keys alone: give no values buffer".into(),
        )),
        (_, v) => Ok(v),
    }
}

/// What every one of the caller's ranges holds (keys of `key_bytes`, u32 values), at most `max`:
/// the count a GPU count is clamped to, which the scratch ranges of a composed sort hold too.
pub(super) fn held(max: u64, keys: BufferRef, key_bytes: u64, values: Option<BufferRef>) -> u64 {
    [Some(keys.len() / key_bytes), values.map(|v| v.len() / 4)]
        .into_iter()
        .flatten()
        .fold(max, u64::min)
}

/// Checks that none of the caller's named ranges overlaps another.
pub(super) fn check_disjoint(named: &[(&str, Option<BufferRef>)]) -> Result<()> {
    for (i, (a, ra)) in named.iter().enumerate() {
        for (b, rb) in &named[i + 1..] {
            if let (Some(ra), Some(rb)) = (ra, rb)
                && ra.overlaps(rb)
            {
                return Err(Error::InvalidInput(format!(
                    "`{a}` ({}) overlaps `{b}` ({})",
                    ra.describe(),
                    rb.describe()
                )));
            }
        }
    }
    Ok(())
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
            Shape::Wide => {
                let [low, high] = super::fused::wide_words(begin, end);
                (low, high, 8)
            }
            // the bits of the largest segment index
            Shape::Segmented(s) => ((begin, end), (0, 32 - (s - 1).leading_zeros()), 4),
        };
        let sorts_high = high_bits.0 < high_bits.1;
        let sorts_low = low_bits.0 < low_bits.1 || !sorts_high;
        let pairs = config.payload != Payload::None;
        let half = |sorts: bool, bits: (u32, u32)| -> Result<Option<Sorter>> {
            if !sorts {
                return Ok(None);
            }
            let mut c = SortConfig::keys(crate::dtype::Dtype::U32, n)
                .bits(bits.0, bits.1)
                .with_values();
            c.strategy = config.strategy;
            c.policy = config.policy;
            let s = if pairs {
                Sorter::with_second_values(ctx, c)?
            } else {
                Sorter::new(ctx, c)?
            };
            Ok(Some(s))
        };
        let (first, second) = (half(sorts_low, low_bits)?, half(sorts_high, high_bits)?);
        let key_ov = [
            (order::KEY_TYPE, key_type as f64),
            (order::DESCENDING, config.descending as u32 as f64),
        ];
        let label = match shape {
            Shape::Wide => format!("sort {}", config.key),
            Shape::Segmented(_) => format!("segmented sort {}", config.key),
        };
        // split: keys → low, high (and the indices)
        let mut s = Steps::new(caps, format!("{label} split"), n, &config.policy)?;
        let keys = s.arg("keys", key_bytes);
        let mut ov = key_ov.to_vec();
        match shape {
            Shape::Wide => {
                let binds = [
                    (wide_split::bind::keys, keys),
                    (wide_split::bind::low, s.arg("low", 4)),
                    (wide_split::bind::high, s.arg("high", 4)),
                ];
                let head = wide_split::bind::count_word;
                s.pass("split", wide_split::STAGE, head, &ov, &binds)?;
            }
            Shape::Segmented(max) => {
                let binds = [
                    (segment_split::bind::keys, keys),
                    (segment_split::bind::offsets, s.fixed("offsets")),
                    (segment_split::bind::segments, s.fixed("segment count")),
                    (segment_split::bind::low, s.arg("low", 4)),
                    (segment_split::bind::high, s.arg("high", 4)),
                ];
                ov.push((segment_split::MAX_SEGMENTS, max as f64));
                let head = segment_split::bind::count_word;
                s.pass("split", segment_split::STAGE, head, &ov, &binds)?;
            }
        };
        if config.payload == Payload::Index {
            let indices = s.arg("indices", 4);
            let binds = [(wide_iota::bind::indices, indices)];
            let head = wide_iota::bind::count_word;
            s.pass("indices", wide_iota::STAGE, head, &[], &binds)?;
        }
        let split = s.recorder(ctx)?;
        // join: low, high → keys
        let mut s = Steps::new(caps, format!("{label} join"), n, &config.policy)?;
        let keys = s.arg("keys", key_bytes);
        let lo = s.arg("low", 4);
        match shape {
            Shape::Wide => {
                let hi = s.arg("high", 4);
                let binds = [
                    (wide_join::bind::low, lo),
                    (wide_join::bind::high, hi),
                    (wide_join::bind::keys, keys),
                ];
                let head = wide_join::bind::count_word;
                s.pass("join", wide_join::STAGE, head, &key_ov, &binds)?;
            }
            Shape::Segmented(_) => {
                let binds = [
                    (segment_join::bind::low, lo),
                    (segment_join::bind::keys, keys),
                ];
                let head = segment_join::bind::count_word;
                s.pass("join", segment_join::STAGE, head, &key_ov, &binds)?;
            }
        }
        let finish = s.recorder(ctx)?;
        let words = |label: &str| ctx.scratch(label, 4 * n);
        Ok(Wide {
            max: n,
            key_bytes,
            segments: match shape {
                Shape::Segmented(max) => Some(Segments {
                    max,
                    word: ctx.scratch("sort segment count", 4)?,
                    all: ctx.upload("sort: every segment the offsets hold", &[u32::MAX])?,
                    local: Local::new(ctx, config, key_type, n, max)?,
                }),
                Shape::Wide => None,
            },
            low: words("sort low words")?,
            high: words("sort high words")?,
            pairs,
            indices: config.payload == Payload::Index,
            words: WordSorts {
                split,
                first,
                second,
            },
            finish,
        })
    }

    /// The strategy of its digit passes.
    pub fn strategy(&self) -> super::Strategy {
        self.words.strategy()
    }

    /// The plan of its first digit passes.
    pub fn plan(&self) -> &Plan {
        self.words.plan()
    }

    /// Its first part: the split stage's recorder.
    pub fn split(&self) -> &Recorder {
        &self.words.split
    }

    /// The passes of a recording, in order.
    pub fn passes(&self) -> Vec<String> {
        let mut v = match self.local() {
            Some(l) => l.recorder().plan().pass_labels(),
            None => Vec::new(),
        };
        v.extend(self.words.split.plan().pass_labels());
        let [low, high] = self.words.passes();
        v.extend(low);
        v.extend(high);
        v.extend(self.finish.plan().pass_labels());
        v
    }

    /// A segmented sort's local path.
    pub(super) fn local(&self) -> Option<&Local> {
        self.segments.as_ref().and_then(|s| s.local.as_ref())
    }

    /// The longest segment of each bucket of a segmented sort's local path, ascending (the
    /// last is the longest it sorts); empty where it has none.
    pub fn local_buckets(&self) -> &[u64] {
        self.local().map(|l| l.buckets()).unwrap_or(&[])
    }

    /// The parts of a recording of the caller's `keys` (and `values`, and a segmented sort's
    /// `offsets`) in order, each with the buffers it binds, for `m` keys (what every range
    /// holds).
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
        let mut split = match (offsets, &self.segments) {
            (None, None) => vec![keys, lo, hi],
            (Some(o), Some(seg)) => vec![keys, o, (&seg.word).into(), lo, hi],
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
        // each word's passes carry the other word, and the values as second values
        let (mut low_bufs, mut high_bufs) = (vec![lo, hi], vec![hi, lo]);
        if let Some(v) = checked_values(self.pairs, values)? {
            if self.indices {
                split.push(v);
            }
            low_bufs.push(v);
            high_bufs.push(v);
        }
        let mut parts: Vec<Part<'p, 'a>> = vec![(&self.words.split, split)];
        if let Some(s) = &self.words.first {
            parts.push((s.recorder(), low_bufs));
        }
        if let Some(s) = &self.words.second {
            parts.push((s.recorder(), high_bufs));
        }
        let finish = match self.segments {
            None => vec![keys, lo, hi],
            Some(_) => vec![keys, lo],
        };
        parts.push((&self.finish, finish));
        Ok(parts)
    }

    /// Records the sort (see [`Sorter::record_timed`]); `segments`: a segmented sort's
    /// offsets and segment count ([`Sorter::record_segmented`]). Per-pass timestamps follow
    /// [`Wide::passes`]; whole-run ones are refused (the parts are separate recordings).
    pub fn record<'a>(
        &'a self,
        enc: EncoderRef<'a>,
        keys: BufferRef<'a>,
        values: Option<BufferRef<'a>>,
        segments: Option<(BufferRef<'a>, Count<'a>)>,
        count: Count<'a>,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        refuse_whole(stamps)?;
        let steps = self.steps(&enc, keys, values, segments, count)?;
        record_steps(enc, &steps, stamps)
    }

    /// The recordings of a sort, in order, each checked with its buffers and count; nothing
    /// recorded (see [`Wide::record`]).
    pub(super) fn steps<'a>(
        &'a self,
        enc: &EncoderRef<'a>,
        keys: BufferRef<'a>,
        values: Option<BufferRef<'a>>,
        segments: Option<(BufferRef<'a>, Count<'a>)>,
        count: Count<'a>,
    ) -> Result<Vec<Step<'a>>> {
        let m = held(self.max, keys, self.key_bytes, values);
        let (offsets, copy) = self.segment_count(enc, segments)?;
        // (no part binds two of the caller's ranges together, so their overlaps are checked
        // here: the keys and values are written, the offsets read throughout)
        check_disjoint(&[
            ("keys", Some(keys)),
            ("values", values),
            ("offsets", offsets),
        ])?;
        let parts = self.parts(keys, values, offsets, m)?;
        // every part checked with its buffers before the first is recorded (the global parts
        // with the caller's count too, for its messages)
        for (rec, bufs) in &parts {
            rec.check(bufs, count)?;
        }
        // the local path first, with the caller's count; the global parts then count the gate
        // word it writes
        let local = match (self.local(), offsets, &self.segments) {
            (Some(l), Some(o), Some(seg)) => Some((l, l.bufs(keys, values, o, (&seg.word).into()))),
            _ => None,
        };
        let global = local.as_ref().map_or(count, |(l, _)| Count::Gpu(l.gate()));
        if let Some((l, bufs)) = &local {
            l.recorder().check(bufs, count)?;
            for (rec, bufs) in &parts {
                rec.check(bufs, global)?;
            }
        }
        let mut steps: Vec<Step<'a>> = local
            .into_iter()
            .map(|(l, bufs)| Step::new(l.recorder(), bufs, count))
            .chain(
                parts
                    .into_iter()
                    .map(|(rec, bufs)| Step::new(rec, bufs, global)),
            )
            .collect();
        steps[0].pre.extend(copy);
        Ok(steps)
    }

    /// A segmented sort's offsets as the split binds them and the copy of its segment count
    /// into `Segments::word`: the caller's GPU word, or for a host count `Segments::all` over
    /// offsets of exactly that many segments; checked, nothing recorded.
    #[allow(clippy::type_complexity)]
    fn segment_count<'a>(
        &'a self,
        enc: &EncoderRef<'a>,
        segments: Option<(BufferRef<'a>, Count<'a>)>,
    ) -> Result<(
        Option<BufferRef<'a>>,
        Option<(BufferRef<'a>, BufferRef<'a>, u64)>,
    )> {
        let (Some((offsets, count)), Some(seg)) = (segments, &self.segments) else {
            return Ok((segments.map(|s| s.0), None));
        };
        let (offsets, src) = match count {
            Count::Host(s) => {
                let bytes = 4 * (s as u64 + 1);
                if s > seg.max || offsets.len() < bytes {
                    return Err(Error::InvalidInput(format!(
                        "{s} segments: the sorter takes at most {}, and their offsets {} words \
                         ({} holds {})",
                        seg.max,
                        s as u64 + 1,
                        offsets.describe(),
                        offsets.len() / 4
                    )));
                }
                (offsets.range(0, bytes), BufferRef::from(&seg.all))
            }
            Count::Gpu(src) => {
                if src.len() < 4 || offsets.len() < 4 {
                    return Err(Error::InvalidInput(format!(
                        "a GPU segment count is a u32 ({}) over offsets of at least one word \
                         ({})",
                        src.describe(),
                        offsets.describe()
                    )));
                }
                (offsets, src.range(0, 4))
            }
        };
        let dst = BufferRef::from(&seg.word);
        enc.check_copy(&src, &dst, 4)?;
        Ok((Some(offsets), Some((src, dst, 4))))
    }
}

/// An elementwise plan over the count: its control block, grid and prepare pass, the
/// caller's buffers it binds, and its passes.
pub(super) struct Steps<'c> {
    caps: &'c crate::device::Caps,
    plan: Plan,
    grid: ChunkGrid,
    args: Vec<Arg>,
}

impl<'c> Steps<'c> {
    pub(super) fn new(
        caps: &'c crate::device::Caps,
        label: String,
        max: u64,
        policy: &super::SortPolicy,
    ) -> Result<Steps<'c>> {
        let mut plan = Plan::new(label.clone());
        let control = crate::record::control(&mut plan, 32);
        // elementwise stages: a workgroup per 256 × `elementwise_items` keys, as many as a
        // dimension takes
        let elementwise =
            crate::fold::ChunkPolicy::flat(caps.max_workgroups_per_dim, policy.elementwise_items);
        let grid = ChunkGrid::new((control, 16), max, &elementwise, u32::MAX, caps);
        grid.append_prepare(&mut plan, format!("{label} prepare"))?;
        Ok(Steps {
            caps,
            plan,
            grid,
            args: Vec::new(),
        })
    }

    /// A caller's buffer of `bytes` per key.
    pub(super) fn arg(&mut self, label: &'static str, bytes: u64) -> BufferId {
        let id = self.plan.arg(label, bytes * self.grid.max_count);
        self.args.push(Arg::counted(id, label, bytes));
        id
    }

    /// A caller's buffer the count does not size.
    fn fixed(&mut self, label: &'static str) -> BufferId {
        let id = self.plan.arg(label, 4);
        self.args.push(Arg::fixed(id));
        id
    }

    /// A pass of `stage` over the count, binding `binds` and the control block's head to its
    /// variable `head`.
    pub(super) fn pass(
        &mut self,
        label: &str,
        stage: Stage,
        head: Resource,
        overrides: &[(Override, f64)],
        binds: &[(Resource, BufferId)],
    ) -> Result<()> {
        let k = stage.load(self.caps.flavor())?;
        let mut ov = self.grid.params();
        ov.extend_from_slice(overrides);
        let mut binds = binds.to_vec();
        binds.push((head, self.grid.control));
        self.plan
            .pass(label, &k, entry::main, &ov, &binds, self.grid.workgroups())?
            .range(head, 0, 16)?;
        Ok(())
    }

    pub(super) fn recorder(self, ctx: &Context) -> Result<Recorder> {
        Recorder::new(ctx, self.plan, self.args, Some(self.grid.counting()))
    }
}
