//! The loop limit of lavapipe (gallivm): one iteration counter per shader invocation — a row of
//! SIMD lanes, which is a subgroup — shared by every loop of the shader, and every loop ends
//! early, silently, once it has counted 65535 back-edges. A kernel that loops that much in one
//! invocation (a persistent kernel running thousands of tasks) computes garbage there. This
//! checker counts, per workgroup and subgroup, the loop iterations that subgroup started with at
//! least one active lane (a lower bound of gallivm's count, which also counts loops its row
//! enters with no active lane) and reports the loop where one subgroup reaches the limit.
//! Invocations counted: the subgroup's lanes active in the iteration that reached it.

use naga::Span;

use crate::events::{Checker, Ctx, Findings};
use crate::finding::FindingKind;
use crate::mask::Mask;

/// Back-edges after which gallivm ends every loop (`LP_MAX_TGSI_LOOP_ITERATIONS`).
pub const GALLIVM_LOOP_LIMIT: u32 = 65535;

/// Reports `loop-limit`.
#[derive(Default)]
pub struct LoopLimit {
    /// Per resident workgroup, iterations per subgroup.
    counts: Vec<Vec<u32>>,
}

impl Checker for LoopLimit {
    fn workgroup_start(&mut self, ctx: &Ctx) {
        let s = ctx.subgroup_size.max(1);
        if self.counts.len() <= ctx.resident {
            self.counts.resize(ctx.resident + 1, Vec::new());
        }
        let counts = &mut self.counts[ctx.resident];
        counts.clear();
        counts.resize(ctx.lanes.div_ceil(s) as usize, 0);
    }

    fn loop_iteration(&mut self, ctx: &Ctx, lanes: &Mask, span: Span, out: &mut Findings) {
        let s = ctx.subgroup_size.max(1) as usize;
        let Some(counts) = self.counts.get_mut(ctx.resident) else {
            return;
        };
        // the subgroups that reach the limit in this iteration (rare: a Vec is fine)
        let mut hits = Vec::new();
        lanes.for_each_group(s, |g| {
            if let Some(n) = counts.get_mut(g) {
                *n += 1;
                if *n == GALLIVM_LOOP_LIMIT {
                    hits.push((g, *n));
                }
            }
        });
        for (g, n) in hits {
            let group = lanes.and(&Mask::range(g * s, s));
            let slot = group.first_set().unwrap_or(g * s);
            out.report(
                FindingKind::LoopLimit,
                ctx.kernel,
                span,
                group.count() as u64,
                format!(
                    "subgroup {g} of workgroup ({},{},{}) started its {n}th loop iteration \
                     (all loops of the invocation together): lavapipe ends every loop of the \
                     shader here",
                    ctx.workgroup[0], ctx.workgroup[1], ctx.workgroup[2]
                ),
                vec![ctx.party(slot, Some(span))],
            );
        }
    }
}
