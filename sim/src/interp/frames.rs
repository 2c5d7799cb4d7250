//! A thread of subgroups and its frames: the state that lets a thread stop between any two
//! statements and resume where it stopped (`sched.rs` interleaves threads; `thread.rs` runs
//! one).
//!
//! Rules:
//! - A **thread** ([`Gang`]) is a contiguous run of whole subgroups with a stack of
//!   [`Frame`]s: the blocks it is in, each with the statement it runs next and its active
//!   mask, and the constructs (`if`, `loop`, `switch`, calls) waiting for a block to end. Its
//!   masks never hold lanes outside its subgroups.
//! - Two threads at the same place of the same constructs can be merged: their frames' masks
//!   are disjoint, so the union is exact; one thread can be cut into threads of fewer
//!   subgroups by restricting every mask ([`part`]).
//! - **Spinning**: per loop, an iteration that read memory words whose addresses and values
//!   hash (in any order) as the previous iteration's and changed no memory word (storage, workgroup, private
//!   or a variable), extends a run; a run of `spin_limit` iterations means the thread spins.
//!   Such an iteration leaves the whole state as it found it (loop-carried values live in
//!   variables), so the loop repeats it until another invocation changes what it reads: a
//!   wait, not a long computation, and a bounded poll (its counter changes) never spins. Inner
//!   loops' iterations fold into the enclosing loop's.

use naga::{Barrier, Expression, Handle, Span};

use crate::mask::Mask;

/// What a loop's current iteration read and wrote (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct SpinAcc {
    pub(super) hash: u64,
    pub(super) reads: u32,
    pub(super) wrote: bool,
    /// The thread is in a loop (outside loops nothing is compared, so nothing is tracked).
    pub(super) on: bool,
}

impl SpinAcc {
    /// Word `key` (space, buffer and address) read as `value`. The iteration's hash is a sum
    /// over the words it read, so it tells which words it read with which values whatever
    /// their order, and each read adds to it without waiting for the previous one's hash.
    #[inline]
    pub(super) fn read(&mut self, key: u64, value: u32) {
        let mut x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ value as u64;
        x = (x ^ (x >> 29)).wrapping_mul(0x2545_F491_4F6C_DD1D);
        self.hash = self.hash.wrapping_add(x ^ (x >> 32));
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

    pub(super) fn fold(&mut self, o: SpinAcc) {
        self.hash = (self.hash ^ o.hash.rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.reads = self.reads.saturating_add(o.reads);
        self.wrote |= o.wrote;
    }
}

/// One level of a thread's control stack.
#[derive(Clone)]
pub(super) enum Frame<'a> {
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
    pub(super) fn masks_mut(&mut self, mut f: impl FnMut(&mut Mask)) {
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
    pub(super) fn same_place(&self, o: &Frame) -> bool {
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
    pub(super) fn absorb(&mut self, o: &Frame) {
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
pub(super) struct Wait {
    pub(super) flags: Barrier,
    pub(super) span: Span,
    pub(super) active: Mask,
    /// The statement (and stage of a `workgroupUniformLoad`).
    pub(super) key: (usize, u8),
}

/// A thread: a run of subgroups, slots `lo..hi` (see the module docs).
#[derive(Clone, Default)]
pub(super) struct Gang<'a> {
    pub(super) lo: usize,
    pub(super) hi: usize,
    pub(super) frames: Vec<Frame<'a>>,
    pub(super) exiting: Mask,
    pub(super) steps: u64,
    pub(super) spin: SpinAcc,
    pub(super) wait: Option<Wait>,
}

impl Gang<'_> {
    pub(super) fn done(&self) -> bool {
        self.frames.is_empty()
    }

    pub(super) fn runnable(&self) -> bool {
        !self.done() && self.wait.is_none()
    }

    /// The innermost loop that spins (`spins` at least `limit`): its span and iterations.
    pub(super) fn spinning(&self, limit: u32) -> Option<(Span, u32)> {
        self.frames.iter().rev().find_map(|f| match *f {
            Frame::Loop { span, spins, .. } if spins >= limit => Some((span, spins)),
            _ => None,
        })
    }

    /// The lanes of the thread active at its innermost block (none if it has no block).
    fn innermost_active(&self) -> Option<&Mask> {
        self.frames.iter().rev().find_map(|f| match f {
            Frame::Block { active, .. } => Some(active),
            _ => None,
        })
    }

    /// A lane slot of the thread that is active at its innermost block (else its first).
    pub(super) fn some_lane(&self) -> usize {
        self.innermost_active()
            .and_then(Mask::first_set)
            .unwrap_or(self.lo)
    }

    /// How many lanes of the thread are active at its innermost block (else all of its).
    pub(super) fn active_lanes(&self) -> u32 {
        self.innermost_active()
            .map_or((self.hi - self.lo) as u32, Mask::count)
    }
}

/// Why a thread stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
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
pub(super) enum Flow {
    Next,
    Barrier,
    Ticket,
    Spin,
}

/// `g`'s frames restricted to slots `lo..hi`, as a thread of its own.
pub(super) fn part<'a>(g: &Gang<'a>, lo: usize, hi: usize) -> Gang<'a> {
    let range = Mask::range(lo, hi - lo);
    let mut frames = g.frames.clone();
    // (a cut at a barrier inside a loop: the iteration goes on being tracked)
    let spin = SpinAcc {
        on: g.spin.on,
        ..SpinAcc::default()
    };
    for f in frames.iter_mut() {
        f.masks_mut(|m| *m = m.and(&range));
    }
    Gang {
        lo,
        hi,
        frames,
        exiting: g.exiting.and(&range),
        steps: g.steps,
        spin,
        wait: None,
    }
}

/// Whether every thread of `gangs` has the same stack (places) as the first.
pub(super) fn same_stacks(gangs: &[&Gang]) -> bool {
    let first = gangs[0];
    gangs.iter().all(|g| {
        g.frames.len() == first.frames.len()
            && g.frames
                .iter()
                .zip(&first.frames)
                .all(|(a, b)| a.same_place(b))
    })
}
