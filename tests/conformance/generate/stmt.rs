//! Statements: declarations, assignments (compound ones too), blocks, `if`, `switch`, loops
//! and the jumps out of them. Every loop counts to a bound of at most 4; the lines that keep
//! a loop finite end in [`LOOP`] (the shrinker leaves them). Control flow is subgroup-uniform
//! inside a block only where it is outside and the block's condition is uniform; a loop whose
//! body takes divergent `break`s and `continue`s is non-uniform throughout, any other loop
//! jumps on its counter, and a `while` takes no `continue` (it would skip the increment). A
//! loop's body is generated knowing what its variables hold at the end of an iteration.

use super::{Cx, Sc, Seg, Stmt, Ty, Var, E, G, LOOP};

impl G {
    pub(super) fn stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        self.budget -= 1;
        let d = self.r.range(1, 3) as u32;
        let k = self.r.below(100);
        let block_ok = cx.nest < 3 && self.budget > 2;
        match k {
            0..=17 => self.decl(cx, d, out),
            18..=33 => self.assign(cx, d, out),
            34..=40 if block_ok => self.if_stmt(cx, out),
            41..=44 if block_ok => self.switch_stmt(cx, out),
            45..=51 if block_ok && cx.loops < 2 => self.loop_stmt(cx, out),
            52..=55 if cx.loops > 0 && cx.nest > 0 => self.jump(cx, out),
            56..=69 if !cx.helper => {
                let ty = self.rand_ty(true);
                let e = self.expr(&ty, d, cx);
                self.out(&ty, e, out);
            }
            70..=77 if !cx.helper => self.approx(cx, out),
            78..=81 if cx.top && !cx.helper => self.workgroup(cx, out),
            82..=84 if !cx.helper => self.storage_atomic(cx, out),
            85..=88 if !self.mutators.is_empty() => self.mutate(cx, out),
            _ => self.decl(cx, d, out),
        }
    }

    pub(super) fn push_var(&mut self, v: Var) {
        self.scopes.last_mut().unwrap().push(v);
    }

    fn decl(&mut self, cx: Cx, d: u32, out: &mut Vec<Stmt>) {
        let ty = self.rand_ty(true);
        let e = self.expr(&ty, d, cx);
        let tn = self.ty_name(&ty);
        let mutable = self.r.chance(60);
        let name = self.fresh("v");
        // a variable written in non-uniform control flow is not uniform
        let uni = e.uni && (cx.uni || !mutable) && self.r.chance(70);
        if mutable {
            out.push(Stmt::Line(format!("var {name}: {tn} = {};", e.s)));
        } else {
            out.push(Stmt::Line(format!("let {name}: {tn} = {};", e.s)));
        }
        self.push_var(Var {
            name,
            ty,
            mutable,
            uni: uni || (!mutable && e.uni),
            cnst: !mutable && e.cnst,
            mulf: e.mulf,
            terms: e.atoms(),
        });
    }

    /// Variable `name` holds `e` (or a product, `product`) from here on, besides what it held.
    pub(super) fn stored(&mut self, name: &str, e: &E, product: bool) {
        for v in self.scopes.iter_mut().flatten().rev() {
            if v.name == name {
                v.mulf |= e.mulf || product;
                v.terms.extend(e.atoms());
                v.terms.sort();
                v.terms.dedup();
                return;
            }
        }
    }

    pub(super) fn assign(&mut self, cx: Cx, d: u32, out: &mut Vec<Stmt>) {
        // pick a variable, then a place inside it
        let vars: Vec<Var> = self
            .scopes
            .iter()
            .flatten()
            .filter(|v| v.mutable && (!v.uni || cx.uni))
            .cloned()
            .collect();
        if vars.is_empty() {
            return self.decl(cx, d, out);
        }
        let v = self.r.pick(&vars).clone();
        let mut sub = Vec::new();
        self.sub_places(&v.name, &v.ty, 2, &mut sub);
        let (p, ty) = self.r.pick(&sub).clone();
        let (p, pu) = self.fill_index(&p, true, cx);
        if v.uni && !pu {
            return self.decl(cx, d, out);
        }
        let e = self.expr(&ty, d, cx);
        if v.uni && !e.uni {
            return self.decl(cx, d, out);
        }
        let compound = match &ty {
            Ty::S(s) | Ty::V(_, s) => Some(*s),
            _ => None,
        };
        if let (Some(s), true) = (compound, self.r.chance(40)) {
            let ops: &[&str] = match s {
                Sc::Bool => &["&=", "|="],
                Sc::I32 | Sc::U32 => {
                    &["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]
                }
                _ if self.feat.exact_div => &["+=", "-=", "*=", "/="],
                _ => &["+=", "-=", "*="],
            };
            let op = *self.r.pick(ops);
            if op == "<<=" || op == ">>=" {
                let amount = match &ty {
                    Ty::V(n, _) => {
                        // naga rejects a literal component of 32 or more, WGSL does not
                        let a = self.vector(*n, Sc::U32, 1, cx);
                        let a = self.unfold_v(*n, Sc::U32, a, &[], cx);
                        E::new(format!("({} ^ vec{n}<u32>())", a.s), &[&a])
                    }
                    _ => {
                        let a = self.scalar(Sc::U32, 1, cx);
                        self.unfold(Sc::U32, a, &[], cx)
                    }
                };
                if v.uni && !amount.uni {
                    return;
                }
                out.push(Stmt::Line(format!("{p} {op} {};", amount.s)));
                return;
            }
            if s.int() && self.r.chance(20) {
                if let Ty::S(_) = ty {
                    let op = self.r.pick(&["++", "--"]);
                    out.push(Stmt::Line(format!("{p}{op};")));
                    return;
                }
            }
            let e = if s.int() && (op == "/=" || op == "%=") {
                let n = match &ty {
                    Ty::V(n, _) => Some(*n),
                    _ => None,
                };
                self.divisor(s, n, e, cx)
            } else {
                e
            };
            if v.uni && !e.uni {
                return;
            }
            if s.float() {
                // `p += e` adds `p` and `e`; `p *= e` makes `p` a product
                let n = match &ty {
                    Ty::V(n, _) => *n,
                    _ => 1,
                };
                let cur = E {
                    s: v.name.clone(),
                    uni: v.uni,
                    cnst: false,
                    mulf: v.mulf,
                    terms: v.terms.iter().cloned().chain([v.name.clone()]).collect(),
                };
                let additive = op == "+=" || op == "-=";
                let e = if additive && cur.shares(&e) {
                    self.fresh_float(s, n, &cur, cx)
                } else {
                    e
                };
                let e = if op == "*=" { e } else { self.unmul(s, e) };
                self.stored(&v.name, &e, !additive);
                if v.mulf && additive {
                    let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
                    out.push(Stmt::Line(format!(
                        "{p} = ({p} + {z}) {} {};",
                        &op[..1],
                        e.s
                    )));
                    return;
                }
                out.push(Stmt::Line(format!("{p} {op} {};", e.s)));
                return;
            }
            out.push(Stmt::Line(format!("{p} {op} {};", e.s)));
            return;
        }
        self.stored(&v.name, &e, false);
        out.push(Stmt::Line(format!("{p} = {};", e.s)));
    }

    fn block(&mut self, cx: Cx, n: i32) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut body = Vec::new();
        let mut cx = cx;
        cx.top = false;
        cx.nest += 1;
        let n = n.min(self.budget.max(1));
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.stmt(cx, &mut body);
        }
        self.scopes.pop();
        body
    }

    /// A loop's body, generated with what its variables hold at the end of an iteration known
    /// at its start (a value stored late in one iteration is read early in the next): the body
    /// is generated again from the same state until no variable holds anything new.
    fn loop_body(&mut self, cx: Cx, n: i32) -> Vec<Stmt> {
        for _ in 0..4 {
            let mut trial = self.clone();
            let body = trial.block(cx, n);
            let mut grew = false;
            for (scope, done) in self.scopes.iter_mut().zip(&trial.scopes) {
                for (v, w) in scope.iter_mut().zip(done) {
                    if (w.mulf && !v.mulf) || w.terms.iter().any(|t| !v.terms.contains(t)) {
                        grew = true;
                        v.mulf |= w.mulf;
                        v.terms.extend(w.terms.iter().cloned());
                        v.terms.sort();
                        v.terms.dedup();
                    }
                }
            }
            if !grew {
                *self = trial;
                return body;
            }
        }
        self.block(cx, n)
    }

    fn cond(&mut self, cx: Cx) -> E {
        let c = self.scalar(Sc::Bool, 2, cx);
        self.unfold(Sc::Bool, c, &[], cx)
    }

    fn if_stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let c = self.cond(cx);
        let mut inner = cx;
        inner.uni = cx.uni && c.uni;
        let n = self.r.range(1, 4);
        let mut segs = vec![Seg {
            open: format!("if {} {{", c.s),
            body: self.block(inner, n),
            close: "}".into(),
        }];
        if self.r.chance(30) {
            // evaluated only where the first condition is false
            let c2 = self.cond(inner);
            let mut inner2 = inner;
            inner2.uni = inner.uni && c2.uni;
            let n = self.r.range(1, 3);
            segs.push(Seg {
                open: format!("else if {} {{", c2.s),
                body: self.block(inner2, n),
                close: "}".into(),
            });
            inner = inner2;
        }
        if self.r.chance(50) {
            let n = self.r.range(1, 3);
            segs.push(Seg {
                open: "else {".into(),
                body: self.block(inner, n),
                close: "}".into(),
            });
        }
        out.push(Stmt::Block(segs));
    }

    fn switch_stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let s = if self.r.chance(50) { Sc::I32 } else { Sc::U32 };
        let sel = self.scalar(s, 1, cx);
        let sel = self.unfold(s, sel, &[], cx);
        let sel_s = if self.r.chance(50) {
            format!("({} & 7{})", sel.s, s.suffix())
        } else {
            sel.s.clone()
        };
        let mut inner = cx;
        inner.uni = cx.uni && sel.uni;
        let mut values: Vec<i32> = (0..8).collect();
        if s == Sc::I32 {
            values.push(-1);
        }
        let mut cases = Vec::new();
        let ncases = self.r.range(1, 3);
        for i in 0..ncases {
            let k = self.r.range(1, 2);
            let mut sel_vals = Vec::new();
            for _ in 0..k {
                if values.is_empty() {
                    break;
                }
                let j = self.r.below(values.len() as u32) as usize;
                sel_vals.push(format!("{}{}", values.remove(j), s.suffix()));
            }
            if sel_vals.is_empty() {
                break;
            }
            let with_default = i == ncases - 1 && self.r.chance(30);
            let label = if with_default {
                format!("case {}, default: {{", sel_vals.join(", "))
            } else {
                format!("case {}: {{", sel_vals.join(", "))
            };
            let n = self.r.range(1, 3);
            cases.push(Stmt::Block(vec![Seg {
                open: label,
                body: self.block(inner, n),
                close: "}".into(),
            }]));
            if with_default {
                out.push(Stmt::Block(vec![Seg {
                    open: format!("switch {sel_s} {{"),
                    body: cases,
                    close: "}".into(),
                }]));
                return;
            }
        }
        let n = self.r.range(0, 2);
        cases.push(Stmt::Block(vec![Seg {
            open: "default: {".into(),
            body: self.block(inner, n),
            close: "}".into(),
        }]));
        out.push(Stmt::Block(vec![Seg {
            open: format!("switch {sel_s} {{"),
            body: cases,
            close: "}".into(),
        }]));
    }

    fn loop_stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let i = self.fresh("i");
        let (bound, uni) = if self.r.chance(60) {
            (format!("{}u", self.r.range(0, 4)), true)
        } else {
            let b = self.nonconst_leaf(Sc::U32, cx);
            (format!("({} & 3u)", b.s), b.uni)
        };
        let mut inner = cx;
        inner.divergent = self.r.chance(40);
        inner.uni = cx.uni && uni && !inner.divergent;
        inner.loop_uni = inner.uni;
        inner.loops += 1;
        let n = self.r.range(1, 4);
        self.loop_vars.push(i.clone());
        match self.r.below(3) {
            0 => {
                self.scopes.push(vec![Var::counter(&i, inner.uni)]);
                inner.in_while = false;
                let body = self.loop_body(inner, n);
                self.scopes.pop();
                out.push(Stmt::Block(vec![Seg {
                    open: format!("for (var {i} = 0u; {i} < {bound}; {i}++) {{"),
                    body,
                    close: "}".into(),
                }]));
            }
            1 => {
                // loop with a continuing block
                self.scopes.push(vec![Var::counter(&i, inner.uni)]);
                inner.in_while = false;
                let mut body = vec![Stmt::Line(format!("if {i} >= {bound} {{ break; }} {LOOP}"))];
                body.extend(self.loop_body(inner, n));
                self.scopes.pop();
                let extra = self.r.range(1, 4);
                out.push(Stmt::Line(format!("var {i} = 0u; {LOOP}")));
                out.push(Stmt::Block(vec![
                    Seg {
                        open: "loop {".into(),
                        body,
                        close: String::new(),
                    },
                    Seg {
                        open: "continuing {".into(),
                        body: vec![
                            Stmt::Line(format!("{i} += 1u; {LOOP}")),
                            Stmt::Line(format!("break if {i} >= {extra}u; {LOOP}")),
                        ],
                        close: "}".into(),
                    },
                    Seg {
                        open: String::new(),
                        body: Vec::new(),
                        close: "}".into(),
                    },
                ]));
            }
            _ => {
                // while; no `continue` (it would skip the increment)
                self.scopes.push(vec![Var::counter(&i, inner.uni)]);
                inner.in_while = true;
                let mut body = self.loop_body(inner, n);
                self.scopes.pop();
                body.push(Stmt::Line(format!("{i} += 1u; {LOOP}")));
                out.push(Stmt::Line(format!("var {i} = 0u; {LOOP}")));
                out.push(Stmt::Block(vec![Seg {
                    open: format!("while {i} < {bound} {{"),
                    body,
                    close: "}".into(),
                }]));
            }
        }
        self.loop_vars.pop();
    }

    /// `if c { break; }` or `continue`: on any condition in a divergent loop, else on the
    /// loop's counter.
    fn jump(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        if cx.loop_uni && !cx.uni {
            // a jump here would make the loop's uniform body divergent
            return;
        }
        let c = if cx.divergent {
            self.cond(cx)
        } else {
            let i = self.loop_vars.last().unwrap().clone();
            E::lit(format!("{i} >= {}u", self.r.range(0, 3)))
        };
        let what = if cx.in_while || self.r.chance(60) {
            "break"
        } else {
            "continue"
        };
        out.push(Stmt::Block(vec![Seg {
            open: format!("if {} {{", c.s),
            body: vec![Stmt::Line(format!("{what};"))],
            close: "}".into(),
        }]));
    }
}
