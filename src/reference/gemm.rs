//! References for `wgsl/gemm/`: C = A·B in f64 from the same (f32, f16-rounded or dequantized
//! int4) inputs the kernels see, and the relative Frobenius error every GEMM result is judged by.
//! `tiled` and `coop16` compute the same product; `int4` dequantizes then multiplies.

use half::f16;

use crate::gemm::int4::Int4Weights;

/// f16 bits to f32 (exact).
pub fn f16_to_f32(x: &[u16]) -> Vec<f32> {
    x.iter().map(|&h| f16::from_bits(h).to_f32()).collect()
}

/// f32 to f16 bits (round to nearest even).
pub fn f32_to_f16(x: &[f32]) -> Vec<u16> {
    x.iter().map(|&v| f16::from_f32(v).to_bits()).collect()
}

/// C = A·B in f64: A row-major M×K, B row-major K×N.
pub fn tiled(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for p in 0..k {
            // (no skip of zero entries: 0 · inf is NaN here as on the GPU)
            let av = a[i * k + p] as f64;
            let brow = &b[p * n..(p + 1) * n];
            for (cv, &bv) in row.iter_mut().zip(brow) {
                *cv += av * bv as f64;
            }
        }
    }
    c
}

/// The cooperative-matrix kernel computes the same product as the portable one.
pub fn coop16(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    tiled(a, b, m, n, k)
}

/// One entry C(i, j) in f64.
pub fn entry(a: &[f32], b: &[f32], n: usize, k: usize, i: usize, j: usize) -> f64 {
    (0..k)
        .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
        .sum()
}

/// A (f16 bits, M×K) times the dequantized int4 weights, in f64.
///
/// # Panics
/// Where the weights do not validate (a test oracle: the GEMM itself returns an error).
pub fn int4(a: &[u16], w: &Int4Weights, m: usize) -> Vec<f64> {
    let wd = w
        .dequantize()
        .expect("the reference takes int4 weights that validate");
    tiled(&f16_to_f32(a), &wd, m, w.n, w.k)
}

/// Relative Frobenius error ‖got − want‖ / ‖want‖ (absolute when want is zero). Any NaN, infinity
/// or length mismatch gives infinity, so poison and unwritten elements always fail.
pub fn rel_frobenius(got: &[f32], want: &[f64]) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    let mut num = 0.0f64;
    let mut den = 0.0f64;
    for (&g, &w) in got.iter().zip(want) {
        if !g.is_finite() {
            return f64::INFINITY;
        }
        num += (g as f64 - w) * (g as f64 - w);
        den += w * w;
    }
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zero in A times an infinity in B is NaN in the reference, as on the GPU (it skipped
    /// zero entries of A, giving a finite C the GPU could never match).
    #[test]
    fn zero_times_infinity_is_nan() {
        let c = tiled(&[0.0, 1.0], &[f32::INFINITY, 2.0], 1, 1, 2);
        assert!(c[0].is_nan(), "{c:?}");
        assert_eq!(tiled(&[3.0, 1.0], &[1.0, 2.0], 1, 1, 2), vec![5.0]);
    }
}
