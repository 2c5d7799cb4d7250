//! Races inside a workgroup: two invocations touching one word between two barriers that order
//! it, at least one access a non-atomic write.
//! - `workgroup-race`: a workgroup-memory word, between `workgroupBarrier`s.
//! - `storage-race`: a storage word, between `storageBarrier`s. WGSL's `workgroupBarrier`
//!   orders workgroup memory only, so a storage word written by one invocation and read by
//!   another of its workgroup needs a `storageBarrier` between them (or atomics).
//!
//! And races between workgroups ([`GridRace`], `cross-workgroup-race`): two workgroups of one
//! dispatch touching one storage word, at least one access a non-atomic write. Nothing in a
//! dispatch orders two workgroups but atomics (WGSL's are relaxed and it has no device-scope
//! fence), so such a word holds whichever store lands last, or a reader sees either value: a
//! tile written by two workgroups, or "store the partial, then count the arrival" handing data
//! to another workgroup. Passes are ordered, so only accesses within one pass count.
//!
//! Per word, a checker remembers the epoch (barrier interval) of its last access, the first
//! invocation that touched it in that epoch, the last access by another invocation, and the
//! non-atomic writer if any, so a report names a real second party: a write racing reads of
//! the word names the writer and one of the readers. Epochs are global counters, so nothing
//! needs clearing between workgroups (the storage checker's words live in a map it empties at
//! each epoch instead, since a workgroup touches few of a buffer's words). Workgroups resident at once each have their own
//! epoch and words (the storage checker's words are per workgroup too: a race between
//! workgroups is [`GridRace`]'s).
//!
//! A storage word's halves are apart where an access names them ([`MemAccess::parts`], an
//! f16 of a binding holding f16): two invocations storing the two halves of one word do not
//! race, two storing one half do.
//!
//! Invocations counted: the lanes of an access that race with an earlier access of another
//! invocation (one per lane, however many of its words race).

use std::collections::HashMap;

use naga::Span;

use crate::events::{
    part_name, AccessKind, BarrierEvent, Checker, Ctx, Findings, MemAccess, Space,
};
use crate::finding::FindingKind;

const NONE: u32 = u32::MAX;

/// Lane slot bits of a packed access (at most 1024 lanes).
const SLOT_BITS: u32 = 10;
const _: () = assert!(crate::mask::MAX_LANES <= 1 << SLOT_BITS);
const SLOT_MASK: u32 = (1 << SLOT_BITS) - 1;

/// The source spans of the accesses a checker has seen, by a dense index, so that an access
/// packs into a word (lane slot and span index). Past `limit` spans the last index is reused
/// and a party's location is approximate.
#[derive(Default)]
struct SpanIds {
    spans: Vec<Span>,
    /// (start, end) of a span → its index (undefined spans under `u64::MAX`)
    index: HashMap<u64, u32, std::hash::BuildHasherDefault<KeyHasher>>,
    /// The last span looked up and its index (consecutive accesses mostly share one).
    last: Option<(Span, u32)>,
}

impl SpanIds {
    /// The index of `span` (added if new), at most `limit`.
    fn id(&mut self, span: Span, limit: u32) -> u32 {
        if let Some((s, i)) = self.last {
            if s == span {
                return i;
            }
        }
        let key = span
            .to_range()
            .map_or(u64::MAX, |r| (r.start as u64) << 32 | r.end as u64);
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                let i = (self.spans.len() as u32).min(limit);
                if (i as usize) == self.spans.len() {
                    self.spans.push(span);
                }
                self.index.insert(key, i);
                i
            }
        };
        self.last = Some((span, i));
        i
    }

    fn get(&self, i: u32) -> Span {
        self.spans
            .get(i as usize)
            .copied()
            .unwrap_or(Span::UNDEFINED)
    }
}

/// Span indices of [`Word`]'s packed accesses: 21 bits, so that a packed access is never
/// `NONE`.
const WORD_SPANS: u32 = (1 << 21) - 1;

/// A word's accesses in its last epoch, in 16 bytes (the workgroup checker keeps one per
/// workgroup-memory word of every resident workgroup, touched on every access), each access a
/// lane slot and a span index (in [`SpanIds`]) packed in a word: `first`, the first
/// invocation's; `other`, the last access by any other invocation, or `NONE`; `writer`, the
/// last non-atomic write, or `NONE`.
#[derive(Clone, Copy)]
struct Word {
    epoch: u32,
    first: u32,
    other: u32,
    writer: u32,
}

const BLANK: Word = Word {
    epoch: 0,
    first: NONE,
    other: NONE,
    writer: NONE,
};

/// A lane slot and a span index packed as in [`Word`].
fn pack(slot: u32, span: u32) -> u32 {
    slot | span << SLOT_BITS
}

impl Word {
    /// Records an access by lane `slot` in `epoch` at the span of index `span`; returns the
    /// other party (slot and span index) if it races.
    fn touch(&mut self, epoch: u32, slot: u32, span: u32, plain_write: bool) -> Option<(u32, u32)> {
        if self.epoch != epoch {
            *self = Word {
                epoch,
                first: pack(slot, span),
                other: NONE,
                writer: NONE,
            };
        }
        let first = self.first & SLOT_MASK;
        // a non-atomic write by someone else, or our non-atomic write after someone else: the
        // first invocation, or when that is us, the last of the others (never us)
        let other = if self.writer != NONE && self.writer & SLOT_MASK != slot {
            Some(self.writer)
        } else if plain_write && first != slot {
            Some(self.first)
        } else if plain_write && self.other != NONE {
            Some(self.other)
        } else {
            None
        };
        if first != slot {
            self.other = pack(slot, span);
        }
        if plain_write {
            self.writer = pack(slot, span);
        }
        other.map(|p| (p & SLOT_MASK, p >> SLOT_BITS))
    }
}

/// Reports a race of lane `slot` with lane `other` of its workgroup.
fn report(
    kind: FindingKind,
    ctx: &Ctx,
    a: &MemAccess,
    slot: u32,
    (other, other_span): (u32, Span),
    what: impl FnOnce() -> String,
    out: &mut Findings,
) {
    debug_assert_ne!(other, slot, "a race's other party is another invocation");
    report_with(
        kind,
        ctx,
        a,
        slot,
        || ctx.party(other as usize, Some(other_span)),
        what,
        out,
    );
}

/// Reports a race of lane `slot` with the party `other` gives (once per kind and place; a lane
/// counts one invocation: callers report a lane once per access).
fn report_with(
    kind: FindingKind,
    ctx: &Ctx,
    a: &MemAccess,
    slot: u32,
    other: impl FnOnce() -> crate::finding::Party,
    what: impl FnOnce() -> String,
    out: &mut Findings,
) {
    if out.seen(kind, ctx.kernel, a.span, 1) {
        return;
    }
    out.report(
        kind,
        ctx.kernel,
        a.span,
        1,
        what(),
        vec![ctx.party(slot as usize, Some(a.span)), other()],
    );
}

/// Reports `workgroup-race`.
#[derive(Default)]
pub struct Race {
    epoch: u32,
    /// Per resident workgroup: its epoch and its workgroup memory's words.
    resident: Vec<(u32, Vec<Word>)>,
    spans: SpanIds,
}

impl Checker for Race {
    fn workgroup_start(&mut self, ctx: &Ctx) {
        self.epoch += 1;
        if self.resident.len() <= ctx.resident {
            self.resident.resize(ctx.resident + 1, (0, Vec::new()));
        }
        let (epoch, words) = &mut self.resident[ctx.resident];
        *epoch = self.epoch;
        if words.len() != ctx.wg_words as usize {
            *words = vec![BLANK; ctx.wg_words as usize];
        }
    }

    fn barrier(&mut self, ctx: &Ctx, b: &BarrierEvent, _out: &mut Findings) {
        if b.flags.contains(naga::Barrier::WORK_GROUP) {
            self.epoch += 1;
            if let Some((epoch, _)) = self.resident.get_mut(ctx.resident) {
                *epoch = self.epoch;
            }
        }
    }

    fn access(&mut self, ctx: &Ctx, a: &MemAccess, out: &mut Findings) {
        // A workgroup word is atomic or not by the type of the variable holding it (WGSL has
        // no other way to reach it), so an atomic access never meets a non-atomic write to its
        // word: only the others are recorded. (A storage word may be bound twice in a pass, as
        // an atomic and a plain array: the storage checkers record every access.)
        if a.space != Space::Workgroup || a.atomic {
            return;
        }
        let Some((epoch, words)) = self.resident.get_mut(ctx.resident) else {
            return;
        };
        let epoch = *epoch;
        let plain_write = a.kind == AccessKind::Store && !a.atomic;
        let span = self.spans.id(a.span, WORD_SPANS);
        // the last lane reported (a lane's words come together)
        let mut raced = NONE;
        for &(slot, addr) in a.words {
            let Some(w) = words.get_mut(addr as usize) else {
                continue;
            };
            let race = w.touch(epoch, slot, span, plain_write);
            if let Some((other, at)) = race.filter(|_| slot != raced) {
                raced = slot;
                let other = (other, self.spans.get(at));
                let what = || {
                    format!(
                    "workgroup memory word {addr} touched by two invocations between barriers, one a non-atomic write"
                )
                };
                report(FindingKind::WorkgroupRace, ctx, a, slot, other, what, out);
            }
        }
    }
}

/// Hashes a (buffer, word) key with one multiplication (the map is on the simulator's path for
/// every storage access; SipHash made the sort's simulator tests 40% slower).
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0 ^ k).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// (buffer << 34 | word << 2 | part) → the word's (or half's) accesses in an epoch
type EpochWords = HashMap<u64, Word, std::hash::BuildHasherDefault<KeyHasher>>;

/// Reports `storage-race`.
#[derive(Default)]
pub struct StorageRace {
    epoch: u32,
    /// Per resident workgroup: its epoch and the words it touched in it.
    resident: Vec<(u32, EpochWords)>,
    spans: SpanIds,
}

impl StorageRace {
    fn next_epoch(&mut self, resident: usize) {
        self.epoch += 1;
        if self.resident.len() <= resident {
            self.resident.resize_with(resident + 1, Default::default);
        }
        let (epoch, words) = &mut self.resident[resident];
        *epoch = self.epoch;
        words.clear();
    }
}

impl Checker for StorageRace {
    fn workgroup_start(&mut self, ctx: &Ctx) {
        self.next_epoch(ctx.resident);
    }

    fn barrier(&mut self, ctx: &Ctx, b: &BarrierEvent, _out: &mut Findings) {
        if b.flags.contains(naga::Barrier::STORAGE) {
            self.next_epoch(ctx.resident);
        }
    }

    fn access(&mut self, ctx: &Ctx, a: &MemAccess, out: &mut Findings) {
        // (a read-only binding cannot race: nothing in the pass writes it)
        if a.space != Space::Storage || a.read_only {
            return;
        }
        let Some((epoch, words)) = self.resident.get_mut(ctx.resident) else {
            return;
        };
        let epoch = *epoch;
        let plain_write = a.kind == AccessKind::Store && !a.atomic;
        let span = self.spans.id(a.span, WORD_SPANS);
        // the last lane reported (a lane's words come together)
        let mut raced = NONE;
        for (i, &(slot, addr)) in a.words.iter().enumerate() {
            let part = a.part(i);
            let w = words
                .entry((a.buffer as u64) << 34 | (addr as u64) << 2 | part as u64)
                .or_insert(BLANK);
            let race = w.touch(epoch, slot, span, plain_write);
            if let Some((other, at)) = race.filter(|_| slot != raced) {
                raced = slot;
                let other = (other, self.spans.get(at));
                let what = || {
                    format!(
                    "storage {} of buffer {} touched by two invocations of a workgroup between storage barriers, one a non-atomic write",
                    part_name(addr, part),
                    a.buffer
                )
                };
                report(FindingKind::StorageRace, ctx, a, slot, other, what, out);
            }
        }
    }
}

/// One access for [`GridRace`], packed into 8 bytes (a word's state is kept for every word a
/// pass touches through a writable binding, so it costs 28 bytes per such word): the
/// workgroup's linear index, then the lane slot (10 bits: at most 1024 lanes) and the index of
/// the access's span in [`GridRace::spans`] (22 bits).
#[derive(Clone, Copy)]
struct Site {
    workgroup: u32,
    slot_span: u32,
}

const NO_SITE: Site = Site {
    workgroup: NONE,
    slot_span: 0,
};

impl Site {
    fn slot(self) -> u32 {
        self.slot_span & ((1 << SLOT_BITS) - 1)
    }
    fn span(self) -> usize {
        (self.slot_span >> SLOT_BITS) as usize
    }
}

/// A storage word's accesses in one pass, for [`GridRace`].
#[derive(Clone, Copy)]
struct GridWord {
    /// The pass (plus one) these accesses belong to; anything else is stale.
    stamp: u32,
    /// The first access in the pass.
    first: Site,
    /// The first access from another workgroup than `first`'s (or none).
    other: Site,
    /// The first non-atomic write (or none).
    writer: Site,
}

const STALE: GridWord = GridWord {
    stamp: 0,
    first: NO_SITE,
    other: NO_SITE,
    writer: NO_SITE,
};

/// Reports `cross-workgroup-race`. Per word it keeps the pass's first access, the first access
/// from another workgroup and the first non-atomic write: a race exists once a workgroup other
/// than the writer's touches the word, or a workgroup writes it that another has touched, and
/// those three name a party of another workgroup in every such case. Memory: 28 bytes per
/// word touched through a writable binding (7 times the buffer), kept for the run, and 56 per
/// word touched as halves.
#[derive(Default)]
pub struct GridRace {
    /// Per plan buffer (grown as buffers are touched): per word, the pass's accesses.
    words: Vec<Vec<GridWord>>,
    /// Per plan buffer: per half word (word · 2 + high), the pass's accesses of halves.
    halves: Vec<Vec<GridWord>>,
    /// The source spans of the accesses seen, indexed by `Site::span`.
    spans: SpanIds,
}

/// The party at `site` of the current pass, its span from `spans` (lanes map to local indices
/// alike in every workgroup of a pass).
fn site_party(ctx: &Ctx, spans: &SpanIds, site: Site) -> crate::finding::Party {
    let span = spans.get(site.span() as u32);
    let mut party = ctx.party(site.slot() as usize, Some(span));
    let ([gx, gy, _], w) = (ctx.grid, site.workgroup);
    party.workgroup = [w % gx, w / gx % gy, w / (gx * gy)];
    party
}

impl Checker for GridRace {
    fn access(&mut self, ctx: &Ctx, a: &MemAccess, out: &mut Findings) {
        // (a read-only binding cannot race: nothing in the pass writes it)
        if a.space != Space::Storage || a.read_only {
            return;
        }
        let stamp = ctx.pass as u32 + 1;
        let plain_write = a.kind == AccessKind::Store && !a.atomic;
        let [x, y, z] = ctx.workgroup;
        let wg = x + ctx.grid[0] * (y + ctx.grid[1] * z);
        // (22 bits of span index: past 2^22 spans, the last index is reused)
        let span = self.spans.id(a.span, (1 << (32 - SLOT_BITS)) - 1) << SLOT_BITS;
        if self.words.len() <= a.buffer {
            self.words.resize(a.buffer + 1, Vec::new());
            self.halves.resize(a.buffer + 1, Vec::new());
        }
        // the last lane reported (a lane's words come together)
        let mut raced = NONE;
        for (i, &(slot, word)) in a.words.iter().enumerate() {
            let part = a.part(i);
            let (words, addr) = match part {
                0 => (&mut self.words[a.buffer], word as usize),
                p => (
                    &mut self.halves[a.buffer],
                    word as usize * 2 + p as usize - 1,
                ),
            };
            if words.len() <= addr {
                // grown to what is touched (the bound range's end is the bounds check's)
                words.resize((addr + 1).next_power_of_two(), STALE);
            }
            let me = Site {
                workgroup: wg,
                slot_span: span | slot,
            };
            let w = &mut words[addr];
            if w.stamp != stamp {
                *w = GridWord {
                    stamp,
                    first: me,
                    other: NO_SITE,
                    writer: if plain_write { me } else { NO_SITE },
                };
                continue;
            }
            // the other party: a non-atomic writer of another workgroup, or, for our own
            // non-atomic write, an access of another workgroup
            let partner = if w.writer.workgroup != NONE && w.writer.workgroup != wg {
                Some(w.writer)
            } else if plain_write && w.first.workgroup != wg {
                Some(w.first)
            } else if plain_write && w.other.workgroup != NONE {
                // (first is ours, so other is another workgroup's)
                Some(w.other)
            } else {
                None
            };
            if w.other.workgroup == NONE && w.first.workgroup != wg {
                w.other = me;
            }
            if plain_write && w.writer.workgroup == NONE {
                w.writer = me;
            }
            let Some(p) = partner.filter(|_| slot != raced) else {
                continue;
            };
            raced = slot;
            let what = || {
                format!(
                "storage {} of buffer {} touched by two workgroups of one dispatch, one a non-atomic write",
                part_name(word, part),
                a.buffer
            )
            };
            let other = || site_party(ctx, &self.spans, p);
            report_with(
                FindingKind::CrossWorkgroupRace,
                ctx,
                a,
                slot,
                other,
                what,
                out,
            );
        }
    }
}
