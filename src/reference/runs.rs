//! References for `wgsl/select/runs.wgsl`: runs of consecutive keys equal as words (−0 and +0 differ, NaNs
//! of the same bits are equal). Their aggregates are the reduction's references
//! ([`super::reduce`]) over each run's values.

use std::ops::Range;

/// The runs of `keys`, compared as words: each run's range of indices, in order.
pub fn runs<K: bytemuck::Pod>(keys: &[K]) -> Vec<Range<usize>> {
    let words: &[u8] = bytemuck::cast_slice(keys);
    let size = std::mem::size_of::<K>();
    let mut out: Vec<Range<usize>> = Vec::new();
    for i in 0..keys.len() {
        let same = i > 0 && words[i * size..(i + 1) * size] == words[(i - 1) * size..i * size];
        match out.last_mut() {
            Some(r) if same => r.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}
