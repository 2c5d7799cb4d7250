//! References for `wgsl/reduce/`: numpy's semantics. Integer sums exact and widened
//! (`sum_u64` checks both u32 and i32); f32 sums in f64 (`sum_f32`, and `check_sum_f32`, the
//! tolerance a GPU's sum is held to); min/max with NaN winning (`minmax`).

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

/// What a GPU's f32 sum of `x` is checked against ([`SumF32::check`]): within 1e-6 · Σ|x| of
/// the exact sum, or, on an adapter that flushes f32 subnormals to zero (WGSL lets it; NVIDIA's
/// Vulkan driver does), within 1e-6 · Σ|x| plus n · 2^-126 of the sum with subnormal inputs
/// taken as zero (each addition whose result falls below 2^-126 may lose that much more). An
/// infinite or NaN sum must be numpy's: NaN for NaN, the same infinity otherwise.
#[derive(Clone, Copy, Debug)]
pub struct SumF32 {
    want: f64,
    abs: f64,
    want_flushed: f64,
    abs_flushed: f64,
    n: usize,
}

impl SumF32 {
    /// The reference sums of `x` (O(n), once per input).
    pub fn of(x: &[f32]) -> Self {
        let (want, abs) = sum_f32(x);
        // the same sums without the subnormal inputs (no copy: the bench sums 2^28 elements)
        let (mut want_flushed, mut abs_flushed) = (want, abs);
        for &v in x.iter().filter(|v| v.is_subnormal()) {
            want_flushed -= v as f64;
            abs_flushed -= (v as f64).abs();
        }
        SumF32 {
            want,
            abs,
            want_flushed,
            abs_flushed,
            n: x.len(),
        }
    }

    /// Whether `got` is an acceptable sum (see [`SumF32`]).
    pub fn check(&self, got: f32) -> Result<(), String> {
        let (want, abs) = (self.want, self.abs);
        if want.is_nan() || abs.is_infinite() {
            // inf - inf or NaN in the input: numpy gives nan or ±inf; the sign of inf must match
            return if (want.is_nan() && got.is_nan()) || (got as f64 == want) {
                Ok(())
            } else {
                Err(format!("got {got}, want {want}"))
            };
        }
        // the exact sum beyond f32: ±inf, as rounding it gives
        if got.is_infinite() {
            return if want as f32 == got {
                Ok(())
            } else {
                Err(format!("got {got}, want {want}"))
            };
        }
        let g = got as f64;
        let slack = self.n as f64 * f32::MIN_POSITIVE as f64;
        if (g - want).abs() <= 1e-6 * abs
            || (g - self.want_flushed).abs() <= 1e-6 * self.abs_flushed + slack
        {
            return Ok(());
        }
        Err(format!(
            "got {got}, want {want} (Σ|x| = {abs}; with subnormals flushed {})",
            self.want_flushed
        ))
    }
}

/// [`SumF32::check`] of `got` against `x`.
pub fn check_sum_f32(got: f32, x: &[f32]) -> Result<(), String> {
    SumF32::of(x).check(got)
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
        if (max && acc.below(&v)) || (!max && v.below(&acc)) {
            acc = v;
        }
    }
    Some(acc)
}

/// NaN test that is false for integers, and the order min/max use.
pub trait IsNan: PartialOrd + Sized {
    /// Whether the value is a NaN.
    fn is_nan_value(&self) -> bool;
    /// `self < other`, with −0 below +0 for f32 (the kernels compare order-preserving keys, so
    /// min(+0, −0) is −0 in either order; numpy returns whichever comes first).
    fn below(&self, other: &Self) -> bool {
        self < other
    }
    /// The same value: equal integers, the same f32 bits or two NaNs.
    fn same(&self, other: &Self) -> bool {
        self == other
    }
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
    fn below(&self, other: &Self) -> bool {
        self < other
            || (*self == 0.0
                && *other == 0.0
                && self.is_sign_negative()
                && other.is_sign_positive())
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits() || (self.is_nan() && other.is_nan())
    }
}
