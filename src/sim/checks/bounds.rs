//! Bounds and budget: indices past an array's length (the core reports them) and the step
//! budget running out.

use naga::Span;

use crate::finding::FindingKind;
use crate::sim::events::{Checker, Ctx, Findings, OobEvent};

/// Reports `out-of-bounds` and `step-limit`.
pub struct Bounds;

impl Checker for Bounds {
    fn out_of_bounds(&mut self, ctx: &Ctx, e: &OobEvent, out: &mut Findings) {
        let kind = FindingKind::OutOfBounds;
        if out.seen(kind, ctx.kernel, e.span) {
            return;
        }
        let index = if e.index == u64::MAX {
            "a negative index".to_string()
        } else {
            format!("index {}", e.index)
        };
        out.report(
            kind,
            ctx.kernel,
            e.span,
            format!("{index} past the end of {} (length {})", e.what, e.len),
            vec![ctx.party(e.slot, Some(e.span))],
        );
    }

    fn step_limit(&mut self, ctx: &Ctx, steps: u64, span: Span, out: &mut Findings) {
        out.report(
            FindingKind::StepLimit,
            ctx.kernel,
            span,
            format!(
                "workgroup ({},{},{}) ran out of its budget of {steps} steps (a hang, or a wait on another workgroup)",
                ctx.workgroup[0], ctx.workgroup[1], ctx.workgroup[2]
            ),
            vec![ctx.party(0, Some(span))],
        );
    }
}
