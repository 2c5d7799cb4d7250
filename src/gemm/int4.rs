//! The int4 weight format of [`gemm_int4`](super::gemm_int4) (the Marlin / GPTQ use case: B is a
//! K×N weight matrix, quantized once, multiplied by many f16 activations A).
//!
//! Layout, chosen so one u32 load gives the kernel eight consecutive K values of one column:
//! - `packed[(k / 8) · N + n]` holds `q(k, n)` for k = 8·(k/8) .. +8, element `k % 8` in bits
//!   `4·(k % 8) .. 4·(k % 8) + 4` (little nibble first). `ceil(K / 8) · N` words; nibbles past K
//!   are zero and ignored.
//! - `scales[(k / 128) · N + n]`: one f16 (u16 bits) per group of 128 along K and column.
//! - `zeros`, optional, same shape: an f16 zero point per group; absent, the zero point is 8
//!   (symmetric 4-bit).
//! - The weight is `w(k, n) = (q(k, n) − zero) · scale`, computed in f32.

use half::f16;

use crate::error::{Error, Result};

/// Quantization group along K.
pub const GROUP: usize = 128;

/// A K×N int4 weight matrix in the kernel's layout (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Int4Weights {
    /// Rows (the reduction dimension).
    pub k: usize,
    /// Columns.
    pub n: usize,
    /// `ceil(K/8) · N` words, 8 nibbles each along K.
    pub packed: Vec<u32>,
    /// `ceil(K/128) · N` f16 scales (bits).
    pub scales: Vec<u16>,
    /// Optional `ceil(K/128) · N` f16 zero points (bits); `None` means 8.
    pub zeros: Option<Vec<u16>>,
}

impl Int4Weights {
    /// Number of groups along K.
    pub fn groups(&self) -> usize {
        self.k.div_ceil(GROUP)
    }

    /// Checks the lengths against K and N.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidInput(format!("int4 weights: {m}")));
        if self.k == 0 || self.n == 0 {
            return bad(format!(
                "K = {} and N = {} must be at least 1",
                self.k, self.n
            ));
        }
        let (Some(words), Some(g)) = (
            self.k.div_ceil(8).checked_mul(self.n),
            self.groups().checked_mul(self.n),
        ) else {
            return bad(format!("K = {} and N = {} are too large", self.k, self.n));
        };
        if self.packed.len() != words {
            return bad(format!(
                "{} packed words, expected ceil(K/8)·N = {words}",
                self.packed.len(),
            ));
        }
        if self.scales.len() != g || self.zeros.as_ref().is_some_and(|z| z.len() != g) {
            return bad(format!("scales and zeros need ceil(K/128)·N = {g} entries"));
        }
        Ok(())
    }

    /// The 4-bit code of (k, n).
    ///
    /// # Panics
    /// Where (k, n) is outside K×N or the weights do not [`validate`](Self::validate), as
    /// slice indexing does.
    pub fn q(&self, k: usize, n: usize) -> u32 {
        (self.packed[(k / 8) * self.n + n] >> (4 * (k % 8))) & 15
    }

    /// The dequantized weight (k, n), computed as the kernel does (f32).
    ///
    /// # Panics
    /// As [`q`](Self::q).
    pub fn weight(&self, k: usize, n: usize) -> f32 {
        let g = (k / GROUP) * self.n + n;
        let s = f16::from_bits(self.scales[g]).to_f32();
        let z = self
            .zeros
            .as_ref()
            .map_or(8.0, |z| f16::from_bits(z[g]).to_f32());
        (self.q(k, n) as f32 - z) * s
    }

    /// Quantizes a row-major K×N f32 matrix: per group and column, scale = max|w| / 7 (f16),
    /// q = round(w / scale) + 8 clamped to 0..15, zero point 8 (`zeros: None`). A group whose
    /// scale would round to f16 zero (max|w| below about 2.1e-7) takes the smallest f16 scale,
    /// 2^-24; weights must be finite and a group's max|w| / 7 must fit f16 (at most 65504),
    /// else `Error::InvalidInput`.
    pub fn quantize(w: &[f32], k: usize, n: usize) -> Result<Int4Weights> {
        if k.checked_mul(n) != Some(w.len()) || k == 0 || n == 0 {
            return Err(Error::InvalidInput(format!(
                "quantize: {} values for a {k}×{n} matrix",
                w.len()
            )));
        }
        if let Some(i) = w.iter().position(|x| !x.is_finite()) {
            return Err(Error::InvalidInput(format!(
                "quantize: weight {i} is {}, not finite",
                w[i]
            )));
        }
        let groups = k.div_ceil(GROUP);
        let mut scales = vec![0u16; groups * n];
        for g in 0..groups {
            for c in 0..n {
                let amax = (g * GROUP..((g + 1) * GROUP).min(k))
                    .map(|r| w[r * n + c].abs())
                    .fold(0.0f32, f32::max);
                let s = if amax > 0.0 { amax / 7.0 } else { 1.0 };
                let h = f16::from_f32(s);
                if h.is_infinite() {
                    return Err(Error::InvalidInput(format!(
                        "quantize: column {c} of group {g} has max |w| = {amax}, whose scale \
                         (max |w| / 7) is beyond f16"
                    )));
                }
                // a scale that rounds to 0 would zero the group: the smallest f16 instead
                let h = if h.to_f32() == 0.0 {
                    f16::from_bits(1)
                } else {
                    h
                };
                scales[g * n + c] = h.to_bits();
            }
        }
        let mut packed = vec![0u32; k.div_ceil(8) * n];
        for r in 0..k {
            for c in 0..n {
                let s = f16::from_bits(scales[(r / GROUP) * n + c]).to_f32();
                let q = ((w[r * n + c] / s).round() + 8.0).clamp(0.0, 15.0) as u32;
                packed[(r / 8) * n + c] |= q << (4 * (r % 8));
            }
        }
        Ok(Int4Weights {
            k,
            n,
            packed,
            scales,
            zeros: None,
        })
    }

    /// The first weight past f16's range (65504) that a code of a group can dequantize to, as
    /// (group, column, the weight): `(q − zero) · scale` for q = 0 or 15, the extremes, whether
    /// or not the group holds those codes (the codes past K in its last word are 0). `None` where
    /// every code of every group fits: the condition for cooperative matrices, which take the
    /// weights as f16 (`gemm/coop16_int4`, `gemm/coop8_int4`).
    pub fn beyond_f16(&self) -> Option<(usize, usize, f32)> {
        let f16_max = f16::MAX.to_f32();
        (0..self.groups()).find_map(|g| {
            (0..self.n).find_map(|c| {
                let i = g * self.n + c;
                let s = f16::from_bits(*self.scales.get(i)?).to_f32();
                let z = self
                    .zeros
                    .as_ref()
                    .map_or(Some(8.0), |z| z.get(i).map(|&b| f16::from_bits(b).to_f32()))?;
                [0.0 - z, 15.0 - z]
                    .map(|d| d * s)
                    .into_iter()
                    .find(|w| !w.is_finite() || w.abs() > f16_max)
                    .map(|w| (g, c, w))
            })
        })
    }

    /// The whole dequantized matrix, row-major K×N; `Error::InvalidInput` where the weights
    /// do not [`validate`](Self::validate).
    pub fn dequantize(&self) -> Result<Vec<f32>> {
        self.validate()?;
        let mut out = Vec::with_capacity(self.k * self.n);
        for r in 0..self.k {
            for c in 0..self.n {
                out.push(self.weight(r, c));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group whose extreme codes dequantize past 65504 is found (by its code 0 with the
    /// default zero point 8, or by code 15 with a zero point of its own); small ones are not.
    #[test]
    fn weights_past_f16_are_found() {
        let q = Int4Weights::quantize(&[1.0, -2.0, 0.5, 3.0], 2, 2).unwrap();
        assert_eq!(q.beyond_f16(), None);
        // max |w| = 70000: scale 10000, code 0 → −80000
        let big = Int4Weights::quantize(&[1.0, 70_000.0, 0.5, -3.0], 2, 2).unwrap();
        let (g, c, w) = big.beyond_f16().unwrap();
        assert_eq!((g, c), (0, 1));
        assert!(w < -65504.0, "{w}");
        let mut zeros = q.clone();
        zeros.scales = vec![f16::from_f32(10_000.0).to_bits(), q.scales[1]];
        zeros.zeros = Some(vec![f16::from_f32(1.0).to_bits(); 2]);
        assert_eq!(zeros.beyond_f16().map(|(g, c, _)| (g, c)), Some((0, 0)));
    }

    /// Weights whose lengths do not match K and N are an error, not an index panic.
    #[test]
    fn dequantizing_weights_that_do_not_validate_is_an_error() {
        let w = Int4Weights {
            k: 8,
            n: 1,
            packed: vec![],
            scales: vec![0],
            zeros: None,
        };
        assert!(matches!(w.dequantize(), Err(Error::InvalidInput(_))));
    }

    #[test]
    fn quantize_round_trips_within_half_a_step() {
        let (k, n) = (300, 3);
        let w: Vec<f32> = (0..k * n)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let q = Int4Weights::quantize(&w, k, n).unwrap();
        q.validate().unwrap();
        for (i, (&x, y)) in w.iter().zip(q.dequantize().unwrap()).enumerate() {
            let s = f16::from_bits(q.scales[(i / n / GROUP) * n + i % n]).to_f32();
            assert!((x - y).abs() <= 0.5 * s * 1.001 + 1e-6, "{i}: {x} -> {y}");
        }
    }

    /// Weights whose scale f16 cannot hold: non-finite ones and max |w| / 7 above 65504 are
    /// errors (the scale would be inf and every weight NaN); tiny ones keep a nonzero scale
    /// (rounded to f16 it would be 0 and zero the group).
    #[test]
    fn quantize_refuses_what_f16_scales_cannot_hold() {
        for bad in [f32::NAN, f32::INFINITY, -f32::INFINITY, 500_000.0, -1e30] {
            let w = [bad, 1.0, -0.5];
            let r = Int4Weights::quantize(&w, 3, 1);
            assert!(matches!(r, Err(Error::InvalidInput(_))), "{bad}: {r:?}");
        }
        // the largest that fits: 7 · 65504
        let q = Int4Weights::quantize(&[458_528.0, 0.0, -100_000.0], 3, 1).unwrap();
        assert!(q.dequantize().unwrap().iter().all(|x| x.is_finite()));
        let tiny = [1e-7f32, -5e-8, 0.0];
        let q = Int4Weights::quantize(&tiny, 3, 1).unwrap();
        let d = q.dequantize().unwrap();
        assert!(d.iter().all(|x| x.is_finite()));
        assert!(d[0] > 0.0 && d[1] < 0.0 && d[2] == 0.0, "{d:?}");
        for (x, y) in tiny.iter().zip(&d) {
            assert!((x - y).abs() <= 0.5 * 2f32.powi(-24) * 1.001, "{x} -> {y}");
        }
    }
}
