//! References for `wgsl/histogram/`: a histogram with even bins, from its definition. The
//! edges are e_i = lo + i·w in f64, w = (hi − lo)/bins, and e_bins = hi (numpy's
//! `linspace`); bin i holds the samples x with e_i ≤ x < e_(i+1), compared as real numbers
//! (every u8, u32, i32 and f32 is exact in f64); samples below lo, at or above hi, and NaN are
//! not counted.

/// The bins' edges, `bins + 1` of them.
pub fn edges(bins: u32, lo: f64, hi: f64) -> Vec<f64> {
    let w = (hi - lo) / bins as f64;
    let mut e: Vec<f64> = (0..bins).map(|i| lo + i as f64 * w).collect();
    e.push(hi);
    e
}

/// The counts of `samples` (their values as f64) in `bins` even bins over [lo, hi).
pub fn even(samples: impl IntoIterator<Item = f64>, bins: u32, lo: f64, hi: f64) -> Vec<u32> {
    let e = edges(bins, lo, hi);
    let mut counts = vec![0u32; bins as usize];
    for x in samples {
        if x.is_nan() || x < e[0] || x >= e[bins as usize] {
            continue;
        }
        // the last edge at or below x
        let i = e.partition_point(|&edge| edge <= x) - 1;
        counts[i.min(bins as usize - 1)] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half-open bins, the top edge excluded, NaN and ±0 as their values.
    #[test]
    fn bins_are_half_open() {
        let xs = [0.0, 0.5, 1.0, 1.9999, 2.0, -0.0, -0.1, f64::NAN, 1.5];
        assert_eq!(even(xs, 2, 0.0, 2.0), [3, 3]);
        assert_eq!(even([3.0, 4.0], 1, 3.0, 4.0), [1]);
    }
}
