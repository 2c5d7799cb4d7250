//! Forward progress between workgroups: a workgroup that spins on memory only a suspended
//! workgroup would change (the scheduler reports it, `sim::schedule`). A GPU without
//! forward-progress guarantees between resident workgroups (Apple's, ARM's) need never resume
//! the suspended one, so the wait never ends there: a ticketed look-back without a fallback.
//!
//! Invocations counted: the lanes spinning in the loop when the stall is seen.

use crate::events::{loc, Checker, Ctx, Findings, StallEvent};
use crate::finding::FindingKind;

/// Reports `forward-progress`.
#[derive(Default)]
pub struct Progress;

impl Checker for Progress {
    fn stalled(&mut self, ctx: &Ctx, e: &StallEvent, out: &mut Findings) {
        let kind = FindingKind::ForwardProgress;
        if out.seen(kind, ctx.kernel, e.span, e.lanes as u64) {
            return;
        }
        let [x, y, z] = ctx.workgroup;
        let [sx, sy, sz] = e.suspended;
        let at = loc(ctx.kernel, e.ticket)
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        let mut waited = ctx.party(e.ticket_slot, Some(e.ticket));
        waited.workgroup = e.suspended;
        out.report(
            kind,
            ctx.kernel,
            e.span,
            e.lanes as u64,
            format!(
                "workgroup ({x},{y},{z}) spins in this loop ({} iterations in a row re-reading \
                 the same values and changing nothing) waiting on workgroup ({sx},{sy},{sz}), \
                 suspended after taking a ticket{at}, while no other workgroup can run: a GPU \
                 without forward-progress guarantees between workgroups need never resume it. \
                 Bound the wait and fall back to work this workgroup can do alone (decoupled \
                 fallback)",
                e.iterations
            ),
            vec![ctx.party(e.slot, Some(e.span)), waited],
        );
    }
}
