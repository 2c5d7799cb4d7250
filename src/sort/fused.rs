//! The fused sort of 64-bit keys (u64, i64, f64; OneSweep, not segmented): its digit passes
//! over the two words of the keys' sortable images and the buffers they go through, for
//! `build.rs`'s plan. The first pass reads the caller's keys (two words a key, low first) and
//! maps both words itself (`WIDE_IN` of `wgsl/sort/lib/keys.wgsl`), the last writes them back
//! raw (`WIDE_OUT`); in between each key's sorted word and the other word travel through
//! scratch, as a 32-bit pairs sort's keys and values do, and the caller's values as second
//! values. One histogram stage counts every pass of both words
//! (`wgsl/sort/onesweep_histogram_wide.wgsl`).

use super::passes::{digits, Io};
use crate::plan::{BufferId, BufferInit, Plan};

/// The digit passes of a fused sort of 64-bit keys, least significant first: (shift, bits,
/// word) with word 0 the low word, 1 the high: the low word's digits of the bit range, then the
/// high word's, then identity passes (0 bits, in the last pass's word) up to two passes, so
/// that the first pass, which reads the caller's keys, is never the last, which writes them.
pub(super) fn wide_digits(begin_bit: u32, end_bit: u32) -> Vec<(u32, u32, u32)> {
    let mut v = Vec::new();
    for (word, (b, e)) in wide_words(begin_bit, end_bit).into_iter().enumerate() {
        if b < e {
            v.extend(digits(b, e).into_iter().map(|(s, n)| (s, n, word as u32)));
        }
    }
    while v.len() < 2 {
        let word = v.last().map_or(0, |d| d.2);
        v.push((0, 0, word));
    }
    v
}

/// A bit range of 64-bit keys as the low word's and the high word's ranges.
pub(super) fn wide_words(begin_bit: u32, end_bit: u32) -> [(u32, u32); 2] {
    [
        (begin_bit.min(32), end_bit.min(32)),
        (begin_bit.max(32) - 32, end_bit.max(32) - 32),
    ]
}

/// The buffers and each pass's bindings of a fused sort of 64-bit keys (`passes`:
/// [`wide_digits`]): the caller's keys (8 bytes a key, read by the first pass, written by the
/// last, never in between), the caller's values with `pairs`, and scratch words. Pass p < last
/// writes each key's sorted word and other word to pair a (p even) or b (p odd) of scratch
/// words; the next pass reads them, swapped where it sorts the other word. The caller's values
/// ride as second values through scratch of their own (a, b likewise). Returns the keys, the
/// values (a stand-in without) and the passes' bindings.
pub(super) fn wide_buffers(
    plan: &mut Plan,
    n: u64,
    passes: &[(u32, u32, u32)],
    pairs: bool,
) -> (BufferId, BufferId, Vec<Io>) {
    let count = passes.len();
    let bytes = 4 * n;
    // scratch b is written from the second pass on, when it is not the last
    let b_bytes = if count > 2 { bytes } else { 16 };
    let keys = plan.arg("keys", 8 * n);
    let words = [
        [
            plan.buffer("sorted words a", bytes, BufferInit::Poison),
            plan.buffer("other words a", bytes, BufferInit::Poison),
        ],
        [
            plan.buffer("sorted words b", b_bytes, BufferInit::Poison),
            plan.buffer("other words b", b_bytes, BufferInit::Poison),
        ],
    ];
    // the first pass reads the other words through keys_in and the last writes them through
    // keys_out: their value bindings get this
    let no_values = plan.buffer("no values", 16, BufferInit::Zeroed);
    let (values, v2) = if pairs {
        let v = plan.arg("values", bytes);
        let a = plan.buffer("values a", bytes, BufferInit::Poison);
        let b = plan.buffer("values b", b_bytes, BufferInit::Poison);
        (v, [v, a, b])
    } else {
        let a = plan.buffer("no values2", 16, BufferInit::Zeroed);
        let b = plan.buffer("no values2 a", 16, BufferInit::Zeroed);
        (no_values, [a, b, b])
    };
    let mut ios = Vec::with_capacity(count);
    for (p, d) in passes.iter().enumerate() {
        let (keys_in, vals_in) = if p == 0 {
            (keys, no_values)
        } else {
            let [k, o] = words[(p - 1) % 2];
            if passes[p - 1].2 == d.2 {
                (k, o)
            } else {
                (o, k)
            }
        };
        let (keys_out, vals_out) = if p + 1 == count {
            (keys, no_values)
        } else {
            (words[p % 2][0], words[p % 2][1])
        };
        // second values: the caller's in and out, scratch a and b between
        let (vals2_in, vals2_out) = if pairs {
            let mid = |q: usize| v2[1 + q % 2];
            (
                if p == 0 { v2[0] } else { mid(p - 1) },
                if p + 1 == count { v2[0] } else { mid(p) },
            )
        } else {
            (v2[0], v2[1])
        };
        ios.push(Io {
            keys_in,
            keys_out,
            vals_in,
            vals_out,
            vals2_in,
            vals2_out,
        });
    }
    (keys, values, ios)
}
