//! Segmented sorts of 64-bit keys (u64, i64, f64): two stable segmented sorts of 32-bit words,
//! least significant first, each the segmented sort of 32-bit keys (`src/sort/wide.rs`, its
//! local path for small segments included), with gathers between them.
//!
//! Rules:
//! - **Positions, not keys, travel.** A split (`wgsl/sort/wide_split.wgsl`) writes each key's
//!   sortable halves by input position (`low`, `high`; a descending sort the complements, so
//!   both word sorts ascend). The first sort orders `low` within each segment with the index
//!   payload, `index`: the input position of each key in that order. A gather
//!   (`wgsl/sort/wide_permute.wgsl`) puts the high halves in that order (`gathered`), and the
//!   second sort orders those within each segment, again with the index payload, `order`: each
//!   final key's position in the first order. Both sorts are stable and keep every key in its
//!   segment, so the second's order is the stable sort of each segment by the whole key (LSD).
//! - **Writing back.** The low halves gathered by `order` (into `high`, free by then) and the
//!   sorted high halves join into the caller's keys (`wgsl/sort/wide_join.wgsl`). Values are
//!   gathered twice, by `index` into scratch after the first sort and by `order` back into
//!   the caller's buffer; the index payload is `index` gathered by `order`. A key moves 4
//!   bytes a word pass where the 32-bit segmented sort moves its own key and index.
//! - **Bit ranges.** A word the range does not reach gets no sort: its positions are the
//!   identity (`wgsl/sort/wide_iota.wgsl`).
//! - **One recording.** The split, the sorts' parts, the gathers and the join are checked with
//!   the caller's buffers and count before the first is recorded, and recorded with the
//!   caller's count (a GPU count clamped alike in every part: the scratch ranges hold exactly
//!   what the caller's ranges hold).

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::dtype::Dtype;
use crate::error::Result;
use crate::plan::BufferId;
use crate::record::{Recorder, Timestamps};
use crate::stages::shared::order as key_order;
use crate::stages::sort::{wide_iota, wide_join, wide_permute, wide_split};

use super::wide::{
    check_disjoint, checked_values, held, record_steps, refuse_whole, Step, Steps, WordSorts,
};
use super::{Payload, SortConfig, Sorter};

/// A segmented sort of 64-bit keys (see the module docs).
pub(super) struct WideSegments {
    /// The most keys a recording sorts.
    max: u64,
    payload: Payload,
    /// Scratch words, one a key: the sortable halves by input position, the first sort's
    /// positions, the high halves in its order, the second sort's positions, and the values
    /// in the first sort's order (with values).
    low: Buffer,
    high: Buffer,
    index: Buffer,
    gathered: Buffer,
    order: Buffer,
    values: Option<Buffer>,
    /// The split (keys → low, high, and `index` as the identity where the low word is not
    /// sorted), and the low words' sort and the high words'.
    words: WordSorts,
    /// high[index] → gathered (values[index] → scratch; `order` as the identity where the
    /// high word is not sorted).
    middle: Recorder,
    /// low[order] → high; high, gathered → keys (and the values by `order`).
    finish: Recorder,
}

impl WideSegments {
    /// A segmented sort of `config.key` (u64, i64 or f64) keys, of kernel key type `key_type`.
    pub fn new(ctx: &Context, config: &SortConfig, key_type: u32) -> Result<WideSegments> {
        let n = config.max_count.max(1);
        let caps = ctx.caps();
        let max_segments = config.max_segments.unwrap_or(1).max(1);
        let [low_bits, high_bits] = super::fused::wide_words(config.begin_bit, config.end_bit);
        let word_sort = |bits: (u32, u32)| -> Result<Option<Sorter>> {
            if bits.0 >= bits.1 {
                return Ok(None);
            }
            let mut c = SortConfig::keys(Dtype::U32, n)
                .bits(bits.0, bits.1)
                .with_index()
                .segmented(max_segments);
            c.strategy = config.strategy;
            c.policy = config.policy;
            Sorter::new(ctx, c).map(Some)
        };
        let (first, second) = (word_sort(low_bits)?, word_sort(high_bits)?);
        let pairs = config.payload != Payload::None;
        let values = config.payload == Payload::Values;
        let key_ov = [
            (key_order::KEY_TYPE, key_type as f64),
            (key_order::DESCENDING, config.descending as u32 as f64),
        ];
        let label = format!("segmented sort {}", config.key);
        let policy = &config.policy;

        // split: keys → low, high (and index = i)
        let mut s = Steps::new(caps, format!("{label} split"), n, policy)?;
        let binds = [
            (wide_split::bind::keys, s.arg("keys", 8)),
            (wide_split::bind::low, s.arg("low", 4)),
            (wide_split::bind::high, s.arg("high", 4)),
        ];
        s.pass(
            "split",
            wide_split::STAGE,
            wide_split::bind::count_word,
            &key_ov,
            &binds,
        )?;
        if first.is_none() {
            iota(&mut s, "low order")?;
        }
        let split = s.recorder(ctx)?;

        // middle: gathered = high[index] (and values = values[index])
        let mut s = Steps::new(caps, format!("{label} gather"), n, policy)?;
        let index = s.arg("low order", 4);
        let (high, gathered) = (s.arg("high", 4), s.arg("gathered", 4));
        permute(&mut s, "high", index, high, gathered)?;
        if values {
            let (v, scratch) = (s.arg("values", 4), s.arg("values scratch", 4));
            permute(&mut s, "values", index, v, scratch)?;
        }
        if second.is_none() {
            iota(&mut s, "high order")?;
        }
        let middle = s.recorder(ctx)?;

        // finish: high = low[order]; keys from (high, gathered); values = carried[order]
        let mut s = Steps::new(caps, format!("{label} join"), n, policy)?;
        let order = s.arg("high order", 4);
        let (low, high, gathered) = (s.arg("low", 4), s.arg("high", 4), s.arg("gathered", 4));
        permute(&mut s, "low", order, low, high)?;
        let binds = [
            (wide_join::bind::low, high),
            (wide_join::bind::high, gathered),
            (wide_join::bind::keys, s.arg("keys", 8)),
        ];
        let head = wide_join::bind::count_word;
        s.pass("join", wide_join::STAGE, head, &key_ov, &binds)?;
        if pairs {
            let (carried, v) = (s.arg("carried", 4), s.arg("values", 4));
            permute(&mut s, "values", order, carried, v)?;
        }
        let finish = s.recorder(ctx)?;

        let words = |label: &str| ctx.scratch(label, 4 * n);
        Ok(WideSegments {
            max: n,
            payload: config.payload,
            low: words("sort low words")?,
            high: words("sort high words")?,
            index: words("sort low order")?,
            gathered: words("sort gathered high words")?,
            order: words("sort high order")?,
            values: values.then(|| words("sort values scratch")).transpose()?,
            words: WordSorts {
                split,
                first,
                second,
            },
            middle,
            finish,
        })
    }

    /// The strategy of its word sorts' digit passes.
    pub fn strategy(&self) -> super::Strategy {
        self.words.strategy()
    }

    /// The plan of its first word sort's digit passes.
    pub fn plan(&self) -> &crate::plan::Plan {
        self.words.plan()
    }

    /// Its first part: the split's recorder.
    pub fn split(&self) -> &Recorder {
        &self.words.split
    }

    /// The word sorts' local path buckets (those of the first).
    pub fn local_buckets(&self) -> &[u64] {
        self.words
            .iter()
            .next()
            .map(|s| s.segment_buckets())
            .unwrap_or(&[])
    }

    /// The passes of a recording, in order.
    pub fn passes(&self) -> Vec<String> {
        let mut v = self.words.split.plan().pass_labels();
        let [low, high] = self.words.passes();
        v.extend(low);
        v.extend(self.middle.plan().pass_labels());
        v.extend(high);
        v.extend(self.finish.plan().pass_labels());
        v
    }

    /// Records the sort of the first `count` keys (and values) within each segment of
    /// `offsets` ([`Sorter::record_segmented`]); per-pass timestamps follow
    /// [`WideSegments::passes`].
    #[allow(clippy::too_many_arguments)]
    pub fn record<'a>(
        &'a self,
        enc: EncoderRef<'a>,
        keys: BufferRef<'a>,
        values: Option<BufferRef<'a>>,
        offsets: BufferRef<'a>,
        segments: Count<'a>,
        count: Count<'a>,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        refuse_whole(stamps)?;
        let values = checked_values(self.payload != Payload::None, values)?;
        check_disjoint(&[
            ("keys", Some(keys)),
            ("values", values),
            ("offsets", Some(offsets)),
        ])?;
        // what every range holds, so the scratch ranges clamp a GPU count alike
        let m = held(self.max, keys, 8, values);
        let w = |b: &'a Buffer| b.slice(0, 4 * m.max(1));
        let (low, high, index, gathered, order) = (
            w(&self.low),
            w(&self.high),
            w(&self.index),
            w(&self.gathered),
            w(&self.order),
        );
        let mut split = vec![keys, low, high];
        if self.words.first.is_none() {
            split.push(index);
        }
        let mut middle = vec![index, high, gathered];
        if let (Some(v), Some(scratch)) = (values, &self.values) {
            middle.extend([v, w(scratch)]);
        }
        if self.words.second.is_none() {
            middle.push(order);
        }
        let mut finish = vec![order, low, high, gathered, keys];
        if let Some(v) = values {
            let carried = self.values.as_ref().map_or(index, w);
            finish.extend([carried, v]);
        }
        let (split, middle, finish) = (
            Step::new(&self.words.split, split, count),
            Step::new(&self.middle, middle, count),
            Step::new(&self.finish, finish, count),
        );
        // the caller's buffers and count first, where the messages name them
        for st in [&split, &middle, &finish] {
            st.check()?;
        }
        let word_sort = |s: &'a Option<Sorter>, keys, positions| -> Result<Vec<Step<'a>>> {
            match s {
                Some(s) => s.segmented_steps(&enc, keys, positions, offsets, segments, count),
                None => Ok(Vec::new()),
            }
        };
        let mut steps = vec![split];
        steps.extend(word_sort(&self.words.first, low, Some(index))?);
        steps.push(middle);
        steps.extend(word_sort(&self.words.second, gathered, Some(order))?);
        steps.push(finish);
        record_steps(enc, &steps, stamps)
    }
}

/// A pass of `s` writing the identity, i, to its caller's buffer `label`.
fn iota(s: &mut Steps, label: &'static str) -> Result<()> {
    let binds = [(wide_iota::bind::indices, s.arg(label, 4))];
    let head = wide_iota::bind::count_word;
    s.pass(
        &format!("{label} identity"),
        wide_iota::STAGE,
        head,
        &[],
        &binds,
    )
}

/// A pass of `s` gathering `dst[i] = src[order[i]]`, labelled by what it moves.
fn permute(s: &mut Steps, what: &str, order: BufferId, src: BufferId, dst: BufferId) -> Result<()> {
    let binds = [
        (wide_permute::bind::order, order),
        (wide_permute::bind::src, src),
        (wide_permute::bind::dst, dst),
    ];
    let head = wide_permute::bind::count_word;
    s.pass(
        &format!("gather {what}"),
        wide_permute::STAGE,
        head,
        &[],
        &binds,
    )
}
