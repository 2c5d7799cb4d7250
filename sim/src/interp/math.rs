//! The math builtins that are not componentwise (`ops::math` has those): geometry (`dot`,
//! `length`, `cross`, `reflect`, `refract`, `faceForward` …), matrices (`transpose`,
//! `determinant`), the builtins returning structs (`modf`, `frexp`: the members' registers
//! follow each other, `fract` first), packed dot products and the pack/unpack family.
//!
//! Operands are `(registers, words)`: word `w` of lane `l` at `w * n + l` (`n` the rows'
//! stride, [`ops::Rows`]), a scalar one word.
//! Formulas follow the WGSL specification; floating-point ones are evaluated in f32 in the
//! order the specification writes them (f16 results are rounded by the caller), except
//! `determinant`, evaluated in f64 and rounded once (WGSL asks for no particular accuracy).

use naga::MathFunction as M;

use crate::error::{Error, Result};
use crate::layout::Kind;
use crate::ops;

/// An operand: its registers and its words (components).
pub(super) type Operand<'r> = (&'r [u32], usize);

/// The WGSL name of a math builtin (`Refract` → `refract`, `Pack4x8snorm` → `pack4x8snorm`).
pub(super) fn wgsl_name(fun: M) -> String {
    let debug = format!("{fun:?}");
    let mut chars = debug.chars();
    match chars.next() {
        Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
        None => debug,
    }
}

fn unsupported(fun: M) -> Error {
    Error::Sim(format!(
        "the simulator does not support `{}` yet",
        wgsl_name(fun)
    ))
}

/// An operand naga's validation guarantees for `fun`.
fn need(o: Option<Operand>, fun: M) -> Result<Operand> {
    o.ok_or_else(|| unsupported(fun))
}

/// Evaluates `fun` of `kind` operands `args` (absent operands `None`) into `dst` (`words`
/// result words per lane) for the lanes of `rows`. `matrix` is the (columns, rows) of a matrix first
/// operand.
#[allow(clippy::too_many_arguments)]
pub(super) fn special(
    fun: M,
    kind: Kind,
    dst: &mut [u32],
    args: [Option<Operand>; 3],
    words: usize,
    rows: ops::Rows,
    matrix: Option<(usize, usize)>,
) -> Result<()> {
    let (n, len) = (rows.stride, rows.len);
    let [a, b, c] = args;
    let a = need(a, fun)?;
    let arg = |o| need(o, fun);
    // component `w` of lane `l` of an operand, as f32
    let x = |o: Operand, w: usize, l: usize| f32::from_bits(o.0[w * n + l]);
    let dot = |p: Operand, q: Operand, l: usize| -> f32 {
        (0..p.1).map(|w| x(p, w, l) * x(q, w, l)).sum()
    };
    match fun {
        M::Dot => {
            let b = arg(b)?;
            for l in 0..len {
                dst[l] = if kind == Kind::F32 {
                    dot(a, b, l).to_bits()
                } else {
                    (0..a.1).fold(0u32, |acc, w| {
                        acc.wrapping_add(a.0[w * n + l].wrapping_mul(b.0[w * n + l]))
                    })
                };
            }
        }
        M::Dot4I8Packed | M::Dot4U8Packed => {
            let b = arg(b)?;
            let signed = fun == M::Dot4I8Packed;
            for l in 0..len {
                dst[l] = dot4_packed(a.0[l], b.0[l], signed);
            }
        }
        M::Length => {
            for l in 0..len {
                dst[l] = dot(a, a, l).sqrt().to_bits();
            }
        }
        M::Distance => {
            let b = arg(b)?;
            for l in 0..len {
                let s: f32 = (0..a.1).map(|w| (x(a, w, l) - x(b, w, l)).powi(2)).sum();
                dst[l] = s.sqrt().to_bits();
            }
        }
        M::Normalize => {
            for l in 0..len {
                let s = dot(a, a, l).sqrt();
                for w in 0..words {
                    dst[w * n + l] = (x(a, w, l) / s).to_bits();
                }
            }
        }
        M::Cross => {
            let b = arg(b)?;
            for l in 0..len {
                let (p, q) = (|i| x(a, i, l), |i| x(b, i, l));
                let v = [
                    p(1) * q(2) - p(2) * q(1),
                    p(2) * q(0) - p(0) * q(2),
                    p(0) * q(1) - p(1) * q(0),
                ];
                for (w, v) in v.iter().enumerate() {
                    dst[w * n + l] = v.to_bits();
                }
            }
        }
        M::Reflect => {
            // e1 - 2 * dot(e2, e1) * e2
            let b = arg(b)?;
            for l in 0..len {
                let d = dot(b, a, l);
                for w in 0..words {
                    dst[w * n + l] = (x(a, w, l) - 2.0 * d * x(b, w, l)).to_bits();
                }
            }
        }
        M::Refract => {
            // k = 1 - eta² (1 - dot(e2, e1)²); 0 if k < 0, else eta e1 - (eta dot + √k) e2
            let (b, c) = (arg(b)?, arg(c)?);
            for l in 0..len {
                let (d, eta) = (dot(b, a, l), x(c, 0, l));
                let k = 1.0 - eta * eta * (1.0 - d * d);
                for w in 0..words {
                    let v = if k < 0.0 {
                        0.0
                    } else {
                        eta * x(a, w, l) - (eta * d + k.sqrt()) * x(b, w, l)
                    };
                    dst[w * n + l] = v.to_bits();
                }
            }
        }
        M::FaceForward => {
            // e1 if dot(e2, e3) < 0, else -e1
            let (b, c) = (arg(b)?, arg(c)?);
            for l in 0..len {
                let keep = dot(b, c, l) < 0.0;
                for w in 0..words {
                    let v = a.0[w * n + l];
                    dst[w * n + l] = if keep { v } else { v ^ 0x8000_0000 };
                }
            }
        }
        M::Transpose => {
            let (cols, mrows) = matrix.ok_or_else(|| unsupported(fun))?;
            for col in 0..cols {
                for row in 0..mrows {
                    let (from, to) = (col * mrows + row, row * cols + col);
                    dst[rows.at(to)].copy_from_slice(&a.0[rows.at(from)]);
                }
            }
        }
        M::Determinant => {
            let (cols, rows) = matrix.ok_or_else(|| unsupported(fun))?;
            if cols != rows || !(2..=4).contains(&cols) {
                return Err(unsupported(fun));
            }
            let mut m = [[0f64; 4]; 4];
            for l in 0..len {
                for (col, column) in m.iter_mut().enumerate().take(cols) {
                    for (row, v) in column.iter_mut().enumerate().take(rows) {
                        *v = x(a, col * rows + row, l) as f64;
                    }
                }
                dst[l] = (determinant(&m, cols) as f32).to_bits();
            }
        }
        M::Modf => {
            // struct { fract, whole }
            let k = a.1;
            for w in 0..k {
                for l in 0..len {
                    let v = x(a, w, l);
                    let whole = v.trunc();
                    dst[w * n + l] = (v - whole).to_bits();
                    dst[(k + w) * n + l] = whole.to_bits();
                }
            }
        }
        M::Frexp => {
            // struct { fract, exp }
            let k = a.1;
            for w in 0..k {
                for l in 0..len {
                    let (fract, exp) = frexp(x(a, w, l));
                    dst[w * n + l] = fract.to_bits();
                    dst[(k + w) * n + l] = exp as u32;
                }
            }
        }
        M::Pack4x8snorm => pack(dst, a, rows, 8, |v| {
            (0.5 + 127.0 * v.clamp(-1.0, 1.0)).floor() as i32 as u32
        }),
        M::Pack4x8unorm => pack(dst, a, rows, 8, |v| {
            (0.5 + 255.0 * v.clamp(0.0, 1.0)).floor() as u32
        }),
        M::Pack2x16snorm => pack(dst, a, rows, 16, |v| {
            (0.5 + 32767.0 * v.clamp(-1.0, 1.0)).floor() as i32 as u32
        }),
        M::Pack2x16unorm => pack(dst, a, rows, 16, |v| {
            (0.5 + 65535.0 * v.clamp(0.0, 1.0)).floor() as u32
        }),
        M::Pack2x16float => pack(dst, a, rows, 16, |v| ops::f32_to_f16(v) as u32),
        M::Pack4xI8 | M::Pack4xU8 => pack_int(dst, a, rows, |v| v),
        M::Pack4xI8Clamp => pack_int(dst, a, rows, |v| (v as i32).clamp(-128, 127) as u32),
        M::Pack4xU8Clamp => pack_int(dst, a, rows, |v| v.min(255)),
        M::Unpack4x8snorm => unpack(dst, a.0, rows, 8, |b| {
            (b as u8 as i8 as f32 / 127.0).max(-1.0).to_bits()
        }),
        M::Unpack4x8unorm => unpack(dst, a.0, rows, 8, |b| (b as f32 / 255.0).to_bits()),
        M::Unpack2x16snorm => unpack(dst, a.0, rows, 16, |b| {
            (b as u16 as i16 as f32 / 32767.0).max(-1.0).to_bits()
        }),
        M::Unpack2x16unorm => unpack(dst, a.0, rows, 16, |b| (b as f32 / 65535.0).to_bits()),
        M::Unpack2x16float => unpack(dst, a.0, rows, 16, |b| ops::f16_to_f32(b as u16).to_bits()),
        M::Unpack4xI8 => unpack(dst, a.0, rows, 8, |b| b as u8 as i8 as i32 as u32),
        M::Unpack4xU8 => unpack(dst, a.0, rows, 8, |b| b),
        _ => return Err(unsupported(fun)),
    }
    Ok(())
}

/// Packs the f32 components of `a` into one word, `bits` each, component 0 lowest.
fn pack(dst: &mut [u32], a: Operand, rows: ops::Rows, bits: u32, f: impl Fn(f32) -> u32) {
    let (n, len) = (rows.stride, rows.len);
    let mask = (1u32 << bits) - 1;
    for l in 0..len {
        dst[l] = (0..a.1).fold(0, |acc, c| {
            acc | (f(f32::from_bits(a.0[c * n + l])) & mask) << (bits * c as u32)
        });
    }
}

/// Packs the four integer components of `a` into bytes, component 0 lowest.
fn pack_int(dst: &mut [u32], a: Operand, rows: ops::Rows, f: impl Fn(u32) -> u32) {
    let (n, len) = (rows.stride, rows.len);
    for l in 0..len {
        dst[l] = (0..4).fold(0, |acc, c| acc | (f(a.0[c * n + l]) & 0xff) << (8 * c));
    }
}

/// Unpacks each word of `a` into `32 / bits` components, component 0 from the lowest bits.
fn unpack(dst: &mut [u32], a: &[u32], rows: ops::Rows, bits: u32, f: impl Fn(u32) -> u32) {
    let (n, len) = (rows.stride, rows.len);
    let mask = (1u32 << bits) - 1;
    for l in 0..len {
        for c in 0..(32 / bits) as usize {
            dst[c * n + l] = f((a[l] >> (bits * c as u32)) & mask);
        }
    }
}

/// `dot4I8Packed` / `dot4U8Packed`: the dot product of the four bytes of each word (sign
/// extended for the signed one), wrapping.
fn dot4_packed(a: u32, b: u32, signed: bool) -> u32 {
    (0..4).fold(0u32, |acc, c| {
        let (x, y) = ((a >> (8 * c)) & 0xff, (b >> (8 * c)) & 0xff);
        let p = if signed {
            (x as u8 as i8 as i32 * y as u8 as i8 as i32) as u32
        } else {
            x * y
        };
        acc.wrapping_add(p)
    })
}

/// `frexp`: `x = fract · 2^exp` with `|fract|` in [0.5, 1); (x, 0) for zero, infinities, NaN.
pub(super) fn frexp(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    // subnormals: scale into the normal range first
    let (x, bias) = if x.abs() < f32::MIN_POSITIVE {
        (x * 2f32.powi(64), -64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 126;
    let fract = f32::from_bits((bits & 0x807f_ffff) | (126 << 23));
    (fract, exp + bias)
}

/// Determinant of the leading `k`×`k` block of `m` (column-major), by cofactor expansion.
fn determinant(m: &[[f64; 4]; 4], k: usize) -> f64 {
    if k == 1 {
        return m[0][0];
    }
    let mut det = 0.0;
    for col in 0..k {
        // the minor without column `col` and row 0
        let mut minor = [[0f64; 4]; 4];
        for (mc, c) in (0..k).filter(|&c| c != col).enumerate() {
            for r in 1..k {
                minor[mc][r - 1] = m[c][r];
            }
        }
        let sign = if col % 2 == 0 { 1.0 } else { -1.0 };
        det += sign * m[col][0] * determinant(&minor, k - 1);
    }
    det
}
