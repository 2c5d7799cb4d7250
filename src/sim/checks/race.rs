//! Workgroup races: two invocations touching one workgroup-memory word between two barriers,
//! at least one access a non-atomic write. Per word, the checker remembers the epoch (barrier
//! interval) of its last access, the first invocation that touched it in that epoch, whether a
//! second one did, and the non-atomic writer if any. Epochs are global counters, so nothing
//! needs clearing between workgroups.

use naga::Span;

use crate::finding::FindingKind;
use crate::sim::events::{AccessKind, BarrierEvent, Checker, Ctx, Findings, MemAccess, Space};

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Word {
    epoch: u32,
    first: u32,
    first_span: Span,
    multi: bool,
    writer: u32,
    writer_span: Span,
}

/// Reports `workgroup-race`.
#[derive(Default)]
pub struct Race {
    epoch: u32,
    words: Vec<Word>,
}

impl Checker for Race {
    fn workgroup_start(&mut self, ctx: &Ctx) {
        self.epoch += 1;
        let blank = Word {
            epoch: 0,
            first: NONE,
            first_span: Span::UNDEFINED,
            multi: false,
            writer: NONE,
            writer_span: Span::UNDEFINED,
        };
        if self.words.len() != ctx.wg_words as usize {
            self.words = vec![blank; ctx.wg_words as usize];
        }
    }

    fn barrier(&mut self, _ctx: &Ctx, b: &BarrierEvent, _out: &mut Findings) {
        if b.flags.contains(naga::Barrier::WORK_GROUP) {
            self.epoch += 1;
        }
    }

    fn access(&mut self, ctx: &Ctx, a: &MemAccess, out: &mut Findings) {
        if a.space != Space::Workgroup {
            return;
        }
        let plain_write = a.kind == AccessKind::Store && !a.atomic;
        for &(slot, addr) in a.words {
            let Some(w) = self.words.get_mut(addr as usize) else {
                continue;
            };
            if w.epoch != self.epoch {
                *w = Word {
                    epoch: self.epoch,
                    first: slot,
                    first_span: a.span,
                    multi: false,
                    writer: NONE,
                    writer_span: Span::UNDEFINED,
                };
            } else if w.first != slot {
                w.multi = true;
            }
            // a non-atomic write by someone else, or our non-atomic write after someone else
            let other = if w.writer != NONE && w.writer != slot {
                Some((w.writer, w.writer_span))
            } else if plain_write && (w.first != slot || w.multi) {
                Some((w.first, w.first_span))
            } else {
                None
            };
            if plain_write {
                w.writer = slot;
                w.writer_span = a.span;
            }
            if let Some((o, ospan)) = other {
                let kind = FindingKind::WorkgroupRace;
                if out.seen(kind, ctx.kernel, a.span) {
                    continue;
                }
                let o = if o == slot { 0 } else { o };
                out.report(
                    kind,
                    ctx.kernel,
                    a.span,
                    format!(
                        "workgroup memory word {addr} touched by two invocations between barriers, one a non-atomic write"
                    ),
                    vec![
                        ctx.party(slot as usize, Some(a.span)),
                        ctx.party(o as usize, Some(ospan)),
                    ],
                );
            }
        }
    }
}
