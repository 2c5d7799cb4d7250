//! Threads of subgroups, their frames, barriers, and the workgroups resident in a dispatch,
//! interleaved as a [`Schedule`] says (`sim::schedule` has the model).
//!
//! Rules:
//! - A **thread** ([`Gang`]) is a contiguous run of whole subgroups with a stack of
//!   [`Frame`]s: the blocks it is in, each with the statement it runs next and its active
//!   mask, and the constructs (`if`, `loop`, `switch`, calls) waiting for a block to end. A
//!   thread stops between any two statements and resumes where it stopped. Its masks never hold
//!   lanes outside its subgroups.
//! - At a **barrier** a thread waits. When no thread of the workgroup can run, the waiting ones
//!   are released: the checkers hear one barrier event with every lane that reached it; threads
//!   at the same statement with the same stack are merged (their masks are disjoint, so the
//!   union is exact) and cut anew as the schedule says. Threads at different barriers (a
//!   divergent barrier: a finding) are released a group at a time, the smallest first.
//! - **Resident workgroups** each keep their thread stacks and memories (registers, locals,
//!   workgroup and private memory); the running one's memories are the interpreter's, swapped
//!   on a switch.
//! - **Spinning**: per loop, an iteration that read memory words whose addresses and values
//!   hash as the previous iteration's and changed no memory word (storage, workgroup, private
//!   or a variable), extends a run; a run of `spin_limit` iterations means the thread spins. Such an
//!   iteration leaves the whole state as it found it (loop-carried values live in variables),
//!   so the loop repeats it until another invocation changes what it reads: a wait, not a long
//!   computation, and a bounded poll (its counter changes) never spins. Inner loops'
//!   iterations fold into the enclosing loop's.

use super::*;
use crate::sim::rng::SplitMix;
use crate::sim::schedule::{Schedule, MAX_THREADS, QUANTUM};

/// How a dispatch is interleaved.
#[derive(Clone, Copy, Debug)]
pub struct Turns {
    /// The schedule.
    pub schedule: Schedule,
    /// Workgroups resident at once (one under lockstep).
    pub residency: usize,
    /// Iterations without progress after which a loop spins.
    pub spin_limit: u32,
    /// Seed of the schedule's choices in this dispatch.
    pub seed: u64,
}

/// What a loop's current iteration read and wrote (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct SpinAcc {
    hash: u64,
    reads: u32,
    wrote: bool,
}

impl SpinAcc {
    /// Word `key` (space, buffer and address) read as `value`.
    #[inline]
    pub(super) fn read(&mut self, key: u64, value: u32) {
        self.hash = (self.hash ^ key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ value as u64)
            .rotate_left(29)
            .wrapping_mul(0x2545_F491_4F6C_DD1D);
        self.reads = self.reads.saturating_add(1);
    }

    /// A memory word (storage, workgroup, private, a variable) changed.
    #[inline]
    pub(super) fn wrote(&mut self) {
        self.wrote = true;
    }

    /// Whether the iteration wrote.
    #[inline]
    pub(super) fn has_written(&self) -> bool {
        self.wrote
    }

    fn fold(&mut self, o: SpinAcc) {
        self.hash = (self.hash ^ o.hash.rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.reads = self.reads.saturating_add(o.reads);
        self.wrote |= o.wrote;
    }
}

/// One level of a thread's control stack.
#[derive(Clone)]
enum Frame<'a> {
    /// Statements of a block from `pc` on, under `active`.
    Block {
        fi: usize,
        block: &'a naga::Block,
        pc: usize,
        active: Mask,
    },
    /// An `if` whose accept block runs (`in_reject` false: `r` waits for the reject block) or
    /// whose reject block runs (`acc`: the lanes that left the accept block).
    If {
        fi: usize,
        reject: &'a naga::Block,
        r: Mask,
        acc: Mask,
        in_reject: bool,
    },
    /// A loop running its body or its continuing block; `brk` and `cont` park the lanes that
    /// broke or continued; `spins` counts iterations without progress, `last` the previous
    /// iteration's hash, `outer` what the enclosing loop's iteration had read before this loop.
    Loop {
        fi: usize,
        body: &'a naga::Block,
        continuing: &'a naga::Block,
        break_if: Option<Handle<Expression>>,
        span: Span,
        brk: Mask,
        cont: Mask,
        in_continuing: bool,
        spins: u32,
        last: u64,
        outer: SpinAcc,
    },
    /// A switch running case `i` (`masks`: each case's lanes).
    Switch {
        fi: usize,
        cases: &'a [naga::SwitchCase],
        masks: Vec<Mask>,
        i: usize,
        exit: Mask,
        carry: Mask,
        brk: Mask,
    },
    /// A call into function table `ci` from `fi`, made by `active`.
    Call {
        fi: usize,
        ci: usize,
        result: Option<Handle<Expression>>,
        active: Mask,
    },
    /// A `workgroupUniformLoad`: `stage` 0 waits at its first barrier, 1 at its second.
    UniformLoad {
        fi: usize,
        at: usize,
        pointer: Handle<Expression>,
        result: Handle<Expression>,
        span: Span,
        active: Mask,
        stage: u8,
    },
}

impl Frame<'_> {
    /// Every mask of the frame.
    fn masks_mut(&mut self, mut f: impl FnMut(&mut Mask)) {
        match self {
            Frame::Block { active, .. } => f(active),
            Frame::If { r, acc, .. } => {
                f(r);
                f(acc);
            }
            Frame::Loop { brk, cont, .. } => {
                f(brk);
                f(cont);
            }
            Frame::Switch {
                masks,
                exit,
                carry,
                brk,
                ..
            } => {
                masks.iter_mut().for_each(&mut f);
                f(exit);
                f(carry);
                f(brk);
            }
            Frame::Call { active, .. } | Frame::UniformLoad { active, .. } => f(active),
        }
    }

    /// Whether two threads are at the same place of the same constructs.
    fn same_place(&self, o: &Frame) -> bool {
        match (self, o) {
            (
                Frame::Block { fi, block, pc, .. },
                Frame::Block {
                    fi: f2,
                    block: b2,
                    pc: p2,
                    ..
                },
            ) => fi == f2 && std::ptr::eq(*block, *b2) && pc == p2,
            (
                Frame::If {
                    reject, in_reject, ..
                },
                Frame::If {
                    reject: r2,
                    in_reject: i2,
                    ..
                },
            ) => std::ptr::eq(*reject, *r2) && in_reject == i2,
            (
                Frame::Loop {
                    body,
                    in_continuing,
                    ..
                },
                Frame::Loop {
                    body: b2,
                    in_continuing: i2,
                    ..
                },
            ) => std::ptr::eq(*body, *b2) && in_continuing == i2,
            (
                Frame::Switch { cases, i, .. },
                Frame::Switch {
                    cases: c2, i: i2, ..
                },
            ) => std::ptr::eq(*cases, *c2) && i == i2,
            (Frame::Call { ci, fi, .. }, Frame::Call { ci: c2, fi: f2, .. }) => {
                ci == c2 && fi == f2
            }
            (
                Frame::UniformLoad { at, stage, .. },
                Frame::UniformLoad {
                    at: a2, stage: s2, ..
                },
            ) => at == a2 && stage == s2,
            _ => false,
        }
    }

    /// Adds `o`'s lanes (a thread at the same place) to this frame.
    fn absorb(&mut self, o: &Frame) {
        let mut theirs: Vec<Mask> = Vec::new();
        let mut o = o.clone();
        o.masks_mut(|m| theirs.push(*m));
        let mut it = theirs.into_iter();
        self.masks_mut(|m| {
            if let Some(t) = it.next() {
                *m = m.or(&t);
            }
        });
        if let (Frame::Loop { spins, .. }, Frame::Loop { spins: s2, .. }) = (self, &o) {
            *spins = (*spins).min(*s2);
        }
    }
}

/// A barrier a thread waits at.
#[derive(Clone, Copy)]
struct Wait {
    flags: Barrier,
    span: Span,
    active: Mask,
    /// The statement (and stage of a `workgroupUniformLoad`).
    key: (usize, u8),
}

/// A thread: a run of subgroups, slots `lo..hi` (see the module docs).
#[derive(Clone, Default)]
pub(super) struct Gang<'a> {
    lo: usize,
    hi: usize,
    frames: Vec<Frame<'a>>,
    exiting: Mask,
    steps: u64,
    spin: SpinAcc,
    wait: Option<Wait>,
}

impl Gang<'_> {
    fn done(&self) -> bool {
        self.frames.is_empty()
    }

    fn runnable(&self) -> bool {
        !self.done() && self.wait.is_none()
    }

    /// The innermost loop that spins (`spins` at least `limit`): its span and iterations.
    fn spinning(&self, limit: u32) -> Option<(Span, u32)> {
        self.frames.iter().rev().find_map(|f| match *f {
            Frame::Loop { span, spins, .. } if spins >= limit => Some((span, spins)),
            _ => None,
        })
    }

    /// A lane slot of the thread that is active at its innermost block (else its first).
    fn some_lane(&self) -> usize {
        self.frames
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Block { active, .. } => active.first_set(),
                _ => None,
            })
            .unwrap_or(self.lo)
    }
}

/// Why a thread stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Its steps for this turn ran out.
    Quantum,
    /// It waits at a barrier.
    Barrier,
    /// Its lanes finished.
    Done,
    /// It took a ticket.
    Ticket,
    /// One of its loops started spinning.
    Spin,
    /// The run stops (step budget, error).
    Halted,
}

/// What a statement did to its thread's flow.
enum Flow {
    Next,
    Barrier,
    Ticket,
    Spin,
}

/// A workgroup's memories while another runs.
#[derive(Default)]
struct WgMem {
    regs: Vec<Vec<u32>>,
    locals: Vec<Vec<u32>>,
    wg_mem: Vec<u32>,
    private: Vec<u32>,
}

/// A resident workgroup.
struct Resident<'a> {
    id: [u32; 3],
    gangs: Vec<Gang<'a>>,
    /// Its memories while it does not run.
    mem: WgMem,
    live: Mask,
    suspended: bool,
    /// The next thread in turn.
    cursor: usize,
    /// The thread running ahead (run-ahead).
    ahead: Option<usize>,
}

impl Resident<'_> {
    fn finished(&self) -> bool {
        self.gangs.iter().all(Gang::done)
    }

    /// No thread can progress: each finished, waits, or spins (and one spins).
    fn stalled(&self, limit: u32) -> bool {
        let mut spins = false;
        for g in &self.gangs {
            if g.spinning(limit).is_some() {
                spins = true;
            } else if g.runnable() {
                return false;
            }
        }
        spins
    }
}

/// `g`'s frames restricted to slots `lo..hi`, as a thread of its own.
fn part<'a>(g: &Gang<'a>, lo: usize, hi: usize) -> Gang<'a> {
    let range = Mask::range(lo, hi - lo);
    let mut frames = g.frames.clone();
    for f in frames.iter_mut() {
        f.masks_mut(|m| *m = m.and(&range));
    }
    Gang {
        lo,
        hi,
        frames,
        exiting: g.exiting.and(&range),
        steps: g.steps,
        spin: SpinAcc::default(),
        wait: None,
    }
}

/// Whether every thread of `gangs` has the same stack (places) as the first.
fn same_stacks(gangs: &[&Gang]) -> bool {
    let first = gangs[0];
    gangs.iter().all(|g| {
        g.frames.len() == first.frames.len()
            && g.frames
                .iter()
                .zip(&first.frames)
                .all(|(a, b)| a.same_place(b))
    })
}

/// Subgroup runs `[a, b)` that cut `nsg` subgroups into `threads` near-equal pieces.
fn even_cuts(nsg: usize, threads: usize) -> Vec<(usize, usize)> {
    let t = threads.clamp(1, nsg.max(1));
    (0..t).map(|i| (i * nsg / t, (i + 1) * nsg / t)).collect()
}

impl<'a, 'h> Interp<'a, 'h> {
    // ---- the thread machine ------------------------------------------------------------

    fn push_block(&self, g: &mut Gang<'a>, fi: usize, block: &'a naga::Block, active: Mask) {
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
    fn run_gang(&mut self, g: &mut Gang<'a>, quantum: u64) -> Stop {
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
                    // (zipped slices: `nth` is a lookup)
                    let span = block.span_iter().nth(i).map(|(_, s)| *s);
                    (*fi, &block[i], span.unwrap_or_default(), *active)
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
            for &h in &callee.args[i] {
                let dst = callee.exprs[h.index()].reg as usize * n;
                let (cr, ce) = two_mut(&mut self.regs, fi, ci);
                for w in 0..am.words as usize {
                    ce[dst + w * n + lo..dst + w * n + hi]
                        .copy_from_slice(&cr[src + w * n + lo..src + w * n + hi]);
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

impl<'a, 'h> Interp<'a, 'h> {
    // ---- threads of a workgroup ----------------------------------------------------------

    /// Runs thread `gi` of the running workgroup `r` for at most `quantum` steps; a thread
    /// that stops at a barrier or ends may release the others.
    fn run_thread(
        &mut self,
        r: &mut Resident<'a>,
        gi: usize,
        quantum: u64,
        turns: &Turns,
        rng: &mut SplitMix,
    ) -> Stop {
        let mut g = std::mem::take(&mut r.gangs[gi]);
        self.lo = g.lo;
        self.hi = g.hi;
        self.exiting = g.exiting;
        self.steps = g.steps;
        self.spin = g.spin;
        let stop = self.run_gang(&mut g, quantum);
        g.exiting = std::mem::take(&mut self.exiting);
        g.steps = self.steps;
        g.spin = std::mem::take(&mut self.spin);
        r.gangs[gi] = g;
        if matches!(stop, Stop::Barrier | Stop::Done) {
            self.release(r, turns, rng);
        }
        stop
    }

    /// Releases the threads of `r` that wait at a barrier once none can run (module docs).
    fn release(&mut self, r: &mut Resident<'a>, turns: &Turns, rng: &mut SplitMix) {
        if r.gangs.iter().any(Gang::runnable) {
            return;
        }
        let waits: Vec<(usize, Wait)> = r
            .gangs
            .iter()
            .enumerate()
            .filter_map(|(i, g)| g.wait.map(|w| (i, w)))
            .collect();
        let Some(&(_, first)) = waits.first() else {
            return;
        };
        let together = waits.iter().all(|(_, w)| w.key == first.key);
        // at different barriers (divergence), the one with the fewest lanes goes first
        let key = if together {
            first.key
        } else {
            let lanes = |k: (usize, u8)| -> u32 {
                waits
                    .iter()
                    .filter(|(_, w)| w.key == k)
                    .map(|(_, w)| w.active.count())
                    .sum()
            };
            waits
                .iter()
                .map(|(_, w)| w.key)
                .min_by_key(|&k| (lanes(k), k))
                .unwrap_or(first.key)
        };
        let group: Vec<usize> = waits
            .iter()
            .filter(|(_, w)| w.key == key)
            .map(|&(i, _)| i)
            .collect();
        let mut active = Mask::EMPTY;
        let mut at = first;
        for &i in &group {
            if let Some(w) = r.gangs[i].wait.take() {
                active = active.or(&w.active);
                at = w;
            }
        }
        self.barrier_event(at.flags, at.span, &active);
        // round-robin cuts the same threads at every barrier: they go on as they are
        if !together || r.gangs.len() == 1 || turns.schedule == Schedule::RoundRobin {
            return;
        }
        // every thread that has not finished is here: merge them and cut anew
        let here: Vec<&Gang<'a>> = group.iter().map(|&i| &r.gangs[i]).collect();
        if !same_stacks(&here) {
            return;
        }
        let mut whole = here[0].clone();
        whole.spin = SpinAcc::default();
        for g in &here[1..] {
            whole.lo = whole.lo.min(g.lo);
            whole.hi = whole.hi.max(g.hi);
            for (a, b) in whole.frames.iter_mut().zip(&g.frames) {
                a.absorb(b);
            }
            whole.exiting = whole.exiting.or(&g.exiting);
            whole.steps = whole.steps.max(g.steps);
        }
        let (gangs, ahead) = self.cut(&whole, turns.schedule, rng);
        r.gangs = gangs;
        r.ahead = ahead;
        r.cursor = 0;
    }

    /// The threads `whole` (every lane of the workgroup) runs as under `schedule`, and the one
    /// running ahead.
    fn cut(
        &self,
        whole: &Gang<'a>,
        schedule: Schedule,
        rng: &mut SplitMix,
    ) -> (Vec<Gang<'a>>, Option<usize>) {
        let (n, s) = (self.n, self.s);
        let nsg = n.div_ceil(s);
        let mut ahead = None;
        let runs: Vec<(usize, usize)> = match schedule {
            Schedule::Lockstep => vec![(0, nsg)],
            Schedule::RoundRobin => even_cuts(nsg, MAX_THREADS),
            Schedule::Random(_) if nsg >= 2 => {
                let threads = 2 + rng.below(nsg.min(MAX_THREADS) - 1);
                let mut cuts: Vec<usize> = (1..nsg).collect();
                rng.shuffle(&mut cuts);
                cuts.truncate(threads - 1);
                cuts.sort_unstable();
                let mut runs = Vec::new();
                let mut a = 0;
                for c in cuts.into_iter().chain([nsg]) {
                    runs.push((a, c));
                    a = c;
                }
                runs
            }
            Schedule::Random(_) => vec![(0, nsg)],
            Schedule::RunAhead(_) => {
                let a = rng.below(nsg);
                let side = (MAX_THREADS - 1) / 2;
                let before = even_cuts(a, side);
                let after = even_cuts(nsg - a - 1, side);
                let mut runs: Vec<(usize, usize)> =
                    before.into_iter().filter(|(x, y)| x < y).collect();
                ahead = Some(runs.len());
                runs.push((a, a + 1));
                runs.extend(
                    after
                        .into_iter()
                        .map(|(x, y)| (x + a + 1, y + a + 1))
                        .filter(|(x, y)| x < y),
                );
                runs
            }
        };
        let gangs = runs
            .into_iter()
            .map(|(a, b)| part(whole, a * s, (b * s).min(n)))
            .collect();
        (gangs, ahead)
    }

    /// One turn of the running workgroup `r` (what a turn is depends on the schedule).
    fn turn(&mut self, r: &mut Resident<'a>, turns: &Turns, rng: &mut SplitMix) {
        let limit = self.spin_limit;
        match turns.schedule {
            Schedule::Lockstep => {
                while self.run_thread(r, 0, u64::MAX, turns, rng) == Stop::Barrier {}
            }
            Schedule::RoundRobin => {
                for _ in 0..r.gangs.len() {
                    let gi = r.cursor % r.gangs.len();
                    r.cursor = gi + 1;
                    if !r.gangs[gi].runnable() {
                        continue;
                    }
                    let stop = self.run_thread(r, gi, QUANTUM, turns, rng);
                    if matches!(stop, Stop::Ticket | Stop::Halted) {
                        return;
                    }
                }
            }
            Schedule::Random(_) => {
                let can: Vec<usize> = (0..r.gangs.len())
                    .filter(|&i| r.gangs[i].runnable())
                    .collect();
                if !can.is_empty() {
                    let gi = can[rng.below(can.len())];
                    let q = 1 + rng.below(2 * QUANTUM as usize) as u64;
                    self.run_thread(r, gi, q, turns, rng);
                }
            }
            Schedule::RunAhead(_) => loop {
                // the thread ahead while it can, then the others in turn, until the workgroup
                // finished or only spins and waits; spinning threads then poll once each
                let k = r.gangs.len();
                let fresh = |g: &Gang| g.runnable() && g.spinning(limit).is_none();
                let gi = match r.ahead.filter(|&a| a < k && fresh(&r.gangs[a])) {
                    Some(a) => Some(a),
                    None => (0..k)
                        .map(|j| (r.cursor + j) % k)
                        .find(|&j| fresh(&r.gangs[j])),
                };
                let Some(gi) = gi else {
                    for gi in 0..k {
                        if r.gangs.len() == k && r.gangs[gi].runnable() {
                            let stop = self.run_thread(r, gi, QUANTUM, turns, rng);
                            if matches!(stop, Stop::Ticket | Stop::Halted) {
                                return;
                            }
                        }
                    }
                    return;
                };
                let q = if r.ahead == Some(gi) {
                    u64::MAX
                } else {
                    r.cursor = gi + 1;
                    QUANTUM
                };
                let stop = self.run_thread(r, gi, q, turns, rng);
                if matches!(stop, Stop::Ticket | Stop::Halted) || r.finished() {
                    return;
                }
            },
        }
    }

    // ---- resident workgroups -------------------------------------------------------------

    fn swap_mem(&mut self, m: &mut WgMem) {
        std::mem::swap(&mut self.regs, &mut m.regs);
        std::mem::swap(&mut self.locals, &mut m.locals);
        std::mem::swap(&mut self.wg_mem, &mut m.wg_mem);
        std::mem::swap(&mut self.private, &mut m.private);
    }

    /// Puts the running workgroup's memories away.
    fn park(&mut self, slots: &mut [Option<Resident<'a>>], running: &mut Option<usize>) {
        if let Some(c) = running.take() {
            if let Some(r) = slots[c].as_mut() {
                self.swap_mem(&mut r.mem);
                r.live = self.live;
            }
        }
    }

    /// Makes resident `s` the running workgroup.
    fn switch(
        &mut self,
        slots: &mut [Option<Resident<'a>>],
        running: &mut Option<usize>,
        s: usize,
    ) {
        if *running == Some(s) {
            return;
        }
        self.park(slots, running);
        if let Some(r) = slots[s].as_mut() {
            self.swap_mem(&mut r.mem);
            self.live = r.live;
            self.wg_id = r.id;
            self.resident = s;
            *running = Some(s);
        }
    }

    /// Tells the checkers about every spinning thread of the `runnable` residents while
    /// `victim` (slot, ticket span, ticket lane) is suspended.
    fn report_stalls(
        &mut self,
        slots: &[Option<Resident<'a>>],
        runnable: &[usize],
        victim: (usize, Span, usize),
    ) {
        let (v, ticket, ticket_slot) = victim;
        let Some(suspended) = slots[v].as_ref().map(|r| r.id) else {
            return;
        };
        for &s in runnable {
            let Some(r) = slots[s].as_ref() else { continue };
            for g in &r.gangs {
                let Some((span, iterations)) = g.spinning(self.spin_limit) else {
                    continue;
                };
                let ev = StallEvent {
                    span,
                    slot: g.some_lane(),
                    iterations,
                    suspended,
                    ticket,
                    ticket_slot,
                };
                let ctx = Ctx {
                    kernel: self.kernel,
                    pass: self.pass,
                    workgroup: r.id,
                    grid: self.num_wg,
                    lid_of_slot: &self.lid_of_slot,
                    subgroup_size: self.s as u32,
                    lanes: self.n as u32,
                    wg_words: self.prog.wg_words,
                    resident: s,
                };
                for c in self.hooks.checkers.iter_mut() {
                    c.stalled(&ctx, &ev, self.hooks.findings);
                }
            }
        }
    }

    /// Runs the workgroups of `order` (linear indices) of the dispatch as `turns` says.
    /// Returns how many finished and whether the run goes on (false: a step budget ran out).
    pub fn run_dispatch(&mut self, order: &[u32], turns: &Turns) -> Result<(u64, bool)> {
        let schedule = turns.schedule;
        let k = if schedule.interleaves() {
            turns.residency.max(1)
        } else {
            1
        };
        let mut rng = SplitMix::new(turns.seed);
        let victim_ticket: Option<u32> = match schedule {
            Schedule::RoundRobin => Some(0),
            Schedule::Random(_) => Some(rng.below(4) as u32),
            _ => None,
        };
        self.track_spin = schedule.interleaves();
        self.spin_limit = turns.spin_limit.max(1);
        self.watch_tickets = victim_ticket.is_some() && k > 1;
        self.ticket = None;
        // the memories: this one's, then copies of it as set up (constants live in registers)
        let init = (k > 1).then(|| WgMem {
            regs: self.regs.clone(),
            locals: self.locals.clone(),
            wg_mem: self.wg_mem.clone(),
            private: self.private.clone(),
        });
        let mut pool = vec![WgMem::default()];
        self.swap_mem(&mut pool[0]);
        let mut slots: Vec<Option<Resident<'a>>> = (0..k).map(|_| None).collect();
        let mut running: Option<usize> = None;
        let (mut next, mut tickets, mut cursor, mut done) = (0usize, 0u32, 0usize, 0u64);
        let mut victim: Option<(usize, Span, usize)> = None;
        let [x, y, _] = self.num_wg;
        let (x, y) = (x.max(1), y.max(1));
        while !self.halted {
            for s in 0..k {
                if slots[s].is_some() || next >= order.len() {
                    continue;
                }
                let lin = order[next];
                next += 1;
                self.park(&mut slots, &mut running);
                let mut mem = match (pool.pop(), &init) {
                    (Some(m), _) => m,
                    (None, Some(i)) => WgMem {
                        regs: i.regs.clone(),
                        locals: i.locals.clone(),
                        wg_mem: i.wg_mem.clone(),
                        private: i.private.clone(),
                    },
                    (None, None) => return Err(Error::Sim("workgroup memories".into())),
                };
                self.swap_mem(&mut mem);
                running = Some(s);
                self.resident = s;
                self.start_workgroup([lin % x, lin / x % y, lin / (x * y)])?;
                let mut whole = Gang {
                    lo: 0,
                    hi: self.n,
                    ..Gang::default()
                };
                let body = &self.prog.function(self.prog.entry_fn).body;
                self.push_block(&mut whole, self.prog.entry_fn, body, self.live);
                let (gangs, ahead) = self.cut(&whole, schedule, &mut rng);
                slots[s] = Some(Resident {
                    id: self.wg_id,
                    gangs,
                    mem,
                    live: self.live,
                    suspended: false,
                    cursor: 0,
                    ahead,
                });
            }
            let present: Vec<usize> = (0..k).filter(|&s| slots[s].is_some()).collect();
            if present.is_empty() {
                break;
            }
            let runnable: Vec<usize> = present
                .iter()
                .copied()
                .filter(|&s| slots[s].as_ref().is_some_and(|r| !r.suspended))
                .collect();
            if let Some(v) = victim {
                // the suspended workgroup runs again once no other can progress
                let limit = self.spin_limit;
                let stuck = runnable
                    .iter()
                    .all(|&s| slots[s].as_ref().is_some_and(|r| r.stalled(limit)));
                if stuck {
                    self.report_stalls(&slots, &runnable, v);
                    if let Some(r) = slots[v.0].as_mut() {
                        r.suspended = false;
                    }
                    victim = None;
                    continue;
                }
            }
            let Some(&first) = runnable.first() else {
                break;
            };
            let limit = self.spin_limit;
            let s = match schedule {
                Schedule::Lockstep => first,
                Schedule::Random(_) => runnable[rng.below(runnable.len())],
                Schedule::RoundRobin | Schedule::RunAhead(_) => {
                    let keep = schedule != Schedule::RoundRobin
                        && running.is_some_and(|c| {
                            runnable.contains(&c)
                                && slots[c].as_ref().is_some_and(|r| !r.stalled(limit))
                        });
                    match running.filter(|_| keep) {
                        Some(c) => c,
                        None => {
                            let order: Vec<usize> = (0..k).map(|j| (cursor + j) % k).collect();
                            let pick = order
                                .iter()
                                .copied()
                                .filter(|t| runnable.contains(t))
                                .find(|&t| slots[t].as_ref().is_some_and(|r| !r.stalled(limit)))
                                .or_else(|| order.iter().copied().find(|t| runnable.contains(t)))
                                .unwrap_or(first);
                            cursor = pick + 1;
                            pick
                        }
                    }
                }
            };
            self.switch(&mut slots, &mut running, s);
            let Some(r) = slots[s].as_mut() else { break };
            self.turn(r, turns, &mut rng);
            if self.halted {
                self.end_workgroup();
                break;
            }
            if let Some((span, lane)) = self.ticket.take() {
                if victim.is_none() && Some(tickets) == victim_ticket {
                    r.suspended = true;
                    victim = Some((s, span, lane));
                    self.watch_tickets = false;
                }
                tickets += 1;
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if r.finished() {
                self.end_workgroup();
                let mut m = WgMem::default();
                self.swap_mem(&mut m);
                pool.push(m);
                slots[s] = None;
                running = None;
                done += 1;
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        Ok((done, !self.halted))
    }
}
