//! Seeded inputs: sizes, random and adversarial data, and sort key distributions.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded generator.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// `n` random u32.
pub fn random_u32(n: usize, seed: u64) -> Vec<u32> {
    let mut r = rng(seed);
    (0..n).map(|_| r.random()).collect()
}

/// `n` random f32 in [-1, 1).
pub fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut r = rng(seed);
    (0..n).map(|_| r.random_range(-1.0f32..1.0)).collect()
}

/// The sizes every element-wise algorithm is tested at: empty, one, a few, around the
/// reduction's 1024-element workgroup step, a 4097 that leaves a lone element in the last
/// vec4, and two large ones (not multiples of anything) that the simulator skips.
pub const SIZES: &[usize] = &[
    0,
    1,
    2,
    3,
    255,
    256,
    257,
    1023,
    1024,
    1025,
    4097,
    2_684_354,
    (1 << 22) + 3,
];

/// The largest size of [`SIZES`] the simulator runs.
pub const SIM_MAX: usize = 4097;

/// Values for `n` sort keys: distinct, not the index and not monotone in it, with the high
/// bits set (a pass that wrote the source index, or dropped high bits, instead of moving the
/// value would fail), and a bijection of the index so every value is traceable.
pub fn values(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9) ^ 0x8000_0001)
        .collect()
}

/// Sort key distributions: each defeats a different shortcut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Uniform random bits.
    Uniform,
    /// One key repeated (every digit pass is the identity; stability is all that shows).
    AllEqual,
    /// Already ascending.
    Sorted,
    /// Descending.
    Reversed,
    /// 16 distinct keys (long runs of equal digits in every pass).
    Distinct16,
    /// Only the top byte varies (three identity passes, then the real one).
    HighByte,
    /// Only the low byte varies.
    LowByte,
    /// The type's awkward values (zero, ±1, extremes; for f32 ±0, ±inf, NaNs, subnormals).
    Extremes,
}

/// Every distribution.
pub const DISTS: &[Dist] = &[
    Dist::Uniform,
    Dist::AllEqual,
    Dist::Sorted,
    Dist::Reversed,
    Dist::Distinct16,
    Dist::HighByte,
    Dist::LowByte,
    Dist::Extremes,
];

/// A key type under test, with the bit patterns of its awkward values.
pub trait Key: wgsimd::sort::SortKey + wgsimd::dtype::Element + std::fmt::Debug {
    /// Bit patterns of the type's awkward values.
    fn extremes() -> &'static [u32];
}

impl Key for u32 {
    fn extremes() -> &'static [u32] {
        &[0, 1, u32::MAX, u32::MAX - 1, 0x8000_0000, 0x7fff_ffff]
    }
}

impl Key for i32 {
    fn extremes() -> &'static [u32] {
        // 0, 1, -1, -2, i32::MIN, i32::MAX
        &[0, 1, u32::MAX, u32::MAX - 1, 0x8000_0000, 0x7fff_ffff]
    }
}

impl Key for f32 {
    fn extremes() -> &'static [u32] {
        &[
            0x0000_0000, // +0
            0x8000_0000, // -0
            0x7f80_0000, // +inf
            0xff80_0000, // -inf
            0x7fc0_0000, // NaN
            0xffc0_0000, // -NaN
            0x7f80_0001, // signalling NaN
            0xff80_0001, // negative signalling NaN
            0x0000_0001, // smallest subnormal
            0x8000_0001,
            0x007f_ffff, // largest subnormal
            0x0080_0000, // smallest normal
            0x7f7f_ffff, // f32::MAX
            0xff7f_ffff, // f32::MIN
            0x3f80_0000, // 1.0
            0xbf80_0000, // -1.0
        ]
    }
}

/// `n` keys of `dist` from `seed`.
pub fn keys<T: Key>(dist: Dist, n: usize, seed: u64) -> Vec<T> {
    let mut r = rng(seed);
    let ext = T::extremes();
    let palette: Vec<u32> = (0..16).map(|_| r.random()).collect();
    let one: u32 = r.random();
    let bits: Vec<u32> = (0..n)
        .map(|i| match dist {
            Dist::Uniform => r.random(),
            Dist::AllEqual => one,
            Dist::Sorted | Dist::Reversed => i as u32,
            Dist::Distinct16 => palette[r.random_range(0..16)],
            Dist::HighByte => (r.random::<u32>() & 0xff00_0000) | 0x0012_3456,
            Dist::LowByte => 0x1234_5600 | (r.random::<u32>() & 0xff),
            Dist::Extremes => ext[r.random_range(0..ext.len())],
        })
        .collect();
    let mut keys: Vec<T> = bits.into_iter().map(bytemuck::cast).collect();
    let order = wgsimd::reference::sort::Order::default();
    match dist {
        Dist::Sorted => keys.sort_by_key(|&k| order.rank(k)),
        Dist::Reversed => keys.sort_by_key(|&k| std::cmp::Reverse(order.rank(k))),
        _ => {}
    }
    keys
}
