//! Assumptions about the subgroup a kernel runs in, reported where the kernel makes them:
//!
//! - `shuffle-out-of-range`: a shuffle or broadcast given a lane index, xor mask or delta at or
//!   past the subgroup size (`subgroupShuffleXor(x, 16u)` written for subgroups of 32, run
//!   with 8). The value is undefined; the simulator returns poison. Lanes of `shuffleUp`/`Down`
//!   whose source falls off the edge with a delta below the size are the scan idiom (their
//!   results are dropped) and are not reported, nor are lanes whose result only a `select`
//!   discards ([`Discards`]).
//! - `ballot-high-lanes`: lanes at or past 32 voted in a `subgroupBallot` whose words holding
//!   them the kernel never reads — statically, the words the ballot's value reaches through
//!   `.x`/swizzles/conversions and local variables; other uses count as reading every word.
//! - `lane-layout-assumption`: `local_invocation_index / subgroup_size` (or `%`), the operands
//!   traced back to those builtins ([`Origins`]): WGSL does not promise that subgroup `i`
//!   holds local invocations `i·S .. i·S+S-1`; `subgroup_id` and `subgroup_invocation_id` say
//!   where an invocation is.
//!
//! Invocations counted: the lanes given an index, mask or delta out of range; the lanes that
//! voted into an unread word; the lanes that computed the layout.

use std::collections::HashMap;

use naga::{BinaryOperator, BuiltIn, Expression, Function, Handle, Span};

use super::discard::Discards;
use super::ir::{all_uses, Origin, Origins, User, Uses};
use crate::events::{
    loc, BallotEvent, Checker, Ctx, ExprEvent, ExprRef, Findings, Gather, GatherEvent, PassStart,
};
use crate::finding::FindingKind;

/// Every word of a ballot.
const ALL_WORDS: u8 = 0b1111;

/// Which words of a ballot's `vec4<u32>` value a kernel reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Read {
    /// Bit `w` for word `w`.
    words: u8,
    /// An expression that picks out a word (the `.x`), for the report.
    at: Option<Handle<Expression>>,
}

impl Read {
    const ALL: Read = Read {
        words: ALL_WORDS,
        at: None,
    };

    fn merge(self, o: Read) -> Read {
        Read {
            words: self.words | o.words,
            at: self.at.or(o.at),
        }
    }
}

/// Calls deeper than this count as reading every word.
const DEPTH: u32 = 16;

/// The words of `vec4<u32>` value `h` that `f` reads.
fn words_read(f: &Function, uses: &Uses, h: Handle<Expression>, depth: u32) -> Read {
    if depth > DEPTH {
        return Read::ALL;
    }
    let mut read = Read { words: 0, at: None };
    for u in uses.users(h) {
        let r = match *u {
            User::Expr(x) => match f.expressions[x] {
                Expression::AccessIndex { index, .. } => Read {
                    words: 1 << index.min(3),
                    at: Some(x),
                },
                Expression::Swizzle { size, pattern, .. } => Read {
                    words: pattern[..size as usize]
                        .iter()
                        .fold(0, |m, &c| m | 1 << c as u8),
                    at: Some(x),
                },
                Expression::As { .. } => words_read(f, uses, x, depth + 1),
                _ => Read::ALL,
            },
            User::Stored { pointer } => match f.expressions[pointer] {
                Expression::LocalVariable(lv) => variable_words_read(f, uses, lv, depth + 1),
                _ => Read::ALL,
            },
            _ => Read::ALL,
        };
        read = read.merge(r);
    }
    read
}

/// The words of the `vec4<u32>` local variable `lv` that `f` reads.
fn variable_words_read(
    f: &Function,
    uses: &Uses,
    lv: Handle<naga::LocalVariable>,
    depth: u32,
) -> Read {
    let mut read = Read { words: 0, at: None };
    for (p, e) in f.expressions.iter() {
        if *e != Expression::LocalVariable(lv) {
            continue;
        }
        for u in uses.users(p) {
            let r = match *u {
                User::StorePointer { .. } => continue,
                User::Expr(x) => match f.expressions[x] {
                    Expression::Load { .. } => words_read(f, uses, x, depth + 1),
                    Expression::AccessIndex { index, .. } => Read {
                        words: 1 << index.min(3),
                        at: Some(x),
                    },
                    _ => Read::ALL,
                },
                _ => Read::ALL,
            };
            read = read.merge(r);
        }
    }
    read
}

/// What a watched division or remainder computes.
#[derive(Clone, Copy)]
enum Layout {
    /// `local_invocation_index / subgroup_size`: a subgroup id.
    Subgroup,
    /// `local_invocation_index % subgroup_size`: a lane.
    Lane,
}

/// Reports `shuffle-out-of-range`, `ballot-high-lanes` and `lane-layout-assumption`.
pub struct Lanes {
    /// Out-of-range shuffles whose result only a select consumes.
    discards: Discards,
    /// The pass's ballots: the words read of each result, and the span of the read that
    /// picks a word out (undefined if none).
    ballots: HashMap<ExprRef, (Read, Span)>,
    /// The pass's divisions and remainders of the local index by the subgroup size.
    layout: HashMap<ExprRef, Layout>,
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes {
            discards: Discards::new(false),
            ballots: HashMap::new(),
            layout: HashMap::new(),
        }
    }
}

/// Whether `o` is the local invocation index (or the x of a local invocation id).
fn is_local_index(o: Option<Origin>) -> bool {
    matches!(
        o,
        Some(Origin::Builtin {
            builtin: BuiltIn::LocalInvocationIndex,
            component: None
        }) | Some(Origin::Builtin {
            builtin: BuiltIn::LocalInvocationId,
            component: Some(0)
        })
    )
}

impl Checker for Lanes {
    fn pass_start(&mut self, _ctx: &Ctx, pass: &PassStart) -> Vec<ExprRef> {
        let prog = pass.prog;
        let uses = all_uses(prog);
        let origins = Origins::new(prog, &uses);
        self.ballots.clear();
        self.layout.clear();
        for (fi, fu) in uses.iter().enumerate() {
            let f = prog.function(fi);
            for (h, e) in f.expressions.iter() {
                let at = ExprRef {
                    function: fi,
                    expr: h,
                };
                match *e {
                    Expression::SubgroupBallotResult => {
                        let read = words_read(f, fu, h, 0);
                        let span = read
                            .at
                            .map_or(Span::UNDEFINED, |x| f.expressions.get_span(x));
                        self.ballots.insert(at, (read, span));
                    }
                    Expression::Binary {
                        op: op @ (BinaryOperator::Divide | BinaryOperator::Modulo),
                        left,
                        right,
                    } if is_local_index(origins.of(fi, left))
                        && origins.of(fi, right)
                            == Some(Origin::builtin(BuiltIn::SubgroupSize)) =>
                    {
                        let l = if op == BinaryOperator::Divide {
                            Layout::Subgroup
                        } else {
                            Layout::Lane
                        };
                        self.layout.insert(at, l);
                    }
                    _ => {}
                }
            }
        }
        let mut watch = self.discards.pass_start(prog);
        watch.extend(self.layout.keys().copied());
        watch
    }

    fn workgroup_end(&mut self, ctx: &Ctx, out: &mut Findings) {
        self.discards.flush(ctx, out);
    }

    fn expression(&mut self, ctx: &Ctx, e: &ExprEvent, out: &mut Findings) {
        self.discards.select(ctx, e, out);
        let Some(&layout) = self.layout.get(&e.at) else {
            return;
        };
        let Some(slot) = e.active.first_set() else {
            return;
        };
        let kind = FindingKind::LaneLayoutAssumption;
        let lanes = e.active.count() as u64;
        if out.seen(kind, ctx.kernel, e.span, lanes) {
            return;
        }
        let (what, op, builtin) = match layout {
            Layout::Subgroup => ("subgroup id", "/", "subgroup_id"),
            Layout::Lane => ("lane", "%", "subgroup_invocation_id"),
        };
        out.report(
            kind,
            ctx.kernel,
            e.span,
            lanes,
            format!(
                "the {what} computed as `local_invocation_index {op} subgroup_size`: WGSL does not \
                 promise that subgroup i holds local invocations i*S .. i*S+S-1 (use the \
                 `{builtin}` builtin)"
            ),
            vec![ctx.party(slot, Some(e.span))],
        );
    }

    fn ballot(&mut self, ctx: &Ctx, b: &BallotEvent, out: &mut Findings) {
        let s = ctx.subgroup_size as usize;
        let Some(&(read, read_span)) = self.ballots.get(&b.result) else {
            return;
        };
        if s <= 32 || read.words == 0 || read.words == ALL_WORDS {
            return;
        }
        // the first lane that voted into a word the kernel does not read, and how many did
        let mut unread = None;
        let mut lanes = 0u64;
        b.voted.for_each(|slot| {
            let word = (slot % s) / 32;
            if read.words >> word & 1 == 0 {
                unread.get_or_insert((slot, word));
                lanes += 1;
            }
        });
        let Some((slot, word)) = unread else {
            return;
        };
        // the assumption is made where a single word is picked out
        let f = if read_span.is_defined() {
            read_span
        } else {
            b.span
        };
        let kind = FindingKind::BallotHighLanes;
        if out.seen(kind, ctx.kernel, f, lanes) {
            return;
        }
        let names: Vec<&str> = (0..4)
            .filter(|w| read.words >> w & 1 != 0)
            .map(|w| ["x", "y", "z", "w"][w])
            .collect();
        let ballot_at = loc(ctx.kernel, b.span)
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        out.report(
            kind,
            ctx.kernel,
            f,
            lanes,
            format!(
                "lane {} voted in the subgroupBallot{ballot_at}, which lands in word {} ({}) of the \
                 ballot, but the kernel reads only {}: it assumes subgroups of at most {} lanes \
                 (this one has {s})",
                slot % s,
                word,
                ["x", "y", "z", "w"][word],
                names.join(", "),
                32 * (read.words.trailing_ones())
            ),
            vec![ctx.party(slot, Some(b.span))],
        );
    }

    fn gather(&mut self, ctx: &Ctx, g: &GatherEvent, out: &mut Findings) {
        let Some(operand) = g.operand else { return };
        let s = ctx.subgroup_size;
        let what = match g.mode {
            Gather::Shuffle | Gather::Broadcast => "reads lane",
            Gather::Xor => "has mask",
            Gather::Up | Gather::Down => "shifts by",
            Gather::First | Gather::QuadBroadcast | Gather::QuadSwap => return,
        };
        let kind = FindingKind::ShuffleOutOfRange;
        let message = |slot: usize| {
            let v = operand[slot];
            let shown = if v > i32::MAX as u32 {
                (v as i32).to_string()
            } else {
                v.to_string()
            };
            format!(
                "{} {what} {shown}, not below the subgroup size {s}: it reads past the subgroup, \
                 assuming larger subgroups than this run has; the value is undefined (here: \
                 poison)",
                g.op
            )
        };
        // the first lane whose result is not left to a select, and how many such lanes
        let mut hit = None;
        let mut lanes = 0u64;
        g.active.for_each(|slot| {
            if operand[slot] < s {
                return;
            }
            let deferred = self
                .discards
                .defer(ctx, Some(g.result), slot, kind, g.span, || message(slot));
            if !deferred {
                hit.get_or_insert(slot);
                lanes += 1;
            }
        });
        let Some(slot) = hit else { return };
        if !out.seen(kind, ctx.kernel, g.span, lanes) {
            let party = ctx.party(slot, Some(g.span));
            out.report(kind, ctx.kernel, g.span, lanes, message(slot), vec![party]);
        }
    }
}
