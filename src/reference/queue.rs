//! CPU model of the work queue's ring (`wgsl/queue/lib/ring.wgsl`), with the dequeue split at
//! the point where an invocation may be delayed, so tests can interleave a stale reader with
//! other operations and watch the versioned CAS reject it. The encoding is the specification the
//! kernels implement, written out here independently of them.

/// Slot states: `payload << 2 | state`.
const S_EMPTY: u32 = 0;
const S_WRITING: u32 = 1;
const S_FULL: u32 = 2;
const S_READING: u32 = 3;

/// Index bits of a packed head/tail (the version takes the other 20).
pub const IDX_BITS: u32 = 12;

/// The successor of a packed head/tail: next index mod `cap`, version + 1 (wrapping at 2^20).
pub fn ring_next(x: u32, cap: u32) -> u32 {
    let idx = ((x & 0xfff) + 1) & (cap - 1);
    (((x >> IDX_BITS).wrapping_add(1)) << IDX_BITS) | idx
}

/// The ring: packed head, packed tail, slots `payload << 2 | state`.
#[derive(Clone, Debug)]
pub struct Ring {
    /// Packed head.
    pub head: u32,
    /// Packed tail.
    pub tail: u32,
    /// Slots.
    pub slots: Vec<u32>,
    /// Compare only the index bits of head/tail (the unversioned scheme, for contrast).
    pub index_only: bool,
}

fn cas(word: &mut u32, expect: u32, new: u32, mask: u32) -> bool {
    if *word & mask == expect & mask {
        *word = new;
        true
    } else {
        false
    }
}

impl Ring {
    /// An empty ring of `cap` slots.
    pub fn new(cap: u32) -> Ring {
        Ring {
            head: 0,
            tail: 0,
            slots: vec![S_EMPTY; cap as usize],
            index_only: false,
        }
    }

    fn cap(&self) -> u32 {
        self.slots.len() as u32
    }

    fn mask(&self) -> u32 {
        if self.index_only {
            0xfff
        } else {
            !0
        }
    }

    /// `try_enqueue`, as in the WGSL.
    pub fn try_enqueue(&mut self, task: u32) -> bool {
        let t = self.tail;
        let slot = (t & 0xfff) as usize;
        if !cas(&mut self.slots[slot], S_EMPTY, S_WRITING, !0) {
            return false;
        }
        let (next, mask) = (ring_next(t, self.cap()), self.mask());
        if !cas(&mut self.tail, t, next, mask) {
            self.slots[slot] = S_EMPTY;
            return false;
        }
        self.slots[slot] = task << 2 | S_FULL;
        true
    }

    /// The first step of `try_dequeue`: read head (a reader may be delayed right after it).
    pub fn dequeue_read(&self) -> u32 {
        self.head
    }

    /// The rest of `try_dequeue` from a head value read earlier; `None` = retry later.
    pub fn dequeue_finish(&mut self, h: u32) -> Option<u32> {
        let slot = (h & 0xfff) as usize;
        let s = self.slots[slot];
        if s & 3 != S_FULL {
            return None;
        }
        self.slots[slot] = (s & !3) | S_READING;
        let (next, mask) = (ring_next(h, self.cap()), self.mask());
        if !cas(&mut self.head, h, next, mask) {
            self.slots[slot] = s;
            return None;
        }
        self.slots[slot] = S_EMPTY;
        Some(s >> 2)
    }

    /// `try_dequeue` without delay.
    pub fn try_dequeue(&mut self) -> Option<u32> {
        let h = self.dequeue_read();
        self.dequeue_finish(h)
    }
}
