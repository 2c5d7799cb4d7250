//! The interpreter of naga IR: subgroups as threads of lockstep lanes.
//!
//! Rules:
//! - Lanes are *slots*; slot `i` belongs to subgroup `i / S`, lane `i % S`; `lid_of_slot` maps
//!   slots to local invocation indices (identity unless lanes are shuffled).
//! - A **thread** (`sched`) is a contiguous run of whole subgroups (`lo..hi` slots) stepped
//!   statement by statement under an **active mask**: its lanes run in lockstep. A workgroup is
//!   one thread under the lockstep schedule, several under the others; threads of a workgroup
//!   meet at barriers, where they are merged and cut anew. Workgroups of a dispatch may be
//!   resident together; one runs at a time, its memories swapped in.
//! - Structured control flow is a mask discipline on a stack of frames (so a thread can stop
//!   between any two statements and resume): `If` runs both arms under complementary masks;
//!   `Loop` iterates while any lane is active, lanes leaving through `break`/`return` wait for
//!   the rest; `Switch` runs cases in order with fall-through; `Continue` parks lanes until the
//!   `continuing` block.
//! - Values live in per-function register files, `words × lanes` u32 per expression, written
//!   only by evaluating that expression (a constant member of a value is no copy but that part
//!   of its base's registers, `ExprMeta::alias`); the IR is never mutated. A call copies the
//!   argument words the callee reads (`sim::regs`). Pure expressions are computed
//!   for the running thread's lanes (inactive lanes' results are never observed, other threads'
//!   lanes are never written); memory operations, subgroup operations and control flow honour
//!   the mask.
//! - Pointers are a per-expression root (uniform: WGSL cannot select between pointers) plus a
//!   per-lane word offset. An index out of range sets the offset to `BAD` (loads give 0,
//!   stores and atomics are dropped) and is reported.
//! - Shuffles and broadcasts from an inactive or absent lane return poison (a random word).
//! - The core reports events to checkers ([`super::events`]) and holds no checking logic; the
//!   expressions checkers watch (named when a pass starts) are reported when evaluated.
//! - Entry-point returns: lanes stay *live* until the top-level statement they returned in
//!   completes, so both arms of a divergent `if` are checked against them.
//!
//! Files: this one (state, workgroups, leaf statements), `frames.rs` (a thread's frames),
//! `thread.rs` (running one thread), `sched.rs` (threads of a workgroup, barriers, resident
//! workgroups, the schedules), `eval.rs` (expressions), `math.rs` (math builtins that are not
//! componentwise), `memory.rs` (loads, stores, atomics), `subgroup.rs` (subgroup operations),
//! `coop.rs` (cooperative matrices), `texture.rs` (texture loads, stores and queries).

// Lane loops index several rows with one lane index; iterators would hide that.
#![allow(clippy::needless_range_loop)]

use naga::{
    AddressSpace, AtomicFunction, Barrier, BuiltIn, CollectiveOperation as Co, Expression,
    GatherMode, Handle, Literal, Span, Statement, SubgroupOperation as So, TypeInner,
};

use super::events::{
    AccessKind, BallotEvent, BarrierEvent, Bound, Checker, Ctx, ExprEvent, ExprRef, Findings,
    Gather, GatherEvent, MemAccess, OobEvent, PassStart, Space, StallEvent, SubgroupEvent,
};
use super::layout::Kind;
use super::mask::Mask;
use super::ops;
use super::program::{Aux, ExprMeta, Len, Program};
use crate::error::{Error, Result};
use crate::finding::FindingKind;
use crate::kernel::Kernel;

static IDENT: [u32; 1024] = {
    let mut a = [0u32; 1024];
    let mut i = 0;
    while i < 1024 {
        a[i] = i as u32;
        i += 1;
    }
    a
};

/// The checkers' view of where the interpreter is (a macro, so it borrows fields, not `self`).
macro_rules! ctx {
    ($s:ident) => {
        Ctx {
            kernel: $s.kernel,
            pass: $s.pass,
            workgroup: $s.wg_id,
            grid: $s.num_wg,
            lid_of_slot: &$s.lid_of_slot,
            subgroup_size: $s.s as u32,
            lanes: $s.n as u32,
            wg_words: $s.prog.wg_words,
            resident: $s.resident,
        }
    };
}

mod coop;
mod eval;
mod frames;
mod halves;
mod math;
mod memory;
mod sched;
mod subgroup;
mod texture;
mod thread;

pub use sched::Turns;

/// Offset of a pointer whose index went out of range.
pub const BAD: u32 = u32::MAX;

/// The step budgets a dispatch runs under.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Steps per thread of subgroups (`SimConfig::max_steps`).
    pub thread: u64,
    /// Steps of the whole run (`SimConfig::max_run_steps`).
    pub run: u64,
    /// What the run's earlier dispatches left of `run`.
    pub run_left: u64,
}

/// Root of a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// Not a pointer.
    None,
    /// A storage or uniform global (by global index).
    Binding(u32),
    /// Workgroup memory.
    Workgroup,
    /// Private memory.
    Private,
    /// Local memory of function table `fi`.
    Local(u32),
}

/// Hooks: the checkers and their findings.
pub struct Hooks<'h> {
    /// The checkers.
    pub checkers: &'h mut [Box<dyn Checker>],
    /// Their findings.
    pub findings: &'h mut Findings,
}

/// One dispatch of one program.
pub struct Interp<'a, 'h> {
    prog: &'a Program,
    kernel: &'a Kernel,
    pass: usize,
    n: usize,
    s: usize,
    regs: Vec<Vec<u32>>,
    roots: Vec<Vec<Root>>,
    locals: Vec<Vec<u32>>,
    wg_mem: Vec<u32>,
    private: Vec<u32>,
    private_init: Vec<u32>,
    /// Bound ranges by global index.
    bound: Vec<Option<Bound>>,
    /// By plan buffer: bound read-only in this pass (for the access events).
    read_only: Vec<bool>,
    buffers: &'a mut [Vec<u32>],
    /// Lanes of the running workgroup that have not exited.
    live: Mask,
    /// Lanes of the running thread that returned in the entry point's current top-level
    /// statement (live until it completes).
    exiting: Mask,
    /// The running thread's lanes: slots `lo..hi`.
    lo: usize,
    hi: usize,
    /// The running workgroup's residency slot (for the checkers).
    resident: usize,
    /// A ticket (storage read-modify-write with a result) the running thread just took: where,
    /// and the first lane; set only while `watch_tickets`.
    ticket: Option<(Span, usize)>,
    watch_tickets: bool,
    /// Spin detection is on (the interleaving schedules), with this many iterations.
    track_spin: bool,
    spin_limit: u32,
    /// What the running thread's innermost loop read and wrote this iteration.
    spin: frames::SpinAcc,
    /// Steps of the running thread.
    steps: u64,
    budget: u64,
    /// Statements this dispatch may run before the run's budget is spent (what the run's
    /// earlier dispatches left of it), and that budget, for the finding.
    run_left: u64,
    run_budget: u64,
    halted: bool,
    error: Option<Error>,
    rng: u64,
    lid_of_slot: Vec<u32>,
    wg_id: [u32; 3],
    num_wg: [u32; 3],
    scratch: Vec<(u32, u32)>,
    /// The part of each word of `scratch` (empty: all whole words; `crate::halves`).
    parts: Vec<u8>,
    offs: Vec<u32>,
    hooks: Hooks<'h>,
    /// Per function table, per expression: a checker watches its evaluation.
    watched: Vec<Vec<bool>>,
    /// The expression being evaluated, for the events its accesses raise.
    evaluating: Option<ExprRef>,
    /// Set when the step budget ran out.
    pub step_limited: bool,
    /// Statements executed (each counts once for the whole workgroup).
    pub statements: u64,
    /// Lane-operations: active lanes summed over evaluated expressions and statements.
    pub lane_ops: u64,
}

fn literal_words(l: &Literal) -> Result<Vec<u32>> {
    Ok(vec![match *l {
        Literal::F32(v) => v.to_bits(),
        Literal::F16(v) => v.to_f32().to_bits(),
        Literal::U32(v) => v,
        Literal::I32(v) => v as u32,
        Literal::Bool(v) => v as u32,
        Literal::AbstractInt(v) => v as i32 as u32,
        Literal::AbstractFloat(v) => (v as f32).to_bits(),
        ref other => return Err(Error::Sim(format!("literal {other:?} not simulated"))),
    }])
}

/// Words of a global (constant) expression.
fn const_words(prog: &Program, h: Handle<Expression>) -> Result<Vec<u32>> {
    let m = prog.module();
    Ok(match m.global_expressions[h] {
        Expression::Literal(ref l) => literal_words(l)?,
        Expression::Constant(c) => const_words(prog, m.constants[c].init)?,
        Expression::ZeroValue(ty) => vec![0; prog.layouts.get(ty).reg_words as usize],
        Expression::Compose { ref components, .. } => {
            let mut v = Vec::new();
            for &c in components {
                v.extend(const_words(prog, c)?);
            }
            v
        }
        Expression::Splat { size, value } => {
            let w = const_words(prog, value)?;
            (0..size as usize).flat_map(|_| w.clone()).collect()
        }
        ref e => {
            return Err(Error::Sim(format!(
                "constant expression {e:?} not simulated"
            )))
        }
    })
}

impl<'a, 'h> Interp<'a, 'h> {
    /// Prepares a dispatch: register files, memories, constants.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        prog: &'a Program,
        kernel: &'a Kernel,
        pass: usize,
        subgroup_size: u32,
        lid_of_slot: Vec<u32>,
        bound: Vec<Option<Bound>>,
        buffers: &'a mut [Vec<u32>],
        num_wg: [u32; 3],
        budget: Budget,
        seed: u64,
        hooks: Hooks<'h>,
    ) -> Result<Interp<'a, 'h>> {
        let n = lid_of_slot.len();
        let mut read_only = vec![false; buffers.len()];
        for b in bound.iter().flatten() {
            read_only[b.buffer] |= b.read_only;
        }
        let mut it = Interp {
            prog,
            kernel,
            pass,
            n,
            s: subgroup_size as usize,
            regs: prog
                .funcs
                .iter()
                .map(|f| vec![0; f.reg_words as usize * n])
                .collect(),
            roots: prog
                .funcs
                .iter()
                .map(|f| vec![Root::None; f.exprs.len()])
                .collect(),
            locals: prog
                .funcs
                .iter()
                .map(|f| vec![0; f.local_words as usize * n])
                .collect(),
            wg_mem: vec![0; prog.wg_words as usize],
            private: vec![0; prog.private_words as usize * n],
            private_init: Vec::new(),
            bound,
            read_only,
            buffers,
            live: Mask::first(n),
            exiting: Mask::EMPTY,
            lo: 0,
            hi: n,
            resident: 0,
            ticket: None,
            watch_tickets: false,
            track_spin: false,
            spin_limit: u32::MAX,
            spin: frames::SpinAcc::default(),
            steps: 0,
            budget: budget.thread,
            run_left: budget.run_left,
            run_budget: budget.run,
            halted: false,
            error: None,
            rng: seed | 1,
            lid_of_slot,
            wg_id: [0; 3],
            num_wg,
            scratch: Vec::new(),
            parts: Vec::new(),
            offs: Vec::new(),
            hooks,
            watched: prog
                .funcs
                .iter()
                .map(|f| vec![false; f.exprs.len()])
                .collect(),
            evaluating: None,
            step_limited: false,
            statements: 0,
            lane_ops: 0,
        };
        // private memory's initial image
        for g in prog.globals.iter() {
            if g.space == AddressSpace::Private {
                if let Some(init) = g.init {
                    let words = const_words(prog, init)?;
                    let map = &prog.layouts.at(g.ty).reg_map;
                    for (w, &v) in words.iter().enumerate() {
                        let a = (g.base + map[w]) as usize * n;
                        it.private[a..a + n].fill(v);
                    }
                }
            }
        }
        it.private_init = it.private.clone();
        {
            let ctx = ctx!(it);
            let pass = PassStart {
                prog,
                bound: &it.bound,
            };
            for c in it.hooks.checkers.iter_mut() {
                for at in c.pass_start(&ctx, &pass) {
                    if let Some(w) = it.watched.get_mut(at.function) {
                        if let Some(slot) = w.get_mut(at.expr.index()) {
                            *slot = true;
                        }
                    }
                }
            }
        }
        // constants and pointer roots of every function
        let all = Mask::first(n);
        for fi in 0..prog.funcs.len() {
            let f = prog.function(fi);
            for &h in &prog.funcs[fi].setup {
                match f.expressions[h] {
                    Expression::GlobalVariable(g) => {
                        let gm = &prog.globals[g.index()];
                        let (root, base) = match gm.space {
                            AddressSpace::WorkGroup => (Root::Workgroup, gm.base),
                            AddressSpace::Private => (Root::Private, gm.base),
                            AddressSpace::Storage { .. }
                            | AddressSpace::Uniform
                            | AddressSpace::Immediate => (Root::Binding(g.index() as u32), 0),
                            AddressSpace::Handle => (texture::root(prog, g)?, 0),
                            ref s => {
                                return Err(Error::Sim(format!(
                                    "the simulator does not support the {s:?} address space yet"
                                )))
                            }
                        };
                        it.set_root(fi, h, root, base);
                    }
                    Expression::LocalVariable(lv) => {
                        let base = prog.funcs[fi].locals[lv.index()].base;
                        it.set_root(fi, h, Root::Local(fi as u32), base);
                    }
                    _ => it.eval(fi, h, &all)?,
                }
            }
        }
        if let Some(e) = it.error.take() {
            return Err(e);
        }
        Ok(it)
    }

    fn set_root(&mut self, fi: usize, h: Handle<Expression>, root: Root, base: u32) {
        self.roots[fi][h.index()] = root;
        let r = self.prog.funcs[fi].exprs[h.index()].reg as usize * self.n;
        self.regs[fi][r..r + self.n].fill(base);
    }

    /// The poison word lane `slot` of the running workgroup gets for word `w` of the value
    /// `at` (function table and expression): a hash of the pass's seed and those, so it is
    /// random but the same under every schedule (outputs that carry poison differ only where
    /// the kernel does).
    fn poison(&self, slot: usize, w: usize, at: ExprRef) -> u32 {
        let [x, y, z] = self.wg_id;
        let mut h = self.rng
            ^ (x as u64) << 42
            ^ (y as u64) << 21
            ^ z as u64
            ^ (self.lid_of_slot[slot] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (w as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ ((at.function as u64) << 32 | at.expr.index() as u64)
                .wrapping_mul(0x1656_67B1_9E37_79F9);
        // splitmix64's finalizer
        h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (h ^ (h >> 31)) as u32
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.halted = true;
    }

    /// Makes the running workgroup `wg_id`, freshly started: zeroed workgroup memory, private
    /// memory at its initial image, every lane live, the entry point's arguments and locals
    /// set for every lane. The checkers hear `workgroup_start`.
    fn start_workgroup(&mut self, wg_id: [u32; 3]) -> Result<()> {
        let prog = self.prog;
        let n = self.n;
        self.wg_id = wg_id;
        self.wg_mem.fill(0);
        self.private.copy_from_slice(&self.private_init);
        self.live = Mask::first(n);
        self.exiting = Mask::EMPTY;
        self.lo = 0;
        self.hi = n;
        {
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.workgroup_start(&ctx);
            }
        }
        // entry arguments: builtins, or structs of builtins
        let ef = prog.entry_fn;
        let f = prog.function(ef);
        for (i, arg) in f.arguments.iter().enumerate() {
            let mut builtins = Vec::new();
            match (&arg.binding, &prog.module().types[arg.ty].inner) {
                (Some(naga::Binding::BuiltIn(b)), t) => builtins.push((*b, vec_len(t))),
                (None, TypeInner::Struct { members, .. }) => {
                    for m in members {
                        match m.binding {
                            Some(naga::Binding::BuiltIn(b)) => {
                                builtins.push((b, vec_len(&prog.module().types[m.ty].inner)))
                            }
                            _ => return Err(Error::Sim("entry input without builtin".into())),
                        }
                    }
                }
                _ => return Err(Error::Sim("entry input without builtin".into())),
            }
            let mut words: Vec<u32> = Vec::new();
            for (b, len) in builtins {
                for c in 0..len {
                    for slot in 0..n {
                        words.push(self.builtin(b, slot, c)?);
                    }
                }
            }
            for &h in &prog.funcs[ef].args[i] {
                let r = prog.funcs[ef].exprs[h.index()].reg as usize * n;
                self.regs[ef][r..r + words.len()].copy_from_slice(&words);
            }
        }
        self.init_locals(ef);
        Ok(())
    }

    /// The running workgroup finished: the checkers hear `workgroup_end`.
    fn end_workgroup(&mut self) {
        let ctx = ctx!(self);
        for c in self.hooks.checkers.iter_mut() {
            c.workgroup_end(&ctx, self.hooks.findings);
        }
    }

    fn builtin(&self, b: BuiltIn, slot: usize, c: usize) -> Result<u32> {
        let [sx, sy, _] = self.prog.wg_size;
        let lid = self.lid_of_slot[slot];
        let l3 = [lid % sx, lid / sx % sy, lid / (sx * sy)];
        Ok(match b {
            BuiltIn::LocalInvocationIndex => lid,
            BuiltIn::LocalInvocationId => l3[c],
            BuiltIn::GlobalInvocationId => self.wg_id[c] * self.prog.wg_size[c] + l3[c],
            BuiltIn::WorkGroupId => self.wg_id[c],
            BuiltIn::NumWorkGroups => self.num_wg[c],
            BuiltIn::WorkGroupSize => self.prog.wg_size[c],
            BuiltIn::SubgroupSize => self.s as u32,
            BuiltIn::SubgroupInvocationId => (slot % self.s) as u32,
            BuiltIn::SubgroupId => (slot / self.s) as u32,
            BuiltIn::NumSubgroups => self.n.div_ceil(self.s) as u32,
            other => return Err(Error::Sim(format!("builtin {other:?} not simulated"))),
        })
    }

    /// Zeroes (or initializes) the local variables of function table `fi` for the running
    /// lanes.
    fn init_locals(&mut self, fi: usize) {
        let prog = self.prog;
        let n = self.n;
        let (lo, hi) = (self.lo, self.hi);
        let t = &prog.funcs[fi];
        let loc = &mut self.locals[fi];
        for w in 0..t.local_words as usize {
            loc[w * n + lo..w * n + hi].fill(0);
        }
        for lm in &t.locals {
            if let Some(init) = lm.init {
                let m = t.exprs[init.index()];
                let map = &prog.layouts.at(lm.ty).reg_map;
                for (w, &mw) in map.iter().enumerate().take(m.words as usize) {
                    let src = (m.reg as usize + w) * n;
                    let dst = (lm.base + mw) as usize * n;
                    loc[dst + lo..dst + hi].copy_from_slice(&self.regs[fi][src + lo..src + hi]);
                }
            }
        }
    }

    // ---- statements -------------------------------------------------------------------

    /// Counts a step (a statement, or a loop's back-edge) of the running subgroups against
    /// their budget.
    fn step(&mut self, span: Span) {
        self.steps += 1;
        self.statements += 1;
        if self.steps > self.budget && !self.halted {
            self.halted = true;
            self.step_limited = true;
            let live = self.live.count();
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.step_limit(&ctx, self.steps - 1, live, span, self.hooks.findings);
            }
        } else if self.statements > self.run_left && !self.halted {
            self.halted = true;
            self.step_limited = true;
            let live = self.live.count();
            let ctx = ctx!(self);
            let [x, y, z] = self.wg_id;
            let party = ctx.party(self.lo, Some(span));
            self.hooks.findings.report(
                FindingKind::StepLimit,
                self.kernel,
                span,
                live as u64,
                format!(
                    "the run ran out of its budget of {} steps (statements and loop back-edges \
                     summed over every workgroup and pass of the run) in workgroup ({x},{y},{z}): \
                     stopped there, its results partial",
                    self.run_budget
                ),
                vec![party],
            );
        }
    }

    /// Whether the step now counted is the last one a budget allows (its statement's span is
    /// then wanted for the finding).
    fn last_step(&self) -> bool {
        self.steps >= self.budget || self.statements >= self.run_left
    }

    fn cond_mask(&self, fi: usize, h: Handle<Expression>, active: &Mask) -> Mask {
        let r = self.prog.funcs[fi].exprs[h.index()].reg as usize * self.n;
        Mask::from_row(&self.regs[fi][r..r + self.n], active)
    }

    /// A statement that neither nests blocks nor waits ([`sched`] runs the others): `active`
    /// loses the lanes that leave (`return`).
    fn stmt_leaf(
        &mut self,
        fi: usize,
        stmt: &'a Statement,
        span: Span,
        active: &mut Mask,
    ) -> Result<()> {
        match *stmt {
            Statement::Emit(ref r) => {
                // (the running lanes are below `hi`)
                self.lane_ops += active.count_below(self.hi) as u64 * r.clone().count() as u64;
                for h in r.clone() {
                    self.eval(fi, h, active)?;
                }
            }
            Statement::Return { value } => {
                if let Some(v) = value {
                    let t = &self.prog.funcs[fi];
                    let m = t.exprs[v.index()];
                    let n = self.n;
                    let regs = &mut self.regs[fi];
                    for w in 0..m.words as usize {
                        let src = (m.reg as usize + w) * n;
                        let dst = (t.ret_reg as usize + w) * n;
                        masked_copy_within(regs, src, dst, n, active);
                    }
                }
                if fi == self.prog.entry_fn {
                    self.exiting = self.exiting.or(active);
                }
                *active = Mask::EMPTY;
            }
            Statement::Kill => return Err(Error::Sim("discard in a compute shader".into())),
            Statement::MemoryBarrier(_) => {}
            Statement::Store { pointer, value } => self.store(fi, pointer, value, span, active)?,
            Statement::Atomic {
                pointer,
                ref fun,
                value,
                result,
            } => self.atomic(fi, pointer, fun, value, result, span, active)?,
            Statement::SubgroupBallot { result, predicate } => {
                self.ballot(fi, result, predicate, span, active)
            }
            Statement::SubgroupGather {
                ref mode,
                argument,
                result,
            } => self.gather(fi, mode, argument, result, span, active),
            Statement::SubgroupCollectiveOperation {
                op,
                collective_op,
                argument,
                result,
            } => self.collective(fi, op, collective_op, argument, result, span, active)?,
            Statement::CooperativeStore { target, ref data } => {
                self.coop_store(fi, target, data, span, active)?
            }
            Statement::ImageStore {
                image,
                coordinate,
                array_index,
                value,
            } => self.image_store(fi, [image, coordinate, value], array_index, span, active)?,
            ref other => {
                return Err(Error::Sim(format!(
                    "the simulator does not support `{}` statements yet",
                    variant_name(other)
                )))
            }
        }
        Ok(())
    }

    /// Tells the checkers that `active` lanes passed a control barrier (all that reached it
    /// together).
    fn barrier_event(&mut self, flags: Barrier, span: Span, active: &Mask) {
        let ev = BarrierEvent {
            flags,
            active: *active,
            live: self.live,
            span,
        };
        let ctx = ctx!(self);
        for c in self.hooks.checkers.iter_mut() {
            c.barrier(&ctx, &ev, self.hooks.findings);
        }
    }
}

/// `v[dst + l] = v[src + l]` for the lanes `l < n` of `mask` (ranges disjoint), 64 lanes at a
/// time.
fn masked_copy_within(v: &mut [u32], src: usize, dst: usize, n: usize, mask: &Mask) {
    for c in 0..n.div_ceil(64) {
        let bits = mask.word(c);
        let len = 64.min(n - c * 64);
        let full = if len == 64 { !0u64 } else { (1u64 << len) - 1 };
        if bits & full == full {
            v.copy_within(src + c * 64..src + c * 64 + len, dst + c * 64);
        } else {
            let mut b = bits & full;
            while b != 0 {
                let l = c * 64 + b.trailing_zeros() as usize;
                v[dst + l] = v[src + l];
                b &= b - 1;
            }
        }
    }
}

/// The name of an IR node's variant (`ImageLoad` of `ImageLoad { .. }`), for errors.
fn variant_name(node: &impl std::fmt::Debug) -> String {
    let text = format!("{node:?}");
    let end = text
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(text.len());
    text[..end].to_string()
}

fn vec_len(t: &TypeInner) -> usize {
    match *t {
        TypeInner::Vector { size, .. } => size as usize,
        _ => 1,
    }
}

fn two_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b);
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}
