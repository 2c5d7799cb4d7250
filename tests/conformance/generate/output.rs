//! Outputs: a value written to fresh output words, each compared as its type calls for
//! ([`Cmp`]), and the operations WGSL does not require to be correctly rounded (`sin`, `exp`,
//! `pow`, ...), whose results are written straight to an output compared within those ulps
//! and feed nothing else.

use std::fmt::Write as _;

use super::{Cx, Sc, Stmt, Ty, E, G, XYZW};
use crate::exec::Cmp;

impl G {
    /// Writes `e` of `ty` to fresh output words.
    pub(super) fn out(&mut self, ty: &Ty, e: E, out: &mut Vec<Stmt>) {
        let mut words = Vec::new();
        self.words(ty, "t", &mut words);
        if words.is_empty() {
            return;
        }
        let mut s = format!("{{ let t = {};", e.s);
        for (w, cmp) in words {
            let k = self.outs.len();
            let _ = write!(s, " out[o + {k}u] = {w};");
            self.outs.push(cmp);
        }
        s.push_str(" }");
        out.push(Stmt::Line(s));
    }

    /// The u32 words of a value `v` of `ty`, and how each is compared.
    fn words(&self, ty: &Ty, v: &str, out: &mut Vec<(String, Cmp)>) {
        match ty {
            Ty::S(s) => out.push(match s {
                Sc::Bool => (format!("select(0u, 1u, {v})"), Cmp::Bits),
                Sc::U32 => (v.to_string(), Cmp::Bits),
                Sc::I32 => (format!("bitcast<u32>({v})"), Cmp::Bits),
                Sc::F32 => (format!("bitcast<u32>({v})"), Cmp::F32),
                Sc::F16 => (format!("bitcast<u32>(f32({v}))"), Cmp::F16),
            }),
            Ty::V(n, s) => {
                for c in &XYZW[..*n as usize] {
                    self.words(&Ty::S(*s), &format!("{v}.{c}"), out);
                }
            }
            Ty::M(c, r) => {
                for i in 0..*c {
                    self.words(&Ty::V(*r, Sc::F32), &format!("{v}[{i}]"), out);
                }
            }
            Ty::A(e, n) => {
                for i in 0..*n {
                    self.words(e, &format!("{v}[{i}]"), out);
                }
            }
            Ty::St(i) => {
                for (f, t) in &self.structs[*i] {
                    self.words(t, &format!("{v}.{f}"), out);
                }
            }
        }
    }

    /// An operation WGSL does not require to be correctly rounded, its result written straight
    /// out and compared within the error WGSL's accuracy table allows at the operands generated
    /// (the bounds of "inherited" accuracies worked out for the clamped ranges below), plus
    /// the simulator's own rounding (host libm in f32: one ulp; an f16 result is that, rounded
    /// to f16). `docs/conformance.md` tabulates them.
    pub(super) fn approx(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        // no subgroup operations in these operands: lavapipe's LLVM (Mesa 22.3) aborts on
        // some (`refract` of a `subgroupBroadcastFirst`)
        let mut cx = cx;
        cx.uni = false;
        let s = if self.feat.f16 && self.r.chance(25) {
            Sc::F16
        } else {
            Sc::F32
        };
        let h = s == Sc::F16;
        let (x, y) = if self.feat.fixed_order {
            let x = self.scalar(s, 2, cx);
            let x = self.unfold(s, x, &[], cx);
            let x = self.unmul(s, x);
            let y = self.scalar(s, 1, cx);
            (x, self.unmul(s, y))
        } else {
            // (inputs: see `Features::fixed_order`)
            (self.input(s), self.input(s))
        };
        let fs = s.suffix();
        let c = |lo: f32, hi: f32, e: &str| format!("clamp({e}, {lo:?}{fs}, {hi:?}{fs})");
        // 2^-k
        let p = |k: i32| (-k as f32).exp2();
        // (text, f32 (ulps, abs), f16 (ulps, abs)): within `abs` or within `ulps`
        let (text, t32, t16): (String, (u32, f32), (u32, f32)) = match self.r.below(19) {
            // absolute error 2^-11 (f16: 2^-7) on [-pi, pi]
            0 => (
                format!("sin({})", c(-3.0, 3.0, &x.s)),
                (0, p(11) + p(23)),
                (0, p(7) + p(10)),
            ),
            1 => (
                format!("cos({})", c(-3.0, 3.0, &x.s)),
                (0, p(11) + p(23)),
                (0, p(7) + p(10)),
            ),
            // sin(x) / cos(x): (e + |tan x| e) / (cos x - e) + 2.5 ulp at x = 1, e the
            // absolute error of sin and cos
            2 => (
                format!("tan({})", c(-1.0, 1.0, &x.s)),
                (0, 2.32e-3),
                (0, 0.0405),
            ),
            // 3 + 2|x| ulp (f16: 1 + 2|x|)
            3 => (format!("exp({})", c(-8.0, 8.0, &x.s)), (20, 0.0), (18, 0.0)),
            4 => (
                format!("exp2({})", c(-10.0, 10.0, &x.s)),
                (24, 0.0),
                (22, 0.0),
            ),
            // absolute error 2^-21 (f16: 2^-7) on [0.5, 2], 3 ulp outside
            5 => {
                let f = *self.r.pick(&["log", "log2"]);
                (
                    format!("{f}({})", c(0.5, 2.0, &x.s)),
                    (0, p(21) + p(23)),
                    (0, p(7) + p(10)),
                )
            }
            6 => {
                let f = *self.r.pick(&["log", "log2"]);
                (format!("{f}(abs({}) + 2.5{fs})", x.s), (4, 0.0), (4, 0.0))
            }
            // exp2(y * log2(x)): log2's error (3 ulp of |log2 x| <= 3, f16: 2^-7) times |y| <= 3,
            // the product's rounding, then exp2's 3 + 2 * 9 ulp (f16: 1 + 2 * 9) of a result
            // already off by ln 2 times that: 21 + 31 (f16: 19 + 39) ulp
            7 => (
                format!(
                    "pow({}, {})",
                    c(0.25, 8.0, &format!("abs({})", x.s)),
                    c(-3.0, 3.0, &y.s)
                ),
                (53, 0.0),
                (59, 0.0),
            ),
            // 2 ulp
            8 => (
                format!("inverseSqrt(abs({}) + 0.125{fs})", x.s),
                (3, 0.0),
                (3, 0.0),
            ),
            // 4096 ulp (f16: 5 ulp); asin and acos: or absolute error 6.81e-5 and 6.77e-5
            // (f16: 3.91e-3)
            9 => match self.r.below(3) {
                0 => (format!("atan({})", x.s), (4097, 0.0), (6, 0.0)),
                1 => (
                    format!("asin({})", c(-1.0, 1.0, &x.s)),
                    (4097, 6.81e-5 + p(23)),
                    (6, 3.91e-3 + p(10)),
                ),
                _ => (
                    format!("acos({})", c(-1.0, 1.0, &x.s)),
                    (4097, 6.77e-5 + p(22)),
                    (6, 3.91e-3 + p(9)),
                ),
            },
            // 4096 ulp (f16: 5) for a normal `y` (not zero)
            10 => (
                format!(
                    "atan2(select({}, 0.5{fs}, {} == 0.0{fs}), abs({}) + 0.125{fs})",
                    y.s, y.s, x.s
                ),
                (4097, 0.0),
                (6, 0.0),
            ),
            // (exp(x) -+ exp(-x)) * 0.5 on [-2, 2]: the exps' 3 + 2|x| ulp (f16: 1 + 2|x|),
            // the sum's rounding
            11 => {
                let f = *self.r.pick(&["sinh", "cosh"]);
                (
                    format!("{f}({})", c(-2.0, 2.0, &x.s)),
                    (0, 2.1e-6),
                    (0, 0.0121),
                )
            }
            // absolute error 1e-5, or sinh(x) / cosh(x) (f16: 7.0e-3 at x = 2)
            12 => (
                format!("tanh({})", c(-2.0, 2.0, &x.s)),
                (0, 1e-5 + p(24)),
                (0, 7.5e-3),
            ),
            // log(x + sqrt(x * x + 1)) on [-2, 2]: at x = -2, sqrt's error (inverseSqrt's
            // 2 ulp, the division's 2.5) relative to x + sqrt(5) = 0.236
            13 => (
                format!("asinh({})", c(-2.0, 2.0, &x.s)),
                (0, 4.7e-6),
                (0, 0.0365),
            ),
            // log(x + sqrt(x * x - 1)) on [1.25, 201]: largest at 201, log's 3 ulp of 6
            14 => (
                format!(
                    "acosh({} + 1.0{fs})",
                    c(0.25, 200.0, &format!("abs({})", x.s))
                ),
                (0, 2.2e-6),
                (0, 0.016),
            ),
            // log((1 + x) / (1 - x)) * 0.5 on [-0.875, 0.875]: the division's 2.5 ulp, log's
            // 3 ulp of <= 2.71 (f16: absolute 2^-7)
            15 => (
                format!("atanh({})", c(-0.875, 0.875, &x.s)),
                (0, 6.6e-7),
                (0, 5.9e-3),
            ),
            // x times the constant rounded to the type: within an ulp
            16 => {
                let f = *self.r.pick(&["degrees", "radians"]);
                (format!("{f}({})", x.s), (2, 0.0), (2, 0.0))
            }
            // x - y * trunc(x / y): with `/` correctly rounded (as the device's is: see
            // `Features::exact_div`), the one freedom left is fusing the multiply and the
            // subtraction, which moves the result by at most an ulp of |x| <= 64 (f16: 16);
            // where `/` is not, trunc(x / y) may be off by one near an integer, and the result
            // by y: not generated
            17 if self.feat.exact_div => {
                let big = if h {
                    c(-16.0, 16.0, &x.s)
                } else {
                    c(-64.0, 64.0, &x.s)
                };
                (
                    format!("({big} % select({}, 1.0{fs}, {} == 0.0{fs}))", y.s, y.s),
                    (0, p(17)),
                    (0, p(6)),
                )
            }
            // `/` 2.5 ulp; sqrt is 1 / inverseSqrt: 2 + 2.5 ulp
            _ if !self.feat.exact_div => {
                if self.r.chance(50) {
                    (format!("sqrt(abs({}))", x.s), (5, 0.0), (5, 0.0))
                } else {
                    (format!("({} / {})", x.s, y.s), (3, 0.0), (3, 0.0))
                }
            }
            _ => {
                // vector geometry on quantised operands (f32)
                let n = self.r.range(2, 4) as u8;
                let a = self.quantised(n, 2, cx);
                let b = self.quantised(n, 2, cx);
                let f = self.r.below(4);
                // length: sqrt (1 / inverseSqrt: 4 ulp of the root, 2.5 of the division) of
                // an exact sum of squares; normalize: x / length(x), a component off by
                // length's relative error (up to 9 of its ulps) and the division's 2.5;
                // refract (eta <= 7/8, so k >= 15/64): the absolute error of
                // eta * x - (eta * dot(y, x) + sqrt(k)) * y with x, y normalised
                let (t, cmp) = match f {
                    0 => (
                        format!("length({})", a.s),
                        Cmp::F32Near { ulps: 7, abs: 0.0 },
                    ),
                    1 => (
                        format!("distance({}, {})", a.s, b.s),
                        Cmp::F32Near { ulps: 7, abs: 0.0 },
                    ),
                    2 => (
                        format!("normalize({} + vec{n}(0.03125f))", a.s),
                        Cmp::F32Near { ulps: 13, abs: 0.0 },
                    ),
                    _ => {
                        let eta = self.r.range(1, 7) as f32 / 8.0;
                        (
                            format!("refract(normalize({} + vec{n}(0.03125f)), normalize({} + vec{n}(0.03125f)), {eta:?}f)", a.s, b.s),
                            Cmp::F32Near { ulps: 0, abs: 2.2e-5 },
                        )
                    }
                };
                if f < 2 {
                    let k = self.outs.len();
                    out.push(Stmt::Line(format!("out[o + {k}u] = bitcast<u32>({t});")));
                    self.outs.push(cmp);
                } else {
                    let mut words = Vec::new();
                    self.words(&Ty::V(n, Sc::F32), "t", &mut words);
                    let mut s = format!("{{ let t = {t};");
                    for (w, _) in words {
                        let k = self.outs.len();
                        let _ = write!(s, " out[o + {k}u] = {w};");
                        self.outs.push(cmp);
                    }
                    s.push_str(" }");
                    out.push(Stmt::Line(s));
                }
                return;
            }
        };
        let k = self.outs.len();
        if h {
            out.push(Stmt::Line(format!(
                "out[o + {k}u] = bitcast<u32>(f32({text}));"
            )));
            self.outs.push(Cmp::F16Near {
                ulps: t16.0,
                abs: t16.1,
            });
        } else {
            out.push(Stmt::Line(format!("out[o + {k}u] = bitcast<u32>({text});")));
            self.outs.push(Cmp::F32Near {
                ulps: t32.0,
                abs: t32.1,
            });
        }
    }
}
