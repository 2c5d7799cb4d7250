//! Top-k (`wgsl/topk/`): the indices of a row's k largest or smallest values, in the sort's
//! total order (floats by `total_cmp`), ties broken by the lower index, first first.

use crate::dtype::Element;

use super::sort::Order;

/// The indices in `row` of its `k` largest values (with `smallest`, its k smallest), the first
/// first: values ranked by the sort's total order ([`Order::rank`]), equal values by the lower
/// index. `k` past the row's length gives every index.
pub fn topk_indices<T: Element>(row: &[T], k: usize, smallest: bool) -> Vec<u32> {
    let order = Order {
        descending: !smallest,
        ..Order::default()
    };
    let mut idx: Vec<(u32, u32)> = row
        .iter()
        .enumerate()
        .map(|(i, &x)| (order.rank(x), i as u32))
        .collect();
    if k < idx.len() {
        idx.select_nth_unstable(k);
        idx.truncate(k);
    }
    idx.sort_unstable();
    idx.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::topk_indices;

    /// Ties by the lower index, NaN above +inf, −0 below +0, k past the length.
    #[test]
    fn ranks_by_the_total_order_and_the_lower_index() {
        let row = [1.0f32, 3.0, 3.0, f32::NAN, 0.0, -0.0];
        assert_eq!(topk_indices(&row, 3, false), [3, 1, 2]);
        assert_eq!(topk_indices(&row, 2, true), [5, 4]);
        assert_eq!(topk_indices(&[2u32, 2, 1], 9, false), [0, 1, 2]);
        assert_eq!(topk_indices(&[-1i32, 5], 1, true), [0]);
    }
}
