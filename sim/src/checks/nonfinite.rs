//! `non-finite` (only with [`CheckOptions::non_finite`](super::CheckOptions)): a float
//! operation gave NaN or an infinity from finite operands (`x / 0.0`, `0.0 / 0.0`, an overflow,
//! `sqrt(-1.0)`). WGSL lets an implementation assume that no float value is NaN or infinite,
//! and optimisers use that: lavapipe folds `x * 0.0` to `0.0` and `x != x` to `false`, so
//! everything computed from such a value may differ from device to device. Each value is
//! reported where it is first made, not where it flows; a value only a `select` arm consumes
//! is judged in the lanes where the select keeps it (`select(x / y, 0.0, y == 0.0)` is fine).
//! Invocations counted: the lanes whose result was non-finite from finite operands.

use std::collections::HashSet;

use naga::{Expression, Handle};

use super::discard::Discards;
use crate::events::{Checker, Ctx, ExprEvent, ExprRef, Findings, PassStart};
use crate::finding::FindingKind;
use crate::layout::Kind;

/// Reports `non-finite`.
pub struct NonFinite {
    /// The pass's float operations.
    ops: HashSet<ExprRef>,
    /// Non-finite results that only a select consumes.
    discards: Discards,
}

impl Default for NonFinite {
    fn default() -> Self {
        NonFinite {
            ops: HashSet::new(),
            discards: Discards::new(false),
        }
    }
}

/// The operands of a float operation.
fn operands(e: &Expression) -> Vec<Handle<Expression>> {
    match *e {
        Expression::Binary { left, right, .. } => vec![left, right],
        Expression::Unary { expr, .. } | Expression::As { expr, .. } => vec![expr],
        Expression::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => [Some(arg), arg1, arg2, arg3]
            .into_iter()
            .flatten()
            .collect(),
        _ => Vec::new(),
    }
}

fn non_finite(word: u32) -> bool {
    word & 0x7f80_0000 == 0x7f80_0000
}

impl Checker for NonFinite {
    fn pass_start(&mut self, _ctx: &Ctx, pass: &PassStart) -> Vec<ExprRef> {
        self.ops.clear();
        for fi in 0..pass.prog.funcs.len() {
            let f = pass.prog.function(fi);
            let t = &pass.prog.funcs[fi];
            for (h, e) in f.expressions.iter() {
                let float = matches!(t.exprs[h.index()].kind, Kind::F32 | Kind::F16);
                let op = matches!(
                    e,
                    Expression::Binary { .. }
                        | Expression::Unary { .. }
                        | Expression::Math { .. }
                        | Expression::As {
                            convert: Some(_),
                            ..
                        }
                );
                if float && op {
                    self.ops.insert(ExprRef {
                        function: fi,
                        expr: h,
                    });
                }
            }
        }
        let mut watch = self.discards.pass_start(pass.prog);
        watch.extend(self.ops.iter().copied());
        watch
    }

    fn workgroup_end(&mut self, ctx: &Ctx, out: &mut Findings) {
        self.discards.flush(ctx, out);
    }

    fn expression(&mut self, ctx: &Ctx, e: &ExprEvent, out: &mut Findings) {
        self.discards.select(ctx, e, out);
        if !self.ops.contains(&e.at) {
            return;
        }
        let f = e.prog.function(e.at.function);
        let t = &e.prog.funcs[e.at.function];
        let expr = &f.expressions[e.at.expr];
        // float operands only: an integer operand (ldexp's exponent) may have any bits
        let inputs: Vec<Handle<Expression>> = operands(expr)
            .into_iter()
            .filter(|&o| matches!(t.exprs[o.index()].kind, Kind::F32 | Kind::F16))
            .collect();
        let kind = FindingKind::NonFinite;
        let message = |v: u32| {
            let what = if f32::from_bits(v).is_nan() {
                "NaN".to_string()
            } else {
                format!("{}", f32::from_bits(v))
            };
            format!(
                "a float operation gave {what} from finite operands: WGSL lets an implementation \
                 assume no value is NaN or infinite (lavapipe folds `x * 0.0` to 0 and `x != x` \
                 to false), so what is computed from it differs between devices; keep the \
                 operands in range, or discard the result with `select`"
            )
        };
        // the first lane (and its value) not left to a select, and how many such lanes
        let mut hit = None;
        let mut lanes = 0u64;
        e.active.for_each(|slot| {
            let bad = (0..e.words(e.at.expr))
                .map(|w| e.row(e.at.expr, w)[slot])
                .find(|&v| non_finite(v));
            let Some(v) = bad else { return };
            let from_finite = inputs
                .iter()
                .all(|&o| (0..e.words(o)).all(|w| !non_finite(e.row(o, w)[slot])));
            if !from_finite {
                return;
            }
            if !self
                .discards
                .defer(ctx, Some(e.at), slot, kind, e.span, || message(v))
            {
                hit.get_or_insert((slot, v));
                lanes += 1;
            }
        });
        let Some((slot, v)) = hit else { return };
        if !out.seen(kind, ctx.kernel, e.span, lanes) {
            let party = ctx.party(slot, Some(e.span));
            out.report(kind, ctx.kernel, e.span, lanes, message(v), vec![party]);
        }
    }
}
