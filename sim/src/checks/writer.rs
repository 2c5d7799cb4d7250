//! Not a finding of its own: the invocation that last wrote one storage word in a run, for the
//! `schedule-divergence` finding the device reports (it re-runs the two schedules that disagree
//! with this watching the first differing word).

use std::cell::RefCell;
use std::rc::Rc;

use crate::events::{part_mask, AccessKind, Checker, Ctx, Findings, MemAccess, Space};
use crate::finding::Party;

/// The last writer of the halves `mask` ([`part_mask`] bits) of word `word` of buffer `buffer`
/// (table index): the invocation and the statement, and the pass (counted over the
/// submission); `None` if no pass wrote it (a host copy clears it).
pub struct LastWriter {
    buffer: usize,
    word: u32,
    mask: u8,
    /// What the run found, shared with whoever asked.
    pub last: Rc<RefCell<Option<(Party, usize)>>>,
}

impl LastWriter {
    /// Watches the halves `mask` of word `word` of buffer `buffer` (3: the whole word).
    pub fn new(buffer: usize, word: usize, mask: u8) -> LastWriter {
        LastWriter {
            buffer,
            word: word as u32,
            mask,
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
        let last = (0..a.words.len())
            .rev()
            .find(|&i| a.words[i].1 == self.word && part_mask(a.part(i)) & self.mask != 0);
        if let Some(&(slot, _)) = last.map(|i| &a.words[i]) {
            *self.last.borrow_mut() = Some((ctx.party(slot as usize, Some(a.span)), ctx.pass));
        }
    }
}
