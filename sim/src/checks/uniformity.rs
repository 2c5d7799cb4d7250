//! Uniformity: subgroup operations must run with every live lane of the subgroup active, quad
//! operations with every live lane of each quad that runs them (a quad wholly active under a
//! divergent branch is defined behaviour), and every live invocation of a workgroup must reach
//! the same barrier statement.
//!
//! Invocations counted: the lanes that ran the subgroup operation with others missing, and the
//! lanes that reached the barrier without the rest.
//!
//! Where the author turned WGSL's `subgroup_uniformity` diagnostic to `off`, `info` or `warning`
//! around a subgroup or quad operation ([`crate::filters`]), running it with lanes missing is a
//! note ([`crate::Report::notes`]), not a finding.

use naga::diagnostic_filter::Severity;
use naga::Span;

use crate::events::{BarrierEvent, Checker, Ctx, Findings, SubgroupEvent};
use crate::finding::FindingKind;

/// Reports `non-uniform-subgroup-op` and `barrier-divergence`.
pub struct Uniformity;

impl Checker for Uniformity {
    fn subgroup_op(&mut self, ctx: &Ctx, s: &SubgroupEvent, out: &mut Findings) {
        let quad = s.op.starts_with("quad");
        let missing = if quad {
            quad_missing(s)
        } else {
            s.live.and_not(&s.active)
        };
        if missing.none() {
            return;
        }
        let kind = FindingKind::NonUniformSubgroupOp;
        let n = s.active.count() as u64;
        if out.seen(kind, ctx.kernel, s.span, n) {
            return;
        }
        let mut parties = Vec::new();
        if let Some(a) = s.active.first_set() {
            parties.push(ctx.party(a, Some(s.span)));
        }
        if let Some(m) = missing.first_set() {
            parties.push(ctx.party(m, None));
        }
        let mut message = if quad {
            format!(
                "{} ran in subgroup {} with {} live lanes of the quads running it inactive \
                     (an inactive lane is the second party)",
                s.op,
                s.subgroup,
                missing.count()
            )
        } else {
            format!(
                "{} ran in subgroup {} with {} of its {} live lanes active (an inactive lane \
                     is the second party)",
                s.op,
                s.subgroup,
                s.active.count(),
                s.live.count()
            )
        };
        // the author's filter: any severity but `error` makes it a note
        match ctx.kernel.subgroup_filter(s.span) {
            Some(f) if f.severity != Severity::Error => {
                let at = ctx
                    .kernel
                    .location(Span::new(f.at as u32, f.at as u32 + 1))
                    .map(|l| format!(" at {l}"))
                    .unwrap_or_default();
                message.push_str(&format!(
                    "; a note, not a finding: `{}`{at} is in force here",
                    f.text()
                ));
                out.note(kind, ctx.kernel, s.span, n, message, parties);
            }
            _ => out.report(kind, ctx.kernel, s.span, n, message, parties),
        }
    }

    fn barrier(&mut self, ctx: &Ctx, b: &BarrierEvent, out: &mut Findings) {
        if b.active == b.live {
            return;
        }
        let kind = FindingKind::BarrierDivergence;
        let n = b.active.count() as u64;
        if out.seen(kind, ctx.kernel, b.span, n) {
            return;
        }
        let missing = b.live.and_not(&b.active);
        let mut parties = Vec::new();
        if let Some(a) = b.active.first_set() {
            parties.push(ctx.party(a, Some(b.span)));
        }
        if let Some(m) = missing.first_set() {
            parties.push(ctx.party(m, None));
        }
        out.report(
            kind,
            ctx.kernel,
            b.span,
            n,
            format!(
                "barrier reached by {} of {} live invocations; the others are elsewhere",
                b.active.count(),
                b.live.count()
            ),
            parties,
        );
    }
}

/// The live lanes of a quad operation's quads (four consecutive lanes; subgroups hold whole
/// quads) that did not run it, where another lane of their quad did.
fn quad_missing(s: &SubgroupEvent) -> crate::mask::Mask {
    let mut missing = s.live.and_not(&s.active);
    let candidates = missing;
    candidates.for_each(|slot| {
        let quad = slot & !3;
        if !(quad..quad + 4).any(|l| s.active.get(l)) {
            missing.clear(slot);
        }
    });
    missing
}
