//! `shift-overflow`: a shift (`<<`, `>>`) by at least the bit width of its operand. WGSL takes
//! the amount modulo the width (`x << 33u` is `x << 1u`); CUDA and MSL leave such a shift
//! undefined (PTX clamps it, x86 masks it), so a kernel ported in either direction may rely on
//! a result the other language does not give. Shifts whose amount is provably in range (a
//! constant, which WGSL already requires below the width, or masked with `& c`, `c < 32`) are
//! not watched, and lanes whose result only a `select` discards (`select(x << s, 0u, s >= 32u)`)
//! are fine ([`Discards`]). Invocations counted: the lanes whose shift amount was too large.

use naga::{BinaryOperator, Expression, Function, Handle, Literal};

use super::discard::Discards;
use crate::events::{Checker, Ctx, ExprEvent, ExprRef, Findings, PassStart};
use crate::finding::FindingKind;
use crate::layout::Kind;

/// Bits of every integer the simulator holds.
const WIDTH: u32 = 32;

/// Reports `shift-overflow`.
pub struct Shift {
    /// The pass's watched shifts: `<<` or `>>`.
    /// Per function table, per expression: the watched shift's operator.
    shifts: Vec<Vec<Option<&'static str>>>,
    /// Overflowing shifts whose result only a select consumes.
    discards: Discards,
}

impl Default for Shift {
    fn default() -> Self {
        Shift {
            shifts: Vec::new(),
            discards: Discards::new(false),
        }
    }
}

/// A literal integer below the width, or a splat of one.
fn small_constant(f: &Function, h: Handle<Expression>) -> bool {
    match f.expressions[h] {
        Expression::Literal(Literal::U32(v)) => v < WIDTH,
        Expression::Literal(Literal::I32(v)) => (0..WIDTH as i32).contains(&v),
        Expression::Splat { value, .. } => small_constant(f, value),
        _ => false,
    }
}

/// Whether shift amount `h` is below the width whatever the inputs.
fn in_range(f: &Function, h: Handle<Expression>) -> bool {
    match f.expressions[h] {
        Expression::Literal(_) | Expression::Constant(_) | Expression::ZeroValue(_) => true,
        Expression::Splat { value, .. } => in_range(f, value),
        Expression::Binary {
            op: BinaryOperator::And,
            left,
            right,
        } => small_constant(f, left) || small_constant(f, right),
        Expression::Binary {
            op: BinaryOperator::Modulo,
            right,
            ..
        } => match f.expressions[right] {
            Expression::Literal(Literal::U32(v)) => (1..=WIDTH).contains(&v),
            _ => false,
        },
        _ => false,
    }
}

impl Checker for Shift {
    fn pass_start(&mut self, _ctx: &Ctx, pass: &PassStart) -> Vec<ExprRef> {
        let mut watch = self.discards.pass_start(pass.prog);
        self.shifts.clear();
        for fi in 0..pass.prog.funcs.len() {
            let f = pass.prog.function(fi);
            self.shifts.push(vec![None; f.expressions.len()]);
            for (h, e) in f.expressions.iter() {
                let Expression::Binary { op, right, .. } = *e else {
                    continue;
                };
                let name = match op {
                    BinaryOperator::ShiftLeft => "<<",
                    BinaryOperator::ShiftRight => ">>",
                    _ => continue,
                };
                if !in_range(f, right) {
                    let at = ExprRef {
                        function: fi,
                        expr: h,
                    };
                    self.shifts[fi][h.index()] = Some(name);
                    watch.push(at);
                }
            }
        }
        watch
    }

    fn workgroup_end(&mut self, ctx: &Ctx, out: &mut Findings) {
        self.discards.flush(ctx, out);
    }

    fn expression(&mut self, ctx: &Ctx, e: &ExprEvent, out: &mut Findings) {
        self.discards.select(ctx, e, out);
        let Some(op) = self
            .shifts
            .get(e.at.function)
            .and_then(|f| f.get(e.at.expr.index()))
            .copied()
            .flatten()
        else {
            return;
        };
        let f = e.prog.function(e.at.function);
        let Expression::Binary { left, right, .. } = f.expressions[e.at.expr] else {
            return;
        };
        // the common case first: no lane at all, active or not, shifts that far (a scan the
        // compiler vectorises: amounts below a power of two have no bit of it or above, nor
        // has their OR)
        const _: () = assert!(WIDTH.is_power_of_two());
        if (0..e.words(right)).all(|w| e.row(right, w).iter().fold(0, |m, &a| m | a) < WIDTH) {
            return;
        }
        let ty = match e.prog.funcs[e.at.function].exprs[left.index()].kind {
            Kind::I32 => "i32",
            _ => "u32",
        };
        let kind = FindingKind::ShiftOverflow;
        let message = |amount: u32| {
            format!(
                "`{op}` by {amount}, not below the {WIDTH}-bit width of its {ty} operand: WGSL \
                 shifts by {amount} mod {WIDTH} = {}, while CUDA and MSL leave a shift by the \
                 width or more undefined, so a port relies on a result the other side does not \
                 give (mask the amount, or handle the large shift)",
                amount % WIDTH
            )
        };
        // the first lane (and its amount) whose result is not left to a select, and how many
        // such lanes
        let mut hit = None;
        let mut lanes = 0u64;
        e.active.for_each(|slot| {
            let over = (0..e.words(right))
                .map(|w| e.row(right, w)[slot])
                .find(|&a| a >= WIDTH);
            let Some(amount) = over else { return };
            let deferred = self
                .discards
                .defer(ctx, Some(e.at), slot, kind, e.span, || message(amount));
            if !deferred {
                hit.get_or_insert((slot, amount));
                lanes += 1;
            }
        });
        let Some((slot, amount)) = hit else { return };
        if !out.seen(kind, ctx.kernel, e.span, lanes) {
            let party = ctx.party(slot, Some(e.span));
            out.report(
                kind,
                ctx.kernel,
                e.span,
                lanes,
                message(amount),
                vec![party],
            );
        }
    }
}
