//! Lane masks: one bit per lane slot of a workgroup (at most [`MAX_LANES`]).
//!
//! A `Mask` is a small `Copy` bitset. The interpreter keeps the active mask of the statement it
//! runs and the masks of lanes that left through `break`, `continue` and `return`.

/// Most invocations a simulated workgroup may have.
pub const MAX_LANES: usize = 1024;
const WORDS: usize = MAX_LANES / 64;

/// A set of lane slots.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Mask {
    w: [u64; WORDS],
}

impl std::fmt::Debug for Mask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mask{{{} lanes}}", self.count())
    }
}

impl Default for Mask {
    /// No lanes.
    fn default() -> Mask {
        Mask::EMPTY
    }
}

impl Mask {
    /// No lanes.
    pub const EMPTY: Mask = Mask { w: [0; WORDS] };

    /// Slots `0..n`.
    pub fn first(n: usize) -> Mask {
        let mut m = Mask::EMPTY;
        for i in 0..WORDS {
            let lo = i * 64;
            if n >= lo + 64 {
                m.w[i] = !0;
            } else if n > lo {
                m.w[i] = (1u64 << (n - lo)) - 1;
            }
        }
        m
    }

    /// Slots `start..start + len`.
    pub fn range(start: usize, len: usize) -> Mask {
        Mask::first(start + len).and_not(&Mask::first(start))
    }

    /// Slots `l < row.len()` whose `row[l]` is non-zero, within `within`.
    #[inline]
    pub fn from_row(row: &[u32], within: &Mask) -> Mask {
        let mut m = Mask::EMPTY;
        for (i, chunk) in row.chunks(64).enumerate() {
            if within.w[i] == 0 {
                continue;
            }
            m.w[i] = nonzero_bits(chunk) & within.w[i];
        }
        m
    }

    /// Bits of slots `64 c .. 64 c + 64`.
    #[inline]
    pub fn word(&self, c: usize) -> u64 {
        self.w[c]
    }

    /// Whether slot `i` is set.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.w[i >> 6] >> (i & 63) & 1 != 0
    }

    /// Sets slot `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.w[i >> 6] |= 1 << (i & 63);
    }

    /// Clears slot `i`.
    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.w[i >> 6] &= !(1 << (i & 63));
    }

    /// No lane set.
    #[inline]
    pub fn none(&self) -> bool {
        self.w.iter().all(|&x| x == 0)
    }

    /// Number of lanes set.
    pub fn count(&self) -> u32 {
        self.w.iter().map(|x| x.count_ones()).sum()
    }

    /// Number of lanes set, all of them below slot `end` (the words above are not looked at).
    #[inline]
    pub fn count_below(&self, end: usize) -> u32 {
        self.w[..end.div_ceil(64).min(WORDS)]
            .iter()
            .map(|x| x.count_ones())
            .sum()
    }

    /// Intersection.
    #[inline]
    pub fn and(&self, o: &Mask) -> Mask {
        let mut m = *self;
        for i in 0..WORDS {
            m.w[i] &= o.w[i];
        }
        m
    }

    /// Union.
    #[inline]
    pub fn or(&self, o: &Mask) -> Mask {
        let mut m = *self;
        for i in 0..WORDS {
            m.w[i] |= o.w[i];
        }
        m
    }

    /// `self` without `o`.
    #[inline]
    pub fn and_not(&self, o: &Mask) -> Mask {
        let mut m = *self;
        for i in 0..WORDS {
            m.w[i] &= !o.w[i];
        }
        m
    }

    /// Lowest set slot.
    pub fn first_set(&self) -> Option<usize> {
        self.w
            .iter()
            .enumerate()
            .find(|(_, x)| **x != 0)
            .map(|(i, &x)| i * 64 + x.trailing_zeros() as usize)
    }

    /// Calls `f` for every group of `size` slots (slots `g * size .. (g + 1) * size`; `size` a
    /// power of two) that has a slot set, in increasing order of `g`.
    #[inline]
    pub fn for_each_group(&self, size: usize, mut f: impl FnMut(usize)) {
        if size >= 64 {
            let words = size / 64;
            for (g, chunk) in self.w.chunks(words).enumerate() {
                if chunk.iter().any(|&x| x != 0) {
                    f(g);
                }
            }
        } else {
            let per = 64 / size;
            let low = (1u64 << size) - 1;
            for (i, &x) in self.w.iter().enumerate() {
                if x == 0 {
                    continue;
                }
                for j in 0..per {
                    if (x >> (j * size)) & low != 0 {
                        f(i * per + j);
                    }
                }
            }
        }
    }

    /// Calls `f` for every set slot in increasing order.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for (i, &word) in self.w.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                f(i * 64 + b);
                x &= x - 1;
            }
        }
    }
}

/// Bit `b` set where `chunk[b]` (at most 64 words) is non-zero.
#[inline]
fn nonzero_bits(chunk: &[u32]) -> u64 {
    let mut bits = 0u64;
    let mut b = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps, _mm_setzero_si128,
        };
        // four lanes a compare (SSE2 is part of x86_64)
        while b + 4 <= chunk.len() {
            // SAFETY: the four words `chunk[b..b + 4]` are in bounds; SSE2 is always present on
            // x86_64.
            let zero = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().add(b).cast());
                _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_setzero_si128())))
            };
            bits |= ((!zero & 0xf) as u64) << b;
            b += 4;
        }
    }
    for (i, &v) in chunk.iter().enumerate().skip(b) {
        bits |= ((v != 0) as u64) << i;
    }
    bits
}
