//! The simulator's seeded randomness (lane layouts, workgroup orders, `random:N` bindings):
//! SplitMix64, small and reproducible across platforms and versions, so a seed names the same
//! layout everywhere.

/// A SplitMix64 generator.
pub(crate) struct SplitMix(u64);

impl SplitMix {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next 32 random bits.
    #[cfg(any(test, feature = "tools"))]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A uniform f32 in [-1, 1) (24 random bits).
    #[cfg(any(test, feature = "tools"))]
    pub fn next_f32_signed(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }

    /// A uniform index below `n` (`n` > 0; the bias of the modulo is below 2^-32 for the sizes
    /// the simulator shuffles).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Shuffles `v` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_are_permutations_and_floats_stay_in_range() {
        let mut r = SplitMix::new(7);
        let mut v: Vec<u32> = (0..1000).collect();
        r.shuffle(&mut v);
        assert_ne!(
            v,
            (0..1000).collect::<Vec<_>>(),
            "a shuffle moved something"
        );
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
        assert!((0..10_000).all(|_| (-1.0..1.0).contains(&r.next_f32_signed())));
        assert_eq!(SplitMix::new(3).next_u64(), SplitMix::new(3).next_u64());
    }
}
