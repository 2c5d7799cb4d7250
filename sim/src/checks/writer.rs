//! Not a finding of its own: the invocation that last wrote one storage word in a run, for the
//! `schedule-divergence` finding the device reports (it re-runs the two schedules that disagree
//! with this watching the first differing word).

use std::cell::RefCell;
use std::rc::Rc;

use crate::events::{AccessKind, Checker, Ctx, Findings, MemAccess, Space};
use crate::finding::Party;

/// The last writer of word `word` of buffer `buffer` (table index): the invocation and the
/// statement, and the pass (counted over the submission); `None` if no pass wrote it (a host
/// copy clears it).
pub struct LastWriter {
    buffer: usize,
    word: u32,
    /// What the run found, shared with whoever asked.
    pub last: Rc<RefCell<Option<(Party, usize)>>>,
}

impl LastWriter {
    /// Watches word `word` of buffer `buffer`.
    pub fn new(buffer: usize, word: usize) -> LastWriter {
        LastWriter {
            buffer,
            word: word as u32,
            last: Rc::default(),
        }
    }
}

impl Checker for LastWriter {
    fn host_write(&mut self, buffer: usize, first: usize, words: usize) {
        if buffer == self.buffer && (first..first + words).contains(&(self.word as usize)) {
            *self.last.borrow_mut() = None;
        }
    }

    fn access(&mut self, ctx: &Ctx, a: &MemAccess, _out: &mut Findings) {
        if a.space != Space::Storage || a.buffer != self.buffer || a.kind == AccessKind::Load {
            return;
        }
        // lanes in order: the last one to touch the word wrote last
        if let Some(&(slot, _)) = a.words.iter().rev().find(|&&(_, w)| w == self.word) {
            *self.last.borrow_mut() = Some((ctx.party(slot as usize, Some(a.span)), ctx.pass));
        }
    }
}
