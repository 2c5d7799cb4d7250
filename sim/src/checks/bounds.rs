//! Bounds and budget: indices past an array's length (the core reports them) and the step
//! budget running out. A read out of range whose value only a `select` arm consumes is judged
//! when the select runs ([`Discards`]).
//!
//! Invocations counted: the lanes whose index was out of range; for `step-limit`, the
//! invocations of the workgroup that had not finished.

use naga::Span;

use super::discard::Discards;
use crate::events::{Checker, Ctx, ExprEvent, ExprRef, Findings, OobEvent, PassStart};
use crate::finding::FindingKind;

/// Reports `out-of-bounds`, `step-limit` and (if asked for) `discarded-read`.
pub struct Bounds {
    discards: Discards,
}

impl Bounds {
    /// `discarded_read`: report reads out of range whose value a select discards.
    pub fn new(discarded_read: bool) -> Bounds {
        Bounds {
            discards: Discards::new(discarded_read),
        }
    }
}

impl Checker for Bounds {
    fn pass_start(&mut self, _ctx: &Ctx, pass: &PassStart) -> Vec<ExprRef> {
        self.discards.pass_start(pass.prog)
    }

    fn expression(&mut self, ctx: &Ctx, e: &ExprEvent, out: &mut Findings) {
        self.discards.select(ctx, e, out);
    }

    fn workgroup_end(&mut self, ctx: &Ctx, out: &mut Findings) {
        self.discards.flush(ctx, out);
    }

    fn out_of_bounds(&mut self, ctx: &Ctx, e: &OobEvent, out: &mut Findings) {
        let kind = FindingKind::OutOfBounds;
        let message = || {
            let index = if e.index == u64::MAX {
                "a negative index".to_string()
            } else {
                format!("index {}", e.index)
            };
            format!("{index} past the end of {} (length {})", e.what, e.len)
        };
        if self
            .discards
            .defer(ctx, e.expr, e.slot, kind, e.span, message)
            || out.seen(kind, ctx.kernel, e.span, 1)
        {
            return;
        }
        out.report(
            kind,
            ctx.kernel,
            e.span,
            1,
            message(),
            vec![ctx.party(e.slot, Some(e.span))],
        );
    }

    fn step_limit(&mut self, ctx: &Ctx, steps: u64, live: u32, span: Span, out: &mut Findings) {
        out.report(
            FindingKind::StepLimit,
            ctx.kernel,
            span,
            live as u64,
            format!(
                "workgroup ({},{},{}) ran out of its budget of {steps} steps (a hang, or a wait on another workgroup)",
                ctx.workgroup[0], ctx.workgroup[1], ctx.workgroup[2]
            ),
            vec![ctx.party(0, Some(span))],
        );
    }
}
