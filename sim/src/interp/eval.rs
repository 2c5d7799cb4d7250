//! Expression evaluation: one pass over the running lanes per IR node (see `ops.rs`), pointer
//! arithmetic with bounds checks, and the math builtins that are not componentwise.

use super::*;
use crate::ops::Rows;

impl<'a, 'h> Interp<'a, 'h> {
    /// Evaluates expression `h` of function table `fi` for the running lanes (`lo..hi`: the
    /// subgroups being run; memory, bounds and events honour `active`), then tells the checkers
    /// if one watches it.
    pub(super) fn eval(&mut self, fi: usize, h: Handle<Expression>, active: &Mask) -> Result<()> {
        let at = ExprRef {
            function: fi,
            expr: h,
        };
        self.evaluating = Some(at);
        let r = self.eval_expr(fi, h, active);
        self.evaluating = None;
        r?;
        if self.watched[fi][h.index()] {
            let ev = ExprEvent {
                prog: self.prog,
                at,
                active,
                regs: &self.regs[fi],
                lanes: self.n,
                span: self.prog.function(fi).expressions.get_span(h),
            };
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.expression(&ctx, &ev, self.hooks.findings);
            }
        }
        Ok(())
    }

    fn eval_expr(&mut self, fi: usize, h: Handle<Expression>, active: &Mask) -> Result<()> {
        let prog = self.prog;
        let n = self.n;
        let (lo, hi) = (self.lo, self.hi);
        let rows = Rows {
            stride: n,
            len: hi - lo,
        };
        let len = rows.len;
        let t = &prog.funcs[fi];
        let m = t.exprs[h.index()];
        if m.alias {
            // a constant member of a value: its register is that part of its base's
            return Ok(());
        }
        let f = prog.function(fi);
        let dst0 = m.reg as usize * n;
        let words = m.words as usize;
        let e = &f.expressions[h];
        // Operands and the result are slices from the first running lane (`lo`) to the end of
        // their registers: word `w` of running lane `l` at `w * n + l`.
        // SAFETY of the slices: an expression's register range never overlaps its operands'.
        let regs = &mut self.regs[fi];
        let p = regs.as_mut_ptr();
        let total = regs.len();
        let op = |x: Handle<Expression>| -> (&[u32], usize) {
            let om = t.exprs[x.index()];
            let s = om.reg as usize * n;
            let l = om.words as usize * n;
            debug_assert!(s + l <= total);
            (
                unsafe { std::slice::from_raw_parts(p.add(s + lo), l.saturating_sub(lo)) },
                om.words as usize,
            )
        };
        let dst: &mut [u32] = unsafe {
            std::slice::from_raw_parts_mut(p.add(dst0 + lo), (words * n).saturating_sub(lo))
        };
        match *e {
            Expression::Literal(ref l) => {
                let v = literal_words(l)?;
                dst[..len].fill(v[0]);
            }
            Expression::Constant(c) => {
                let v = const_words(prog, prog.module().constants[c].init)?;
                for (w, &x) in v.iter().enumerate().take(words) {
                    dst[rows.at(w)].fill(x);
                }
            }
            Expression::ZeroValue(_) => {
                for w in 0..words {
                    dst[rows.at(w)].fill(0);
                }
            }
            Expression::Compose { ref components, .. } => {
                let mut at = 0;
                for &c in components {
                    let (src, cw) = op(c);
                    for w in 0..cw {
                        dst[rows.at(at + w)].copy_from_slice(&src[rows.at(w)]);
                    }
                    at += cw;
                }
            }
            Expression::Splat { value, .. } => {
                let (src, _) = op(value);
                for w in 0..words {
                    dst[rows.at(w)].copy_from_slice(&src[..len]);
                }
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let (src, _) = op(vector);
                for w in 0..size as usize {
                    let c = pattern[w] as usize;
                    dst[rows.at(w)].copy_from_slice(&src[rows.at(c)]);
                }
            }
            Expression::AccessIndex { base, .. } | Expression::Access { base, .. } => {
                let (src, _) = op(base);
                match m.aux {
                    Aux::ValField { off } => {
                        for w in 0..words {
                            dst[rows.at(w)].copy_from_slice(&src[rows.at(off as usize + w)]);
                        }
                    }
                    Aux::ValIndex { elem, count } => {
                        let Expression::Access { index, .. } = *e else {
                            return Err(Error::Sim("index".into()));
                        };
                        let (idx, _) = op(index);
                        let elem = elem as usize;
                        let mut bad = Vec::new();
                        for l in 0..len {
                            let mut i = idx[l] as usize;
                            if i >= count as usize {
                                if active.get(lo + l) {
                                    bad.push((lo + l, i));
                                }
                                i = count as usize - 1;
                            }
                            for w in 0..elem {
                                dst[w * n + l] = src[(i * elem + w) * n + l];
                            }
                        }
                        for (l, i) in bad {
                            self.oob(
                                l,
                                i as u64,
                                count as u64,
                                "vector/array value",
                                f.expressions.get_span(h),
                            );
                        }
                    }
                    Aux::PtrField { off, check } => {
                        self.roots[fi][h.index()] = self.roots[fi][base.index()];
                        for l in 0..len {
                            dst[l] = if src[l] == BAD {
                                BAD
                            } else {
                                src[l].wrapping_add(off)
                            };
                        }
                        if let Some(stride) = check {
                            let idx = off / stride;
                            self.check_runtime(fi, base, h, idx, stride, active)?;
                        }
                    }
                    Aux::PtrIndex { stride, len: plen } => {
                        let Expression::Access { index, .. } = *e else {
                            return Err(Error::Sim("index".into()));
                        };
                        self.roots[fi][h.index()] = self.roots[fi][base.index()];
                        let (idx, _) = op(index);
                        let ik = t.exprs[index.index()].kind;
                        let mut bad = Vec::new();
                        let limit = match plen {
                            Len::Const(c) => Some(c as u64),
                            Len::Runtime => None,
                        };
                        let blen = match (plen, self.roots[fi][base.index()]) {
                            (Len::Runtime, Root::Binding(g)) => {
                                self.bound[g as usize].map(|b| b.len as u64).unwrap_or(0)
                            }
                            _ => 0,
                        };
                        // a fixed length: every lane in range in one pass without branches,
                        // the lanes out of range (if any) told below
                        let fixed = match limit {
                            Some(c) if c <= u32::MAX as u64 => Some(c as u32),
                            _ => None,
                        };
                        if let Some(c) = fixed {
                            // (a negative i32 index is 2^31 or more as a u32)
                            let lim = if ik == Kind::I32 { c.min(1 << 31) } else { c };
                            let mut out = false;
                            let lanes = dst[..len].iter_mut().zip(&src[..len]).zip(&idx[..len]);
                            for ((d, &b0), &i) in lanes {
                                let ok = b0 != BAD && i < lim;
                                out |= !ok & (b0 != BAD);
                                *d = if ok {
                                    b0.wrapping_add(i.wrapping_mul(stride))
                                } else {
                                    BAD
                                };
                            }
                            if !out {
                                return Ok(());
                            }
                        }
                        for l in 0..len {
                            let b0 = src[l];
                            let i = if ik == Kind::I32 && (idx[l] as i32) < 0 {
                                u64::MAX
                            } else {
                                idx[l] as u64
                            };
                            let lim = limit
                                .unwrap_or_else(|| blen.saturating_sub(b0 as u64) / stride as u64);
                            if b0 == BAD || i >= lim {
                                dst[l] = BAD;
                                if b0 != BAD && active.get(lo + l) {
                                    bad.push((lo + l, i, lim));
                                }
                            } else {
                                dst[l] = b0.wrapping_add((i as u32).wrapping_mul(stride));
                            }
                        }
                        for (l, i, lim) in bad {
                            self.oob(l, i, lim, "array", f.expressions.get_span(h));
                        }
                    }
                    _ => return Err(Error::Sim("access".into())),
                }
            }
            Expression::FunctionArgument(_)
            | Expression::GlobalVariable(_)
            | Expression::LocalVariable(_)
            | Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. } => {}
            Expression::Load { pointer } => {
                let atomic = matches!(m.aux, Aux::Load { atomic: true, .. });
                self.load(fi, pointer, h, f.expressions.get_span(h), active, atomic)?;
            }
            Expression::Unary { op: uop, expr } => {
                let (a, _) = op(expr);
                ops::unary(uop, wide(t.exprs[expr.index()].kind), dst, a, words, rows)?;
                round_f16(m.kind, dst, words, rows);
            }
            Expression::Binary {
                op: bop,
                left,
                right,
            } => {
                let (a, aw) = op(left);
                let (b, bw) = op(right);
                match m.aux {
                    Aux::MatMul { a: ma, b: mb } => matmul(dst, a, ma, aw, b, mb, bw, words, rows),
                    // the f16 remainder rounds each of its steps to f16 itself
                    _ => ops::binary(
                        bop,
                        match (bop, t.exprs[left.index()].kind) {
                            (naga::BinaryOperator::Modulo, Kind::F16) => Kind::F16,
                            (_, k) => wide(k),
                        },
                        dst,
                        a,
                        aw,
                        b,
                        bw,
                        words,
                        rows,
                    )?,
                }
                round_f16(m.kind, dst, words, rows);
            }
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let (c, cw) = op(condition);
                let (a, aw) = op(accept);
                let (r, rw) = op(reject);
                ops::map3(dst, (c, cw), (a, aw), (r, rw), words, rows, |c, a, r| {
                    if c != 0 {
                        a
                    } else {
                        r
                    }
                });
            }
            Expression::Relational { fun, argument } => {
                let (a, aw) = op(argument);
                use naga::RelationalFunction as R;
                match fun {
                    R::All | R::Any => {
                        let all = fun == R::All;
                        for l in 0..len {
                            let mut acc = all;
                            for w in 0..aw {
                                let v = a[w * n + l] != 0;
                                acc = if all { acc && v } else { acc || v };
                            }
                            dst[l] = acc as u32;
                        }
                    }
                    R::IsNan => {
                        ops::map1(dst, a, words, rows, |x| f32::from_bits(x).is_nan() as u32)
                    }
                    R::IsInf => ops::map1(dst, a, words, rows, |x| {
                        f32::from_bits(x).is_infinite() as u32
                    }),
                }
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => {
                let a = op(arg);
                let ak = wide(t.exprs[arg.index()].kind);
                let (b1, c1, d1) = (arg1.map(op), arg2.map(op), arg3.map(op));
                if !ops::math(fun, ak, dst, a, b1, c1, d1, words, rows)? {
                    let matrix = match *prog.expr_type(fi, arg) {
                        TypeInner::Matrix { columns, rows, .. } => {
                            Some((columns as usize, rows as usize))
                        }
                        _ => None,
                    };
                    math::special(fun, ak, dst, [Some(a), b1, c1], words, rows, matrix)?;
                }
                round_f16(m.kind, dst, words, rows);
            }
            Expression::As {
                expr,
                kind,
                convert,
            } => {
                let (a, _) = op(expr);
                let from = t.exprs[expr.index()].kind;
                let to = match kind {
                    naga::ScalarKind::Uint => Kind::U32,
                    naga::ScalarKind::Sint => Kind::I32,
                    naga::ScalarKind::Float if convert == Some(2) => Kind::F16,
                    naga::ScalarKind::Float => Kind::F32,
                    naga::ScalarKind::Bool => Kind::Bool,
                    _ => from,
                };
                if convert.is_none() && (from == Kind::F16) != (to == Kind::F16) {
                    return Err(Error::Sim("bitcast to or from f16 not simulated".into()));
                }
                ops::cast(wide(from), wide(to), convert.is_some(), dst, a, words, rows);
                round_f16(to, dst, words, rows);
            }
            Expression::CooperativeLoad { ref data, .. } => {
                self.coop_load(fi, h, data, f.expressions.get_span(h), active)?;
            }
            Expression::CooperativeMultiplyAdd { a, b, c } => {
                self.coop_mma(fi, h, [a, b, c], f.expressions.get_span(h), active)?;
            }
            Expression::ImageLoad {
                image,
                coordinate,
                array_index,
                sample,
                level,
            } => {
                let span = f.expressions.get_span(h);
                self.image_load(
                    fi,
                    h,
                    [image, coordinate],
                    [array_index, sample, level],
                    span,
                    active,
                )?;
            }
            Expression::ImageQuery { image, query } => {
                self.image_query(fi, h, image, query, f.expressions.get_span(h), active)?;
            }
            Expression::ArrayLength(ptr) => {
                let Aux::ArrayLen { stride } = m.aux else {
                    return Err(Error::Sim("arrayLength".into()));
                };
                let (offs, _) = op(ptr);
                let blen = match self.roots[fi][ptr.index()] {
                    Root::Binding(g) => self.bound[g as usize].map(|b| b.len).unwrap_or(0),
                    _ => 0,
                };
                for l in 0..len {
                    dst[l] = (blen.saturating_sub(offs[l] as usize) / stride as usize) as u32;
                }
            }
            Expression::Override(_) => {
                return Err(Error::Sim(
                    "override expression left after specialization".into(),
                ))
            }
            ref other => {
                return Err(Error::Sim(format!(
                    "the simulator does not support `{}` expressions yet",
                    variant_name(other)
                )))
            }
        }
        Ok(())
    }

    pub(super) fn check_runtime(
        &mut self,
        fi: usize,
        base: Handle<Expression>,
        h: Handle<Expression>,
        idx: u32,
        stride: u32,
        active: &Mask,
    ) -> Result<()> {
        let n = self.n;
        let blen = match self.roots[fi][base.index()] {
            Root::Binding(g) => self.bound[g as usize].map(|b| b.len).unwrap_or(0),
            _ => return Ok(()),
        };
        let br = self.prog.funcs[fi].exprs[base.index()].reg as usize * n;
        let hr = self.prog.funcs[fi].exprs[h.index()].reg as usize * n;
        let mut bad = Vec::new();
        for l in self.lo..self.hi {
            let b0 = self.regs[fi][br + l];
            if b0 == BAD {
                continue;
            }
            let lim = blen.saturating_sub(b0 as usize) / stride as usize;
            if idx as usize >= lim {
                self.regs[fi][hr + l] = BAD;
                if active.get(l) {
                    bad.push((l, lim));
                }
            }
        }
        let span = self.prog.function(fi).expressions.get_span(h);
        for (l, lim) in bad {
            self.oob(l, idx as u64, lim as u64, "array", span);
        }
        Ok(())
    }
}

/// Matrix products (column-major registers).
#[allow(clippy::too_many_arguments)]
fn matmul(
    dst: &mut [u32],
    a: &[u32],
    ma: (u32, u32),
    aw: usize,
    b: &[u32],
    mb: (u32, u32),
    bw: usize,
    words: usize,
    rows: Rows,
) {
    let (n, len) = (rows.stride, rows.len);
    let g = |x: &[u32], i: usize| f32::from_bits(x[i]);
    match (ma.0 != 0, mb.0 != 0) {
        // matrix * scalar or scalar * matrix
        (true, false) if bw == 1 => ops::map2(dst, a, aw, b, 1, words, rows, |x, y| {
            (f32::from_bits(x) * f32::from_bits(y)).to_bits()
        }),
        (false, true) if aw == 1 => ops::map2(dst, a, 1, b, bw, words, rows, |x, y| {
            (f32::from_bits(x) * f32::from_bits(y)).to_bits()
        }),
        // matrix (c x r) * vector (c) -> vector (r)
        (true, false) => {
            let (c, r) = (ma.0 as usize, ma.1 as usize);
            for l in 0..len {
                for i in 0..r {
                    let s: f32 = (0..c)
                        .map(|k| g(a, (k * r + i) * n + l) * g(b, k * n + l))
                        .sum();
                    dst[i * n + l] = s.to_bits();
                }
            }
        }
        // vector (r) * matrix (c x r) -> vector (c)
        (false, true) => {
            let (c, r) = (mb.0 as usize, mb.1 as usize);
            for l in 0..len {
                for j in 0..c {
                    let s: f32 = (0..r)
                        .map(|k| g(a, k * n + l) * g(b, (j * r + k) * n + l))
                        .sum();
                    dst[j * n + l] = s.to_bits();
                }
            }
        }
        // (k x r) * (c x k) -> (c x r)
        (true, true) => {
            let (k, r) = (ma.0 as usize, ma.1 as usize);
            let c = mb.0 as usize;
            for l in 0..len {
                for j in 0..c {
                    for i in 0..r {
                        let s: f32 = (0..k)
                            .map(|q| g(a, (q * r + i) * n + l) * g(b, (j * k + q) * n + l))
                            .sum();
                        dst[(j * r + i) * n + l] = s.to_bits();
                    }
                }
            }
        }
        (false, false) => {}
    }
}

/// The kind arithmetic runs in: f16 values are computed in f32, then rounded.
fn wide(k: Kind) -> Kind {
    if k == Kind::F16 {
        Kind::F32
    } else {
        k
    }
}

/// Rounds a result of kind f16 to the nearest f16 (held as f32 bits).
fn round_f16(k: Kind, dst: &mut [u32], words: usize, rows: Rows) {
    if k == Kind::F16 {
        for w in 0..words {
            for x in dst[rows.at(w)].iter_mut() {
                *x = ops::f16_to_f32(ops::f32_to_f16(f32::from_bits(*x))).to_bits();
            }
        }
    }
}
