//! References for `wgsl/gemm/`: C = A·B in f64 from the same (f32, f16-rounded or dequantized
//! int4) inputs the kernels see, and the relative Frobenius error every GEMM result is judged by.
//! `tiled` and `coop16` compute the same product; `int4` dequantizes then multiplies. The int4
//! layout is restated here from its definition, not taken from the algorithm it checks.

use half::f16;

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

/// int4 weights K×N: `packed` holds `ceil(K/8)·N` words, word `(k/8)·N + n` carrying row k's
/// code in bits `4·(k%8)..`; `scales` and `zeros` (f16 bits, zeros default 8) hold one entry per
/// group of 128 rows and column, at `(k/128)·N + n`. Weight = (code − zero) · scale, in f32.
pub struct Int4<'a> {
    /// Rows.
    pub k: usize,
    /// Columns.
    pub n: usize,
    /// Packed codes.
    pub packed: &'a [u32],
    /// Scales.
    pub scales: &'a [u16],
    /// Zero points, or `None` for 8.
    pub zeros: Option<&'a [u16]>,
}

impl Int4<'_> {
    /// The weights, row-major K×N, in f32.
    pub fn dequantize(&self) -> Vec<f32> {
        let mut w = Vec::with_capacity(self.k * self.n);
        for k in 0..self.k {
            for n in 0..self.n {
                let code = (self.packed[(k / 8) * self.n + n] >> (4 * (k % 8))) & 15;
                let g = (k / 128) * self.n + n;
                let scale = f16::from_bits(self.scales[g]).to_f32();
                let zero = self.zeros.map_or(8.0, |z| f16::from_bits(z[g]).to_f32());
                w.push((code as f32 - zero) * scale);
            }
        }
        w
    }
}

/// A (f16 bits, M×K) times the dequantized int4 weights `w`, in f64.
pub fn int4(a: &[u16], w: &Int4, m: usize) -> Vec<f64> {
    tiled(&f16_to_f32(a), &w.dequantize(), m, w.n, w.k)
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
