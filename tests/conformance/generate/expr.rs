//! Expressions: what the generator knows of one ([`E`]), the places it reads (variables and
//! their components, fields and elements), its leaves (literals, input words, `lid`, `lane`,
//! `sgs`) and the choice of generator by type. The guards the other expression generators
//! call are here: no operation has only constant operands ([`G::unfold`]: naga folds those
//! and rejects overflow), a float literal comes with `+ fz` (a compiler may reassociate with
//! a constant), a product passes through `+ fz` before an addition, a subtraction or a
//! division takes it ([`G::unmul`]), and a dynamic index is reduced modulo the length.

use super::{Cx, Sc, Ty, F16_WORDS, F32_WORDS, G, INT_WORDS, UNI_F16, UNI_F32, UNI_INT, XYZW};

/// An expression and what the generator knows of it.
#[derive(Clone, Debug)]
pub(super) struct E {
    pub(super) s: String,
    /// Subgroup-uniform.
    pub(super) uni: bool,
    /// Built from literals only (naga folds operations on such values, so none is made).
    pub(super) cnst: bool,
    /// May hold a float product (or quotient, square root, dot product, determinant ...) that a
    /// GPU compiler could fuse with an addition it feeds (`a * b + c` as one `fma`) or rewrite
    /// with it: such a value
    /// passes through `+ fz` (a zero the compiler cannot see) before an addition, a
    /// subtraction or a division takes it. Propagates through everything built from it.
    pub(super) mulf: bool,
    /// The leaves it is made of (inputs, variables, float literals, by text; through every
    /// operation, call and variable); empty: it is one itself. A compiler may cancel a value
    /// that appears on both sides of an addition or subtraction (`(x + y) - x` as `y`) or a
    /// comparison (`x + y < x` as `y < 0`), and finds equal values behind different text:
    /// lavapipe cancels `(v + (m * v)[0].x * v) - (transpose(m)[0] * v * v).y`, and
    /// `(x + y) - min(y, y)`. So the operands of an addition, a subtraction or a comparison
    /// never share a leaf.
    pub(super) terms: Vec<String>,
}

impl E {
    pub(super) fn new(s: String, parts: &[&E]) -> E {
        // the leaves of its operands that are not constant
        let mut terms: Vec<String> = parts
            .iter()
            .filter(|p| !p.cnst)
            .flat_map(|p| p.atoms())
            .collect();
        terms.sort();
        terms.dedup();
        E {
            s,
            uni: parts.iter().all(|p| p.uni),
            cnst: parts.iter().all(|p| p.cnst),
            mulf: parts.iter().any(|p| p.mulf),
            terms,
        }
    }
    pub(super) fn lit(s: String) -> E {
        E {
            s,
            uni: true,
            cnst: true,
            mulf: false,
            terms: Vec::new(),
        }
    }
    /// Its terms (itself, if it is no sum).
    pub(super) fn atoms(&self) -> Vec<String> {
        if self.terms.is_empty() {
            vec![self.s.clone()]
        } else {
            self.terms.clone()
        }
    }
    /// Made of the leaves of `parts`, constant ones too.
    pub(super) fn sum_of(mut self, parts: &[&E]) -> E {
        let mut t: Vec<String> = parts.iter().flat_map(|p| p.atoms()).collect();
        t.sort();
        t.dedup();
        self.terms = t;
        self
    }
    /// Whether it and `other` share a leaf.
    pub(super) fn shares(&self, other: &E) -> bool {
        let b = other.atoms();
        self.atoms().iter().any(|t| b.contains(t))
    }
    /// Marked as a product.
    pub(super) fn product(mut self) -> E {
        self.mulf = true;
        self
    }
}

impl G {
    /// Every place of type `ty` readable (or, with `write`, assignable) here: variables and
    /// their components, fields and elements. A dynamic index is the marker `§N§` (N the
    /// length), filled in by [`G::fill_index`].
    fn places(&self, ty: &Ty, write: bool) -> Vec<(String, bool, bool, bool, Vec<String>)> {
        let mut all = Vec::new();
        for scope in &self.scopes {
            for v in scope {
                if write && !v.mutable {
                    continue;
                }
                let mut sub = Vec::new();
                self.sub_places(&v.name, &v.ty, 2, &mut sub);
                for (p, t) in sub {
                    if &t == ty {
                        let mut terms = v.terms.clone();
                        terms.push(v.name.clone());
                        all.push((p, v.uni, v.cnst, v.mulf, terms));
                    }
                }
            }
        }
        all
    }

    pub(super) fn sub_places(&self, name: &str, ty: &Ty, depth: u32, out: &mut Vec<(String, Ty)>) {
        out.push((name.to_string(), ty.clone()));
        if depth == 0 {
            return;
        }
        match ty {
            Ty::V(n, s) => {
                for c in &XYZW[..*n as usize] {
                    out.push((format!("{name}.{c}"), Ty::S(*s)));
                }
                out.push((format!("{name}[§{n}§]"), Ty::S(*s)));
            }
            Ty::M(c, r) => {
                for i in 0..*c {
                    self.sub_places(&format!("{name}[{i}]"), &Ty::V(*r, Sc::F32), depth - 1, out);
                }
            }
            Ty::A(e, n) => {
                let k = (name.len() as u32) % *n as u32;
                self.sub_places(&format!("{name}[{k}]"), e, depth - 1, out);
                self.sub_places(&format!("{name}[§{n}§]"), e, depth - 1, out);
            }
            Ty::St(i) => {
                for (f, t) in &self.structs[*i] {
                    self.sub_places(&format!("{name}.{f}"), t, depth - 1, out);
                }
            }
            Ty::S(_) => {}
        }
    }

    /// Replaces each `§N§` of `p` with an index below N; the result's uniformity.
    pub(super) fn fill_index(&mut self, p: &str, uni: bool, cx: Cx) -> (String, bool) {
        let mut s = p.to_string();
        let mut uni = uni;
        while let Some(a) = s.find('§') {
            let rest = &s[a + '§'.len_utf8()..];
            let b = rest.find('§').unwrap();
            let n: u32 = rest[..b].parse().unwrap();
            let end = a + '§'.len_utf8() + b + '§'.len_utf8();
            let idx = if self.r.chance(30) {
                E::lit(format!("{}u", self.r.below(n)))
            } else {
                let sc = if self.r.chance(50) { Sc::I32 } else { Sc::U32 };
                let e = self.nonconst_leaf(sc, cx);
                let e = if sc == Sc::I32 {
                    E::new(format!("u32({})", e.s), &[&e])
                } else {
                    e
                };
                E::new(format!("({} % {n}u)", e.s), &[&e])
            };
            uni &= idx.uni;
            s.replace_range(a..end, &idx.s);
        }
        (s, uni)
    }

    pub(super) fn expr(&mut self, ty: &Ty, d: u32, cx: Cx) -> E {
        match ty {
            Ty::S(s) => self.scalar(*s, d, cx),
            Ty::V(n, s) => self.vector(*n, *s, d, cx),
            Ty::M(c, r) => self.matrix(*c, *r, d, cx),
            Ty::A(e, n) => {
                if let Some(p) = self.read_place(ty, cx, 60) {
                    return p;
                }
                let parts: Vec<E> = (0..*n).map(|_| self.expr(e, d.min(1), cx)).collect();
                let refs: Vec<&E> = parts.iter().collect();
                let list: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                E::new(format!("{}({})", self.ty_name(ty), list.join(", ")), &refs).sum_of(&refs)
            }
            Ty::St(i) => {
                if let Some(p) = self.read_place(ty, cx, 60) {
                    return p;
                }
                let fields = self.structs[*i].clone();
                let parts: Vec<E> = fields
                    .iter()
                    .map(|(_, t)| self.expr(t, d.min(1), cx))
                    .collect();
                let refs: Vec<&E> = parts.iter().collect();
                let list: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                E::new(format!("{}({})", self.ty_name(ty), list.join(", ")), &refs).sum_of(&refs)
            }
        }
    }

    /// A readable place of `ty`, `pct` percent of the time when there is one.
    pub(super) fn read_place(&mut self, ty: &Ty, cx: Cx, pct: u32) -> Option<E> {
        let places = self.places(ty, false);
        if places.is_empty() || !self.r.chance(pct) {
            return None;
        }
        let (p, uni, cnst, mulf, terms) = self.r.pick(&places).clone();
        let (s, uni) = self.fill_index(&p, uni, cx);
        Some(self.note(E {
            s,
            uni,
            cnst,
            mulf,
            terms,
        }))
    }

    /// `e`, a leaf, noted among the reads of the helper being generated.
    pub(super) fn note(&mut self, e: E) -> E {
        if let Some(r) = &mut self.reads {
            r.extend(e.atoms());
        }
        e
    }

    fn literal(&mut self, s: Sc) -> E {
        let v = match s {
            Sc::Bool => return E::lit(if self.r.chance(50) { "true" } else { "false" }.into()),
            Sc::I32 => match self.r.below(8) {
                0 => return E::lit("bitcast<i32>(0x80000000u)".into()),
                1 => "2147483647i".to_string(),
                _ => format!("{}i", self.r.range(-9, 9)),
            },
            Sc::U32 => match self.r.below(8) {
                0 => "4294967295u".to_string(),
                1 => format!("{}u", self.r.range(29, 35)),
                _ => format!("{}u", self.r.range(0, 9)),
            },
            // a float constant in arithmetic lets a compiler reassociate (`(x + 1.5) + 2.25`
            // as `x + 3.75`): float literals come with `+ fz`
            Sc::F32 | Sc::F16 => {
                let (v, suffix, fz) = if s == Sc::F32 {
                    (self.r.f32_input(), "f", "fz")
                } else {
                    (self.r.f16_input(), "h", "f16(fz)")
                };
                // a zero as `fz * 0.5`: `(0.0 + fz)` is `fz` to a compiler, which cancels
                // another literal's `+ fz` (`(c + fz) - fz` as the constant `c`)
                let s = if v == 0.0 {
                    format!("({fz} * {:?}{suffix})", 0.5f32.copysign(v))
                } else {
                    format!("({v:?}{suffix} + {fz})")
                };
                return self.note(E {
                    s,
                    uni: true,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                });
            }
        };
        let v = if v.starts_with('-') {
            format!("({v})")
        } else {
            v
        };
        E::lit(v)
    }

    /// An input word of scalar type `s`: per invocation, or (subgroup-)uniform.
    pub(super) fn input(&mut self, s: Sc) -> E {
        let uni = self.r.chance(20);
        let (base, ints, f32s) = if uni {
            ("", UNI_INT, UNI_F32)
        } else {
            ("ib + ", INT_WORDS, F32_WORDS)
        };
        let (f16s, _) = if uni { (UNI_F16, 0) } else { (F16_WORDS, 0) };
        let s = match s {
            Sc::U32 => format!("inp[{base}{}u]", self.r.below(ints)),
            Sc::I32 => format!("bitcast<i32>(inp[{base}{}u])", self.r.below(ints)),
            Sc::Bool => format!("((inp[{base}{}u] & 1u) == 1u)", self.r.below(ints)),
            Sc::F32 => format!("bitcast<f32>(inp[{base}{}u])", ints + self.r.below(f32s)),
            Sc::F16 => format!(
                "f16(bitcast<f32>(inp[{base}{}u]))",
                ints + f32s + self.r.below(f16s)
            ),
        };
        self.note(E {
            s,
            uni,
            cnst: false,
            mulf: false,
            terms: Vec::new(),
        })
    }

    /// A value of `s` that is not constant.
    pub(super) fn nonconst_leaf(&mut self, s: Sc, cx: Cx) -> E {
        let places: Vec<_> = self
            .places(&Ty::S(s), false)
            .into_iter()
            .filter(|p| !p.2)
            .collect();
        if !places.is_empty() && self.r.chance(50) {
            let (p, uni, _, mulf, terms) = self.r.pick(&places).clone();
            let (s, uni) = self.fill_index(&p, uni, cx);
            return self.note(E {
                s,
                uni,
                cnst: false,
                mulf,
                terms,
            });
        }
        if s == Sc::U32 && self.r.chance(20) {
            let (n, uni) = *self
                .r
                .pick(&[("lid", false), ("lane", false), ("sgs", true)]);
            return self.note(E {
                s: n.into(),
                uni,
                cnst: false,
                mulf: false,
                terms: Vec::new(),
            });
        }
        self.input(s)
    }

    pub(super) fn leaf(&mut self, s: Sc, cx: Cx) -> E {
        if let Some(p) = self.read_place(&Ty::S(s), cx, 40) {
            return p;
        }
        if self.r.chance(25) {
            self.literal(s)
        } else {
            self.nonconst_leaf(s, cx)
        }
    }

    /// `e`, unless it and `others` are all constant: then a non-constant value instead.
    pub(super) fn unfold(&mut self, s: Sc, e: E, others: &[&E], cx: Cx) -> E {
        if e.cnst && others.iter().all(|o| o.cnst) {
            self.nonconst_leaf(s, cx)
        } else {
            e
        }
    }

    /// `e` of scalar or vector type `s` safe to add to or divide by: a product passes
    /// through `+ fz` first ([`E::mulf`]).
    pub(super) fn unmul(&self, s: Sc, e: E) -> E {
        if !e.mulf || !s.float() {
            return e;
        }
        let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
        let mut e = E::new(format!("({} + {z})", e.s), &[&e]).sum_of(&[&e]);
        e.mulf = false;
        e
    }

    /// `unmul` for an f32 matrix of `c` columns.
    pub(super) fn unmul_m(&self, c: u8, r: u8, e: E) -> E {
        if !e.mulf {
            return e;
        }
        let cols: Vec<String> = (0..c).map(|i| format!("m[{i}] + fz")).collect();
        let _ = r;
        let mut e = E::new(
            format!(
                "(mat{c}x{r}<f32>({}))",
                cols.join(", ").replace('m', &format!("({})", e.s))
            ),
            &[&e],
        )
        .sum_of(&[&e]);
        e.mulf = false;
        e
    }
}
