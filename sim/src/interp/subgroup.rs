//! Subgroup operations: ballot, the gather family (shuffles, broadcasts, quad ops) and
//! collective reductions and scans, each over the active lanes of every subgroup, with poison
//! for reads of inactive or absent lanes.

use super::*;

impl<'a, 'h> Interp<'a, 'h> {
    /// The subgroups of the running thread (slots `lo..hi`).
    pub(super) fn running_subgroups(&self) -> std::ops::Range<usize> {
        self.lo / self.s..self.hi.div_ceil(self.s)
    }

    pub(super) fn subgroup_events(&mut self, op: &'static str, span: Span, active: &Mask) {
        for sg in self.running_subgroups() {
            let range = Mask::range(sg * self.s, self.s.min(self.n - sg * self.s));
            let a = active.and(&range);
            if a.none() {
                continue;
            }
            let ev = SubgroupEvent {
                subgroup: sg as u32,
                active: a,
                live: self.live.and(&range),
                op,
                span,
            };
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.subgroup_op(&ctx, &ev, self.hooks.findings);
            }
        }
    }

    pub(super) fn ballot(
        &mut self,
        fi: usize,
        result: Handle<Expression>,
        predicate: Option<Handle<Expression>>,
        span: Span,
        active: &Mask,
    ) {
        self.subgroup_events("subgroupBallot", span, active);
        let n = self.n;
        let s = self.s;
        let t = &self.prog.funcs[fi];
        let pred = match predicate {
            Some(p) => self.cond_mask(fi, p, active),
            None => *active,
        };
        let rr = t.exprs[result.index()].reg as usize * n;
        let sgs = self.running_subgroups();
        let regs = &mut self.regs[fi];
        for sg in sgs {
            let mut bits = [0u32; 4];
            for lane in 0..s.min(n - sg * s) {
                if pred.get(sg * s + lane) {
                    bits[lane / 32] |= 1 << (lane % 32);
                }
            }
            for lane in 0..s.min(n - sg * s) {
                let slot = sg * s + lane;
                if active.get(slot) {
                    for (w, &b) in bits.iter().enumerate() {
                        regs[rr + w * n + slot] = b;
                    }
                }
            }
        }
        let ev = BallotEvent {
            result: ExprRef {
                function: fi,
                expr: result,
            },
            voted: pred.and(active),
            span,
        };
        let ctx = ctx!(self);
        for c in self.hooks.checkers.iter_mut() {
            c.ballot(&ctx, &ev, self.hooks.findings);
        }
    }

    pub(super) fn gather(
        &mut self,
        fi: usize,
        mode: &GatherMode,
        argument: Handle<Expression>,
        result: Handle<Expression>,
        span: Span,
        active: &Mask,
    ) {
        let (name, kind) = match mode {
            GatherMode::BroadcastFirst => ("subgroupBroadcastFirst", Gather::First),
            GatherMode::Broadcast(_) => ("subgroupBroadcast", Gather::Broadcast),
            GatherMode::Shuffle(_) => ("subgroupShuffle", Gather::Shuffle),
            GatherMode::ShuffleDown(_) => ("subgroupShuffleDown", Gather::Down),
            GatherMode::ShuffleUp(_) => ("subgroupShuffleUp", Gather::Up),
            GatherMode::ShuffleXor(_) => ("subgroupShuffleXor", Gather::Xor),
            GatherMode::QuadBroadcast(_) => ("quadBroadcast", Gather::QuadBroadcast),
            GatherMode::QuadSwap(_) => ("quadSwap", Gather::QuadSwap),
        };
        self.subgroup_events(name, span, active);
        let n = self.n;
        let s = self.s;
        let t = &self.prog.funcs[fi];
        let am = t.exprs[argument.index()];
        let rr = t.exprs[result.index()].reg as usize * n;
        let ar = am.reg as usize * n;
        let words = am.words as usize;
        let idx_reg = match *mode {
            GatherMode::Broadcast(i)
            | GatherMode::Shuffle(i)
            | GatherMode::ShuffleDown(i)
            | GatherMode::ShuffleUp(i)
            | GatherMode::ShuffleXor(i)
            | GatherMode::QuadBroadcast(i) => Some(t.exprs[i.index()].reg as usize * n),
            _ => None,
        };
        {
            let ev = GatherEvent {
                mode: kind,
                op: name,
                active,
                operand: idx_reg.map(|r| &self.regs[fi][r..r + n]),
                result: ExprRef {
                    function: fi,
                    expr: result,
                },
                span,
            };
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.gather(&ctx, &ev, self.hooks.findings);
            }
        }
        let mut src = vec![usize::MAX; n];
        for sg in self.running_subgroups() {
            let len = s.min(n - sg * s);
            let first = (0..len).find(|&l| active.get(sg * s + l));
            let Some(first) = first else { continue };
            for lane in 0..len {
                let slot = sg * s + lane;
                if !active.get(slot) {
                    continue;
                }
                let i = idx_reg
                    .map(|r| self.regs[fi][r + slot] as usize)
                    .unwrap_or(0);
                let from = match *mode {
                    GatherMode::BroadcastFirst => Some(first),
                    GatherMode::Broadcast(_) | GatherMode::Shuffle(_) => Some(i),
                    GatherMode::ShuffleDown(_) => lane.checked_add(i),
                    GatherMode::ShuffleUp(_) => lane.checked_sub(i),
                    GatherMode::ShuffleXor(_) => Some(lane ^ i),
                    GatherMode::QuadBroadcast(_) => Some((lane & !3) + i),
                    GatherMode::QuadSwap(d) => Some(lane ^ (d as usize + 1)),
                };
                src[slot] = match from {
                    Some(f) if f < len && active.get(sg * s + f) => sg * s + f,
                    _ => usize::MAX,
                };
            }
        }
        let mut vals = vec![0u32; words * n];
        for slot in self.lo..self.hi {
            if !active.get(slot) {
                continue;
            }
            for w in 0..words {
                vals[w * n + slot] = if src[slot] == usize::MAX {
                    self.poison(
                        slot,
                        w,
                        ExprRef {
                            function: fi,
                            expr: result,
                        },
                    )
                } else {
                    self.regs[fi][ar + w * n + src[slot]]
                };
            }
        }
        let regs = &mut self.regs[fi];
        active.for_each(|slot| {
            for w in 0..words {
                regs[rr + w * n + slot] = vals[w * n + slot];
            }
        });
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn collective(
        &mut self,
        fi: usize,
        op: So,
        cop: Co,
        argument: Handle<Expression>,
        result: Handle<Expression>,
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        let name = match (op, cop) {
            (So::All, _) => "subgroupAll",
            (So::Any, _) => "subgroupAny",
            (_, Co::Reduce) => "subgroup reduction",
            (_, Co::InclusiveScan) => "subgroup inclusive scan",
            (_, Co::ExclusiveScan) => "subgroup exclusive scan",
        };
        self.subgroup_events(name, span, active);
        let n = self.n;
        let s = self.s;
        let t = &self.prog.funcs[fi];
        let am = t.exprs[argument.index()];
        let rr = t.exprs[result.index()].reg as usize * n;
        let ar = am.reg as usize * n;
        let k = am.kind;
        let (identity, comb): (u32, fn(u32, u32) -> u32) = match (op, k) {
            (So::All, _) => (1, |a, b| a & b),
            (So::Any, _) => (0, |a, b| a | b),
            (So::Add, Kind::F32) => (0f32.to_bits(), |a, b| {
                (f32::from_bits(a) + f32::from_bits(b)).to_bits()
            }),
            (So::Mul, Kind::F32) => (1f32.to_bits(), |a, b| {
                (f32::from_bits(a) * f32::from_bits(b)).to_bits()
            }),
            (So::Min, Kind::F32) => (f32::INFINITY.to_bits(), |a, b| {
                f32::from_bits(a).min(f32::from_bits(b)).to_bits()
            }),
            (So::Max, Kind::F32) => (f32::NEG_INFINITY.to_bits(), |a, b| {
                f32::from_bits(a).max(f32::from_bits(b)).to_bits()
            }),
            (So::Add, Kind::F16) => (0f32.to_bits(), |a, b| {
                h(f32::from_bits(a) + f32::from_bits(b))
            }),
            (So::Mul, Kind::F16) => (1f32.to_bits(), |a, b| {
                h(f32::from_bits(a) * f32::from_bits(b))
            }),
            (So::Min, Kind::F16) => (f32::INFINITY.to_bits(), |a, b| {
                f32::from_bits(a).min(f32::from_bits(b)).to_bits()
            }),
            (So::Max, Kind::F16) => (f32::NEG_INFINITY.to_bits(), |a, b| {
                f32::from_bits(a).max(f32::from_bits(b)).to_bits()
            }),
            (So::Add, _) => (0, |a, b| a.wrapping_add(b)),
            (So::Mul, _) => (1, |a, b| a.wrapping_mul(b)),
            (So::Min, Kind::I32) => (i32::MAX as u32, |a, b| (a as i32).min(b as i32) as u32),
            (So::Max, Kind::I32) => (i32::MIN as u32, |a, b| (a as i32).max(b as i32) as u32),
            (So::Min, _) => (u32::MAX, |a, b| a.min(b)),
            (So::Max, _) => (0, |a, b| a.max(b)),
            (So::And, Kind::Bool) => (1, |a, b| a & b),
            (So::And, _) => (u32::MAX, |a, b| a & b),
            (So::Or, _) => (0, |a, b| a | b),
            (So::Xor, _) => (0, |a, b| a ^ b),
        };
        let sgs = self.running_subgroups();
        let regs = &mut self.regs[fi];
        for w in 0..am.words as usize {
            for sg in sgs.clone() {
                let len = s.min(n - sg * s);
                let mut acc = identity;
                let lanes = (0..len).map(|l| sg * s + l).filter(|&sl| active.get(sl));
                match cop {
                    Co::Reduce => {
                        for sl in lanes.clone() {
                            acc = comb(acc, regs[ar + w * n + sl]);
                        }
                        for sl in lanes {
                            regs[rr + w * n + sl] = acc;
                        }
                    }
                    Co::InclusiveScan => {
                        for sl in lanes {
                            acc = comb(acc, regs[ar + w * n + sl]);
                            regs[rr + w * n + sl] = acc;
                        }
                    }
                    Co::ExclusiveScan => {
                        for sl in lanes {
                            regs[rr + w * n + sl] = acc;
                            acc = comb(acc, regs[ar + w * n + sl]);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// f32 rounded to f16, as f32 bits.
fn h(x: f32) -> u32 {
    ops::f16_to_f32(ops::f32_to_f16(x)).to_bits()
}
