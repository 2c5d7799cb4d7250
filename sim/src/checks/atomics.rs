//! `plain-atomic-access`: an atomic written other than through the atomic builtins
//! (`histogram[i] = 0u` on `array<atomic<u32>>`). WGSL forbids it (Tint rejects the module);
//! naga 30 takes it, lowering it to the same store as `atomicStore`, so a kernel that runs under
//! wgpu fails in a browser. The two are told apart by the statement's source text: a store
//! through an atomic pointer whose text does not start with `atomicStore` is the plain one.
//! (A plain read naga refuses itself.) The plain stores are found from the IR when a pass
//! starts and reported when one runs. Invocations counted: the lanes that ran it.

use naga::{Block, Expression, Handle, Span, Statement, TypeInner};

use crate::events::{AccessKind, Checker, Ctx, ExprRef, Findings, MemAccess, PassStart};
use crate::finding::FindingKind;
use crate::program::Program;

/// Reports `plain-atomic-access`.
#[derive(Default)]
pub struct PlainAtomic {
    /// This pass's plain stores.
    found: Vec<Span>,
}

/// Whether expression `h` of function table `fi` points at an atomic.
fn atomic_pointer(prog: &Program, fi: usize, h: Handle<Expression>) -> bool {
    let types = &prog.module().types;
    match *prog.expr_type(fi, h) {
        TypeInner::Pointer { base, .. } => matches!(types[base].inner, TypeInner::Atomic(_)),
        _ => false,
    }
}

/// Every statement of `block` and the blocks inside it, with its span.
fn statements<'a>(block: &'a Block, f: &mut impl FnMut(&'a Statement, Span)) {
    for (s, span) in block.span_iter() {
        f(s, *span);
        match s {
            Statement::Block(b) => statements(b, f),
            Statement::If { accept, reject, .. } => {
                statements(accept, f);
                statements(reject, f);
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                statements(body, f);
                statements(continuing, f);
            }
            Statement::Switch { cases, .. } => cases.iter().for_each(|c| statements(&c.body, f)),
            _ => {}
        }
    }
}

/// The source text at `span`, if it maps into `source`.
fn text(source: &str, span: Span) -> &str {
    span.to_range()
        .and_then(|r| source.get(r))
        .unwrap_or("")
        .trim_start()
}

impl Checker for PlainAtomic {
    fn pass_start(&mut self, ctx: &Ctx, pass: &PassStart) -> Vec<ExprRef> {
        self.found.clear();
        let prog = pass.prog;
        let source = &ctx.kernel.source;
        for fi in 0..prog.funcs.len() {
            let f = prog.function(fi);
            statements(&f.body, &mut |s, span| {
                if let Statement::Store { pointer, .. } = *s {
                    if atomic_pointer(prog, fi, pointer)
                        && !text(source, span).starts_with("atomicStore")
                    {
                        self.found.push(span);
                    }
                }
            });
        }
        Vec::new()
    }

    fn access(&mut self, ctx: &Ctx, a: &MemAccess, out: &mut Findings) {
        if a.kind != AccessKind::Store || !a.atomic || !self.found.contains(&a.span) {
            return;
        }
        let Some(&(first, _)) = a.words.first() else {
            return;
        };
        let mut lanes: Vec<u32> = a.words.iter().map(|&(l, _)| l).collect();
        lanes.dedup();
        out.report(
            FindingKind::PlainAtomicAccess,
            ctx.kernel,
            a.span,
            lanes.len() as u64,
            "an atomic written by a plain assignment: WGSL allows only `atomicStore` and the \
             other atomic builtins on an atomic (naga takes it, a browser's WGSL compiler \
             rejects the module)"
                .into(),
            vec![ctx.party(first as usize, Some(a.span))],
        );
    }
}
