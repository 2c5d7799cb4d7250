//! The loop limit of lavapipe (gallivm): one iteration counter per shader invocation — a row of
//! SIMD lanes, which is a subgroup — shared by every loop of the shader, and every loop ends
//! early, silently, once it has counted 65535 back-edges. A kernel that loops that much in one
//! invocation (a persistent kernel running thousands of tasks) computes garbage there. This
//! checker counts, per workgroup and subgroup, the loop iterations that subgroup started with at
//! least one active lane (a lower bound of gallivm's count, which also counts loops its row
//! enters with no active lane) and reports the loop where one subgroup reaches the limit.

use naga::Span;

use crate::finding::FindingKind;
use crate::sim::events::{Checker, Ctx, Findings};
use crate::sim::mask::Mask;

/// Back-edges after which gallivm ends every loop (`LP_MAX_TGSI_LOOP_ITERATIONS`).
pub const GALLIVM_LOOP_LIMIT: u32 = 65535;

/// Reports `loop-limit`.
#[derive(Default)]
pub struct LoopLimit {
    /// Iterations per subgroup of the current workgroup.
    counts: Vec<u32>,
}

impl Checker for LoopLimit {
    fn workgroup_start(&mut self, ctx: &Ctx) {
        let s = ctx.subgroup_size.max(1);
        self.counts.clear();
        self.counts.resize(ctx.lanes.div_ceil(s) as usize, 0);
    }

    fn loop_iteration(&mut self, ctx: &Ctx, lanes: &Mask, span: Span, out: &mut Findings) {
        let s = ctx.subgroup_size.max(1) as usize;
        for (g, n) in self.counts.iter_mut().enumerate() {
            if lanes.and(&Mask::range(g * s, s)).none() {
                continue;
            }
            *n += 1;
            if *n == GALLIVM_LOOP_LIMIT {
                let slot = lanes
                    .and(&Mask::range(g * s, s))
                    .first_set()
                    .unwrap_or(g * s);
                out.report(
                    FindingKind::LoopLimit,
                    ctx.kernel,
                    span,
                    format!(
                        "subgroup {g} of workgroup ({},{},{}) started its {n}th loop iteration \
                         (all loops of the invocation together): lavapipe ends every loop of \
                         the shader here",
                        ctx.workgroup[0], ctx.workgroup[1], ctx.workgroup[2]
                    ),
                    vec![ctx.party(slot, Some(span))],
                );
            }
        }
    }
}
