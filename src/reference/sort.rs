//! Reference for `wgsl/sort/`: a stable CPU sort in the same order, and the checkers the tests
//! and the bench use. A checker tests each property on its own (ordered, a permutation of the
//! input, values following their keys, equal keys in input order) and says which one failed.

use crate::dtype::{Dtype, Element};

/// The order-preserving u32 image of a key's bits (`wgsl/shared/sort_tile.wgsl`'s
/// `to_sortable` without the descending complement): u32 as is, i32 sign-flipped, f32 in
/// `f32::total_cmp` order.
pub fn sortable(bits: u32, dtype: Dtype) -> u32 {
    match dtype {
        Dtype::I32 => bits ^ 0x8000_0000,
        Dtype::F32 => {
            if bits & 0x8000_0000 != 0 {
                !bits
            } else {
                bits | 0x8000_0000
            }
        }
        _ => bits,
    }
}

/// What the sort orders by: bits `[begin, end)` of the sortable key, complemented when
/// descending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    /// Largest first.
    pub descending: bool,
    /// First bit sorted on.
    pub begin_bit: u32,
    /// One past the last bit sorted on.
    pub end_bit: u32,
}

impl Default for Order {
    fn default() -> Self {
        Order {
            descending: false,
            begin_bit: 0,
            end_bit: 32,
        }
    }
}

impl Order {
    /// The value keys are compared by. A range outside `0..=32` is clamped into it, and one
    /// that ends before it begins is empty (every key ranks equal); `sort::plan` refuses both.
    pub fn rank<T: Element>(&self, k: T) -> u32 {
        self.field(sortable(bytemuck::cast(k), T::DTYPE) as u64, 32) as u32
    }

    /// Bits `[begin, end)` of a sortable image of `width` bits (complemented when descending),
    /// the range clamped into `0..=width`.
    fn field(&self, s: u64, width: u32) -> u64 {
        let all = u64::MAX >> (64 - width);
        let s = if self.descending { !s & all } else { s };
        let end = self.end_bit.min(width);
        let begin = self.begin_bit.min(end);
        let bits = end - begin;
        if bits == 0 {
            0
        } else {
            (s >> begin) & (u64::MAX >> (64 - bits))
        }
    }
}

/// Stable sort of `keys` in `order`.
pub fn sort_keys<T: Element>(keys: &[T], order: Order) -> Vec<T> {
    let mut v = keys.to_vec();
    v.sort_by_key(|&k| order.rank(k));
    v
}

/// Stable sort of (key, value) pairs by key in `order`.
pub fn sort_pairs<T: Element>(keys: &[T], values: &[u32], order: Order) -> (Vec<T>, Vec<u32>) {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by_key(|&i| order.rank(keys[i]));
    (
        idx.iter().map(|&i| keys[i]).collect(),
        idx.iter().map(|&i| values[i]).collect(),
    )
}

fn bits<T: Element>(v: &[T]) -> Vec<u32> {
    v.iter().map(|&k| bytemuck::cast::<T, u32>(k)).collect()
}

fn check_ordered<T: Element>(out: &[T], order: Order) -> Result<(), String> {
    for i in 1..out.len() {
        if order.rank(out[i - 1]) > order.rank(out[i]) {
            return Err(format!(
                "not ordered at {i}: bits {:#010x} before {:#010x}",
                bytemuck::cast::<T, u32>(out[i - 1]),
                bytemuck::cast::<T, u32>(out[i])
            ));
        }
    }
    Ok(())
}

/// Checks that `output` is `input` sorted stably in `order`: same length, ordered, a
/// permutation of the input (bit patterns as a multiset), and (stability, which matters when
/// the bit range leaves bits unsorted) equal to the reference.
pub fn check_keys<T: Element>(input: &[T], output: &[T], order: Order) -> Result<(), String> {
    if input.len() != output.len() {
        return Err(format!("{} keys out for {} in", output.len(), input.len()));
    }
    check_ordered(output, order)?;
    let mut a = bits(input);
    let mut b = bits(output);
    a.sort_unstable();
    b.sort_unstable();
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        return Err(format!(
            "not a permutation of the input: sorted bit patterns differ at {i} ({:#010x} in, {:#010x} out)",
            a[i], b[i]
        ));
    }
    let r = bits(&sort_keys(input, order));
    let o = bits(output);
    if let Some(i) = (0..r.len()).find(|&i| r[i] != o[i]) {
        return Err(format!(
            "not stable: at {i} {:#010x}, the stable sort has {:#010x}",
            o[i], r[i]
        ));
    }
    Ok(())
}

/// Checks a sort of pairs: keys as [`check_keys`], the (key, value) pairs a permutation of the
/// input pairs (values follow their keys), and equal keys in input order (the reference's
/// values).
pub fn check_pairs<T: Element>(
    keys: &[T],
    values: &[u32],
    out_keys: &[T],
    out_values: &[u32],
    order: Order,
) -> Result<(), String> {
    if out_values.len() != values.len() || out_keys.len() != keys.len() {
        return Err(format!(
            "{} keys and {} values out for {} in",
            out_keys.len(),
            out_values.len(),
            keys.len()
        ));
    }
    check_ordered(out_keys, order)?;
    let mut a: Vec<(u32, u32)> = bits(keys).into_iter().zip(values.iter().copied()).collect();
    let mut b: Vec<(u32, u32)> = bits(out_keys)
        .into_iter()
        .zip(out_values.iter().copied())
        .collect();
    a.sort_unstable();
    b.sort_unstable();
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        return Err(format!(
            "pairs are not a permutation of the input pairs (values do not follow their keys): \
             sorted pairs differ at {i} ({:?} in, {:?} out)",
            a[i], b[i]
        ));
    }
    let (rk, rv) = sort_pairs(keys, values, order);
    let (rk, ok) = (bits(&rk), bits(out_keys));
    if let Some(i) = (0..rk.len()).find(|&i| rk[i] != ok[i] || rv[i] != out_values[i]) {
        return Err(format!(
            "not stable at {i}: ({:#010x}, {}) where the stable sort has ({:#010x}, {})",
            ok[i], out_values[i], rk[i], rv[i]
        ));
    }
    Ok(())
}

/// That as many keys and values came out as went in.
fn same_lengths(input: (usize, usize), output: (usize, usize)) -> Result<(), String> {
    if input == output {
        return Ok(());
    }
    Err(format!(
        "{} keys and {} values out for {} and {} in",
        output.0, output.1, input.0, input.1
    ))
}

/// Values `a..b` of a segmented sort's `values`, or none where it has none (keys alone).
fn segment_of(values: &[u32], a: usize, b: usize) -> &[u32] {
    if values.is_empty() {
        values
    } else {
        &values[a..b]
    }
}

/// The stable sort of `keys` (by `Ord`: unsigned keys, or sortable images) within each
/// segment of the CSR `offsets` (rising from 0 to the key count), as the input index of each
/// output position.
pub fn segmented_order<K: Ord>(keys: &[K], offsets: &[u32]) -> Vec<u32> {
    let mut order = Vec::with_capacity(keys.len());
    for w in offsets.windows(2) {
        let mut part: Vec<u32> = (w[0]..w[1]).collect();
        part.sort_by_key(|&i| &keys[i as usize]);
        order.extend(part);
    }
    order
}

/// Checks a segmented sort: keys (and `values`, empty for keys alone) sorted stably within
/// each segment of the CSR `offsets` (rising from 0 to the key count) and nowhere else; the
/// first difference from the stable sort of each segment names its segment.
pub fn check_segments<T: Element>(
    (keys, values): (&[T], &[u32]),
    (out_keys, out_values): (&[T], &[u32]),
    offsets: &[u32],
    order: Order,
) -> Result<(), String> {
    same_lengths(
        (keys.len(), values.len()),
        (out_keys.len(), out_values.len()),
    )?;
    for (j, w) in offsets.windows(2).enumerate() {
        let (a, b) = (w[0] as usize, w[1] as usize);
        let (rk, rv) = if values.is_empty() {
            (sort_keys(&keys[a..b], order), Vec::new())
        } else {
            sort_pairs(&keys[a..b], &values[a..b], order)
        };
        let (ok, ov) = (bits(&out_keys[a..b]), segment_of(out_values, a, b));
        let rk = bits(&rk);
        if let Some(i) = (0..rk.len()).find(|&i| rk[i] != ok[i] || rv.get(i) != ov.get(i)) {
            return Err(format!(
                "segment {j} ([{a}, {b})) at {}: ({:#010x}, {:?}) where its stable sort has \
                 ({:#010x}, {:?})",
                a + i,
                ok[i],
                ov.get(i),
                rk[i],
                rv.get(i)
            ));
        }
    }
    Ok(())
}

/// Checks a segmented sort of 64-bit keys (their bits, of `dtype`): [`check_wide`] within each
/// segment of the CSR `offsets`, which must rise from 0 to the key count.
pub fn check_wide_segments(
    dtype: Dtype,
    (keys, values): (&[u64], &[u32]),
    (out_keys, out_values): (&[u64], &[u32]),
    offsets: &[u32],
    order: Order,
) -> Result<(), String> {
    same_lengths(
        (keys.len(), values.len()),
        (out_keys.len(), out_values.len()),
    )?;
    if offsets.first() != Some(&0)
        || offsets.last().map(|&o| o as usize) != Some(keys.len())
        || offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(format!(
            "offsets do not rise from 0 to the key count {}",
            keys.len()
        ));
    }
    for (j, w) in offsets.windows(2).enumerate() {
        let (a, b) = (w[0] as usize, w[1] as usize);
        let (vin, vout) = (segment_of(values, a, b), segment_of(out_values, a, b));
        check_wide(dtype, (&keys[a..b], vin), (&out_keys[a..b], vout), order)
            .map_err(|e| format!("segment {j} ([{a}, {b})): {e}"))?;
    }
    Ok(())
}

/// The order-preserving u64 image of a 64-bit key's bits (`wgsl/sort/lib/wide.wgsl`'s
/// `wide_to_sortable` without the descending complement): u64 as is, i64 sign-flipped, f64 in
/// `f64::total_cmp` order.
pub fn sortable_wide(bits: u64, dtype: Dtype) -> u64 {
    const SIGN: u64 = 1 << 63;
    match dtype {
        Dtype::I64 => bits ^ SIGN,
        Dtype::F64 if bits & SIGN != 0 => !bits,
        Dtype::F64 => bits | SIGN,
        _ => bits,
    }
}

impl Order {
    /// The value 64-bit keys (`bits`, of `dtype`) are compared by; ranges clamped into
    /// `0..=64` as [`Order::rank`]'s into `0..=32`.
    pub fn rank_wide(&self, bits: u64, dtype: Dtype) -> u64 {
        self.field(sortable_wide(bits, dtype), 64)
    }
}

/// Checks a sort of 64-bit keys (their bits, of `dtype`) with `values` (empty for keys
/// alone): lengths, ordered, the (key, value) pairs a permutation of the input's, and equal
/// keys in input order (the stable sort's result, element for element).
pub fn check_wide(
    dtype: Dtype,
    (keys, values): (&[u64], &[u32]),
    (out_keys, out_values): (&[u64], &[u32]),
    order: Order,
) -> Result<(), String> {
    same_lengths(
        (keys.len(), values.len()),
        (out_keys.len(), out_values.len()),
    )?;
    let rank = |k: u64| order.rank_wide(k, dtype);
    if let Some(i) = (1..out_keys.len()).find(|&i| rank(out_keys[i - 1]) > rank(out_keys[i])) {
        return Err(format!(
            "not ordered at {i}: bits {:#018x} before {:#018x}",
            out_keys[i - 1],
            out_keys[i]
        ));
    }
    let pairs = |k: &[u64], v: &[u32]| -> Vec<(u64, u32)> {
        let mut p: Vec<(u64, u32)> = (0..k.len())
            .map(|i| (k[i], v.get(i).copied().unwrap_or(0)))
            .collect();
        p.sort_unstable();
        p
    };
    let (a, b) = (pairs(keys, values), pairs(out_keys, out_values));
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        return Err(format!(
            "not a permutation of the input (values do not follow their keys): sorted pairs \
             differ at {i} ({:#018x}, {}) in, ({:#018x}, {}) out",
            a[i].0, a[i].1, b[i].0, b[i].1
        ));
    }
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by_key(|&i| rank(keys[i]));
    let value = |v: &[u32], i: usize| v.get(i).copied();
    if let Some(j) = (0..idx.len())
        .find(|&j| keys[idx[j]] != out_keys[j] || value(values, idx[j]) != value(out_values, j))
    {
        return Err(format!(
            "not stable at {j}: ({:#018x}, {:?}) where the stable sort has ({:#018x}, {:?})",
            out_keys[j],
            value(out_values, j),
            keys[idx[j]],
            value(values, idx[j])
        ));
    }
    Ok(())
}

/// Stable LSD radix sort of u32 keys (ascending), carrying `values`: the fast reference the
/// bench checks 2^28-key runs against (`sort_pairs` above is the plain one; a unit test holds
/// them equal).
pub fn radix_sort_u32(keys: &[u32], values: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut k = keys.to_vec();
    let mut v = values.to_vec();
    let pairs = !values.is_empty();
    let mut k2 = vec![0u32; k.len()];
    let mut v2 = vec![0u32; v.len()];
    for shift in [0u32, 8, 16, 24] {
        let mut count = [0usize; 257];
        for &x in &k {
            count[((x >> shift) & 0xff) as usize + 1] += 1;
        }
        for d in 0..256 {
            count[d + 1] += count[d];
        }
        for i in 0..k.len() {
            let d = ((k[i] >> shift) & 0xff) as usize;
            let at = count[d];
            count[d] += 1;
            k2[at] = k[i];
            if pairs {
                v2[at] = v[i];
            }
        }
        std::mem::swap(&mut k, &mut k2);
        std::mem::swap(&mut v, &mut v2);
    }
    (k, v)
}

/// Compares a result with the reference, naming the first difference.
pub fn first_difference(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} out, {} expected",
            got.len(),
            want.len()
        ));
    }
    match (0..got.len()).find(|&i| got[i] != want[i]) {
        Some(i) => Err(format!(
            "{what}: at {i} {:#010x}, the stable sort has {:#010x} (output not ordered, not a \
             permutation, or not stable)",
            got[i], want[i]
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_reference_matches_the_plain_one() {
        let keys: Vec<u32> = (0..5000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 977)
            .collect();
        let vals: Vec<u32> = (0..5000).collect();
        let (k, v) = radix_sort_u32(&keys, &vals);
        let (rk, rv) = sort_pairs(&keys, &vals, Order::default());
        assert_eq!((k, v), (rk, rv));
        assert!(first_difference("x", &[1, 2], &[1, 3]).is_err());
    }

    /// The 64-bit checker rejects a broken sort: out of order (f64 +0 before -0, a high word
    /// compared as signed), moved values, equal keys out of input order.
    #[test]
    fn wide_check_can_fail() {
        let o = Order {
            end_bit: 64,
            ..Order::default()
        };
        let keys = [3u64 << 32, 1, 2 << 32, 1];
        let vals = [10, 11, 12, 13];
        let sorted = [1, 1, 2 << 32, 3 << 32];
        assert!(check_wide(Dtype::U64, (&keys, &vals), (&sorted, &[11, 13, 12, 10]), o).is_ok());
        assert!(check_wide(Dtype::U64, (&keys, &vals), (&sorted, &[13, 11, 12, 10]), o).is_err());
        assert!(check_wide(Dtype::U64, (&keys, &vals), (&sorted, &[11, 13, 10, 12]), o).is_err());
        let (z, nz) = (0f64.to_bits(), (-0f64).to_bits());
        assert!(check_wide(Dtype::F64, (&[z, nz], &[]), (&[nz, z], &[]), o).is_ok());
        assert!(check_wide(Dtype::F64, (&[z, nz], &[]), (&[z, nz], &[]), o).is_err());
        let m = (-1i64) as u64;
        assert!(check_wide(Dtype::I64, (&[1, m], &[]), (&[1, m], &[]), o).is_err());
    }

    /// The segmented checker rejects a sort across a segment's edge and an unstable one.
    #[test]
    fn segment_check_can_fail() {
        let o = Order::default();
        let keys = [3u32, 1, 2, 1];
        let offsets = [0, 2, 2, 4];
        assert!(check_segments((&keys, &[]), (&[1, 3, 1, 2], &[]), &offsets, o).is_ok());
        assert!(check_segments((&keys, &[]), (&[1, 1, 2, 3], &[]), &offsets, o).is_err());
        let vals = [10, 11, 12, 13];
        let ok = check_segments(
            (&keys, &vals),
            (&[1, 3, 1, 2], &[11, 10, 13, 12]),
            &offsets,
            o,
        );
        assert!(ok.is_ok());
        let eq = [1u32, 1];
        let bad = check_segments((&eq, &[5, 6]), (&[1, 1], &[6, 5]), &[0, 2], o);
        assert!(bad.is_err(), "unstable");
    }

    /// Ranges the sort refuses rank without panicking: past 32 clamped, reversed empty.
    #[test]
    fn out_of_range_bits_are_clamped_not_a_panic() {
        let o = |begin_bit, end_bit| Order {
            descending: false,
            begin_bit,
            end_bit,
        };
        assert_eq!(o(8, 33).rank(0xabcd_ef12u32), o(8, 32).rank(0xabcd_ef12u32));
        assert_eq!(o(8, 33).rank(0xabcd_ef12u32), 0x00ab_cdef);
        assert_eq!(o(8, 4).rank(0xffff_ffffu32), 0);
        assert_eq!(o(40, 50).rank(0xffff_ffffu32), 0);
    }
}
