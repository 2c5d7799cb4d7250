//! Lane-vectorised arithmetic: every function computes a run of lanes of register rows at once
//! ([`Rows`]: the lanes of the subgroups being run, whose rows are `stride` words apart).
//!
//! Values are 32-bit words; `Kind` says how to read them. Integer arithmetic wraps; division
//! and remainder follow WGSL (x / 0 = x, x % 0 = 0, i32::MIN / -1 = i32::MIN); the float
//! remainder is WGSL's `x - y * trunc(x / y)`, each step rounded to the operands' type; shift
//! amounts are taken modulo 32. f16 values arrive as f32 and are computed as f32 (the caller
//! rounds the result), except the remainder, which rounds every step to f16 itself. Inactive
//! lanes are computed too (their results are never observed), so nothing here may panic on
//! any input.

use naga::{BinaryOperator as B, MathFunction as M, UnaryOperator as U};

use super::layout::Kind;
use crate::error::{Error, Result};

#[inline]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
#[inline]
fn fb(x: f32) -> u32 {
    x.to_bits()
}
#[inline]
fn b(x: bool) -> u32 {
    x as u32
}

/// The lanes an operation computes: word `w` of lane `l` of a value is at `w * stride + l`,
/// for `l < len` (the slices an operation gets start at the run's first lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    /// Distance between a value's words (the workgroup's lane slots).
    pub stride: usize,
    /// Lanes computed.
    pub len: usize,
}

impl Rows {
    /// Every lane of rows `n` apart.
    #[cfg(test)]
    pub fn all(n: usize) -> Rows {
        Rows { stride: n, len: n }
    }

    /// Lanes `w * stride .. w * stride + len`: word `w` of the run.
    #[inline]
    pub fn at(self, w: usize) -> std::ops::Range<usize> {
        w * self.stride..w * self.stride + self.len
    }
}

/// Row `w` of an operand of `aw` words (a scalar operand is broadcast).
#[inline]
fn row(a: &[u32], aw: usize, w: usize, n: Rows) -> &[u32] {
    if aw == 1 {
        &a[..n.len]
    } else {
        &a[n.at(w)]
    }
}

/// dst[w][l] = op(a[w][l])
#[inline]
pub fn map1(dst: &mut [u32], a: &[u32], words: usize, n: Rows, op: impl Fn(u32) -> u32) {
    for w in 0..words {
        let ar = row(a, words, w, n);
        let d = &mut dst[n.at(w)];
        for l in 0..n.len {
            d[l] = op(ar[l]);
        }
    }
}

/// dst[w][l] = op(a[w][l], b[w][l]) with scalar broadcast.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn map2(
    dst: &mut [u32],
    a: &[u32],
    aw: usize,
    bv: &[u32],
    bw: usize,
    words: usize,
    n: Rows,
    op: impl Fn(u32, u32) -> u32,
) {
    for w in 0..words {
        let ar = row(a, aw, w, n);
        let br = row(bv, bw, w, n);
        let d = &mut dst[n.at(w)];
        for l in 0..n.len {
            d[l] = op(ar[l], br[l]);
        }
    }
}

/// Three operands with scalar broadcast.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn map3(
    dst: &mut [u32],
    a: (&[u32], usize),
    bv: (&[u32], usize),
    c: (&[u32], usize),
    words: usize,
    n: Rows,
    op: impl Fn(u32, u32, u32) -> u32,
) {
    for w in 0..words {
        let ar = row(a.0, a.1, w, n);
        let br = row(bv.0, bv.1, w, n);
        let cr = row(c.0, c.1, w, n);
        let d = &mut dst[n.at(w)];
        for l in 0..n.len {
            d[l] = op(ar[l], br[l], cr[l]);
        }
    }
}

/// dst[w][l] = a[w][l]
#[inline]
pub fn copy_rows(dst: &mut [u32], a: &[u32], words: usize, n: Rows) {
    for w in 0..words {
        dst[n.at(w)].copy_from_slice(&a[n.at(w)]);
    }
}

/// WGSL's float remainder, `x - y * trunc(x / y)` (not C's `fmod`: `-2.0 % -2.0` is `+0.0`,
/// and a quotient rounded up to the next integer gives a remainder of the other sign).
fn frem(x: f32, y: f32) -> f32 {
    x - y * (x / y).trunc()
}

/// [`frem`] of f16 values, every step rounded to f16 as WGSL's definition computes it in f16:
/// the quotient rounded to f16 may be a different integer than the f32 one (`-64 / -0.0794`
/// is 805.98 in f32 and 806 in f16), and `y * trunc(x / y)` is rounded to f16 before the
/// subtraction. Each f32 step of f16 operands, then rounded, is the correctly rounded f16
/// result (f32 has more than twice f16's precision plus two bits).
fn frem16(x: f32, y: f32) -> f32 {
    let r = |v: f32| f16_to_f32(f32_to_f16(v));
    r(x - r(y * r(x / y).trunc()))
}

fn idiv(a: i32, d: i32) -> i32 {
    if d == 0 || (a == i32::MIN && d == -1) {
        a
    } else {
        a / d
    }
}
fn irem(a: i32, d: i32) -> i32 {
    if d == 0 || (a == i32::MIN && d == -1) {
        0
    } else {
        a % d
    }
}

/// A binary operator over operands of kind `k`.
#[allow(clippy::too_many_arguments)]
pub fn binary(
    op: B,
    k: Kind,
    dst: &mut [u32],
    a: &[u32],
    aw: usize,
    bv: &[u32],
    bw: usize,
    words: usize,
    n: Rows,
) -> Result<()> {
    macro_rules! m {
        ($e:expr) => {
            map2(dst, a, aw, bv, bw, words, n, $e)
        };
    }
    match (k, op) {
        (Kind::U32 | Kind::I32, B::Add) => m!(|x, y| x.wrapping_add(y)),
        (Kind::U32 | Kind::I32, B::Subtract) => m!(|x, y| x.wrapping_sub(y)),
        (Kind::U32 | Kind::I32, B::Multiply) => m!(|x, y| x.wrapping_mul(y)),
        (Kind::U32, B::Divide) => m!(|x, y| x.checked_div(y).unwrap_or(x)),
        (Kind::U32, B::Modulo) => m!(|x, y| if y == 0 { 0 } else { x % y }),
        (Kind::I32, B::Divide) => m!(|x, y| idiv(x as i32, y as i32) as u32),
        (Kind::I32, B::Modulo) => m!(|x, y| irem(x as i32, y as i32) as u32),
        (Kind::U32 | Kind::I32 | Kind::Bool, B::Equal) => m!(|x, y| b(x == y)),
        (Kind::U32 | Kind::I32 | Kind::Bool, B::NotEqual) => m!(|x, y| b(x != y)),
        (Kind::U32, B::Less) => m!(|x, y| b(x < y)),
        (Kind::U32, B::LessEqual) => m!(|x, y| b(x <= y)),
        (Kind::U32, B::Greater) => m!(|x, y| b(x > y)),
        (Kind::U32, B::GreaterEqual) => m!(|x, y| b(x >= y)),
        (Kind::I32, B::Less) => m!(|x, y| b((x as i32) < (y as i32))),
        (Kind::I32, B::LessEqual) => m!(|x, y| b((x as i32) <= (y as i32))),
        (Kind::I32, B::Greater) => m!(|x, y| b((x as i32) > (y as i32))),
        (Kind::I32, B::GreaterEqual) => m!(|x, y| b((x as i32) >= (y as i32))),
        (Kind::U32 | Kind::I32 | Kind::Bool, B::And) => m!(|x, y| x & y),
        (Kind::U32 | Kind::I32 | Kind::Bool, B::InclusiveOr) => m!(|x, y| x | y),
        (Kind::U32 | Kind::I32 | Kind::Bool, B::ExclusiveOr) => m!(|x, y| x ^ y),
        (Kind::Bool, B::LogicalAnd) => m!(|x, y| x & y),
        (Kind::Bool, B::LogicalOr) => m!(|x, y| x | y),
        (Kind::U32 | Kind::I32, B::ShiftLeft) => m!(|x, y| x << (y & 31)),
        (Kind::U32, B::ShiftRight) => m!(|x, y| x >> (y & 31)),
        (Kind::I32, B::ShiftRight) => m!(|x, y| ((x as i32) >> (y & 31)) as u32),
        (Kind::F32, B::Add) => m!(|x, y| fb(f(x) + f(y))),
        (Kind::F32, B::Subtract) => m!(|x, y| fb(f(x) - f(y))),
        (Kind::F32, B::Multiply) => m!(|x, y| fb(f(x) * f(y))),
        (Kind::F32, B::Divide) => m!(|x, y| fb(f(x) / f(y))),
        (Kind::F32, B::Modulo) => m!(|x, y| fb(frem(f(x), f(y)))),
        (Kind::F16, B::Modulo) => m!(|x, y| fb(frem16(f(x), f(y)))),
        (Kind::F32, B::Equal) => m!(|x, y| b(f(x) == f(y))),
        (Kind::F32, B::NotEqual) => m!(|x, y| b(f(x) != f(y))),
        (Kind::F32, B::Less) => m!(|x, y| b(f(x) < f(y))),
        (Kind::F32, B::LessEqual) => m!(|x, y| b(f(x) <= f(y))),
        (Kind::F32, B::Greater) => m!(|x, y| b(f(x) > f(y))),
        (Kind::F32, B::GreaterEqual) => m!(|x, y| b(f(x) >= f(y))),
        _ => return Err(Error::Sim(format!("binary {op:?} on {k:?} not simulated"))),
    }
    Ok(())
}

/// A unary operator.
pub fn unary(op: U, k: Kind, dst: &mut [u32], a: &[u32], words: usize, n: Rows) -> Result<()> {
    match (k, op) {
        (Kind::I32 | Kind::U32, U::Negate) => map1(dst, a, words, n, |x| x.wrapping_neg()),
        (Kind::F32, U::Negate) => map1(dst, a, words, n, |x| x ^ 0x8000_0000),
        (Kind::Bool, U::LogicalNot | U::BitwiseNot) => map1(dst, a, words, n, |x| x ^ 1),
        (Kind::U32 | Kind::I32, U::BitwiseNot) => map1(dst, a, words, n, |x| !x),
        _ => return Err(Error::Sim(format!("unary {op:?} on {k:?} not simulated"))),
    }
    Ok(())
}

/// A conversion or bitcast from `from` to `to`.
pub fn cast(
    from: Kind,
    to: Kind,
    convert: bool,
    dst: &mut [u32],
    a: &[u32],
    words: usize,
    n: Rows,
) {
    if !convert || from == to {
        copy_rows(dst, a, words, n);
        return;
    }
    match (from, to) {
        (Kind::F32, Kind::U32) => map1(dst, a, words, n, |x| f(x) as u32),
        (Kind::F32, Kind::I32) => map1(dst, a, words, n, |x| f(x) as i32 as u32),
        (Kind::U32, Kind::F32) => map1(dst, a, words, n, |x| fb(x as f32)),
        (Kind::I32, Kind::F32) => map1(dst, a, words, n, |x| fb(x as i32 as f32)),
        (Kind::Bool, Kind::F32) => map1(dst, a, words, n, |x| fb(x as f32)),
        (Kind::F32, Kind::Bool) => map1(dst, a, words, n, |x| b(f(x) != 0.0)),
        (_, Kind::Bool) => map1(dst, a, words, n, |x| b(x != 0)),
        _ => copy_rows(dst, a, words, n),
    }
}

fn extract_bits(e: u32, offset: u32, count: u32, signed: bool) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    if c == 0 {
        return 0;
    }
    if signed {
        let shl = 32 - c - o;
        (((e << shl) as i32) >> (32 - c)) as u32
    } else if c == 32 {
        e
    } else {
        (e >> o) & ((1u32 << c) - 1)
    }
}

fn insert_bits(e: u32, nb: u32, offset: u32, count: u32) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    if c == 0 {
        return e;
    }
    let mask = if c == 32 { !0 } else { ((1u32 << c) - 1) << o };
    (e & !mask) | ((nb << o) & mask)
}

fn first_leading_bit_i(x: i32) -> u32 {
    let v = if x < 0 { !x } else { x } as u32;
    if v == 0 {
        u32::MAX
    } else {
        31 - v.leading_zeros()
    }
}

/// A componentwise math builtin (`words` per operand; scalars broadcast). Returns false if
/// `fun` is not componentwise (handled by the caller).
#[allow(clippy::too_many_arguments)]
pub fn math(
    fun: M,
    k: Kind,
    dst: &mut [u32],
    a: (&[u32], usize),
    b1: Option<(&[u32], usize)>,
    c1: Option<(&[u32], usize)>,
    d1: Option<(&[u32], usize)>,
    words: usize,
    n: Rows,
) -> Result<bool> {
    let a0 = a.0;
    let bb = b1.unwrap_or(a);
    let cc = c1.unwrap_or(a);
    // (a macro, not a closure taking `&dyn Fn`: each builtin gets its own vectorised loop)
    macro_rules! one {
        ($dst:expr, $e:expr) => {
            map1($dst, a0, words, n, $e)
        };
    }
    macro_rules! two {
        ($e:expr) => {
            map2(dst, a.0, a.1, bb.0, bb.1, words, n, $e)
        };
    }
    macro_rules! three {
        ($e:expr) => {
            map3(dst, a, bb, cc, words, n, $e)
        };
    }
    macro_rules! fl {
        ($e:expr) => {
            map1(dst, a0, words, n, |x| fb($e(f(x))))
        };
    }
    match (fun, k) {
        (M::Abs, Kind::I32) => map1(dst, a0, words, n, |x| (x as i32).wrapping_abs() as u32),
        (M::Abs, Kind::U32) => map1(dst, a0, words, n, |x| x),
        (M::Abs, Kind::F32) => map1(dst, a0, words, n, |x| x & 0x7fff_ffff),
        (M::Min, Kind::U32) => two!(|x, y| x.min(y)),
        (M::Max, Kind::U32) => two!(|x, y| x.max(y)),
        (M::Min, Kind::I32) => two!(|x, y| (x as i32).min(y as i32) as u32),
        (M::Max, Kind::I32) => two!(|x, y| (x as i32).max(y as i32) as u32),
        (M::Min, Kind::F32) => two!(|x, y| fb(f(x).min(f(y)))),
        (M::Max, Kind::F32) => two!(|x, y| fb(f(x).max(f(y)))),
        (M::Clamp, Kind::U32) => three!(|x, lo, hi| x.max(lo).min(hi)),
        (M::Clamp, Kind::I32) => {
            three!(|x, lo, hi| (x as i32).max(lo as i32).min(hi as i32) as u32)
        }
        (M::Clamp, Kind::F32) => three!(|x, lo, hi| fb(f(x).max(f(lo)).min(f(hi)))),
        (M::Saturate, Kind::F32) => fl!(|x: f32| x.clamp(0.0, 1.0)),
        (M::Cos, _) => fl!(f32::cos),
        (M::Sin, _) => fl!(f32::sin),
        (M::Tan, _) => fl!(f32::tan),
        (M::Cosh, _) => fl!(f32::cosh),
        (M::Sinh, _) => fl!(f32::sinh),
        (M::Tanh, _) => fl!(f32::tanh),
        (M::Acos, _) => fl!(f32::acos),
        (M::Asin, _) => fl!(f32::asin),
        (M::Atan, _) => fl!(f32::atan),
        (M::Asinh, _) => fl!(f32::asinh),
        (M::Acosh, _) => fl!(f32::acosh),
        (M::Atanh, _) => fl!(f32::atanh),
        (M::Atan2, _) => two!(|y, x| fb(f(y).atan2(f(x)))),
        (M::Radians, _) => fl!(f32::to_radians),
        (M::Degrees, _) => fl!(f32::to_degrees),
        (M::Ceil, _) => fl!(f32::ceil),
        (M::Floor, _) => fl!(f32::floor),
        (M::Round, _) => fl!(f32::round_ties_even),
        (M::Fract, _) => fl!(|x: f32| x - x.floor()),
        (M::Trunc, _) => fl!(f32::trunc),
        (M::Exp, _) => fl!(f32::exp),
        (M::Exp2, _) => fl!(f32::exp2),
        (M::Log, _) => fl!(f32::ln),
        (M::Log2, _) => fl!(f32::log2),
        (M::Ldexp, _) => two!(|x, e| fb(ldexp(f(x), e as i32))),
        (M::Pow, _) => two!(|x, y| fb(f(x).powf(f(y)))),
        (M::Sqrt, _) => fl!(f32::sqrt),
        (M::InverseSqrt, _) => fl!(|x: f32| 1.0 / x.sqrt()),
        (M::Sign, Kind::F32) => fl!(|x: f32| if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }),
        (M::Sign, Kind::I32) => map1(dst, a0, words, n, |x| (x as i32).signum() as u32),
        (M::Fma, _) => three!(|x, y, z| fb(f(x).mul_add(f(y), f(z)))),
        (M::Mix, _) => three!(|x, y, t| fb(f(x) * (1.0 - f(t)) + f(y) * f(t))),
        (M::Step, _) => two!(|edge, x| fb(if f(x) >= f(edge) { 1.0 } else { 0.0 })),
        (M::SmoothStep, _) => three!(|e0, e1, x| {
            let t = ((f(x) - f(e0)) / (f(e1) - f(e0))).clamp(0.0, 1.0);
            fb(t * t * (3.0 - 2.0 * t))
        }),
        (M::QuantizeToF16, _) => fl!(|x: f32| f16_to_f32(f32_to_f16(x))),
        (M::CountOneBits, _) => one!(dst, |x| x.count_ones()),
        (M::CountTrailingZeros, _) => one!(dst, |x| x.trailing_zeros()),
        (M::CountLeadingZeros, _) => one!(dst, |x| x.leading_zeros()),
        (M::ReverseBits, _) => one!(dst, |x| x.reverse_bits()),
        (M::FirstTrailingBit, _) => {
            one!(dst, |x| if x == 0 { u32::MAX } else { x.trailing_zeros() })
        }
        (M::FirstLeadingBit, Kind::U32) => one!(dst, |x| {
            if x == 0 {
                u32::MAX
            } else {
                31 - x.leading_zeros()
            }
        }),
        (M::FirstLeadingBit, Kind::I32) => one!(dst, |x| first_leading_bit_i(x as i32)),
        (M::ExtractBits, _) => {
            let signed = k == Kind::I32;
            three!(|e, o, c| extract_bits(e, o, c, signed))
        }
        (M::InsertBits, _) => {
            let d = d1.unwrap_or(a);
            for w in 0..words {
                for l in 0..n.len {
                    let at = w * n.stride + l;
                    let g = |x: (&[u32], usize)| x.0[if x.1 == 1 { l } else { at }];
                    dst[at] = insert_bits(g(a), g(bb), g(cc), g(d));
                }
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `ldexp`: `x · 2^e`, rounded once (the product is exact in f64 for every f32 and every `e`
/// that does not already take the result to zero or infinity, so `e` is clamped to ±400).
pub fn ldexp(x: f32, e: i32) -> f32 {
    (x as f64 * 2f64.powi(e.clamp(-400, 400))) as f32
}

/// IEEE half bits to f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let s = ((h >> 15) as u32) << 31;
    let e = ((h >> 10) & 0x1f) as u32;
    let m = (h & 0x3ff) as u32;
    if e == 0 {
        let v = m as f32 * (1.0 / 16_777_216.0);
        if s != 0 {
            -v
        } else {
            v
        }
    } else if e == 31 {
        f32::from_bits(s | 0x7f80_0000 | (m << 13))
    } else {
        f32::from_bits(s | ((e + 112) << 23) | (m << 13))
    }
}

/// f32 to IEEE half bits, rounding to nearest even.
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let s = ((b >> 16) & 0x8000) as u16;
    let e = ((b >> 23) & 0xff) as i32;
    let m = b & 0x7f_ffff;
    if e == 255 {
        return s | 0x7c00 | if m != 0 { 0x200 } else { 0 };
    }
    let e16 = e - 127 + 15;
    if e16 >= 31 {
        return s | 0x7c00;
    }
    if e16 <= 0 {
        if e16 < -10 {
            return s;
        }
        let m = m | 0x80_0000;
        let shift = (14 - e16) as u32;
        let half = 1u32 << (shift - 1);
        let r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let r = if rem > half || (rem == half && r & 1 == 1) {
            r + 1
        } else {
            r
        };
        return s | r as u16;
    }
    let r = m >> 13;
    let rem = m & 0x1fff;
    let mut v = ((e16 as u32) << 10) | r;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        v += 1;
    }
    s | v as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_every_value() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f16_to_f32(f32_to_f16(f)).is_nan());
            } else {
                assert_eq!(f32_to_f16(f), h, "{h:#06x} -> {f}");
            }
        }
    }

    #[test]
    fn f32_to_f16_rounds_to_nearest_even() {
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00); // tie -> even (down)
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3c02); // tie -> even (up)
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // rounds to infinity
        assert_eq!(f32_to_f16(5.960_464_5e-8), 0x0001); // smallest subnormal
        assert_eq!(f32_to_f16(2.0e-8), 0x0000);
    }

    #[test]
    fn f16_remainder_rounds_each_step_to_f16() {
        // -64 / -0.07940674 is 805.98 in f32 but 806 in f16: f16's remainder is 0 (the GPU's
        // answer on lavapipe), the f32 one -0.0776
        let y = f32::from_bits(0xbda2_a000);
        assert_eq!(f16_to_f32(f32_to_f16(y)), y, "an f16 value");
        let (mut d, mut d32) = ([0u32; 2], [0u32; 2]);
        let (a, b) = (
            [(-64f32).to_bits(), 7.5f32.to_bits()],
            [y.to_bits(), 2f32.to_bits()],
        );
        binary(B::Modulo, Kind::F16, &mut d, &a, 2, &b, 2, 1, Rows::all(2)).unwrap();
        binary(
            B::Modulo,
            Kind::F32,
            &mut d32,
            &a,
            2,
            &b,
            2,
            1,
            Rows::all(2),
        )
        .unwrap();
        assert_eq!(d, [0, 1.5f32.to_bits()]);
        assert_eq!(f32::from_bits(d32[0]), -64.0 - y * 805.0);
        assert_eq!(d32[1], 1.5f32.to_bits());
    }

    #[test]
    fn wgsl_division_rules() {
        let mut d = [0u32; 4];
        let a = [7u32, i32::MIN as u32, 5, (-9i32) as u32];
        let b = [0u32, (-1i32) as u32, 2, 2];
        binary(B::Divide, Kind::I32, &mut d, &a, 4, &b, 4, 1, Rows::all(4)).unwrap();
        assert_eq!(d, [7, i32::MIN as u32, 2, (-4i32) as u32]);
        binary(B::Modulo, Kind::I32, &mut d, &a, 4, &b, 4, 1, Rows::all(4)).unwrap();
        assert_eq!(d, [0, 0, 1, (-1i32) as u32]);
        binary(
            B::ShiftLeft,
            Kind::U32,
            &mut d,
            &[1, 1, 1, 1],
            4,
            &[0, 31, 32, 33],
            4,
            1,
            Rows::all(4),
        )
        .unwrap();
        assert_eq!(d, [1, 1 << 31, 1, 2]);
    }
}
