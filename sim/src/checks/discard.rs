//! Values only a `select` arm consumes, as in `select(0u, data[i], i < n)`: the value, and
//! everything computed from it on the way to the select, is used by nothing else. WGSL
//! evaluates both arms, so the read (or shift, or shuffle) happens in every lane; in a lane
//! where the select keeps the other operand its value is unused, and an index out of range
//! there (harmless under WGSL's robust buffer access), an uninitialized word, a shuffle past
//! the subgroup or a shift past the width is not a bug of the kernel.
//!
//! A checker hands such a finding to [`Discards::defer`]; when the select runs, the finding is
//! reported as it is in the lanes where the select keeps the value, and, for reads, as
//! `discarded-read` (only if asked for) where it does not. A finding whose select never ran in
//! its lane is reported as it is when the workgroup ends.
//!
//! A checker holds a finding once per lane and event (the words of one lane's access are one),
//! so each counts one invocation where it is reported.

use std::collections::HashMap;

use naga::{Expression, Function, Handle, Span};

use super::ir::{all_uses, User, Uses};
use crate::events::{loc, Ctx, ExprEvent, ExprRef, Findings};
use crate::finding::FindingKind;
use crate::program::Program;

/// One operand of a select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Arm {
    select: ExprRef,
    /// The `accept` operand (kept where the condition is true), else `reject`.
    accept: bool,
}

/// A finding waiting for its select.
struct Deferred {
    arm: Arm,
    /// The workgroup's residency slot ([`Ctx::resident`]) and the lane.
    resident: usize,
    slot: usize,
    kind: FindingKind,
    span: Span,
    message: String,
}

/// Findings at values that only a select arm consumes, held until the select runs.
pub struct Discards {
    /// Expressions whose value reaches nothing but one select arm (a read's access chain and
    /// load, and what is computed from it on the way to the select).
    feeds: HashMap<ExprRef, Arm>,
    pending: Vec<Deferred>,
    /// Report the discarded ones as `discarded-read` (else drop them): for reads.
    report: bool,
}

/// The select arm that alone consumes each expression of `f`, if one does.
fn arms(fi: usize, f: &Function, uses: &Uses) -> Vec<Option<Arm>> {
    let mut arm: Vec<Option<Arm>> = vec![None; f.expressions.len()];
    // users come after their operands in the arena: walk backwards
    let handles: Vec<Handle<Expression>> = f.expressions.iter().map(|(h, _)| h).collect();
    for &h in handles.iter().rev() {
        let mut target = None;
        for u in uses.users(h) {
            let t = match *u {
                User::Expr(x) => match f.expressions[x] {
                    Expression::Select {
                        condition,
                        accept,
                        reject,
                    } if condition != h && (accept == h) != (reject == h) => Some(Arm {
                        select: ExprRef {
                            function: fi,
                            expr: x,
                        },
                        accept: accept == h,
                    }),
                    // a value computed from `h` without side effects, an address `h` picks,
                    // or a load through it: `h` feeds what it feeds
                    Expression::Access { .. }
                    | Expression::AccessIndex { .. }
                    | Expression::Load { .. }
                    | Expression::As { .. }
                    | Expression::Swizzle { .. }
                    | Expression::Splat { .. }
                    | Expression::Compose { .. }
                    | Expression::Unary { .. }
                    | Expression::Binary { .. }
                    | Expression::Relational { .. }
                    | Expression::Math { .. } => arm[x.index()],
                    _ => None,
                },
                _ => None,
            };
            match (t, target) {
                (Some(t), None) => target = Some(t),
                (Some(t), Some(p)) if t == p => {}
                _ => {
                    target = None;
                    break;
                }
            }
        }
        arm[h.index()] = target;
    }
    arm
}

impl Discards {
    /// `report`: report what a select discards as `discarded-read` (for reads; other
    /// findings are dropped there).
    pub fn new(report: bool) -> Discards {
        Discards {
            feeds: HashMap::new(),
            pending: Vec::new(),
            report,
        }
    }

    /// Finds the reads of `prog` that only a select arm consumes; returns the selects to watch.
    pub fn pass_start(&mut self, prog: &Program) -> Vec<ExprRef> {
        self.feeds.clear();
        self.pending.clear();
        let uses = all_uses(prog);
        let mut selects = Vec::new();
        for (fi, fu) in uses.iter().enumerate() {
            let f = prog.function(fi);
            for ((expr, _), a) in f.expressions.iter().zip(arms(fi, f, fu)) {
                let Some(a) = a else { continue };
                self.feeds.insert(ExprRef { function: fi, expr }, a);
                if !selects.contains(&a.select) {
                    selects.push(a.select);
                }
            }
        }
        selects
    }

    /// Holds a finding of `kind` at `span` in lane `slot`, raised by `expr`, if only a select
    /// arm consumes that expression; returns whether it did.
    pub fn defer(
        &mut self,
        ctx: &Ctx,
        expr: Option<ExprRef>,
        slot: usize,
        kind: FindingKind,
        span: Span,
        message: impl FnOnce() -> String,
    ) -> bool {
        let Some(&arm) = expr.and_then(|e| self.feeds.get(&e)) else {
            return false;
        };
        self.pending.push(Deferred {
            arm,
            resident: ctx.resident,
            slot,
            kind,
            span,
            message: message(),
        });
        true
    }

    /// A watched select ran: reports what waited for it in the lanes that ran it.
    pub fn select(&mut self, ctx: &Ctx, e: &ExprEvent, out: &mut Findings) {
        if self.pending.is_empty() {
            return;
        }
        let f = e.prog.function(e.at.function);
        let Expression::Select { condition, .. } = f.expressions[e.at.expr] else {
            return;
        };
        let pending = std::mem::take(&mut self.pending);
        for d in pending {
            if d.arm.select != e.at || d.resident != ctx.resident || !e.active.get(d.slot) {
                self.pending.push(d);
                continue;
            }
            // kept if some component of the condition picks this arm
            let kept =
                (0..e.words(condition)).any(|w| (e.row(condition, w)[d.slot] != 0) == d.arm.accept);
            if kept {
                report(ctx, out, d.kind, d.span, d.message, d.slot);
            } else if self.report {
                let at = loc(ctx.kernel, e.span)
                    .map(|l| format!(" at {l}"))
                    .unwrap_or_default();
                let message = format!(
                    "{}; the value is unused: the select{at} keeps its other operand in this lane",
                    d.message
                );
                report(
                    ctx,
                    out,
                    FindingKind::DiscardedRead,
                    d.span,
                    message,
                    d.slot,
                );
            }
        }
    }

    /// The workgroup ended: reports, as they are, the findings whose select never ran in their
    /// lane.
    pub fn flush(&mut self, ctx: &Ctx, out: &mut Findings) {
        for d in std::mem::take(&mut self.pending) {
            if d.resident == ctx.resident {
                report(ctx, out, d.kind, d.span, d.message, d.slot);
            } else {
                self.pending.push(d);
            }
        }
    }
}

fn report(
    ctx: &Ctx,
    out: &mut Findings,
    kind: FindingKind,
    span: Span,
    message: String,
    slot: usize,
) {
    let party = ctx.party(slot, Some(span));
    out.report(kind, ctx.kernel, span, 1, message, vec![party]);
}
