//! Helper functions and their calls: helpers returning a value, and mutators updating a
//! `function` variable through a pointer. A helper's body has no subgroup operations,
//! barriers or outputs. A call is neither uniform nor constant, and may return a product; a
//! float argument passes `+ fz` (the helper, inlined, must not cancel a term of the caller's
//! with one of its own), and the leaves a helper reads become terms of its result and of the
//! private variables it may store to.

use super::{print_stmts, Cx, Sc, Stmt, Ty, Var, E, G};

/// A helper function the program may call.
#[derive(Clone, Debug)]
pub(super) struct Helper {
    name: String,
    params: Vec<Ty>,
    pub(super) ret: Ty,
    /// The leaves its body reads ([`E::terms`]).
    reads: Vec<String>,
}

/// A helper taking a pointer to a `function` variable of `target` and a value of `arg`.
#[derive(Clone, Debug)]
pub(super) struct Mutator {
    name: String,
    target: Ty,
    arg: Ty,
    /// The leaves its body reads.
    reads: Vec<String>,
}

impl G {
    /// A helper function returning a value.
    pub(super) fn helper(&mut self) {
        let name = format!("{}_h{}", self.name, self.helpers.len());
        let np = self.r.range(1, 3);
        let params: Vec<Ty> = (0..np)
            .map(|_| {
                let composite = self.r.chance(30);
                self.rand_ty(composite)
            })
            .collect();
        let composite = self.r.chance(30);
        let ret = self.rand_ty(composite);
        let saved = self.enter_helper();
        let mut sig = Vec::new();
        let mut scope = Vec::new();
        for (i, p) in params.iter().enumerate() {
            sig.push(format!("a{i}: {}", self.ty_name(p)));
            // a caller may pass a product
            scope.push(Var {
                name: format!("a{i}"),
                ty: p.clone(),
                mutable: false,
                uni: false,
                cnst: false,
                mulf: true,
                terms: Vec::new(),
            });
        }
        self.scopes.push(scope);
        let cx = Cx::helper_body();
        self.budget = self.r.range(1, 4);
        let mut body = Vec::new();
        while self.budget > 0 {
            self.stmt(cx, &mut body);
        }
        let r = self.expr(&ret, 2, cx);
        body.push(Stmt::Line(format!("return {};", r.s)));
        let reads = self.leave_helper(saved);
        let signature = format!("fn {name}({}) -> {}", sig.join(", "), self.ty_name(&ret));
        self.declare_fn(signature, &body);
        self.helpers.push(Helper {
            name,
            params,
            ret,
            reads,
        });
    }

    /// Declares a function of the module: `signature`, then `body`.
    fn declare_fn(&mut self, signature: String, body: &[Stmt]) {
        let mut text = signature + " {\n";
        print_stmts(body, 1, &mut text);
        text.push('}');
        self.decls.push(text);
    }

    /// A helper updating a `function` variable through a pointer.
    pub(super) fn mutator(&mut self) {
        let name = format!("{}_m{}", self.name, self.mutators.len());
        let target = self.rand_ty(true);
        let arg = Ty::S(self.scalar_ty());
        let saved = self.enter_helper();
        self.scopes.push(vec![
            // the caller's variable and argument may hold products
            Var {
                name: "(*p)".into(),
                ty: target.clone(),
                mutable: true,
                uni: false,
                cnst: false,
                mulf: true,
                terms: Vec::new(),
            },
            Var {
                name: "a".into(),
                ty: arg.clone(),
                mutable: false,
                uni: false,
                cnst: false,
                mulf: true,
                terms: Vec::new(),
            },
        ]);
        let cx = Cx::helper_body();
        self.budget = self.r.range(1, 4);
        let mut body = Vec::new();
        while self.budget > 0 {
            self.assign(cx, 2, &mut body);
            self.budget -= 1;
        }
        let reads = self.leave_helper(saved);
        let signature = format!(
            "fn {name}(p: ptr<function, {}>, a: {})",
            self.ty_name(&target),
            self.ty_name(&arg)
        );
        self.declare_fn(signature, &body);
        self.mutators.push(Mutator {
            name,
            target,
            arg,
            reads,
        });
    }

    /// Starts a helper's body: only the private variables in scope, each taken to hold a
    /// product (a caller may have stored one), and its reads noted; the scopes to restore.
    fn enter_helper(&mut self) -> Vec<Vec<Var>> {
        let mut globals = self.scopes[0].clone();
        for g in &mut globals {
            g.mulf = true;
        }
        self.reads = Some(Vec::new());
        std::mem::replace(&mut self.scopes, vec![globals])
    }

    /// Ends a helper's body: the caller's scopes back, its private variables taken to hold
    /// what the helper may have stored in them (any product, any leaf it read); its reads.
    fn leave_helper(&mut self, saved: Vec<Vec<Var>>) -> Vec<String> {
        let mut reads = self.reads.take().unwrap_or_default();
        reads.sort();
        reads.dedup();
        self.scopes = saved;
        for g in &mut self.scopes[0] {
            g.mulf = true;
            g.terms.extend(reads.iter().cloned());
            g.terms.sort();
            g.terms.dedup();
        }
        reads
    }

    /// The leaves of the private variables: what a helper's result may be made of besides
    /// its arguments.
    fn global_terms(&self) -> Vec<String> {
        self.scopes[0]
            .iter()
            .flat_map(|g| g.terms.iter().cloned().chain([g.name.clone()]))
            .collect()
    }

    pub(super) fn call(&mut self, ty: &Ty, d: u32, cx: Cx) -> Option<E> {
        let hs: Vec<Helper> = self
            .helpers
            .iter()
            .filter(|h| &h.ret == ty)
            .cloned()
            .collect();
        if hs.is_empty() {
            return None;
        }
        let h = self.r.pick(&hs).clone();
        // a float argument passes `+ fz`: the helper, inlined, must not cancel a term of the
        // caller's with one of its own
        let args: Vec<E> = h
            .params
            .iter()
            .map(|p| {
                let e = self.expr(p, d - 1, cx);
                match p {
                    Ty::S(s) | Ty::V(_, s) if s.float() => {
                        let z = if *s == Sc::F16 { "f16(fz)" } else { "fz" };
                        E::new(format!("({} + {z})", e.s), &[&e])
                    }
                    _ => e,
                }
            })
            .collect();
        let refs: Vec<&E> = args.iter().collect();
        let list: Vec<&str> = args.iter().map(|a| a.s.as_str()).collect();
        let mut e = E::new(format!("{}({})", h.name, list.join(", ")), &refs);
        // helpers read per-invocation inputs and private variables, and may return a product
        e.cnst = false;
        e.uni = false;
        e.mulf = true;
        e.terms.extend(h.reads.iter().cloned());
        e.terms.extend(self.global_terms());
        e.terms.push(e.s.clone());
        e.terms.sort();
        e.terms.dedup();
        Some(self.note(e))
    }

    /// A call of a mutator on a local `var`.
    pub(super) fn mutate(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let m = self.r.pick(&self.mutators.clone()).clone();
        let vars: Vec<Var> = self
            .scopes
            .iter()
            .skip(1)
            .flatten()
            .filter(|v| v.mutable && !v.uni && v.ty == m.target && !v.name.contains('('))
            .cloned()
            .collect();
        if vars.is_empty() {
            let e = self.expr(&m.target, 1, cx);
            let name = self.fresh("v");
            out.push(Stmt::Line(format!(
                "var {name}: {} = {};",
                self.ty_name(&m.target),
                e.s
            )));
            self.push_var(Var {
                name,
                ty: m.target.clone(),
                mutable: true,
                uni: false,
                cnst: false,
                mulf: false,
                terms: Vec::new(),
            });
            return;
        }
        let v = self.r.pick(&vars).clone();
        let a = self.expr(&m.arg, 2, cx);
        out.push(Stmt::Line(format!("{}(&{}, {});", m.name, v.name, a.s)));
        // `v` may now hold a product of anything the mutator read, and `a`
        let mut e = E::new(String::new(), &[&a]);
        e.terms.extend(m.reads.iter().cloned());
        e.terms.extend(self.global_terms());
        self.stored(&v.name, &e, true);
    }
}
