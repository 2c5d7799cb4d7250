//! References for `wgsl/reduce/`: numpy's semantics. Integer sums exact and widened
//! (`sum_u64` checks both u32 and i32); f32 sums in f64 (`sum_f32`); min/max with NaN winning
//! (`minmax`).

/// Exact sum of u32 as u64.
pub fn sum_u64(x: &[u32]) -> u64 {
    x.iter().map(|&v| v as u64).sum()
}

/// Exact sum of i32 as i64.
pub fn sum_i64(x: &[i32]) -> i64 {
    x.iter().map(|&v| v as i64).sum()
}

/// f32 sum computed in f64 (the value the GPU result is compared with), and Σ|x| (the scale of
/// the allowed error).
pub fn sum_f32(x: &[f32]) -> (f64, f64) {
    let mut s = 0.0f64;
    let mut a = 0.0f64;
    for &v in x {
        s += v as f64;
        a += (v as f64).abs();
    }
    (s, a)
}

/// Minimum or maximum (`max = true`), `None` for an empty slice. For f32, any NaN wins.
pub fn minmax<T: Copy + PartialOrd + IsNan>(x: &[T], max: bool) -> Option<T> {
    let mut it = x.iter().copied();
    let mut acc = it.next()?;
    if acc.is_nan_value() {
        return Some(acc);
    }
    for v in it {
        if v.is_nan_value() {
            return Some(v);
        }
        if (max && v > acc) || (!max && v < acc) {
            acc = v;
        }
    }
    Some(acc)
}

/// NaN test that is false for integers.
pub trait IsNan {
    /// Whether the value is a NaN.
    fn is_nan_value(&self) -> bool;
}
impl IsNan for u32 {
    fn is_nan_value(&self) -> bool {
        false
    }
}
impl IsNan for i32 {
    fn is_nan_value(&self) -> bool {
        false
    }
}
impl IsNan for f32 {
    fn is_nan_value(&self) -> bool {
        self.is_nan()
    }
}
