//! Vector and matrix expressions: constructors, swizzles, `select`, componentwise operations
//! and builtins, conversions, the unpack family (its operand through [`UZ`]), matrix sums,
//! scalings and transposes, and sums of products (`cross`, matrix-vector products,
//! `faceForward`, `mix`) of quantised operands ([`G::quantised`]), where every order of
//! summation and every fused multiply-add gives the same bits.

use super::{Cx, Sc, Ty, E, G, UZ, XYZW};

/// The longest matrix expression generated, in characters (see `G::matrix`).
const MAX_MATRIX_TEXT: usize = 4000;

impl G {
    /// An f32 vector of multiples of 1/16 in [-8, 8]: products of two have at most 14
    /// significant bits, sums of four at most 17, so any order of evaluation is exact.
    /// No subgroup operation inside: lavapipe's LLVM (Mesa 22.3) aborts on some geometry
    /// builtins (`faceForward`, `refract`) of subgroup broadcasts.
    pub(super) fn quantised(&mut self, n: u8, d: u32, cx: Cx) -> E {
        let mut cx = cx;
        cx.uni = false;
        let v = self.vector(n, Sc::F32, d.saturating_sub(1), cx);
        let v = self.unfold_v(n, Sc::F32, v, &[], cx);
        E::new(
            format!(
                "(floor(clamp({}, vec{n}(-8.0f), vec{n}(8.0f)) * 16.0f) * 0.0625f)",
                v.s
            ),
            &[&v],
        )
    }

    /// An f32 vector of integers in [-3, 3].
    pub(super) fn small_int_vec(&mut self, n: u8, d: u32, cx: Cx) -> E {
        let mut cx = cx;
        cx.uni = false;
        let v = self.vector(n, Sc::F32, d.saturating_sub(2), cx);
        let v = self.unfold_v(n, Sc::F32, v, &[], cx);
        E::new(
            format!("floor(clamp({}, vec{n}(-3.0f), vec{n}(3.0f)))", v.s),
            &[&v],
        )
    }

    pub(super) fn unfold_v(&mut self, n: u8, s: Sc, e: E, others: &[&E], cx: Cx) -> E {
        if e.cnst && others.iter().all(|o| o.cnst) {
            let a = self.nonconst_leaf(s, cx);
            E::new(format!("vec{n}<{}>({})", s.name(), a.s), &[&a])
        } else {
            e
        }
    }

    pub(super) fn vector(&mut self, n: u8, s: Sc, d: u32, cx: Cx) -> E {
        let ty = Ty::V(n, s);
        let vt = self.ty_name(&ty);
        if d == 0 || self.r.chance(15) {
            if let Some(p) = self.read_place(&ty, cx, 50) {
                return p;
            }
            if self.r.chance(50) {
                let a = self.leaf(s, cx);
                return E::new(format!("{vt}({})", a.s), &[&a]).sum_of(&[&a]);
            }
            let parts: Vec<E> = (0..n).map(|_| self.leaf(s, cx)).collect();
            let refs: Vec<&E> = parts.iter().collect();
            let list: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
            return E::new(format!("{vt}({})", list.join(", ")), &refs).sum_of(&refs);
        }
        match self.r.below(14) {
            0 => {
                // from parts of mixed sizes
                let first = self.r.range(1, n as i32 - 1) as u8;
                let a = if first == 1 {
                    self.scalar(s, d - 1, cx)
                } else {
                    self.vector(first, s, d - 1, cx)
                };
                let rest = n - first;
                let b = if rest == 1 {
                    self.scalar(s, d - 1, cx)
                } else {
                    self.vector(rest, s, d - 1, cx)
                };
                E::new(format!("{vt}({}, {})", a.s, b.s), &[&a, &b]).sum_of(&[&a, &b])
            }
            1 => {
                // a swizzle of another vector
                let m = self.r.range(2, 4) as u8;
                let v = self.vector(m, s, d - 1, cx);
                let sw: String = (0..n)
                    .map(|_| XYZW[self.r.below(m as u32) as usize])
                    .collect();
                E::new(format!("({}).{sw}", v.s), &[&v]).sum_of(&[&v])
            }
            2 => {
                let c = if self.r.chance(50) {
                    self.scalar(Sc::Bool, d - 1, cx)
                } else {
                    self.vector(n, Sc::Bool, d - 1, cx)
                };
                let a = self.vector(n, s, d - 1, cx);
                let b = self.vector(n, s, d - 1, cx);
                // either operand is its value: `(x + y) - select(x, x, c)` is `(x + y) - x`
                E::new(format!("select({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                    .sum_of(&[&a, &b])
            }
            3 if cx.uni && !cx.helper && self.feat.subgroups && s != Sc::F16 => {
                self.subgroup(&ty, d, cx)
            }
            4 if self.helpers.iter().any(|h| h.ret == ty) => self.call(&ty, d, cx).unwrap(),
            5 if s == Sc::F32 && n == 3 && self.r.chance(50) => {
                let a = self.quantised(3, d, cx);
                let b = self.quantised(3, d, cx);
                E::new(format!("cross({}, {})", a.s, b.s), &[&a, &b]).product()
            }
            5 if s == Sc::F32 => {
                // a matrix-vector product of quantised operands: exact in any order
                let k = self.r.range(2, 4) as u8;
                let cols: Vec<E> = (0..k).map(|_| self.quantised(n, d.min(2), cx)).collect();
                let refs: Vec<&E> = cols.iter().collect();
                let list: Vec<&str> = cols.iter().map(|c| c.s.as_str()).collect();
                let m = format!("mat{k}x{n}<f32>({})", list.join(", "));
                let v = self.quantised(k, d.min(2), cx);
                let mut e = E::new(format!("({m} * {})", v.s), &refs);
                e.uni &= v.uni;
                e.mulf = true;
                e
            }
            6 if s == Sc::F32 && self.r.chance(60) => {
                let (f, m) = *self.r.pick(&[
                    ("unpack4x8snorm", 4),
                    ("unpack4x8unorm", 4),
                    ("unpack2x16snorm", 2),
                    ("unpack2x16unorm", 2),
                    ("unpack2x16float", 2),
                ]);
                // (the norm unpacks divide by 255 or 65535 (or 127, 32767): compared bit for
                // bit only where `/` rounds correctly, `Features::exact_div`)
                let norm = f != "unpack2x16float";
                if m != n || (!norm && !self.half_ok()) || (norm && !self.feat.exact_div) {
                    return self.vector(n, s, d - 1, cx);
                }
                let a = self.scalar(Sc::U32, d - 1, cx);
                let a = self.unfold(Sc::U32, a, &[], cx);
                // `^ UZ`: lavapipe (Mesa 22.3) folds a constant operand wrongly ([`UZ`])
                if f == "unpack2x16float" {
                    // f16 denormals, infinities and NaNs: clear the exponent's top bit
                    return E::new(
                        format!("{f}(((({}) & 0xbfffbfffu) | 0x04000400u) ^ {UZ})", a.s),
                        &[&a],
                    );
                }
                E::new(format!("{f}(({}) ^ {UZ})", a.s), &[&a])
            }
            6 if s.int() && n == 4 => {
                let a = self.scalar(Sc::U32, d - 1, cx);
                let a = self.unfold(Sc::U32, a, &[], cx);
                let f = if s == Sc::I32 {
                    "unpack4xI8"
                } else {
                    "unpack4xU8"
                };
                E::new(format!("{f}(({}) ^ {UZ})", a.s), &[&a])
            }
            7 if s == Sc::F32 && self.r.chance(30) => {
                let a = self.quantised(n, d, cx);
                let b = self.quantised(n, d, cx);
                let c = self.quantised(n, d, cx);
                if self.r.chance(50) {
                    E::new(
                        format!("faceForward({}, {}, {})", a.s, b.s, c.s),
                        &[&a, &b, &c],
                    )
                    .product()
                } else {
                    // mix(a, b, t) with t in [0, 1] a multiple of 1/16
                    E::new(
                        format!("mix({}, {}, abs({}) * 0.125f)", a.s, b.s, c.s),
                        &[&a, &b, &c],
                    )
                    .product()
                }
            }
            8 => {
                // conversion from another scalar type
                let o = self.scalar_ty();
                if o == s
                    || o == Sc::Bool
                    || (s == Sc::F16 || o == Sc::F16)
                    || (s.int() && o.float())
                {
                    let a = self.vector(n, s, d - 1, cx);
                    let b = self.vector(n, s, d - 1, cx);
                    return self.vbin(n, s, a, b, false, cx);
                }
                let a = self.vector(n, o, d - 1, cx);
                let a = self.unfold_v(n, o, a, &[], cx);
                if s.float() {
                    // converted integer literals are float constants: `+ fz`
                    return E::new(format!("({vt}({}) + fz)", a.s), &[&a]);
                }
                E::new(format!("{vt}({})", a.s), &[&a])
            }
            _ => match s {
                Sc::Bool => {
                    if self.r.chance(70) {
                        let t = *self.r.pick(&[Sc::I32, Sc::U32, Sc::F32]);
                        let a = self.vector(n, t, d - 1, cx);
                        let b = self.vector(n, t, d - 1, cx);
                        let b = self.unfold_v(n, t, b, &[&a], cx);
                        let b = if t.float() && a.shares(&b) {
                            self.fresh_float(t, n, &a, cx)
                        } else {
                            b
                        };
                        let op = self.r.pick(&["==", "!=", "<", "<=", ">", ">="]);
                        E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
                    } else {
                        let a = self.vector(n, Sc::Bool, d - 1, cx);
                        E::new(format!("!({})", a.s), &[&a])
                    }
                }
                _ => {
                    if self.r.chance(30) {
                        // componentwise builtins
                        let a = self.vector(n, s, d - 1, cx);
                        let a = self.unfold_v(n, s, a, &[], cx);
                        let f = if s.float() {
                            *self
                                .r
                                .pick(&["abs", "floor", "ceil", "trunc", "round", "fract", "sign"])
                        } else {
                            *self
                                .r
                                .pick(&["abs", "countOneBits", "reverseBits", "firstLeadingBit"])
                        };
                        return E::new(format!("{f}({})", a.s), &[&a]);
                    }
                    let a = self.vector(n, s, d - 1, cx);
                    let b_scalar = self.r.chance(25);
                    let b = if b_scalar {
                        self.scalar(s, d - 1, cx)
                    } else {
                        self.vector(n, s, d - 1, cx)
                    };
                    self.vbin(n, s, a, b, b_scalar, cx)
                }
            },
        }
    }

    /// A componentwise binary operation (`b` may be a scalar: `b_scalar`).
    fn vbin(&mut self, n: u8, s: Sc, a: E, b: E, b_scalar: bool, cx: Cx) -> E {
        let a = self.unfold_v(n, s, a, &[&b], cx);
        if s == Sc::Bool {
            let b = if b_scalar {
                E::new(format!("vec{n}<bool>({})", b.s), &[&b])
            } else {
                b
            };
            let op = self.r.pick(&["&", "|", "!=", "=="]);
            return E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]);
        }
        let ops: &[&str] = match s {
            Sc::I32 | Sc::U32 if b_scalar => &["+", "-", "*", "/", "%"],
            Sc::I32 | Sc::U32 => &["+", "-", "*", "/", "%", "&", "|", "^"],
            _ if self.feat.exact_div => &["+", "-", "*", "/"],
            _ => &["+", "-", "*"],
        };
        let op = *self.r.pick(ops);
        if s.float() {
            let bn = if b_scalar { 1 } else { n };
            return self.fbin(s, op, a, b, bn, cx);
        }
        let b = if op == "/" || op == "%" {
            self.divisor(s, (!b_scalar).then_some(n), b, cx)
        } else {
            b
        };
        E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
    }

    pub(super) fn matrix(&mut self, c: u8, r: u8, d: u32, cx: Cx) -> E {
        let e = self.matrix_tree(c, r, d, cx);
        if e.s.len() <= MAX_MATRIX_TEXT {
            return e;
        }
        // nested transposes and products of constructed matrices grow with every level (one
        // of 128 kB, past the simulator's 4096 operators a statement): an input's columns
        // instead
        let x = self.input(Sc::F32);
        let cols = vec![format!("vec{r}<f32>({})", x.s); c as usize];
        E::new(format!("mat{c}x{r}<f32>({})", cols.join(", ")), &[&x]).sum_of(&[&x])
    }

    fn matrix_tree(&mut self, c: u8, r: u8, d: u32, cx: Cx) -> E {
        let ty = Ty::M(c, r);
        if d == 0 || self.r.chance(20) {
            if let Some(p) = self.read_place(&ty, cx, 60) {
                return p;
            }
        }
        let d1 = d.saturating_sub(1);
        match self.r.below(5) {
            0 => {
                let a = self.matrix(c, r, d1, cx);
                let b = self.matrix(c, r, d1, cx);
                let b = self.unfold_m(c, r, b, &[&a], cx);
                let b = if a.shares(&b) {
                    let x = self.fresh_float(Sc::F32, r, &a, cx);
                    let cols = vec![x.s.clone(); c as usize];
                    E::new(format!("mat{c}x{r}<f32>({})", cols.join(", ")), &[&x]).sum_of(&[&x])
                } else {
                    b
                };
                let (a, b) = (self.unmul_m(c, r, a), self.unmul_m(c, r, b));
                let op = self.r.pick(&["+", "-"]);
                let mut e = E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]).sum_of(&[&a, &b]);
                e.mulf = false;
                e
            }
            1 => {
                let a = self.matrix(c, r, d1, cx);
                let s = self.scalar(Sc::F32, d1, cx);
                let s = self.unfold(Sc::F32, s, &[&a], cx);
                E::new(format!("({} * {})", a.s, s.s), &[&a, &s]).product()
            }
            2 => {
                let a = self.matrix(r, c, d1, cx);
                E::new(format!("transpose({})", a.s), &[&a]).sum_of(&[&a])
            }
            _ => {
                let cols: Vec<E> = (0..c).map(|_| self.vector(r, Sc::F32, d1, cx)).collect();
                let refs: Vec<&E> = cols.iter().collect();
                let list: Vec<&str> = cols.iter().map(|c| c.s.as_str()).collect();
                E::new(format!("mat{c}x{r}<f32>({})", list.join(", ")), &refs).sum_of(&refs)
            }
        }
    }

    fn unfold_m(&mut self, c: u8, r: u8, e: E, others: &[&E], cx: Cx) -> E {
        if e.cnst && others.iter().all(|o| o.cnst) {
            let a = self.nonconst_leaf(Sc::F32, cx);
            let col = format!("vec{r}<f32>({})", a.s);
            let cols = vec![col; c as usize];
            E::new(format!("mat{c}x{r}<f32>({})", cols.join(", ")), &[&a])
        } else {
            e
        }
    }
}
