//! Scalar expressions: the forms every scalar type shares (`select`, a component of a vector,
//! a helper's call, a subgroup operation), then booleans, integer arithmetic, bit operations
//! and conversions, the pack family, and float arithmetic. Integer division and remainder take
//! a divisor naga accepts ([`G::divisor`]), a constant shift amount is below 32, float→int
//! and f16 conversions are clamped into range first; the float operations are those a GPU
//! rounds correctly (`/` and `sqrt` only where the device does, `Features::exact_div`), float
//! sums of products (`dot`, `determinant`) take quantised or small-integer operands, and the
//! operands of an addition, a subtraction or a comparison never share a leaf ([`E::terms`]).

use super::{Cx, Sc, Ty, E, G, UZ, XYZW};

/// f16's smallest normal value, as an f32 literal.
const F16_NORMAL: &str = "0.00006103515625f";

impl G {
    pub(super) fn scalar(&mut self, s: Sc, d: u32, cx: Cx) -> E {
        if d == 0 || self.r.chance(15) {
            return self.leaf(s, cx);
        }
        // shared forms
        match self.r.below(20) {
            0 => {
                let c = self.expr(&Ty::S(Sc::Bool), d - 1, cx);
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                return E::new(format!("select({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                    .sum_of(&[&a, &b]);
            }
            1 => {
                // a component of a vector
                let n = self.r.range(2, 4) as u8;
                let v = self.vector(n, s, d - 1, cx);
                if self.r.chance(50) {
                    let c = XYZW[self.r.below(n as u32) as usize];
                    return E::new(format!("({}).{c}", v.s), &[&v]).sum_of(&[&v]);
                }
                let (i, _) = self.fill_index(&format!("§{n}§"), true, cx);
                let mut e = E::new(format!("({})[{i}]", v.s), &[&v]).sum_of(&[&v]);
                e.uni = false;
                return e;
            }
            2 => {
                if let Some(e) = self.call(&Ty::S(s), d, cx) {
                    return e;
                }
            }
            // no f16 subgroup operations: lavapipe's LLVM (Mesa 22.3) aborts on some
            3 if cx.uni && !cx.helper && self.feat.subgroups && s != Sc::F16 => {
                return self.subgroup(&Ty::S(s), d, cx);
            }
            _ => {}
        }
        match s {
            Sc::Bool => self.boolean(d, cx),
            Sc::I32 | Sc::U32 => self.integer(s, d, cx),
            Sc::F32 | Sc::F16 => self.float(s, d, cx),
        }
    }

    fn boolean(&mut self, d: u32, cx: Cx) -> E {
        match self.r.below(9) {
            0..=2 => {
                let t = self.scalar_ty();
                let t = if t == Sc::Bool { Sc::I32 } else { t };
                let a = self.scalar(t, d - 1, cx);
                let b = self.scalar(t, d - 1, cx);
                let b = self.unfold(t, b, &[&a], cx);
                // `x + y < x` may be compiled as `y < 0`
                let b = if t.float() && a.shares(&b) {
                    self.fresh_float(t, 1, &a, cx)
                } else {
                    b
                };
                let op = self.r.pick(&["==", "!=", "<", "<=", ">", ">="]);
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            3 => {
                let a = self.scalar(Sc::Bool, d - 1, cx);
                E::new(format!("!({})", a.s), &[&a])
            }
            4 | 5 => {
                let a = self.scalar(Sc::Bool, d - 1, cx);
                let op = *self.r.pick(&["&&", "||", "&", "|", "!=", "=="]);
                // naga evaluates the right operand of `&&` and `||` only where it decides
                let mut rcx = cx;
                if op == "&&" || op == "||" {
                    rcx.uni = cx.uni && a.uni;
                }
                let b = self.scalar(Sc::Bool, d - 1, rcx);
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            6 => {
                let n = self.r.range(2, 4) as u8;
                let v = self.vector(n, Sc::Bool, d - 1, cx);
                let f = self.r.pick(&["all", "any"]);
                E::new(format!("{f}({})", v.s), &[&v])
            }
            _ => {
                let t = *self.r.pick(&[Sc::I32, Sc::U32, Sc::F32]);
                let a = self.scalar(t, d - 1, cx);
                let a = self.unfold(t, a, &[], cx);
                E::new(format!("bool({})", a.s), &[&a])
            }
        }
    }

    fn integer(&mut self, s: Sc, d: u32, cx: Cx) -> E {
        let t = s.name();
        let sfx = s.suffix();
        match self.r.below(16) {
            0..=2 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let op = *self
                    .r
                    .pick(&["+", "-", "*", "/", "%", "&", "|", "^", "/", "%"]);
                let b = if op == "/" || op == "%" {
                    self.divisor(s, None, b, cx)
                } else {
                    b
                };
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            3 => {
                let a = self.scalar(s, d - 1, cx);
                let b = if self.r.chance(30) {
                    E::lit(format!("{}u", self.r.below(32)))
                } else {
                    let b = self.scalar(Sc::U32, d - 1, cx);
                    self.unfold(Sc::U32, b, &[], cx)
                };
                let a = self.unfold(s, a, &[&b], cx);
                let op = self.r.pick(&["<<", ">>"]);
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            4 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                if s == Sc::I32 && self.r.chance(50) {
                    E::new(format!("(-{})", a.s), &[&a])
                } else {
                    E::new(format!("(~{})", a.s), &[&a])
                }
            }
            5 | 6 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                let mut fs = vec![
                    "abs",
                    "countOneBits",
                    "countLeadingZeros",
                    "countTrailingZeros",
                    "firstLeadingBit",
                    "firstTrailingBit",
                    "reverseBits",
                ];
                if s == Sc::I32 {
                    fs.push("sign");
                }
                let f = self.r.pick(&fs);
                E::new(format!("{f}({})", a.s), &[&a])
            }
            7 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                if self.r.chance(70) {
                    let f = self.r.pick(&["min", "max"]);
                    E::new(format!("{f}({}, {})", a.s, b.s), &[&a, &b])
                } else {
                    let c = self.scalar(s, d - 1, cx);
                    E::new(format!("clamp({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                }
            }
            8 => {
                let e = self.scalar(s, d - 1, cx);
                let off = self.scalar(Sc::U32, 0, cx);
                let cnt = self.scalar(Sc::U32, 0, cx);
                let e = self.unfold(s, e, &[&off, &cnt], cx);
                if self.r.chance(50) {
                    E::new(
                        format!("extractBits({}, {}, {})", e.s, off.s, cnt.s),
                        &[&e, &off, &cnt],
                    )
                } else {
                    let nb = self.scalar(s, d - 1, cx);
                    E::new(
                        format!("insertBits({}, {}, {}, {})", e.s, nb.s, off.s, cnt.s),
                        &[&e, &nb, &off, &cnt],
                    )
                }
            }
            9 | 10 => {
                // conversions
                match self.r.below(4) {
                    0 => {
                        let o = if s == Sc::I32 { Sc::U32 } else { Sc::I32 };
                        let a = self.scalar(o, d - 1, cx);
                        let a = self.unfold(o, a, &[], cx);
                        if self.r.chance(50) {
                            E::new(format!("{t}({})", a.s), &[&a])
                        } else {
                            E::new(format!("bitcast<{t}>({})", a.s), &[&a])
                        }
                    }
                    1 => {
                        let a = self.scalar(Sc::Bool, d - 1, cx);
                        let a = self.unfold(Sc::Bool, a, &[], cx);
                        E::new(format!("{t}({})", a.s), &[&a])
                    }
                    _ => {
                        // float to int, clamped into range first (WGSL saturates anyway)
                        let f = if self.feat.f16 && self.r.chance(30) {
                            Sc::F16
                        } else {
                            Sc::F32
                        };
                        // (an input where the device reorders: a float off by an ulp can
                        // convert to another integer, `Features::fixed_order`)
                        let a = self.exact_float(f, d - 1, cx);
                        let fs = f.suffix();
                        let (lo, hi) = match (s, f) {
                            (Sc::I32, Sc::F32) => ("-2147483520.0", "2147483520.0"),
                            (Sc::U32, Sc::F32) => ("-5.0", "4294967040.0"),
                            (Sc::I32, _) => ("-65504.0", "65504.0"),
                            _ => ("-5.0", "65504.0"),
                        };
                        E::new(format!("{t}(clamp({}, {lo}{fs}, {hi}{fs}))", a.s), &[&a])
                    }
                }
            }
            11 => {
                // dot products of integer vectors, packed dot products, packs
                match self.r.below(3) {
                    0 => {
                        let n = self.r.range(2, 4) as u8;
                        let a = self.vector(n, s, d - 1, cx);
                        let b = self.vector(n, s, d - 1, cx);
                        let b = self.unfold_v(n, s, b, &[&a], cx);
                        E::new(format!("dot({}, {})", a.s, b.s), &[&a, &b]).product()
                    }
                    1 => {
                        let a = self.scalar(Sc::U32, d - 1, cx);
                        let b = self.scalar(Sc::U32, d - 1, cx);
                        let b = self.unfold(Sc::U32, b, &[&a], cx);
                        let f = if s == Sc::I32 {
                            "dot4I8Packed"
                        } else {
                            "dot4U8Packed"
                        };
                        E::new(format!("{f}({}, {})", a.s, b.s), &[&a, &b])
                    }
                    _ if s == Sc::U32 => self.pack(d, cx),
                    _ => {
                        let a = self.exact_float(Sc::F32, d - 1, cx);
                        let part = if self.r.chance(50) {
                            "exp"
                        } else {
                            return E::new(
                                format!("i32(clamp(modf({}).whole, -1e9f, 1e9f))", a.s),
                                &[&a],
                            );
                        };
                        E::new(format!("frexp({}).{part}", a.s), &[&a])
                    }
                }
            }
            12 if self.helpers.iter().any(|h| h.ret == Ty::S(s)) => {
                self.call(&Ty::S(s), d, cx).unwrap()
            }
            _ => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let op = self.r.pick(&["+", "-", "*", "&", "^"]);
                let _ = sfx;
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
        }
    }

    /// An integer divisor naga accepts: not a constant, and not a vector naga could see a
    /// literal zero in (`vec2(0u, x)`: naga rejects it, though WGSL does not).
    pub(super) fn divisor(&mut self, s: Sc, n: Option<u8>, e: E, cx: Cx) -> E {
        let e = if e.cnst {
            let a = self.nonconst_leaf(s, cx);
            match n {
                Some(n) => E::new(format!("vec{n}<{}>({})", s.name(), a.s), &[&a]),
                None => a,
            }
        } else {
            e
        };
        match n {
            Some(n) => E::new(format!("({} ^ vec{n}<{}>())", e.s, s.name()), &[&e]),
            None => e,
        }
    }

    /// The pack family (u32 results). The normalised packs round `0.5 + 127 * v` down in
    /// WGSL, to even on lavapipe (GLSL's `packSnorm4x8`): their operands get `+ 2^-10`, which
    /// keeps a value of few significant bits off the halfway points (`127 * (k / 2^m + 2^-10)`
    /// never lies halfway between two integers).
    fn pack(&mut self, d: u32, cx: Cx) -> E {
        match self.r.below(4) {
            0 => {
                let f = *self.r.pick(&["pack4x8snorm", "pack4x8unorm"]);
                let v = self.vector(4, Sc::F32, d - 1, cx);
                let v = self.unfold_v(4, Sc::F32, v, &[], cx);
                let v = self.unmul(Sc::F32, v);
                E::new(format!("{f}({} + (0.0009765625f + fz))", v.s), &[&v])
            }
            1 => {
                let fs: &[&str] = if self.half_ok() {
                    &["pack2x16snorm", "pack2x16unorm", "pack2x16float"]
                } else {
                    &["pack2x16snorm", "pack2x16unorm"]
                };
                let f = *self.r.pick(fs);
                let v = self.vector(2, Sc::F32, d - 1, cx);
                let v = self.unfold_v(2, Sc::F32, v, &[], cx);
                if f == "pack2x16float" {
                    // outside f16's finite range the result is indeterminate; a subnormal f16
                    // may be flushed to zero, and the sign of a zero ignored: operands below
                    // f16's smallest normal (zeros too) become 0.5
                    let c = format!("clamp({}, vec2(-65504.0f), vec2(65504.0f))", v.s);
                    return E::new(
                        format!("{f}(select({c}, vec2(0.5f), abs({c}) < vec2({F16_NORMAL})) + fz)"),
                        &[&v],
                    );
                }
                let v = self.unmul(Sc::F32, v);
                E::new(format!("{f}({} + (0.0009765625f + fz))", v.s), &[&v])
            }
            _ => {
                let (f, s) = *self.r.pick(&[
                    ("pack4xI8", Sc::I32),
                    ("pack4xU8", Sc::U32),
                    ("pack4xI8Clamp", Sc::I32),
                    ("pack4xU8Clamp", Sc::U32),
                ]);
                let v = self.vector(4, s, d - 1, cx);
                let v = self.unfold_v(4, s, v, &[], cx);
                let z = if s == Sc::I32 {
                    format!("bitcast<i32>({UZ})")
                } else {
                    UZ.to_string()
                };
                E::new(format!("{f}(({}) ^ vec4({z}))", v.s), &[&v])
            }
        }
    }

    fn float(&mut self, s: Sc, d: u32, cx: Cx) -> E {
        let t = s.name();
        let fs = s.suffix();
        match self.r.below(17) {
            0..=3 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let ops: &[&str] = if self.feat.exact_div {
                    &["+", "-", "*", "/", "+", "-", "*"]
                } else {
                    &["+", "-", "*"]
                };
                let op = *self.r.pick(ops);
                self.fbin(s, op, a, b, 1, cx)
            }
            4 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                E::new(format!("(-{})", a.s), &[&a]).sum_of(&[&a])
            }
            5 | 6 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                let mut fs = vec![
                    "abs", "floor", "ceil", "trunc", "round", "fract", "sign", "saturate",
                ];
                if self.feat.exact_div {
                    fs.push("sqrt");
                }
                let f = *self.r.pick(&fs);
                if f == "sqrt" {
                    // a compiler rewrites `x / sqrt(y)` as `x * inverseSqrt(y)` and
                    // `sqrt(y) * sqrt(y)` as `y` (lavapipe does): the root passes `+ fz`
                    let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
                    return E::new(format!("(sqrt(abs({})) + {z})", a.s), &[&a]);
                }
                // `fract(x)` is `x - floor(x)`: a subtraction
                let a = if f == "fract" { self.unmul(s, a) } else { a };
                E::new(format!("{f}({})", a.s), &[&a])
            }
            7 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                match self.r.below(4) {
                    0 => E::new(format!("min({}, {})", a.s, b.s), &[&a, &b]),
                    1 => E::new(format!("max({}, {})", a.s, b.s), &[&a, &b]),
                    2 => E::new(format!("step({}, {})", a.s, b.s), &[&a, &b]),
                    _ => {
                        let c = self.scalar(s, d - 1, cx);
                        E::new(format!("clamp({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                    }
                }
            }
            8 | 9 => {
                // conversions
                match self.r.below(5) {
                    0 => {
                        let i = *self.r.pick(&[Sc::I32, Sc::U32]);
                        let a = self.scalar(i, d - 1, cx);
                        let a = self.unfold(i, a, &[], cx);
                        if s == Sc::F16 {
                            let (lo, hi) = if i == Sc::I32 {
                                ("-2048i", "2048i")
                            } else {
                                ("0u", "2048u")
                            };
                            return E::new(
                                format!("(f16(clamp({}, {lo}, {hi})) + f16(fz))", a.s),
                                &[&a],
                            );
                        }
                        // a converted integer literal is a float constant a compiler may
                        // reassociate with (`9.0 + (x - y)` as `(9.0 + x) - y`): `+ fz`
                        E::new(format!("({t}({}) + fz)", a.s), &[&a])
                    }
                    1 => {
                        let a = self.scalar(Sc::Bool, d - 1, cx);
                        let a = self.unfold(Sc::Bool, a, &[], cx);
                        let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
                        E::new(format!("({t}({}) + {z})", a.s), &[&a])
                    }
                    2 if self.feat.f16 => {
                        // where the device reorders, an input: the H200 evaluates an f16
                        // expression converted to f32 in f32, and drops the rounding of an
                        // f32 converted to f16 and back (`Features::fixed_order`)
                        if s == Sc::F32 {
                            let a = self.exact_float(Sc::F16, d - 1, cx);
                            E::new(format!("f32({})", a.s), &[&a])
                        } else if self.feat.fixed_order {
                            let a = self.scalar(Sc::F32, d - 1, cx);
                            let a = self.unfold(Sc::F32, a, &[], cx);
                            E::new(format!("f16(clamp({}, -65504.0f, 65504.0f))", a.s), &[&a])
                        } else {
                            let h = self.input(Sc::F16);
                            E::new(format!("f16(f32({}))", h.s), &[&h])
                        }
                    }
                    3 if s == Sc::F32 && self.half_ok() => {
                        let a = self.scalar(Sc::F32, d - 1, cx);
                        let a = self.unfold(Sc::F32, a, &[], cx);
                        // the f16 may be flushed to zero where it is subnormal: none is made
                        let c = format!("clamp({}, -65504.0f, 65504.0f)", a.s);
                        E::new(
                            format!("quantizeToF16(select({c}, 0.5f, abs({c}) < {F16_NORMAL}))"),
                            &[&a],
                        )
                    }
                    _ => {
                        let a = self.scalar(s, d - 1, cx);
                        let a = self.unfold(s, a, &[], cx);
                        let e = self.scalar(Sc::I32, d - 1, cx);
                        E::new(
                            format!("ldexp({}, clamp({}, -12i, 12i))", a.s, e.s),
                            &[&a, &e],
                        )
                    }
                }
            }
            10 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                // naga types frexp(f16).exp as i16, which WGSL has not
                let fs: &[&str] = if s == Sc::F32 {
                    &["frexp({}).fract", "modf({}).fract", "modf({}).whole"]
                } else {
                    &["modf({}).fract", "modf({}).whole"]
                };
                let f = *self.r.pick(fs);
                let a = self.unmul(s, a);
                E::new(f.replace("{}", &a.s), &[&a])
            }
            11 if s == Sc::F32 => {
                // a sum of products of quantised operands: exact in any order
                let n = self.r.range(2, 4) as u8;
                let a = self.quantised(n, d, cx);
                let b = self.quantised(n, d, cx);
                E::new(format!("dot({}, {})", a.s, b.s), &[&a, &b]).product()
            }
            12 if s == Sc::F32 => {
                // the determinant of a small-integer matrix: exact
                let n = self.r.range(2, 4) as u8;
                let cols: Vec<E> = (0..n).map(|_| self.small_int_vec(n, d, cx)).collect();
                let refs: Vec<&E> = cols.iter().collect();
                let list: Vec<&str> = cols.iter().map(|c| c.s.as_str()).collect();
                E::new(
                    format!("determinant(mat{n}x{n}<f32>({}))", list.join(", ")),
                    &refs,
                )
                .product()
            }
            _ => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let op = *self.r.pick(&["+", "-", "*"]);
                let _ = fs;
                self.fbin(s, op, a, b, 1, cx)
            }
        }
    }

    /// `a op b` for floats (scalars or vectors of `s`, `b` possibly a scalar): the operands
    /// of an addition or subtraction and a divisor are freed of products first; a product or
    /// quotient is one itself.
    /// `b` has `bn` components (1: a scalar). Operands of an addition or subtraction that
    /// share a term ([`E::terms`]) get a fresh `b`.
    pub(super) fn fbin(&mut self, s: Sc, op: &str, a: E, b: E, bn: u8, cx: Cx) -> E {
        match op {
            "+" | "-" => {
                let b = if a.shares(&b) {
                    self.fresh_float(s, bn, &a, cx)
                } else {
                    b
                };
                let (a, b) = (self.unmul(s, a), self.unmul(s, b));
                let mut e = E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]).sum_of(&[&a, &b]);
                e.mulf = false;
                e
            }
            "/" => {
                let b = self.unmul(s, b);
                E::new(format!("({} / {})", a.s, b.s), &[&a, &b]).product()
            }
            _ => E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]).product(),
        }
    }

    /// A float of `s` whose value no reordering moves: any expression of depth `d` where the
    /// device evaluates as written, an input where it reorders (`Features::fixed_order`).
    fn exact_float(&mut self, s: Sc, d: u32, cx: Cx) -> E {
        if self.feat.fixed_order {
            let a = self.scalar(s, d, cx);
            self.unfold(s, a, &[], cx)
        } else {
            self.input(s)
        }
    }

    /// A per-invocation input of `s` (a scalar, or splat to `n` components) that shares no
    /// term with `avoid`.
    pub(super) fn fresh_float(&mut self, s: Sc, n: u8, avoid: &E, _cx: Cx) -> E {
        let mut e = self.input(s);
        for _ in 0..16 {
            if !avoid.shares(&e) {
                break;
            }
            e = self.input(s);
        }
        if n > 1 {
            E::new(format!("vec{n}<{}>({})", s.name(), e.s), &[&e]).sum_of(&[&e])
        } else {
            e
        }
    }
}
