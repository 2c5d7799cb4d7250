//! Cooperative matrices (`coop_mat8x8` / `coop_mat16x16`, `coopLoad[T]`, `coopStore[T]`,
//! `coopMultiplyAdd`).
//!
//! Rules:
//! - A matrix value is **one whole matrix per subgroup**, replicated in the registers of every
//!   lane (`layout.rs`: `rows × columns` words, row-major). Each operation is a subgroup
//!   operation: it is reported to the checkers like a shuffle, so running it with some live
//!   lanes of the subgroup inactive is a `non-uniform-subgroup-op`.
//! - Each subgroup computes from its **first active lane**: the pointer and stride of a load or
//!   store and the operands of a multiply-add. Active lanes whose pointer or stride differ from
//!   it are reported as if inactive (the operands must be subgroup-uniform), and are ignored.
//! - Loads and stores go through memory like any access, element by element: element `e`
//!   (row-major index) is attributed to the `e mod k`-th active lane of the subgroup (`k`
//!   active lanes), so the race, init and bounds checkers see every word. `coopLoadT` /
//!   `coopStoreT` are row-major, `coopLoad` / `coopStore` column-major.
//! - The pointer may point to a scalar or to a vector of 2 or 4 (`vec4<f16>` staging: one
//!   8-byte store per 4 elements) of the matrix's element type (naga 30 types a loaded matrix
//!   by its pointer and refuses a store through another type, so memory is never
//!   reinterpreted). The stride counts **array elements of the pointee**, each holding `per`
//!   matrix elements (its leaves, a word each here, `layout.rs`): row `r` of a row-major matrix
//!   starts at matrix element `(i + r·stride)·per` of the array (`i` the pointer's element
//!   index), column `c` of a column-major one at `(i + c·stride)·per`.
//! - Every element's array index is checked against that array (or the binding / variable when
//!   the pointer is not an array element); an element out of range is reported, loads 0 and is
//!   not stored.
//! - `coopMultiplyAdd(a, b, c)` = `c + a·b`, each sum in f32 in order of k (products of f16 are
//!   exact in f32); an f16 accumulator is rounded to f16 at the end.

use super::halves;
use super::*;

/// The memory word and part (`crate::halves`) of element word `a` of a cooperative load or
/// store: of binding `bound` (`a` from its first word or leaf), else of workgroup memory.
fn word_of(prog: &Program, bound: Option<&Bound>, a: usize) -> (usize, u8) {
    match bound {
        Some(b) => match b.halves {
            Some(ty) => halves::leaf_at(prog, b, ty, a as u32),
            None => (b.base + a, 0),
        },
        None => (a, 0),
    }
}

/// Where the elements of a cooperative load or store go.
struct Place {
    root: Root,
    /// End of the binding (bindings) or of the variable's words (workgroup memory).
    hi: usize,
    /// Array element words and the array's base-pointer expression, when the pointer is an
    /// element of an indexed array.
    array: Option<(Handle<Expression>, u32, Len)>,
    /// How matrix elements pack into the pointee.
    pack: Packing,
}

/// How the elements of a matrix sit in the type the pointer points to.
#[derive(Clone, Copy, Debug)]
struct Packing {
    /// Matrix elements (= leaves = words) per pointee (array element).
    per: u64,
}

impl Packing {
    /// The packing of `matrix`-kind elements behind a pointer to `pointee`.
    fn of(pointee: &naga::TypeInner, matrix: Kind) -> Result<Packing> {
        let no = |why: &str| {
            Err(Error::Sim(format!(
                "cooperative load/store through a pointer to {pointee:?}: {why}"
            )))
        };
        let (per, scalar) = match *pointee {
            naga::TypeInner::Scalar(s) => (1u64, s),
            naga::TypeInner::Vector { size, scalar } => (size as u64, scalar),
            _ => return no("not a scalar or vector"),
        };
        if per == 3 {
            return no("vec3 (padded to 4) is not simulated");
        }
        if Kind::of(scalar)? != matrix {
            return no("not the matrix's element type");
        }
        Ok(Packing { per })
    }
}

impl<'a, 'h> Interp<'a, 'h> {
    /// Evaluates the pointer's access chain here, at its use. naga 30's WGSL front end can emit
    /// the chain of a `coopStore`'s pointer *after* the store (gemm_coop.wgsl's `store_c`); its
    /// SPIR-V writer builds access chains at the use, so the simulator does too (re-evaluating a
    /// pure chain is harmless).
    fn coop_pointer(&mut self, fi: usize, h: Handle<Expression>, active: &Mask) -> Result<()> {
        let f = self.prog.function(fi);
        match f.expressions[h] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                self.coop_pointer(fi, base, active)?;
                self.eval(fi, h, active)
            }
            _ => Ok(()),
        }
    }

    fn coop_place(&self, fi: usize, pointer: Handle<Expression>, matrix: Kind) -> Result<Place> {
        let prog = self.prog;
        let f = prog.function(fi);
        let pack = match crate::tables::pointee(prog.module(), prog.expr_type(fi, pointer)) {
            Some((t, _)) => Packing::of(&t, matrix)?,
            None => {
                return Err(Error::Sim(
                    "cooperative load/store through a non-pointer".into(),
                ))
            }
        };
        let root = self.roots[fi][pointer.index()];
        let array = match (
            &f.expressions[pointer],
            prog.funcs[fi].exprs[pointer.index()].aux,
        ) {
            (&Expression::Access { base, .. }, Aux::PtrIndex { stride, len }) => {
                Some((base, stride, len))
            }
            _ => None,
        };
        let hi = match root {
            Root::Binding(g) => {
                let b =
                    self.bound[g as usize].ok_or_else(|| Error::Sim("unbound global".into()))?;
                b.len
            }
            Root::Workgroup => {
                // the workgroup variable the pointer derives from
                let mut e = pointer;
                loop {
                    match f.expressions[e] {
                        Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                            e = base
                        }
                        Expression::GlobalVariable(g) => {
                            let gm = &prog.globals[g.index()];
                            break (gm.base + gm.words) as usize;
                        }
                        _ => break prog.wg_words as usize,
                    }
                }
            }
            _ => {
                return Err(Error::Sim(
                    "cooperative load/store outside storage or workgroup memory not simulated"
                        .into(),
                ))
            }
        };
        if let Some((_, stride, _)) = array {
            if stride as u64 != pack.per {
                return Err(Error::Sim(format!(
                    "cooperative load/store: array stride of {stride} words for a pointee of {} \
                     (not simulated)",
                    pack.per
                )));
            }
        }
        Ok(Place {
            root,
            hi,
            array,
            pack,
        })
    }

    /// Per subgroup: the first active lane and the active lanes that agree with it on the
    /// listed registers; reports the operation as a subgroup operation over the agreeing lanes.
    fn coop_lanes(
        &mut self,
        fi: usize,
        uniform: &[Handle<Expression>],
        name: &'static str,
        span: Span,
        active: &Mask,
    ) -> Vec<(usize, Vec<usize>)> {
        let n = self.n;
        let s = self.s;
        let t = &self.prog.funcs[fi];
        let mut agree = Mask::EMPTY;
        let mut out = Vec::new();
        for sg in self.running_subgroups() {
            let lanes: Vec<usize> = (sg * s..(sg * s + s).min(n))
                .filter(|&l| active.get(l))
                .collect();
            let Some(&first) = lanes.first() else {
                continue;
            };
            let same: Vec<usize> = lanes
                .into_iter()
                .filter(|&l| {
                    uniform.iter().all(|&u| {
                        let r = t.exprs[u.index()].reg as usize * n;
                        self.regs[fi][r + l] == self.regs[fi][r + first]
                    })
                })
                .collect();
            for &l in &same {
                agree.set(l);
            }
            out.push((first, same));
        }
        self.subgroup_events(name, span, &agree);
        out
    }

    /// Where every element is (relative to the place's space), row-major, `None` for an
    /// element out of range (reported).
    #[allow(clippy::too_many_arguments)]
    fn coop_addrs(
        &mut self,
        fi: usize,
        place: &Place,
        pointer: Handle<Expression>,
        lane: usize,
        (rows, cols): (usize, usize),
        ld: u32,
        row_major: bool,
        span: Span,
    ) -> Vec<Option<usize>> {
        let n = self.n;
        let t = &self.prog.funcs[fi];
        let p = self.regs[fi][t.exprs[pointer.index()].reg as usize * n + lane];
        let mut out = vec![None; rows * cols];
        if p == BAD {
            return out;
        }
        let pk = place.pack;
        // the array (base word, element index of the pointer, length in elements) the
        // elements are counted in; without one, the pointee's own words from `p` on
        let (b0, i0, len) = match place.array {
            Some((base, stride, len)) => {
                let b0 = self.regs[fi][t.exprs[base.index()].reg as usize * n + lane] as u64;
                let len = match len {
                    Len::Const(c) => c as u64,
                    Len::Runtime => (place.hi as u64).saturating_sub(b0) / stride as u64,
                };
                (b0, (p as u64 - b0) / stride as u64, len)
            }
            None => (
                p as u64,
                0,
                (place.hi as u64).saturating_sub(p as u64) / pk.per,
            ),
        };
        let mut bad = None;
        for r in 0..rows {
            for c in 0..cols {
                let (line, along) = if row_major { (r, c) } else { (c, r) };
                // matrix-element index into the array (a word each), then its array element
                let h = (i0 + line as u64 * ld as u64) * pk.per + along as u64;
                let idx = h / pk.per;
                let word = b0 + h;
                if idx < len && word < place.hi as u64 {
                    out[r * cols + c] = Some(word as usize);
                } else if bad.is_none() {
                    bad = Some((idx, len));
                }
            }
        }
        if let Some((i, len)) = bad {
            self.oob(lane, i, len, "array (cooperative matrix element)", span);
        }
        out
    }

    pub(super) fn coop_load(
        &mut self,
        fi: usize,
        h: Handle<Expression>,
        data: &naga::CooperativeData,
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        let n = self.n;
        let m = self.prog.funcs[fi].exprs[h.index()];
        let (rows, cols) = (m.coop.0 as usize, m.coop.1 as usize);
        self.coop_pointer(fi, data.pointer, active)?;
        let place = self.coop_place(fi, data.pointer, m.kind)?;
        let name = if data.row_major {
            "coopLoadT"
        } else {
            "coopLoad"
        };
        let groups = self.coop_lanes(fi, &[data.pointer, data.stride], name, span, active);
        let sr = self.prog.funcs[fi].exprs[data.stride.index()].reg as usize * n;
        let dr = m.reg as usize * n;
        for (first, lanes) in groups {
            let ld = self.regs[fi][sr + first];
            let addrs = self.coop_addrs(
                fi,
                &place,
                data.pointer,
                first,
                (rows, cols),
                ld,
                data.row_major,
                span,
            );
            let prog = self.prog;
            let (mem, bound, space): (&[u32], Option<Bound>, Space) = match place.root {
                Root::Binding(g) => {
                    let b = self.bound[g as usize].expect("bound");
                    let sp = if b.uniform {
                        Space::Uniform
                    } else {
                        Space::Storage
                    };
                    (&self.buffers[b.buffer], Some(b), sp)
                }
                _ => (&self.wg_mem, None, Space::Workgroup),
            };
            let mut vals = vec![0u32; rows * cols];
            let mut touched = Vec::new();
            for (e, a) in addrs.iter().enumerate() {
                if let Some(a) = *a {
                    let (w, part) = word_of(prog, bound.as_ref(), a);
                    vals[e] = halves::read_leaf(mem, w, part);
                    touched.push((lanes[e % lanes.len()] as u32, w as u32, part));
                }
            }
            self.emit_coop(touched, bound, space, AccessKind::Load, span);
            let regs = &mut self.regs[fi];
            for &l in &lanes {
                for (w, &v) in vals.iter().enumerate() {
                    regs[dr + w * n + l] = v;
                }
            }
        }
        Ok(())
    }

    pub(super) fn coop_store(
        &mut self,
        fi: usize,
        target: Handle<Expression>,
        data: &naga::CooperativeData,
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        let n = self.n;
        let m = self.prog.funcs[fi].exprs[target.index()];
        let (rows, cols) = (m.coop.0 as usize, m.coop.1 as usize);
        if rows == 0 {
            return Err(Error::Sim("coopStore of a non-matrix".into()));
        }
        self.coop_pointer(fi, data.pointer, active)?;
        let place = self.coop_place(fi, data.pointer, m.kind)?;
        let name = if data.row_major {
            "coopStoreT"
        } else {
            "coopStore"
        };
        let groups = self.coop_lanes(fi, &[data.pointer, data.stride], name, span, active);
        let sr = self.prog.funcs[fi].exprs[data.stride.index()].reg as usize * n;
        let vr = m.reg as usize * n;
        for (first, lanes) in groups {
            let ld = self.regs[fi][sr + first];
            let addrs = self.coop_addrs(
                fi,
                &place,
                data.pointer,
                first,
                (rows, cols),
                ld,
                data.row_major,
                span,
            );
            let prog = self.prog;
            let (mem, bound, space): (&mut [u32], Option<Bound>, Space) = match place.root {
                Root::Binding(g) => {
                    let b = self.bound[g as usize].expect("bound");
                    if b.uniform {
                        return Err(Error::Sim("coopStore to a uniform buffer".into()));
                    }
                    (&mut self.buffers[b.buffer], Some(b), Space::Storage)
                }
                _ => (&mut self.wg_mem, None, Space::Workgroup),
            };
            let mut touched = Vec::new();
            for (e, a) in addrs.iter().enumerate() {
                if let Some(a) = *a {
                    let (w, part) = word_of(prog, bound.as_ref(), a);
                    halves::write_leaf(mem, w, part, self.regs[fi][vr + e * n + first]);
                    touched.push((lanes[e % lanes.len()] as u32, w as u32, part));
                }
            }
            self.emit_coop(touched, bound, space, AccessKind::Store, span);
        }
        Ok(())
    }

    /// Reports the words (lane, word, part) a cooperative load or store touched, by lane.
    fn emit_coop(
        &mut self,
        mut touched: Vec<(u32, u32, u8)>,
        bound: Option<Bound>,
        space: Space,
        kind: AccessKind,
        span: Span,
    ) {
        touched.sort_by_key(|x| x.0);
        self.scratch.clear();
        self.parts.clear();
        let halves = bound.is_some_and(|b| b.halves.is_some());
        for (l, w, p) in touched {
            self.scratch.push((l, w));
            if halves {
                self.parts.push(p);
            }
        }
        match bound {
            Some(b) => self.emit_bound(&b, space, kind, false, span),
            None => self.emit_access(space, 0, kind, false, span),
        }
    }

    pub(super) fn coop_mma(
        &mut self,
        fi: usize,
        h: Handle<Expression>,
        [a, b, c]: [Handle<Expression>; 3],
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        let n = self.n;
        let t = &self.prog.funcs[fi];
        let (am, bm, cm, dm) = (
            t.exprs[a.index()],
            t.exprs[b.index()],
            t.exprs[c.index()],
            t.exprs[h.index()],
        );
        let (rows, inner, cols) = (am.coop.0 as usize, am.coop.1 as usize, bm.coop.1 as usize);
        if bm.coop.0 as usize != inner || cm.coop != (rows as u8, cols as u8) {
            return Err(Error::Sim("coopMultiplyAdd shapes do not match".into()));
        }
        let round = cm.kind == Kind::F16;
        let groups = self.coop_lanes(fi, &[], "coopMultiplyAdd", span, active);
        let (ar, br, cr, dr) = (
            am.reg as usize * n,
            bm.reg as usize * n,
            cm.reg as usize * n,
            dm.reg as usize * n,
        );
        let regs = &mut self.regs[fi];
        let mut out = vec![0u32; rows * cols];
        for (first, lanes) in groups {
            let g = |base: usize, w: usize| f32::from_bits(regs[base + w * n + first]);
            for r in 0..rows {
                for col in 0..cols {
                    let mut acc = g(cr, r * cols + col);
                    for k in 0..inner {
                        acc += g(ar, r * inner + k) * g(br, k * cols + col);
                    }
                    if round {
                        acc = ops::f16_to_f32(ops::f32_to_f16(acc));
                    }
                    out[r * cols + col] = acc.to_bits();
                }
            }
            for &l in &lanes {
                for (w, &v) in out.iter().enumerate() {
                    regs[dr + w * n + l] = v;
                }
            }
        }
        Ok(())
    }
}
