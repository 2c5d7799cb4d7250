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
    /// The value keys are compared by.
    pub fn rank<T: Element>(&self, k: T) -> u32 {
        let s = sortable(bytemuck::cast(k), T::DTYPE);
        let s = if self.descending { !s } else { s };
        let width = self.end_bit - self.begin_bit;
        if width == 0 {
            0
        } else {
            (s >> self.begin_bit) & (u32::MAX >> (32 - width))
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
