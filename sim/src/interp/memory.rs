//! Memory operations of the interpreter: loads, stores and atomics through pointers (root +
//! per-lane offset), bound checks, and the access events checkers see.

use super::halves;
use super::*;

impl<'a, 'h> Interp<'a, 'h> {
    pub(super) fn oob(&mut self, slot: usize, index: u64, len: u64, what: &str, span: Span) {
        let ev = OobEvent {
            slot,
            index,
            len,
            what: what.to_string(),
            span,
            expr: self.evaluating,
        };
        let ctx = ctx!(self);
        for c in self.hooks.checkers.iter_mut() {
            c.out_of_bounds(&ctx, &ev, self.hooks.findings);
        }
    }

    /// Whether the running thread's reads and writes are tracked for spinning: under an
    /// interleaving schedule, in a loop.
    #[inline]
    pub(super) fn tracking(&self) -> bool {
        self.track_spin && self.spin.on
    }

    pub(super) fn emit_access(
        &mut self,
        space: Space,
        buffer: usize,
        kind: AccessKind,
        atomic: bool,
        span: Span,
    ) {
        let words = std::mem::take(&mut self.scratch);
        let parts = std::mem::take(&mut self.parts);
        if !words.is_empty() {
            let a = MemAccess {
                space,
                buffer,
                read_only: space == Space::Storage && self.read_only[buffer],
                kind,
                atomic,
                words: &words,
                parts: &parts,
                span,
                expr: self.evaluating,
            };
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.access(&ctx, &a, self.hooks.findings);
            }
        }
        self.scratch = words;
        self.scratch.clear();
        self.parts = parts;
        self.parts.clear();
    }

    /// Validates addresses of a binding access: out-of-range lanes are reported and get BAD.
    pub(super) fn check_binding(
        &mut self,
        offs: &mut [u32],
        maxw: u32,
        b: Bound,
        span: Span,
        active: &Mask,
    ) {
        let mut bad = Vec::new();
        active.for_each(|l| {
            let o = offs[l];
            if o != BAD && (o as u64 + maxw as u64) > b.len as u64 {
                bad.push((l, o));
            }
        });
        // (a halves binding's range counts leaves: an f16 or a 32-bit value each)
        let what = if b.halves.is_some() {
            "binding range (f16 and 32-bit values)"
        } else {
            "binding range (words)"
        };
        for (l, o) in bad {
            offs[l] = BAD;
            self.oob(l, o as u64 + maxw as u64 - 1, b.len as u64, what, span);
        }
    }

    pub(super) fn load(
        &mut self,
        fi: usize,
        pointer: Handle<Expression>,
        dst_h: Handle<Expression>,
        span: Span,
        active: &Mask,
        atomic: bool,
    ) -> Result<()> {
        let prog = self.prog;
        let n = self.n;
        let t = &prog.funcs[fi];
        let pm = t.exprs[pointer.index()];
        let dm = t.exprs[dst_h.index()];
        let map = value_map(prog, fi, dst_h, dm);
        let maxw = map.iter().copied().max().unwrap_or(0) + 1;
        let root = self.roots[fi][pointer.index()];
        let pr = pm.reg as usize * n;
        let mut offs = std::mem::take(&mut self.offs);
        // the running lanes' offsets (the others' are never read)
        offs.resize(n, BAD);
        offs[self.lo..self.hi].copy_from_slice(&self.regs[fi][pr + self.lo..pr + self.hi]);
        let dr = dm.reg as usize * n;
        match root {
            Root::Binding(g) => {
                let b =
                    self.bound[g as usize].ok_or_else(|| Error::Sim("unbound global".into()))?;
                self.check_binding(&mut offs, maxw, b, span, active);
                let track = self.tracking() && !b.uniform && !b.read_only;
                let space = if b.uniform {
                    Space::Uniform
                } else {
                    Space::Storage
                };
                if let Some(ty) = b.halves {
                    self.load_halves(fi, &offs, map, dr, (&b, ty), track, active);
                    self.emit_bound(&b, space, AccessKind::Load, atomic, span);
                    self.offs = offs;
                    return Ok(());
                }
                let key = (b.buffer as u64 + 1) << 32;
                let buf = &self.buffers[b.buffer];
                let regs = &mut self.regs[fi];
                let scratch = &mut self.scratch;
                let spin = &mut self.spin;
                active.for_each(|l| {
                    let o = offs[l];
                    for (w, &mw) in map.iter().enumerate() {
                        regs[dr + w * n + l] = if o == BAD {
                            0
                        } else {
                            let a = b.base + (o + mw) as usize;
                            scratch.push((l as u32, a as u32));
                            if track {
                                spin.read(key | a as u64, buf[a]);
                            }
                            buf[a]
                        };
                    }
                });
                self.emit_bound(&b, space, AccessKind::Load, atomic, span);
            }
            Root::Workgroup => {
                let track = self.tracking();
                let regs = &mut self.regs[fi];
                let mem = &self.wg_mem;
                let scratch = &mut self.scratch;
                let spin = &mut self.spin;
                active.for_each(|l| {
                    let o = offs[l];
                    for (w, &mw) in map.iter().enumerate() {
                        regs[dr + w * n + l] = if o == BAD {
                            0
                        } else {
                            let (a, v) = (o + mw, mem[(o + mw) as usize]);
                            scratch.push((l as u32, a));
                            if track {
                                spin.read(a as u64, v);
                            }
                            v
                        };
                    }
                });
                self.emit_access(Space::Workgroup, 0, AccessKind::Load, atomic, span);
            }
            Root::Private | Root::Local(_) => {
                let mem: &Vec<u32> = match root {
                    Root::Private => &self.private,
                    Root::Local(f) => &self.locals[f as usize],
                    _ => unreachable!(),
                };
                let regs = &mut self.regs[fi];
                // per-lane memory: reading an inactive lane's own word is harmless, so a uniform
                // offset loads whole rows (of the running lanes)
                let first = active.first_set().map(|l| offs[l]).unwrap_or(BAD);
                if first != BAD && active_lanes_equal(&offs, active, first) {
                    let (lo, hi) = (self.lo, self.hi);
                    for (w, &mw) in map.iter().enumerate() {
                        let s = (first + mw) as usize * n;
                        regs[dr + w * n + lo..dr + w * n + hi]
                            .copy_from_slice(&mem[s + lo..s + hi]);
                    }
                } else {
                    active.for_each(|l| {
                        let o = offs[l];
                        for (w, &mw) in map.iter().enumerate() {
                            regs[dr + w * n + l] = if o == BAD {
                                0
                            } else {
                                mem[(o + mw) as usize * n + l]
                            };
                        }
                    });
                }
            }
            Root::None => return Err(Error::Sim("load through a non-pointer".into())),
        }
        self.offs = offs;
        Ok(())
    }

    pub(super) fn store(
        &mut self,
        fi: usize,
        pointer: Handle<Expression>,
        value: Handle<Expression>,
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        let prog = self.prog;
        let n = self.n;
        let t = &prog.funcs[fi];
        let pm = t.exprs[pointer.index()];
        let vm = t.exprs[value.index()];
        let map = value_map(prog, fi, value, vm);
        let atomic = pm.atomic;
        let maxw = map.iter().copied().max().unwrap_or(0) + 1;
        let root = self.roots[fi][pointer.index()];
        let pr = pm.reg as usize * n;
        let mut offs = std::mem::take(&mut self.offs);
        // the running lanes' offsets (the others' are never read)
        offs.resize(n, BAD);
        offs[self.lo..self.hi].copy_from_slice(&self.regs[fi][pr + self.lo..pr + self.hi]);
        let vr = vm.reg as usize * n;
        match root {
            Root::Binding(g) => {
                let b =
                    self.bound[g as usize].ok_or_else(|| Error::Sim("unbound global".into()))?;
                self.check_binding(&mut offs, maxw, b, span, active);
                let changed = if let Some(ty) = b.halves {
                    self.store_halves(fi, &offs, map, vr, (&b, ty), active)
                } else {
                    let buf = &mut self.buffers[b.buffer];
                    let regs = &self.regs[fi];
                    let scratch = &mut self.scratch;
                    let mut changed = false;
                    active.for_each(|l| {
                        let o = offs[l];
                        if o != BAD {
                            for (w, &mw) in map.iter().enumerate() {
                                let a = b.base + (o + mw) as usize;
                                scratch.push((l as u32, a as u32));
                                changed |= buf[a] != regs[vr + w * n + l];
                                buf[a] = regs[vr + w * n + l];
                            }
                        }
                    });
                    changed
                };
                if self.tracking() && changed {
                    self.spin.wrote();
                }
                self.emit_bound(&b, Space::Storage, AccessKind::Store, atomic, span);
            }
            Root::Workgroup => {
                let regs = &self.regs[fi];
                let mem = &mut self.wg_mem;
                let scratch = &mut self.scratch;
                let mut changed = false;
                active.for_each(|l| {
                    let o = offs[l];
                    if o != BAD {
                        for (w, &mw) in map.iter().enumerate() {
                            scratch.push((l as u32, o + mw));
                            changed |= mem[(o + mw) as usize] != regs[vr + w * n + l];
                            mem[(o + mw) as usize] = regs[vr + w * n + l];
                        }
                    }
                });
                if self.tracking() && changed {
                    self.spin.wrote();
                }
                self.emit_access(Space::Workgroup, 0, AccessKind::Store, atomic, span);
            }
            Root::Private | Root::Local(_) => {
                // a loop whose iteration changes a variable is not spinning: under tracking,
                // whether a word changes is seen as it is written
                let watch = self.tracking() && !self.spin.has_written();
                let mut changed = false;
                let regs = &self.regs[fi];
                let mem: &mut Vec<u32> = match root {
                    Root::Private => &mut self.private,
                    Root::Local(f) => &mut self.locals[f as usize],
                    _ => unreachable!(),
                };
                let first = active.first_set().map(|l| offs[l]).unwrap_or(BAD);
                if first != BAD && active_lanes_equal(&offs, active, first) {
                    // uniform offset: whole rows, blended by the mask 64 lanes at a time
                    for (w, &mw) in map.iter().enumerate() {
                        let d = (first + mw) as usize * n;
                        let src = &regs[vr + w * n..vr + w * n + n];
                        let dst = &mut mem[d..d + n];
                        for (c, (dc, sc)) in dst.chunks_mut(64).zip(src.chunks(64)).enumerate() {
                            let bits = active.word(c);
                            if bits == !0 || (bits.count_ones() as usize == dc.len()) {
                                changed |= watch && *dc != *sc;
                                dc.copy_from_slice(sc);
                            } else if bits != 0 {
                                for (b, (dv, &sv)) in dc.iter_mut().zip(sc).enumerate() {
                                    if bits >> b & 1 != 0 {
                                        changed |= *dv != sv;
                                        *dv = sv;
                                    }
                                }
                            }
                        }
                    }
                } else {
                    active.for_each(|l| {
                        let o = offs[l];
                        if o != BAD {
                            for (w, &mw) in map.iter().enumerate() {
                                let (at, v) = ((o + mw) as usize * n + l, regs[vr + w * n + l]);
                                changed |= mem[at] != v;
                                mem[at] = v;
                            }
                        }
                    });
                }
                if watch && changed {
                    self.spin.wrote();
                }
            }
            Root::None => return Err(Error::Sim("store through a non-pointer".into())),
        }
        self.offs = offs;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
        &mut self,
        fi: usize,
        pointer: Handle<Expression>,
        fun: &AtomicFunction,
        value: Handle<Expression>,
        result: Option<Handle<Expression>>,
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        let prog = self.prog;
        let n = self.n;
        let t = &prog.funcs[fi];
        let pm = t.exprs[pointer.index()];
        let vm = t.exprs[value.index()];
        let signed = vm.kind == Kind::I32;
        let root = self.roots[fi][pointer.index()];
        let pr = pm.reg as usize * n;
        let mut offs = std::mem::take(&mut self.offs);
        // the running lanes' offsets (the others' are never read)
        offs.resize(n, BAD);
        offs[self.lo..self.hi].copy_from_slice(&self.regs[fi][pr + self.lo..pr + self.hi]);
        let vr = vm.reg as usize * n;
        let cmp = match *fun {
            AtomicFunction::Exchange { compare: Some(c) } => {
                Some(t.exprs[c.index()].reg as usize * n)
            }
            _ => None,
        };
        let rr = result.map(|r| t.exprs[r.index()].reg as usize * n);
        let mut binding = None;
        let (space, buffer, base) = match root {
            Root::Binding(g) => {
                let b =
                    self.bound[g as usize].ok_or_else(|| Error::Sim("unbound global".into()))?;
                self.check_binding(&mut offs, 1, b, span, active);
                if let Some(ty) = b.halves {
                    // (an atomic is a 32-bit leaf: its word, from the binding's first)
                    active.for_each(|l| {
                        if offs[l] != BAD {
                            offs[l] = (halves::leaf_at(prog, &b, ty, offs[l]).0 - b.base) as u32;
                        }
                    });
                }
                binding = Some(b);
                (Space::Storage, b.buffer, b.base)
            }
            Root::Workgroup => (Space::Workgroup, 0, 0),
            _ => return Err(Error::Sim("atomic outside storage/workgroup memory".into())),
        };
        let fun = *fun;
        let track = self.tracking();
        let regs = &mut self.regs[fi];
        let mem: &mut [u32] = match root {
            Root::Binding(_) => &mut self.buffers[buffer],
            _ => &mut self.wg_mem,
        };
        let scratch = &mut self.scratch;
        let key = match root {
            Root::Binding(_) => (buffer as u64 + 1) << 32,
            _ => 0,
        };
        let spin = &mut self.spin;
        active.for_each(|l| {
            let o = offs[l];
            if o == BAD {
                if let Some(rr) = rr {
                    regs[rr + l] = 0;
                    if cmp.is_some() {
                        regs[rr + n + l] = 0;
                    }
                }
                return;
            }
            let a = base + o as usize;
            scratch.push((l as u32, a as u32));
            let old = mem[a];
            let v = regs[vr + l];
            let (new, exchanged) = match fun {
                AtomicFunction::Add => (old.wrapping_add(v), false),
                AtomicFunction::Subtract => (old.wrapping_sub(v), false),
                AtomicFunction::And => (old & v, false),
                AtomicFunction::InclusiveOr => (old | v, false),
                AtomicFunction::ExclusiveOr => (old ^ v, false),
                AtomicFunction::Min if signed => ((old as i32).min(v as i32) as u32, false),
                AtomicFunction::Max if signed => ((old as i32).max(v as i32) as u32, false),
                AtomicFunction::Min => (old.min(v), false),
                AtomicFunction::Max => (old.max(v), false),
                AtomicFunction::Exchange { compare: None } => (v, false),
                AtomicFunction::Exchange { compare: Some(_) } => {
                    let c = regs[cmp.unwrap_or(0) + l];
                    if old == c {
                        (v, true)
                    } else {
                        (old, false)
                    }
                }
            };
            mem[a] = new;
            if track {
                spin.read(key | a as u64, old);
                if new != old {
                    spin.wrote();
                }
            }
            if let Some(rr) = rr {
                regs[rr + l] = old;
                if cmp.is_some() {
                    regs[rr + n + l] = exchanged as u32;
                }
            }
        });
        // a ticket: a storage read-modify-write whose result the lanes use
        if self.watch_tickets && rr.is_some() && space == Space::Storage && self.ticket.is_none() {
            if let Some(&(l, _)) = self.scratch.first() {
                self.ticket = Some((span, l as usize));
            }
        }
        match binding {
            Some(b) => self.emit_bound(&b, space, AccessKind::Rmw, true, span),
            None => self.emit_access(space, buffer, AccessKind::Rmw, true, span),
        }
        self.offs = offs;
        Ok(())
    }
}

/// Whether every active lane's offset equals `o`.
fn active_lanes_equal(offs: &[u32], active: &Mask, o: u32) -> bool {
    for (c, chunk) in offs.chunks(64).enumerate() {
        let bits = active.word(c);
        if bits == 0 {
            continue;
        }
        let all = if chunk.len() == 64 {
            !0
        } else {
            (1u64 << chunk.len()) - 1
        };
        if bits & all == all {
            // every lane of the chunk: a comparison the compiler vectorises
            if chunk.iter().fold(false, |d, &x| d | (x != o)) {
                return false;
            }
        } else {
            let mut b = bits & all;
            while b != 0 {
                if chunk[b.trailing_zeros() as usize] != o {
                    return false;
                }
                b &= b - 1;
            }
        }
    }
    true
}

/// A matrix of three rows pads each column to four words in memory.
static PADDED3: [u32; 12] = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14];

/// For each register word of the value `h` (meta `m`), its memory word: from its type's layout,
/// or, where naga gave the value no type handle (a `transpose`, a matrix product), from its
/// shape: a matrix of three rows has padded columns, everything else is packed.
fn value_map(prog: &Program, fi: usize, h: Handle<Expression>, m: ExprMeta) -> &[u32] {
    if m.ty != u32::MAX {
        return &prog.layouts.at(m.ty).reg_map;
    }
    match *prog.expr_type(fi, h) {
        TypeInner::Matrix {
            rows: naga::VectorSize::Tri,
            ..
        } => &PADDED3[..m.words as usize],
        _ => &IDENT[..m.words as usize],
    }
}
