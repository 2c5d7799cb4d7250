//! Interpreter events and the checker plugin interface.
//!
//! The interpreter core reports what happens — memory accesses, barriers, subgroup operations
//! (ballots and gathers with their operands), indices out of range, the step budget running
//! out — and holds no checking logic. Checkers ([`Checker`]) receive the events and report
//! [`Finding`]s through a [`Findings`] collector, which deduplicates by (kind, kernel, source
//! position) and counts the invocations each finding happened in. A checker that looks at the
//! IR (`checks/ir.rs`) does so when a pass starts ([`Checker::pass_start`]) and names the
//! expressions whose evaluation it wants to see ([`Checker::expression`]); the core then
//! reports those, and nothing else, per evaluation.

use std::collections::HashMap;

use naga::{Expression, Handle, Span};

use crate::finding::{Finding, FindingKind, Party, Report};
use crate::kernel::Kernel;
pub(crate) use crate::location::loc;

use super::mask::Mask;
use super::program::Program;

/// An expression of a program: function table index (see [`Program::funcs`]) and handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExprRef {
    /// Function table index.
    pub function: usize,
    /// The expression.
    pub expr: Handle<Expression>,
}

/// Where a memory access went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// A storage binding; `buffer` is the plan's buffer index.
    Storage,
    /// A uniform binding.
    Uniform,
    /// Workgroup memory (word addresses within the workgroup's memory).
    Workgroup,
}

/// Load, store or read-modify-write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A read (`atomic` for `atomicLoad`).
    Load,
    /// A write (`atomic` for `atomicStore`).
    Store,
    /// An atomic read-modify-write.
    Rmw,
}

/// One memory access statement, for all its active lanes.
pub struct MemAccess<'a> {
    /// Memory space.
    pub space: Space,
    /// Plan buffer index (storage, uniform), 0 for workgroup memory.
    pub buffer: usize,
    /// A storage buffer this pass binds read-only (nothing in the pass can write it).
    pub read_only: bool,
    /// Load, store or read-modify-write.
    pub kind: AccessKind,
    /// Through an atomic type.
    pub atomic: bool,
    /// `(lane slot, absolute word address)` for every word touched, lanes in increasing order.
    pub words: &'a [(u32, u32)],
    /// The part of each word touched (`crate::halves`): 0 the whole word, 1 its low half
    /// (bytes 0..2), 2 its high half (bytes 2..4); empty when every word is whole.
    pub parts: &'a [u8],
    /// Source span of the access.
    pub span: Span,
    /// The `Load` expression that read (none for statements: stores, atomics, uniform loads).
    pub expr: Option<ExprRef>,
}

impl MemAccess<'_> {
    /// The part of entry `i` of [`MemAccess::words`].
    pub fn part(&self, i: usize) -> u8 {
        self.parts.get(i).copied().unwrap_or(0)
    }
}

/// The bytes of a word a part covers, as bits: 1 the low half, 2 the high half, 3 both.
pub fn part_mask(part: u8) -> u8 {
    match part {
        1 => 1,
        2 => 2,
        _ => 3,
    }
}

/// Word `addr` or the half of it `part` names, for messages: `word 5`, `bytes 22..24 of word 5`.
pub fn part_name(addr: u32, part: u8) -> String {
    match part {
        1 | 2 => {
            let b = addr as u64 * 4 + 2 * (part as u64 - 1);
            format!("bytes {b}..{} of word {addr}", b + 2)
        }
        _ => format!("word {addr}"),
    }
}

/// Where the simulator is: the kernel and the workgroup being run.
pub struct Ctx<'a> {
    /// The kernel (name and composed source, for source locations).
    pub kernel: &'a Kernel,
    /// Index of the pass in the plan.
    pub pass: usize,
    /// Workgroup id.
    pub workgroup: [u32; 3],
    /// Workgroups of the dispatch in x, y, z.
    pub grid: [u32; 3],
    /// Local invocation index of each lane slot.
    pub lid_of_slot: &'a [u32],
    /// Subgroup size.
    pub subgroup_size: u32,
    /// Invocations per workgroup.
    pub lanes: u32,
    /// Words of workgroup memory.
    pub wg_words: u32,
    /// The workgroup's residency slot: workgroups resident at once have different ones, and
    /// their events interleave, so a checker keeps per-workgroup state by this index (always 0
    /// when workgroups run one after another).
    pub resident: usize,
}

impl Ctx<'_> {
    /// The party at lane slot `slot`.
    pub fn party(&self, slot: usize, span: Option<Span>) -> Party {
        Party {
            workgroup: self.workgroup,
            local_index: self.lid_of_slot.get(slot).copied().unwrap_or(slot as u32),
            subgroup: slot as u32 / self.subgroup_size,
            lane: slot as u32 % self.subgroup_size,
            loc: span.and_then(|s| loc(self.kernel, s)),
        }
    }
}

/// A bound range of a plan buffer.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// Plan buffer index.
    pub buffer: usize,
    /// First word.
    pub base: usize,
    /// Words, or for a halves binding leaves (`crate::halves`).
    pub len: usize,
    /// A halves binding (its type holds f16): the type, whose leaves `len` counts and each
    /// access translates to its WGSL place (`crate::halves`).
    pub halves: Option<Handle<naga::Type>>,
    /// A binding overlapping a halves binding of the pass in the same buffer: its words are
    /// reported to the checkers as their two halves.
    pub split: bool,
    /// Uniform (else storage).
    pub uniform: bool,
    /// A storage binding without write access (`var<storage, read>`), or a texture the shader
    /// cannot write.
    pub read_only: bool,
    /// A texture: its format and size (the range holds its texels, [`crate::texture`]).
    pub texture: Option<crate::texture::TextureDesc>,
}

/// A control barrier reached by `active` lanes while `live` lanes have not exited.
pub struct BarrierEvent {
    /// naga's barrier flags.
    pub flags: naga::Barrier,
    /// Lanes that reached it.
    pub active: Mask,
    /// Lanes that have not exited the entry point.
    pub live: Mask,
    /// Source span.
    pub span: Span,
}

/// A subgroup operation run by one subgroup.
pub struct SubgroupEvent {
    /// Subgroup index in the workgroup.
    pub subgroup: u32,
    /// Lanes (slots) of the subgroup that ran it.
    pub active: Mask,
    /// Lanes (slots) of the subgroup that have not exited.
    pub live: Mask,
    /// Operation name, e.g. `subgroupShuffle`.
    pub op: &'static str,
    /// Source span.
    pub span: Span,
}

/// An index past the end of what it indexes (or an address past a binding's end).
pub struct OobEvent {
    /// Lane slot.
    pub slot: usize,
    /// The index.
    pub index: u64,
    /// The length it had to be below.
    pub len: u64,
    /// What was indexed, e.g. `array`, `binding 2`.
    pub what: String,
    /// Source span.
    pub span: Span,
    /// The expression that indexed (the access, or the load whose words left the binding);
    /// none for statements.
    pub expr: Option<ExprRef>,
}

/// A workgroup spun while the workgroup it may be waiting for stayed suspended, and no other
/// could run (see `sim::schedule`).
pub struct StallEvent {
    /// The spinning loop's statement.
    pub span: Span,
    /// A lane slot of the spinning subgroups.
    pub slot: usize,
    /// How many lanes spin.
    pub lanes: u32,
    /// Iterations in a row that read the same memory words, unchanged, and wrote none.
    pub iterations: u32,
    /// The suspended workgroup.
    pub suspended: [u32; 3],
    /// Where the suspended workgroup took its ticket, and the lane slot that took it.
    pub ticket: Span,
    /// The lane slot that took the ticket.
    pub ticket_slot: usize,
}

/// A pass about to run its first workgroup: its program and what each global is bound to.
pub struct PassStart<'a> {
    /// The program (IR, tables, layouts).
    pub prog: &'a Program,
    /// Bound ranges of plan buffers, by global variable index.
    pub bound: &'a [Option<Bound>],
}

/// An expression a checker asked to watch ([`Checker::pass_start`]) was evaluated.
pub struct ExprEvent<'a> {
    /// The program.
    pub prog: &'a Program,
    /// Which expression.
    pub at: ExprRef,
    /// Lanes (slots) that evaluated it.
    pub active: &'a Mask,
    /// The function's register file (see [`ExprEvent::row`]).
    pub regs: &'a [u32],
    /// Lane slots of the workgroup.
    pub lanes: usize,
    /// Source span.
    pub span: Span,
}

impl ExprEvent<'_> {
    /// Word `word` of expression `h` (of the same function) for every lane slot.
    pub fn row(&self, h: Handle<Expression>, word: usize) -> &[u32] {
        let m = &self.prog.funcs[self.at.function].exprs[h.index()];
        let start = (m.reg as usize + word.min((m.words as usize).saturating_sub(1))) * self.lanes;
        &self.regs[start..start + self.lanes]
    }

    /// Words of expression `h` per lane.
    pub fn words(&self, h: Handle<Expression>) -> usize {
        self.prog.funcs[self.at.function].exprs[h.index()].words as usize
    }
}

/// A `subgroupBallot` ran.
pub struct BallotEvent {
    /// The ballot's result expression.
    pub result: ExprRef,
    /// Lanes (slots) whose predicate was true.
    pub voted: Mask,
    /// Source span.
    pub span: Span,
}

/// The kinds of subgroup gather.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gather {
    /// `subgroupBroadcastFirst`.
    First,
    /// `subgroupBroadcast(e, id)`.
    Broadcast,
    /// `subgroupShuffle(e, id)`.
    Shuffle,
    /// `subgroupShuffleXor(e, mask)`.
    Xor,
    /// `subgroupShuffleUp(e, delta)`.
    Up,
    /// `subgroupShuffleDown(e, delta)`.
    Down,
    /// `quadBroadcast(e, id)`.
    QuadBroadcast,
    /// `quadSwapX/Y/Diagonal`.
    QuadSwap,
}

/// A subgroup gather ran.
pub struct GatherEvent<'a> {
    /// Which one.
    pub mode: Gather,
    /// Its WGSL name.
    pub op: &'static str,
    /// Lanes (slots) that ran it.
    pub active: &'a Mask,
    /// Per lane slot, the lane index, mask or delta it was given (none for the gathers
    /// without one).
    pub operand: Option<&'a [u32]>,
    /// The gather's result expression.
    pub result: ExprRef,
    /// Source span.
    pub span: Span,
}

/// A plan buffer, as checkers see it at the start of a run.
pub struct BufferMeta {
    /// Label.
    pub label: String,
    /// Size in words.
    pub words: usize,
    /// Host-uninit (`BufferInit::Poison`).
    pub poison: bool,
    /// Read back after the run.
    pub readback: bool,
}

/// A checker plugin: every method has a no-op default.
pub trait Checker {
    /// A run (plan) starts.
    fn run_start(&mut self, _buffers: &[BufferMeta]) {}
    /// Pass `pass` invalidated `words` words of buffer `buffer` from word `first`
    /// (`Plan::invalidate`, all of it; a counted fill, the first count): their contents are
    /// undefined until written again.
    fn invalidate(&mut self, _buffer: usize, _first: usize, _words: usize, _pass: &str) {}
    /// `words` words of buffer `buffer` from word `first` were written outside any kernel (a
    /// buffer copy).
    fn host_write(&mut self, _buffer: usize, _first: usize, _words: usize) {}
    /// A pass is about to run its first workgroup; returns the expressions whose evaluation the
    /// checker wants to see ([`Checker::expression`]).
    fn pass_start(&mut self, _ctx: &Ctx, _pass: &PassStart) -> Vec<ExprRef> {
        Vec::new()
    }
    /// An expression some checker watches was evaluated (every checker sees it).
    fn expression(&mut self, _ctx: &Ctx, _e: &ExprEvent, _out: &mut Findings) {}
    /// A `subgroupBallot` ran.
    fn ballot(&mut self, _ctx: &Ctx, _b: &BallotEvent, _out: &mut Findings) {}
    /// A subgroup gather (shuffle, broadcast, quad operation) ran.
    fn gather(&mut self, _ctx: &Ctx, _g: &GatherEvent, _out: &mut Findings) {}
    /// A workgroup starts; its workgroup memory is zeroed. Workgroups resident at once start
    /// before others end, and their events interleave: [`Ctx::resident`] tells them apart.
    fn workgroup_start(&mut self, _ctx: &Ctx) {}
    /// A workgroup finished.
    fn workgroup_end(&mut self, _ctx: &Ctx, _out: &mut Findings) {}
    /// A memory access.
    fn access(&mut self, _ctx: &Ctx, _a: &MemAccess, _out: &mut Findings) {}
    /// A control barrier.
    fn barrier(&mut self, _ctx: &Ctx, _b: &BarrierEvent, _out: &mut Findings) {}
    /// A subgroup operation.
    fn subgroup_op(&mut self, _ctx: &Ctx, _s: &SubgroupEvent, _out: &mut Findings) {}
    /// An index out of range.
    fn out_of_bounds(&mut self, _ctx: &Ctx, _e: &OobEvent, _out: &mut Findings) {}
    /// The step budget ran out in this workgroup at `span`, `live` of its invocations not
    /// finished.
    fn step_limit(
        &mut self,
        _ctx: &Ctx,
        _steps: u64,
        _live: u32,
        _span: Span,
        _out: &mut Findings,
    ) {
    }
    /// An iteration of a loop starts with `lanes` (slots) active.
    fn loop_iteration(&mut self, _ctx: &Ctx, _lanes: &Mask, _span: Span, _out: &mut Findings) {}
    /// A workgroup made no progress while a suspended one was the only one that could.
    fn stalled(&mut self, _ctx: &Ctx, _e: &StallEvent, _out: &mut Findings) {}
    /// The run ended (buffers as at the end).
    fn run_end(&mut self, _buffers: &[BufferMeta], _out: &mut Findings) {}
}

/// Findings of a run, deduplicated by (kind, kernel, source position). Kernels are told apart
/// by address, which is stable for the run (plans hold them in `Arc`s).
///
/// Each finding counts the invocations it happened in ([`Finding::invocations`]): a checker
/// reports, or notes as [`Findings::seen`], the lanes that did the bad thing in one event (the
/// lanes of a subgroup whose shift overflowed, the lanes of an access whose word raced), and
/// the counts add up over the run, so a lane that runs the statement again counts again.
///
/// A note ([`Findings::note`]) is kept the same way, in a list of its own: what the author's
/// diagnostic filter turned down ([`Report::notes`]).
#[derive(Default)]
pub struct Findings {
    list: Vec<Finding>,
    /// Per entry of `list`, whether it is a note.
    notes: Vec<bool>,
    index: HashMap<(FindingKind, usize, u32), usize>,
    pass: Option<usize>,
}

impl Findings {
    /// Whether a finding of `kind` at `span` in `kernel` is already known; if so adds the
    /// `invocations` (lanes) it happened in once more.
    pub fn seen(
        &mut self,
        kind: FindingKind,
        kernel: &Kernel,
        span: Span,
        invocations: u64,
    ) -> bool {
        let key = (kind, kernel as *const Kernel as usize, span_start(span));
        if let Some(&i) = self.index.get(&key) {
            if let Some(n) = &mut self.list[i].invocations {
                *n += invocations;
            }
            true
        } else {
            false
        }
    }

    /// The pass findings reported from now on are attributed to (`None`: the whole run).
    pub fn set_pass(&mut self, pass: Option<usize>) {
        self.pass = pass;
    }

    /// Reports a finding that happened in `invocations` lanes (reported once per kind and
    /// source position; a repeat adds its lanes to the count).
    pub fn report(
        &mut self,
        kind: FindingKind,
        kernel: &Kernel,
        span: Span,
        invocations: u64,
        message: String,
        parties: Vec<Party>,
    ) {
        self.add(false, kind, kernel, span, invocations, message, parties);
    }

    /// [`Findings::report`] as a note: a finding the author's diagnostic filter turned down.
    pub fn note(
        &mut self,
        kind: FindingKind,
        kernel: &Kernel,
        span: Span,
        invocations: u64,
        message: String,
        parties: Vec<Party>,
    ) {
        self.add(true, kind, kernel, span, invocations, message, parties);
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        note: bool,
        kind: FindingKind,
        kernel: &Kernel,
        span: Span,
        invocations: u64,
        message: String,
        parties: Vec<Party>,
    ) {
        if self.seen(kind, kernel, span, invocations) {
            return;
        }
        let key = (kind, kernel as *const Kernel as usize, span_start(span));
        self.index.insert(key, self.list.len());
        self.notes.push(note);
        self.list.push(Finding {
            kind,
            message,
            loc: loc(kernel, span),
            parties,
            pass: self.pass,
            // (at least one lane did it)
            invocations: Some(invocations.max(1)),
        });
    }

    /// Reports a finding about a declaration rather than a statement run (a binding): at
    /// `span`, once per kind and position, not counted in invocations.
    pub fn report_declaration(
        &mut self,
        kind: FindingKind,
        kernel: &Kernel,
        span: Span,
        message: String,
    ) {
        let key = (kind, kernel as *const Kernel as usize, span_start(span));
        if self.index.contains_key(&key) {
            return;
        }
        self.index.insert(key, self.list.len());
        self.notes.push(false);
        self.list.push(Finding {
            kind,
            message,
            loc: loc(kernel, span),
            parties: vec![],
            pass: self.pass,
            invocations: None,
        });
    }

    /// Reports a finding with no source position (e.g. unwritten output): about the run, not
    /// counted in invocations.
    pub fn report_global(&mut self, kind: FindingKind, message: String) {
        self.notes.push(false);
        self.list.push(Finding {
            kind,
            message,
            loc: None,
            parties: vec![],
            pass: self.pass,
            invocations: None,
        });
    }

    /// The findings and the notes, the invocations each happened in noted at the end of its
    /// message when more than one.
    pub fn into_report(self) -> Report {
        let mut report = Report::default();
        for (mut f, note) in self.list.into_iter().zip(self.notes) {
            if let Some(n @ 2..) = f.invocations {
                f.message.push_str(&format!(" (in {n} invocations)"));
            }
            if note {
                report.notes.push(f);
            } else {
                report.findings.push(f);
            }
        }
        report
    }
}

fn span_start(span: Span) -> u32 {
    span.to_range().map(|r| r.start as u32).unwrap_or(u32::MAX)
}
