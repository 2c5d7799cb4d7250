//! The lockstep interpreter of naga IR.
//!
//! Rules:
//! - A whole workgroup is stepped together, statement by statement, under an **active mask**:
//!   a legal schedule in which every subgroup runs in lockstep. Lanes are *slots*; slot `i`
//!   belongs to subgroup `i / S`, lane `i % S`; `lid_of_slot` maps slots to local invocation
//!   indices (identity unless lanes are shuffled).
//! - Structured control flow is a mask discipline: `If` runs both arms under complementary
//!   masks; `Loop` iterates while any lane is active, lanes leaving through `break`/`return`
//!   wait for the rest; `Switch` runs cases in order with fall-through; `Continue` parks lanes
//!   until the `continuing` block.
//! - Values live in per-function register files, `words × lanes` u32 per expression, written
//!   only by evaluating that expression; the IR is never mutated. Pure expressions are computed
//!   for all lanes (inactive lanes' results are never observed); memory operations, subgroup
//!   operations and control flow honour the mask.
//! - Pointers are a per-expression root (uniform: WGSL cannot select between pointers) plus a
//!   per-lane word offset. An index out of range sets the offset to `BAD` (loads give 0,
//!   stores and atomics are dropped) and is reported.
//! - Shuffles and broadcasts from an inactive or absent lane return poison (a random word).
//! - The core reports events to checkers ([`super::events`]) and holds no checking logic.

use naga::{
    AddressSpace, AtomicFunction, Barrier, BuiltIn, CollectiveOperation as Co, Expression,
    GatherMode, Handle, Literal, MathFunction, Span, Statement, SubgroupOperation as So, TypeInner,
};

use super::events::{
    AccessKind, BarrierEvent, BufferMeta, Checker, Ctx, Findings, MemAccess, OobEvent, Space,
    SubgroupEvent,
};
use super::layout::Kind;
use super::mask::Mask;
use super::ops;
use super::program::{Aux, Len, Program};
use crate::error::{Error, Result};
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
            lid_of_slot: &$s.lid_of_slot,
            subgroup_size: $s.s as u32,
            lanes: $s.n as u32,
            wg_words: $s.prog.wg_words,
        }
    };
}

/// Offset of a pointer whose index went out of range.
pub const BAD: u32 = u32::MAX;

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

/// A bound range of a plan buffer.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// Plan buffer index.
    pub buffer: usize,
    /// First word.
    pub base: usize,
    /// Words.
    pub len: usize,
    /// Uniform (else storage).
    pub uniform: bool,
}

/// Hooks: the checkers and their findings.
pub struct Hooks<'h> {
    /// The checkers.
    pub checkers: &'h mut [Box<dyn Checker>],
    /// Their findings.
    pub findings: &'h mut Findings,
}

enum Ctl {
    Loop { brk: Mask, cont: Mask },
    Switch { brk: Mask },
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
    buffers: &'a mut [Vec<u32>],
    live: Mask,
    ctl: Vec<Ctl>,
    steps: u64,
    budget: u64,
    halted: bool,
    error: Option<Error>,
    rng: u64,
    lid_of_slot: Vec<u32>,
    wg_id: [u32; 3],
    num_wg: [u32; 3],
    scratch: Vec<(u32, u32)>,
    offs: Vec<u32>,
    hooks: Hooks<'h>,
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
        budget: u64,
        seed: u64,
        hooks: Hooks<'h>,
    ) -> Result<Interp<'a, 'h>> {
        let n = lid_of_slot.len();
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
            buffers,
            live: Mask::first(n),
            ctl: Vec::new(),
            steps: 0,
            budget,
            halted: false,
            error: None,
            rng: seed | 1,
            lid_of_slot,
            wg_id: [0; 3],
            num_wg,
            scratch: Vec::new(),
            offs: Vec::new(),
            hooks,
            step_limited: false,
            statements: 0,
            lane_ops: 0,
        };
        // private memory's initial image
        for (gi, g) in prog.globals.iter().enumerate() {
            let _ = gi;
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
                            AddressSpace::Storage { .. } | AddressSpace::Uniform => {
                                (Root::Binding(g.index() as u32), 0)
                            }
                            ref s => {
                                return Err(Error::Sim(format!(
                                    "address space {s:?} not simulated"
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

    fn poison(&mut self) -> u32 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.halted = true;
    }

    /// Runs workgroup `wg_id`; returns false if the run must stop (step limit, error).
    pub fn run_workgroup(&mut self, wg_id: [u32; 3]) -> Result<bool> {
        let prog = self.prog;
        let n = self.n;
        self.wg_id = wg_id;
        self.wg_mem.fill(0);
        self.private.copy_from_slice(&self.private_init);
        self.live = Mask::first(n);
        self.steps = 0;
        self.ctl.clear();
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
        let mut active = self.live;
        let body = &prog.function(ef).body;
        self.block(ef, body, &mut active);
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        {
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.workgroup_end(&ctx, self.hooks.findings);
            }
        }
        Ok(!self.halted)
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

    fn init_locals(&mut self, fi: usize) {
        let prog = self.prog;
        let n = self.n;
        let t = &prog.funcs[fi];
        let loc = &mut self.locals[fi];
        loc.fill(0);
        for lm in &t.locals {
            if let Some(init) = lm.init {
                let m = t.exprs[init.index()];
                let map = &prog.layouts.at(lm.ty).reg_map;
                for (w, &mw) in map.iter().enumerate().take(m.words as usize) {
                    let src = (m.reg as usize + w) * n;
                    let dst = (lm.base + mw) as usize * n;
                    loc[dst..dst + n].copy_from_slice(&self.regs[fi][src..src + n]);
                }
            }
        }
    }

    // ---- statements -------------------------------------------------------------------

    fn step(&mut self, span: Span) {
        self.steps += 1;
        self.statements += 1;
        if self.steps > self.budget && !self.halted {
            self.halted = true;
            self.step_limited = true;
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.step_limit(&ctx, self.steps - 1, span, self.hooks.findings);
            }
        }
    }

    fn block(&mut self, fi: usize, block: &'a naga::Block, active: &mut Mask) {
        for (stmt, span) in block.span_iter() {
            if self.halted || active.none() {
                return;
            }
            self.step(*span);
            if let Err(e) = self.stmt(fi, stmt, *span, active) {
                self.fail(e);
            }
        }
    }

    fn cond_mask(&self, fi: usize, h: Handle<Expression>, active: &Mask) -> Mask {
        let r = self.prog.funcs[fi].exprs[h.index()].reg as usize * self.n;
        let row = &self.regs[fi][r..r + self.n];
        let mut m = Mask::EMPTY;
        active.for_each(|l| {
            if row[l] != 0 {
                m.set(l)
            }
        });
        m
    }

    fn stmt(
        &mut self,
        fi: usize,
        stmt: &'a Statement,
        span: Span,
        active: &mut Mask,
    ) -> Result<()> {
        match *stmt {
            Statement::Emit(ref r) => {
                self.lane_ops += active.count() as u64 * r.clone().count() as u64;
                for h in r.clone() {
                    self.eval(fi, h, active)?;
                }
            }
            Statement::Block(ref b) => self.block(fi, b, active),
            Statement::If {
                condition,
                ref accept,
                ref reject,
            } => {
                let c = self.cond_mask(fi, condition, active);
                let mut a = c;
                let mut r = active.and_not(&c);
                if !a.none() {
                    self.block(fi, accept, &mut a);
                }
                if !r.none() {
                    self.block(fi, reject, &mut r);
                }
                *active = a.or(&r);
            }
            Statement::Loop {
                ref body,
                ref continuing,
                break_if,
            } => {
                self.ctl.push(Ctl::Loop {
                    brk: Mask::EMPTY,
                    cont: Mask::EMPTY,
                });
                let mut cur = *active;
                while !cur.none() && !self.halted {
                    self.block(fi, body, &mut cur);
                    if let Some(Ctl::Loop { cont, .. }) = self.ctl.last_mut() {
                        cur = cur.or(cont);
                        *cont = Mask::EMPTY;
                    }
                    if cur.none() {
                        break;
                    }
                    self.block(fi, continuing, &mut cur);
                    if let Some(bi) = break_if {
                        if !cur.none() {
                            let b = self.cond_mask(fi, bi, &cur);
                            if let Some(Ctl::Loop { brk, .. }) = self.ctl.last_mut() {
                                *brk = brk.or(&b);
                            }
                            cur = cur.and_not(&b);
                        }
                    }
                    self.step(span);
                }
                match self.ctl.pop() {
                    Some(Ctl::Loop { brk, .. }) => *active = brk,
                    _ => return Err(Error::Sim("control stack".into())),
                }
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
                self.ctl.push(Ctl::Switch { brk: Mask::EMPTY });
                let mut exit = Mask::EMPTY;
                let mut carry = Mask::EMPTY;
                for (i, c) in cases.iter().enumerate() {
                    let mut m = masks[i].or(&carry);
                    if !m.none() {
                        self.block(fi, &c.body, &mut m);
                    }
                    if c.fall_through {
                        carry = m;
                    } else {
                        exit = exit.or(&m);
                        carry = Mask::EMPTY;
                    }
                }
                match self.ctl.pop() {
                    Some(Ctl::Switch { brk }) => *active = exit.or(&brk).or(&carry),
                    _ => return Err(Error::Sim("control stack".into())),
                }
            }
            Statement::Break => {
                match self.ctl.last_mut() {
                    Some(Ctl::Loop { brk, .. }) | Some(Ctl::Switch { brk }) => {
                        *brk = brk.or(active)
                    }
                    None => return Err(Error::Sim("break outside loop".into())),
                }
                *active = Mask::EMPTY;
            }
            Statement::Continue => {
                for c in self.ctl.iter_mut().rev() {
                    if let Ctl::Loop { cont, .. } = c {
                        *cont = cont.or(active);
                        break;
                    }
                }
                *active = Mask::EMPTY;
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
                        active.for_each(|l| regs[dst + l] = regs[src + l]);
                    }
                }
                if fi == self.prog.entry_fn {
                    self.live = self.live.and_not(active);
                }
                *active = Mask::EMPTY;
            }
            Statement::Kill => return Err(Error::Sim("discard in a compute shader".into())),
            Statement::ControlBarrier(flags) => self.barrier(flags, span, active),
            Statement::MemoryBarrier(_) => {}
            Statement::Store { pointer, value } => self.store(fi, pointer, value, span, active)?,
            Statement::Atomic {
                pointer,
                ref fun,
                value,
                result,
            } => self.atomic(fi, pointer, fun, value, result, span, active)?,
            Statement::WorkGroupUniformLoad { pointer, result } => {
                self.barrier(Barrier::WORK_GROUP, span, active);
                self.load(fi, pointer, result, span, active, false)?;
                self.barrier(Barrier::WORK_GROUP, span, active);
            }
            Statement::Call {
                function,
                ref arguments,
                result,
            } => self.call(fi, function.index(), arguments, result, active)?,
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
            ref other => {
                return Err(Error::Sim(format!(
                    "statement {:?} not simulated",
                    std::mem::discriminant(other)
                )))
            }
        }
        Ok(())
    }

    fn barrier(&mut self, flags: Barrier, span: Span, active: &Mask) {
        if flags == Barrier::SUB_GROUP {
            self.subgroup_events("subgroupBarrier", span, active);
            return;
        }
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

    fn call(
        &mut self,
        fi: usize,
        ci: usize,
        arguments: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
        active: &Mask,
    ) -> Result<()> {
        let prog = self.prog;
        let n = self.n;
        let (caller, callee) = (&prog.funcs[fi], &prog.funcs[ci]);
        for (i, &a) in arguments.iter().enumerate() {
            let am = caller.exprs[a.index()];
            let root = self.roots[fi][a.index()];
            let len = am.words as usize * n;
            let src = am.reg as usize * n;
            for &h in &callee.args[i] {
                let dst = callee.exprs[h.index()].reg as usize * n;
                let (cr, ce) = two_mut(&mut self.regs, fi, ci);
                ce[dst..dst + len].copy_from_slice(&cr[src..src + len]);
                self.roots[ci][h.index()] = root;
            }
        }
        self.init_locals(ci);
        let mut m = *active;
        let saved_ctl = std::mem::take(&mut self.ctl);
        self.block(ci, &prog.function(ci).body, &mut m);
        self.ctl = saved_ctl;
        if let Some(r) = result {
            let dst = caller.exprs[r.index()].reg as usize * n;
            let src = callee.ret_reg as usize * n;
            let len = callee.ret_words as usize * n;
            let (cr, ce) = two_mut(&mut self.regs, fi, ci);
            cr[dst..dst + len].copy_from_slice(&ce[src..src + len]);
        }
        Ok(())
    }

    // ---- memory ----------------------------------------------------------------------

    fn oob(&mut self, slot: usize, index: u64, len: u64, what: &str, span: Span) {
        let ev = OobEvent {
            slot,
            index,
            len,
            what: what.to_string(),
            span,
        };
        let ctx = ctx!(self);
        for c in self.hooks.checkers.iter_mut() {
            c.out_of_bounds(&ctx, &ev, self.hooks.findings);
        }
    }

    fn emit_access(
        &mut self,
        space: Space,
        buffer: usize,
        kind: AccessKind,
        atomic: bool,
        span: Span,
    ) {
        let words = std::mem::take(&mut self.scratch);
        if !words.is_empty() {
            let a = MemAccess {
                space,
                buffer,
                kind,
                atomic,
                words: &words,
                span,
            };
            let ctx = ctx!(self);
            for c in self.hooks.checkers.iter_mut() {
                c.access(&ctx, &a, self.hooks.findings);
            }
        }
        self.scratch = words;
        self.scratch.clear();
    }

    /// Validates addresses of a binding access: out-of-range lanes are reported and get BAD.
    fn check_binding(&mut self, offs: &mut [u32], maxw: u32, b: Bound, span: Span, active: &Mask) {
        let mut bad = Vec::new();
        active.for_each(|l| {
            let o = offs[l];
            if o != BAD && (o as u64 + maxw as u64) >= b.len as u64 + 1 {
                bad.push((l, o));
            }
        });
        for (l, o) in bad {
            offs[l] = BAD;
            self.oob(
                l,
                o as u64 + maxw as u64 - 1,
                b.len as u64,
                "binding range (words)",
                span,
            );
        }
    }

    fn load(
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
        let words = dm.words as usize;
        let map: &[u32] = if dm.ty != u32::MAX {
            &prog.layouts.at(dm.ty).reg_map
        } else {
            &IDENT[..words]
        };
        let maxw = map.iter().copied().max().unwrap_or(0) + 1;
        let root = self.roots[fi][pointer.index()];
        let pr = pm.reg as usize * n;
        let mut offs = std::mem::take(&mut self.offs);
        offs.clear();
        offs.extend_from_slice(&self.regs[fi][pr..pr + n]);
        let dr = dm.reg as usize * n;
        match root {
            Root::Binding(g) => {
                let b =
                    self.bound[g as usize].ok_or_else(|| Error::Sim("unbound global".into()))?;
                self.check_binding(&mut offs, maxw, b, span, active);
                let buf = &self.buffers[b.buffer];
                let regs = &mut self.regs[fi];
                let scratch = &mut self.scratch;
                active.for_each(|l| {
                    let o = offs[l];
                    for (w, &mw) in map.iter().enumerate() {
                        regs[dr + w * n + l] = if o == BAD {
                            0
                        } else {
                            let a = b.base + (o + mw) as usize;
                            scratch.push((l as u32, a as u32));
                            buf[a]
                        };
                    }
                });
                let space = if b.uniform {
                    Space::Uniform
                } else {
                    Space::Storage
                };
                self.emit_access(space, b.buffer, AccessKind::Load, atomic, span);
            }
            Root::Workgroup => {
                let regs = &mut self.regs[fi];
                let mem = &self.wg_mem;
                let scratch = &mut self.scratch;
                active.for_each(|l| {
                    let o = offs[l];
                    for (w, &mw) in map.iter().enumerate() {
                        regs[dr + w * n + l] = if o == BAD {
                            0
                        } else {
                            scratch.push((l as u32, o + mw));
                            mem[(o + mw) as usize]
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
                if offs.iter().all(|&o| o == offs[0])
                    && offs[0] != BAD
                    && active.count() as usize == n
                {
                    let o = offs[0];
                    for (w, &mw) in map.iter().enumerate() {
                        let s = (o + mw) as usize * n;
                        regs[dr + w * n..dr + w * n + n].copy_from_slice(&mem[s..s + n]);
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

    fn store(
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
        let map: &[u32] = if vm.ty != u32::MAX {
            &prog.layouts.at(vm.ty).reg_map
        } else {
            &IDENT[..vm.words as usize]
        };
        let atomic = pm.atomic;
        let maxw = map.iter().copied().max().unwrap_or(0) + 1;
        let root = self.roots[fi][pointer.index()];
        let pr = pm.reg as usize * n;
        let mut offs = std::mem::take(&mut self.offs);
        offs.clear();
        offs.extend_from_slice(&self.regs[fi][pr..pr + n]);
        let vr = vm.reg as usize * n;
        match root {
            Root::Binding(g) => {
                let b =
                    self.bound[g as usize].ok_or_else(|| Error::Sim("unbound global".into()))?;
                self.check_binding(&mut offs, maxw, b, span, active);
                let buf = &mut self.buffers[b.buffer];
                let regs = &self.regs[fi];
                let scratch = &mut self.scratch;
                active.for_each(|l| {
                    let o = offs[l];
                    if o != BAD {
                        for (w, &mw) in map.iter().enumerate() {
                            let a = b.base + (o + mw) as usize;
                            scratch.push((l as u32, a as u32));
                            buf[a] = regs[vr + w * n + l];
                        }
                    }
                });
                self.emit_access(Space::Storage, b.buffer, AccessKind::Store, atomic, span);
            }
            Root::Workgroup => {
                let regs = &self.regs[fi];
                let mem = &mut self.wg_mem;
                let scratch = &mut self.scratch;
                active.for_each(|l| {
                    let o = offs[l];
                    if o != BAD {
                        for (w, &mw) in map.iter().enumerate() {
                            scratch.push((l as u32, o + mw));
                            mem[(o + mw) as usize] = regs[vr + w * n + l];
                        }
                    }
                });
                self.emit_access(Space::Workgroup, 0, AccessKind::Store, atomic, span);
            }
            Root::Private | Root::Local(_) => {
                let regs = &self.regs[fi];
                let mem: &mut Vec<u32> = match root {
                    Root::Private => &mut self.private,
                    Root::Local(f) => &mut self.locals[f as usize],
                    _ => unreachable!(),
                };
                if offs.iter().all(|&o| o == offs[0])
                    && offs[0] != BAD
                    && active.count() as usize == n
                {
                    let o = offs[0];
                    for (w, &mw) in map.iter().enumerate() {
                        let d = (o + mw) as usize * n;
                        mem[d..d + n].copy_from_slice(&regs[vr + w * n..vr + w * n + n]);
                    }
                } else {
                    active.for_each(|l| {
                        let o = offs[l];
                        if o != BAD {
                            for (w, &mw) in map.iter().enumerate() {
                                mem[(o + mw) as usize * n + l] = regs[vr + w * n + l];
                            }
                        }
                    });
                }
            }
            Root::None => return Err(Error::Sim("store through a non-pointer".into())),
        }
        self.offs = offs;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
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
        offs.clear();
        offs.extend_from_slice(&self.regs[fi][pr..pr + n]);
        let vr = vm.reg as usize * n;
        let cmp = match *fun {
            AtomicFunction::Exchange { compare: Some(c) } => {
                Some(t.exprs[c.index()].reg as usize * n)
            }
            _ => None,
        };
        let rr = result.map(|r| t.exprs[r.index()].reg as usize * n);
        let (space, buffer, base) = match root {
            Root::Binding(g) => {
                let b =
                    self.bound[g as usize].ok_or_else(|| Error::Sim("unbound global".into()))?;
                self.check_binding(&mut offs, 1, b, span, active);
                (Space::Storage, b.buffer, b.base)
            }
            Root::Workgroup => (Space::Workgroup, 0, 0),
            _ => return Err(Error::Sim("atomic outside storage/workgroup memory".into())),
        };
        let fun = *fun;
        let regs = &mut self.regs[fi];
        let mem: &mut [u32] = match root {
            Root::Binding(_) => &mut self.buffers[buffer],
            _ => &mut self.wg_mem,
        };
        let scratch = &mut self.scratch;
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
            if let Some(rr) = rr {
                regs[rr + l] = old;
                if cmp.is_some() {
                    regs[rr + n + l] = exchanged as u32;
                }
            }
        });
        self.emit_access(space, buffer, AccessKind::Rmw, true, span);
        self.offs = offs;
        Ok(())
    }

    // ---- subgroups ---------------------------------------------------------------------

    fn subgroup_events(&mut self, op: &'static str, span: Span, active: &Mask) {
        let n_sg = self.n.div_ceil(self.s);
        for sg in 0..n_sg {
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

    fn ballot(
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
        let regs = &mut self.regs[fi];
        for sg in 0..n.div_ceil(s) {
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
    }

    fn gather(
        &mut self,
        fi: usize,
        mode: &GatherMode,
        argument: Handle<Expression>,
        result: Handle<Expression>,
        span: Span,
        active: &Mask,
    ) {
        let name = match mode {
            GatherMode::BroadcastFirst => "subgroupBroadcastFirst",
            GatherMode::Broadcast(_) => "subgroupBroadcast",
            GatherMode::Shuffle(_) => "subgroupShuffle",
            GatherMode::ShuffleDown(_) => "subgroupShuffleDown",
            GatherMode::ShuffleUp(_) => "subgroupShuffleUp",
            GatherMode::ShuffleXor(_) => "subgroupShuffleXor",
            GatherMode::QuadBroadcast(_) => "quadBroadcast",
            GatherMode::QuadSwap(_) => "quadSwap",
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
        let mut src = vec![usize::MAX; n];
        for sg in 0..n.div_ceil(s) {
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
        for slot in 0..n {
            if !active.get(slot) {
                continue;
            }
            for w in 0..words {
                vals[w * n + slot] = if src[slot] == usize::MAX {
                    self.poison()
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
    fn collective(
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
        let f = |x: u32| f32::from_bits(x);
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
        let _ = f;
        let regs = &mut self.regs[fi];
        for w in 0..am.words as usize {
            for sg in 0..n.div_ceil(s) {
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

    // ---- expressions ---------------------------------------------------------------------

    fn eval(&mut self, fi: usize, h: Handle<Expression>, active: &Mask) -> Result<()> {
        let prog = self.prog;
        let n = self.n;
        let t = &prog.funcs[fi];
        let f = prog.function(fi);
        let m = t.exprs[h.index()];
        let dst0 = m.reg as usize * n;
        let words = m.words as usize;
        let e = &f.expressions[h];
        // SAFETY of `rows`: an expression's register range never overlaps its operands'.
        let regs = &mut self.regs[fi];
        let p = regs.as_mut_ptr();
        let total = regs.len();
        let op = |x: Handle<Expression>| -> (&[u32], usize) {
            let om = t.exprs[x.index()];
            let s = om.reg as usize * n;
            let l = om.words as usize * n;
            debug_assert!(s + l <= total);
            (
                unsafe { std::slice::from_raw_parts(p.add(s), l) },
                om.words as usize,
            )
        };
        let dst: &mut [u32] = unsafe { std::slice::from_raw_parts_mut(p.add(dst0), words * n) };
        match *e {
            Expression::Literal(ref l) => {
                let v = literal_words(l)?;
                dst[..n].fill(v[0]);
            }
            Expression::Constant(c) => {
                let v = const_words(prog, prog.module().constants[c].init)?;
                for (w, &x) in v.iter().enumerate().take(words) {
                    dst[w * n..w * n + n].fill(x);
                }
            }
            Expression::ZeroValue(_) => dst.fill(0),
            Expression::Compose { ref components, .. } => {
                let mut at = 0;
                for &c in components {
                    let (src, _) = op(c);
                    dst[at..at + src.len()].copy_from_slice(src);
                    at += src.len();
                }
            }
            Expression::Splat { value, .. } => {
                let (src, _) = op(value);
                for w in 0..words {
                    dst[w * n..w * n + n].copy_from_slice(&src[..n]);
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
                    dst[w * n..w * n + n].copy_from_slice(&src[c * n..c * n + n]);
                }
            }
            Expression::AccessIndex { base, .. } | Expression::Access { base, .. } => {
                let (src, _) = op(base);
                match m.aux {
                    Aux::ValField { off } => {
                        let o = off as usize * n;
                        dst.copy_from_slice(&src[o..o + words * n]);
                    }
                    Aux::ValIndex { elem, count } => {
                        let Expression::Access { index, .. } = *e else {
                            return Err(Error::Sim("index".into()));
                        };
                        let (idx, _) = op(index);
                        let elem = elem as usize;
                        let mut bad = Vec::new();
                        for l in 0..n {
                            let mut i = idx[l] as usize;
                            if i >= count as usize {
                                if active.get(l) {
                                    bad.push((l, i));
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
                        for l in 0..n {
                            dst[l] = if src[l] == BAD { BAD } else { src[l] + off };
                        }
                        if let Some(stride) = check {
                            let idx = off / stride;
                            self.check_runtime(fi, base, h, idx, stride, active)?;
                        }
                    }
                    Aux::PtrIndex { stride, len } => {
                        let Expression::Access { index, .. } = *e else {
                            return Err(Error::Sim("index".into()));
                        };
                        self.roots[fi][h.index()] = self.roots[fi][base.index()];
                        let (idx, _) = op(index);
                        let ik = t.exprs[index.index()].kind;
                        let mut bad = Vec::new();
                        let limit = match len {
                            Len::Const(c) => Some(c as u64),
                            Len::Runtime => None,
                        };
                        let blen = match (len, self.roots[fi][base.index()]) {
                            (Len::Runtime, Root::Binding(g)) => {
                                self.bound[g as usize].map(|b| b.len as u64).unwrap_or(0)
                            }
                            _ => 0,
                        };
                        for l in 0..n {
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
                                if b0 != BAD && active.get(l) {
                                    bad.push((l, i, lim));
                                }
                            } else {
                                dst[l] = b0 + i as u32 * stride;
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
                ops::unary(uop, t.exprs[expr.index()].kind, dst, a, words, n)?;
            }
            Expression::Binary {
                op: bop,
                left,
                right,
            } => {
                let (a, aw) = op(left);
                let (b, bw) = op(right);
                match m.aux {
                    Aux::MatMul { a: ma, b: mb } => matmul(dst, a, ma, aw, b, mb, bw, words, n),
                    _ => ops::binary(bop, t.exprs[left.index()].kind, dst, a, aw, b, bw, words, n)?,
                }
            }
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let (c, cw) = op(condition);
                let (a, aw) = op(accept);
                let (r, rw) = op(reject);
                ops::map3(dst, (c, cw), (a, aw), (r, rw), words, n, |c, a, r| {
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
                        for l in 0..n {
                            let mut acc = all;
                            for w in 0..aw {
                                let v = a[w * n + l] != 0;
                                acc = if all { acc && v } else { acc || v };
                            }
                            dst[l] = acc as u32;
                        }
                    }
                    R::IsNan => ops::map1(dst, a, words, n, |x| f32::from_bits(x).is_nan() as u32),
                    R::IsInf => {
                        ops::map1(dst, a, words, n, |x| f32::from_bits(x).is_infinite() as u32)
                    }
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
                let ak = t.exprs[arg.index()].kind;
                let (b1, c1, d1) = (arg1.map(op), arg2.map(op), arg3.map(op));
                if !ops::math(fun, ak, dst, a, b1, c1, d1, words, n)? {
                    self.math_special(fun, dst, a, b1, words, n)?;
                }
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
                    naga::ScalarKind::Float => Kind::F32,
                    naga::ScalarKind::Bool => Kind::Bool,
                    _ => from,
                };
                ops::cast(from, to, convert.is_some(), dst, a, words, n);
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
                for l in 0..n {
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
                    "expression {:?} not simulated",
                    std::mem::discriminant(other)
                )))
            }
        }
        Ok(())
    }

    fn check_runtime(
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
        for l in 0..n {
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

    fn math_special(
        &mut self,
        fun: MathFunction,
        dst: &mut [u32],
        a: (&[u32], usize),
        b: Option<(&[u32], usize)>,
        words: usize,
        n: usize,
    ) -> Result<()> {
        let g = |x: &[u32], i: usize| f32::from_bits(x[i]);
        match fun {
            MathFunction::Dot => {
                let b = b.ok_or_else(|| Error::Sim("dot".into()))?;
                for l in 0..n {
                    let mut s = 0f32;
                    let mut si = 0u32;
                    for w in 0..a.1 {
                        s += g(a.0, w * n + l) * g(b.0, w * n + l);
                        si = si.wrapping_add(a.0[w * n + l].wrapping_mul(b.0[w * n + l]));
                    }
                    let _ = si;
                    dst[l] = s.to_bits();
                }
            }
            MathFunction::Length => {
                for l in 0..n {
                    let s: f32 = (0..a.1).map(|w| g(a.0, w * n + l).powi(2)).sum();
                    dst[l] = s.sqrt().to_bits();
                }
            }
            MathFunction::Distance => {
                let b = b.ok_or_else(|| Error::Sim("distance".into()))?;
                for l in 0..n {
                    let s: f32 = (0..a.1)
                        .map(|w| (g(a.0, w * n + l) - g(b.0, w * n + l)).powi(2))
                        .sum();
                    dst[l] = s.sqrt().to_bits();
                }
            }
            MathFunction::Normalize => {
                for l in 0..n {
                    let s: f32 = (0..a.1)
                        .map(|w| g(a.0, w * n + l).powi(2))
                        .sum::<f32>()
                        .sqrt();
                    for w in 0..words {
                        dst[w * n + l] = (g(a.0, w * n + l) / s).to_bits();
                    }
                }
            }
            MathFunction::Cross => {
                let b = b.ok_or_else(|| Error::Sim("cross".into()))?;
                for l in 0..n {
                    let x = |v: &[u32], i: usize| g(v, i * n + l);
                    let c = [
                        x(a.0, 1) * x(b.0, 2) - x(a.0, 2) * x(b.0, 1),
                        x(a.0, 2) * x(b.0, 0) - x(a.0, 0) * x(b.0, 2),
                        x(a.0, 0) * x(b.0, 1) - x(a.0, 1) * x(b.0, 0),
                    ];
                    for (w, v) in c.iter().enumerate() {
                        dst[w * n + l] = v.to_bits();
                    }
                }
            }
            MathFunction::Unpack2x16float => {
                for l in 0..n {
                    let v = a.0[l];
                    dst[l] = ops::f16_to_f32(v as u16).to_bits();
                    dst[n + l] = ops::f16_to_f32((v >> 16) as u16).to_bits();
                }
            }
            MathFunction::Pack2x16float => {
                for l in 0..n {
                    let lo = ops::f32_to_f16(g(a.0, l)) as u32;
                    let hi = ops::f32_to_f16(g(a.0, n + l)) as u32;
                    dst[l] = lo | hi << 16;
                }
            }
            MathFunction::Unpack4xU8 | MathFunction::Unpack4xI8 => {
                let signed = fun == MathFunction::Unpack4xI8;
                for l in 0..n {
                    let v = a.0[l];
                    for c in 0..4 {
                        let byte = (v >> (8 * c)) & 0xff;
                        dst[c * n + l] = if signed {
                            byte as u8 as i8 as i32 as u32
                        } else {
                            byte
                        };
                    }
                }
            }
            MathFunction::Pack4xU8 | MathFunction::Pack4xI8 => {
                for l in 0..n {
                    dst[l] = (0..4).fold(0u32, |acc, c| acc | (a.0[c * n + l] & 0xff) << (8 * c));
                }
            }
            MathFunction::Unpack4x8unorm => {
                for l in 0..n {
                    let v = a.0[l];
                    for c in 0..4 {
                        dst[c * n + l] = (((v >> (8 * c)) & 0xff) as f32 / 255.0).to_bits();
                    }
                }
            }
            MathFunction::Pack4x8unorm => {
                for l in 0..n {
                    dst[l] = (0..4).fold(0u32, |acc, c| {
                        let q = (g(a.0, c * n + l).clamp(0.0, 1.0) * 255.0).round() as u32;
                        acc | q << (8 * c)
                    });
                }
            }
            other => return Err(Error::Sim(format!("math function {other:?} not simulated"))),
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
    n: usize,
) {
    let g = |x: &[u32], i: usize| f32::from_bits(x[i]);
    match (ma.0 != 0, mb.0 != 0) {
        // matrix * scalar or scalar * matrix
        (true, false) if bw == 1 => ops::map2(dst, a, aw, b, 1, words, n, |x, y| {
            (f32::from_bits(x) * f32::from_bits(y)).to_bits()
        }),
        (false, true) if aw == 1 => ops::map2(dst, a, 1, b, bw, words, n, |x, y| {
            (f32::from_bits(x) * f32::from_bits(y)).to_bits()
        }),
        // matrix (c x r) * vector (c) -> vector (r)
        (true, false) => {
            let (c, r) = (ma.0 as usize, ma.1 as usize);
            for l in 0..n {
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
            for l in 0..n {
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
            for l in 0..n {
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

/// Buffers as checkers see them.
pub fn buffer_metas(plan: &crate::plan::Plan) -> Vec<BufferMeta> {
    plan.buffers
        .iter()
        .map(|b| BufferMeta {
            label: b.label.clone(),
            words: (b.size / 4) as usize,
            poison: matches!(b.init, crate::plan::BufferInit::Poison),
            readback: b.readback,
        })
        .collect()
}
