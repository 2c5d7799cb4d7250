//! The thread machine: runs one thread of subgroups ([`Gang`]) statement by statement over
//! its stack of frames (`frames.rs`), until its steps for the turn run out, it waits at a
//! barrier, takes a ticket, starts spinning, or ends.
//!
//! Structured control flow is the mask discipline of the lockstep interpreter, one frame per
//! construct: `If` runs the accept block under `active ∧ cond`, then the reject block under
//! `active ∧ ¬cond`; `Loop` iterates while any lane is active, lanes leaving through `break` or
//! `return` wait for the rest; `Switch` runs cases in order with fall-through; `Continue` parks
//! lanes until the `continuing` block; a `Call` runs the callee's body under the caller's mask.

use super::frames::{Flow, Frame, Gang, Stop, Wait};
use super::*;

impl<'a, 'h> Interp<'a, 'h> {
    // ---- the thread machine ------------------------------------------------------------

    pub(super) fn push_block(
        &self,
        g: &mut Gang<'a>,
        fi: usize,
        block: &'a naga::Block,
        active: Mask,
    ) {
        g.frames.push(Frame::Block {
            fi,
            block,
            pc: 0,
            active,
        });
    }

    /// Pops the construct on top of `g` and gives the block below `result` as its lanes.
    fn finish(&mut self, g: &mut Gang<'a>, result: Mask) {
        g.frames.pop();
        if let Some(Frame::Block { active, .. }) = g.frames.last_mut() {
            *active = result;
        }
    }

    /// Runs the running thread `g` for at most `quantum` steps.
    pub(super) fn run_gang(&mut self, g: &mut Gang<'a>, quantum: u64) -> Stop {
        let end = self.statements.saturating_add(quantum);
        loop {
            if self.halted {
                return Stop::Halted;
            }
            if g.frames.len() <= 1 && !self.exiting.none() {
                // a top-level statement of the entry point completed: its returned lanes die
                self.live = self.live.and_not(&self.exiting);
                self.exiting = Mask::EMPTY;
            }
            let depth = g.frames.len();
            let (fi, stmt, span, mut active) = match g.frames.last_mut() {
                None => return Stop::Done,
                Some(Frame::Block {
                    fi,
                    block,
                    pc,
                    active,
                }) => {
                    if active.none() || *pc >= block.len() {
                        let m = *active;
                        g.frames.pop();
                        match self.resume(g, m) {
                            Flow::Spin => return Stop::Spin,
                            _ => continue,
                        }
                    }
                    let i = *pc;
                    *pc += 1;
                    let block: &'a naga::Block = block;
                    let stmt = &block[i];
                    // an `Emit` needs its span only where its step ends the budget
                    let span = if matches!(stmt, Statement::Emit(_)) && !self.last_step() {
                        Span::default()
                    } else {
                        // (zipped slices: `nth` is a lookup)
                        block
                            .span_iter()
                            .nth(i)
                            .map(|(_, s)| *s)
                            .unwrap_or_default()
                    };
                    (*fi, stmt, span, *active)
                }
                Some(Frame::UniformLoad { .. }) => match self.uniform_load_step(g) {
                    Flow::Barrier => return Stop::Barrier,
                    _ => continue,
                },
                Some(_) => {
                    self.fail(Error::Sim("control stack".into()));
                    return Stop::Halted;
                }
            };
            self.step(span);
            let flow = self.exec(g, fi, stmt, span, &mut active);
            if let Some(Frame::Block { active: a, .. }) = g.frames.get_mut(depth - 1) {
                *a = active;
            }
            match flow {
                Flow::Next => {}
                Flow::Barrier => return Stop::Barrier,
                Flow::Ticket => return Stop::Ticket,
                Flow::Spin => return Stop::Spin,
            }
            if self.statements >= end {
                return Stop::Quantum;
            }
        }
    }

    /// Runs statement `stmt` of the block on top of `g` for `active` (which loses the lanes
    /// that leave); a construct pushes its frames.
    fn exec(
        &mut self,
        g: &mut Gang<'a>,
        fi: usize,
        stmt: &'a Statement,
        span: Span,
        active: &mut Mask,
    ) -> Flow {
        match *stmt {
            Statement::Block(ref b) => self.push_block(g, fi, b, *active),
            Statement::If {
                condition,
                ref accept,
                ref reject,
            } => {
                let c = self.cond_mask(fi, condition, active);
                let r = active.and_not(&c);
                if !c.none() {
                    g.frames.push(Frame::If {
                        fi,
                        reject,
                        r,
                        acc: Mask::EMPTY,
                        in_reject: false,
                    });
                    self.push_block(g, fi, accept, c);
                } else {
                    g.frames.push(Frame::If {
                        fi,
                        reject,
                        r: Mask::EMPTY,
                        acc: Mask::EMPTY,
                        in_reject: true,
                    });
                    self.push_block(g, fi, reject, r);
                }
            }
            Statement::Loop {
                ref body,
                ref continuing,
                break_if,
            } => {
                let outer = std::mem::take(&mut self.spin);
                g.frames.push(Frame::Loop {
                    fi,
                    body,
                    continuing,
                    break_if,
                    span,
                    brk: Mask::EMPTY,
                    cont: Mask::EMPTY,
                    in_continuing: false,
                    spins: 0,
                    last: 0,
                    outer,
                });
                self.start_iteration(g, *active);
            }
            Statement::Switch {
                selector,
                ref cases,
            } => {
                let r = self.prog.funcs[fi].exprs[selector.index()].reg as usize * self.n;
                let row = &self.regs[fi][r..r + self.n];
                let mut masks = vec![Mask::EMPTY; cases.len()];
                let mut any = Mask::EMPTY;
                let mut default = None;
                for (i, c) in cases.iter().enumerate() {
                    let v = match c.value {
                        naga::SwitchValue::I32(v) => v as u32,
                        naga::SwitchValue::U32(v) => v,
                        naga::SwitchValue::Default => {
                            default = Some(i);
                            continue;
                        }
                    };
                    let mut m = Mask::EMPTY;
                    active.and_not(&any).for_each(|l| {
                        if row[l] == v {
                            m.set(l)
                        }
                    });
                    any = any.or(&m);
                    masks[i] = m;
                }
                if let Some(d) = default {
                    masks[d] = active.and_not(&any);
                }
                g.frames.push(Frame::Switch {
                    fi,
                    cases,
                    masks,
                    i: 0,
                    exit: Mask::EMPTY,
                    carry: Mask::EMPTY,
                    brk: Mask::EMPTY,
                });
                self.advance_switch(g);
            }
            Statement::Call {
                function,
                ref arguments,
                result,
            } => self.call_enter(g, fi, function.index(), arguments, result, *active),
            Statement::WorkGroupUniformLoad { pointer, result } => {
                let at = stmt as *const Statement as usize;
                g.frames.push(Frame::UniformLoad {
                    fi,
                    at,
                    pointer,
                    result,
                    span,
                    active: *active,
                    stage: 0,
                });
                g.wait = Some(Wait {
                    flags: Barrier::WORK_GROUP,
                    span,
                    active: *active,
                    key: (at, 0),
                });
                return Flow::Barrier;
            }
            Statement::ControlBarrier(flags) => {
                if flags == Barrier::SUB_GROUP {
                    self.subgroup_events("subgroupBarrier", span, active);
                } else {
                    g.wait = Some(Wait {
                        flags,
                        span,
                        active: *active,
                        key: (stmt as *const Statement as usize, 0),
                    });
                    return Flow::Barrier;
                }
            }
            Statement::Break => {
                let target = g.frames.iter_mut().rev().find_map(|f| match f {
                    Frame::Loop { brk, .. } | Frame::Switch { brk, .. } => Some(Some(brk)),
                    Frame::Call { .. } => Some(None),
                    _ => None,
                });
                match target {
                    Some(Some(brk)) => *brk = brk.or(active),
                    _ => self.fail(Error::Sim("break outside loop".into())),
                }
                *active = Mask::EMPTY;
            }
            Statement::Continue => {
                let target = g.frames.iter_mut().rev().find_map(|f| match f {
                    Frame::Loop { cont, .. } => Some(Some(cont)),
                    Frame::Call { .. } => Some(None),
                    _ => None,
                });
                match target {
                    Some(Some(cont)) => *cont = cont.or(active),
                    _ => self.fail(Error::Sim("continue outside loop".into())),
                }
                *active = Mask::EMPTY;
            }
            _ => {
                if let Err(e) = self.stmt_leaf(fi, stmt, span, active) {
                    self.fail(e);
                }
                if self.ticket.is_some() {
                    return Flow::Ticket;
                }
            }
        }
        Flow::Next
    }

    /// The block on top of `g` ended with `m` lanes still in it (it was popped): the construct
    /// below goes on.
    fn resume(&mut self, g: &mut Gang<'a>, m: Mask) -> Flow {
        let Some(top) = g.frames.last_mut() else {
            return Flow::Next;
        };
        match top {
            Frame::Block { active, .. } => *active = m,
            Frame::If {
                fi,
                reject,
                r,
                acc,
                in_reject,
            } => {
                if *in_reject {
                    let x = acc.or(&m);
                    self.finish(g, x);
                } else if !r.none() {
                    *acc = m;
                    *in_reject = true;
                    let (fi, reject, r) = (*fi, *reject, *r);
                    self.push_block(g, fi, reject, r);
                } else {
                    self.finish(g, m);
                }
            }
            Frame::Loop {
                fi,
                continuing,
                break_if,
                span,
                brk,
                cont,
                in_continuing,
                spins,
                last,
                outer,
                ..
            } => {
                if !*in_continuing {
                    let cur = m.or(cont);
                    *cont = Mask::EMPTY;
                    if cur.none() {
                        self.exit_loop(g);
                    } else {
                        *in_continuing = true;
                        let (fi, continuing) = (*fi, *continuing);
                        self.push_block(g, fi, continuing, cur);
                    }
                } else {
                    let mut cur = m;
                    if let Some(bi) = *break_if {
                        if !cur.none() {
                            let b = self.cond_mask(*fi, bi, &cur);
                            *brk = brk.or(&b);
                            cur = cur.and_not(&b);
                        }
                    }
                    // the back-edge: a step, and where spinning shows
                    let it = std::mem::take(&mut self.spin);
                    let mut started = false;
                    if self.track_spin {
                        if it.reads > 0 && !it.wrote && it.hash == *last {
                            *spins = spins.saturating_add(1);
                            started = *spins == self.spin_limit;
                        } else {
                            *spins = 0;
                        }
                        *last = it.hash;
                        outer.fold(it);
                    }
                    let span = *span;
                    self.step(span);
                    self.start_iteration(g, cur);
                    if started {
                        return Flow::Spin;
                    }
                }
            }
            Frame::Switch {
                cases,
                i,
                exit,
                carry,
                ..
            } => {
                if cases[*i].fall_through {
                    *carry = m;
                } else {
                    *exit = exit.or(&m);
                    *carry = Mask::EMPTY;
                }
                *i += 1;
                self.advance_switch(g);
            }
            Frame::Call {
                fi,
                ci,
                result,
                active,
            } => {
                let (fi, ci, result, active) = (*fi, *ci, *result, *active);
                self.call_exit(fi, ci, result);
                self.finish(g, active);
            }
            Frame::UniformLoad { .. } => {
                self.fail(Error::Sim("control stack".into()));
            }
        }
        Flow::Next
    }

    /// Starts an iteration of the loop on top of `g` with `cur` lanes, or leaves the loop.
    fn start_iteration(&mut self, g: &mut Gang<'a>, cur: Mask) {
        if cur.none() || self.halted {
            self.exit_loop(g);
            return;
        }
        let Some(Frame::Loop {
            fi,
            body,
            span,
            in_continuing,
            ..
        }) = g.frames.last_mut()
        else {
            return;
        };
        *in_continuing = false;
        self.spin.on = true;
        let (fi, body, span) = (*fi, *body, *span);
        let ctx = ctx!(self);
        for c in self.hooks.checkers.iter_mut() {
            c.loop_iteration(&ctx, &cur, span, self.hooks.findings);
        }
        self.push_block(g, fi, body, cur);
    }

    /// Pops the loop on top of `g`: its broken lanes go on.
    fn exit_loop(&mut self, g: &mut Gang<'a>) {
        if let Some(Frame::Loop { brk, outer, .. }) = g.frames.last() {
            let (brk, mut outer) = (*brk, *outer);
            outer.fold(std::mem::take(&mut self.spin));
            self.spin = outer;
            self.finish(g, brk);
        }
    }

    /// Runs the next case of the switch on top of `g` that has lanes, or leaves the switch.
    fn advance_switch(&mut self, g: &mut Gang<'a>) {
        loop {
            let Some(Frame::Switch {
                fi,
                cases,
                masks,
                i,
                exit,
                carry,
                brk,
            }) = g.frames.last_mut()
            else {
                return;
            };
            if *i >= cases.len() {
                let x = exit.or(brk).or(carry);
                self.finish(g, x);
                return;
            }
            let m = masks[*i].or(carry);
            if !m.none() {
                let (fi, body) = (*fi, &cases[*i].body);
                self.push_block(g, fi, body, m);
                return;
            }
            if !cases[*i].fall_through {
                *carry = Mask::EMPTY;
            }
            *i += 1;
        }
    }

    /// Enters function table `ci` from `fi` with `active` lanes: arguments and locals of the
    /// running lanes.
    fn call_enter(
        &mut self,
        g: &mut Gang<'a>,
        fi: usize,
        ci: usize,
        arguments: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
        active: Mask,
    ) {
        let prog = self.prog;
        let n = self.n;
        let (lo, hi) = (self.lo, self.hi);
        let (caller, callee) = (&prog.funcs[fi], &prog.funcs[ci]);
        for (i, &a) in arguments.iter().enumerate() {
            let am = caller.exprs[a.index()];
            let root = self.roots[fi][a.index()];
            let src = am.reg as usize * n;
            for (&h, runs) in callee.args[i].iter().zip(&callee.arg_runs[i]) {
                let dst = callee.exprs[h.index()].reg as usize * n;
                let (cr, ce) = two_mut(&mut self.regs, fi, ci);
                // (only the words the callee reads: `sim::regs`)
                for &(first, count) in runs {
                    for w in first as usize..(first + count).min(am.words) as usize {
                        ce[dst + w * n + lo..dst + w * n + hi]
                            .copy_from_slice(&cr[src + w * n + lo..src + w * n + hi]);
                    }
                }
                self.roots[ci][h.index()] = root;
            }
        }
        self.init_locals(ci);
        g.frames.push(Frame::Call {
            fi,
            ci,
            result,
            active,
        });
        self.push_block(g, ci, &prog.function(ci).body, active);
    }

    /// Leaves function table `ci` back to `fi`: the result of the running lanes.
    fn call_exit(&mut self, fi: usize, ci: usize, result: Option<Handle<Expression>>) {
        let Some(r) = result else { return };
        let prog = self.prog;
        let n = self.n;
        let (lo, hi) = (self.lo, self.hi);
        let (caller, callee) = (&prog.funcs[fi], &prog.funcs[ci]);
        let dst = caller.exprs[r.index()].reg as usize * n;
        let src = callee.ret_reg as usize * n;
        let (cr, ce) = two_mut(&mut self.regs, fi, ci);
        for w in 0..callee.ret_words as usize {
            cr[dst + w * n + lo..dst + w * n + hi]
                .copy_from_slice(&ce[src + w * n + lo..src + w * n + hi]);
        }
    }

    /// `g` is past a barrier of the `workgroupUniformLoad` on top: after the first, load and
    /// wait at the second; after the second, go on.
    fn uniform_load_step(&mut self, g: &mut Gang<'a>) -> Flow {
        let Some(Frame::UniformLoad {
            fi,
            at,
            pointer,
            result,
            span,
            active,
            stage,
        }) = g.frames.last_mut()
        else {
            return Flow::Next;
        };
        if *stage == 1 {
            g.frames.pop();
            return Flow::Next;
        }
        *stage = 1;
        let (fi, at, pointer, result, span, active) = (*fi, *at, *pointer, *result, *span, *active);
        if let Err(e) = self.load(fi, pointer, result, span, &active, false) {
            self.fail(e);
        }
        g.wait = Some(Wait {
            flags: Barrier::WORK_GROUP,
            span,
            active,
            key: (at, 1),
        });
        Flow::Barrier
    }
}
