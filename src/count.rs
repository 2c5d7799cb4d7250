//! Element counts of a recording, and the ring of control-block copies that lets recordings
//! with different counts share a submission.
//!
//! Rules:
//! - A count is given on the host ([`Count::Host`]) or read when the work runs from a u32 a
//!   pass of the caller's wrote ([`Count::Gpu`]: a culling pass's visible count, say).
//! - A counted plan keeps what one run's count makes of its passes in **control blocks**: a
//!   buffer of [`SLOTS`] copies side by side ([`Plan::slotted`](crate::plan::Plan::slotted)),
//!   of which each recording binds one (a dynamic offset on a device). The first words of a
//!   copy are its **head**: the count (word 0) and the limit (word `COUNT_LIMIT` of
//!   `wgsl/shared/count.wgsl`), the most elements every range the recording binds holds;
//!   the kernels run on `min(count, limit, maximum)`.
//! - **A copy is shared by the recordings whose heads agree** (`Content`): every host count
//!   `n` of one object uses one copy while any recording with it is in flight, and so do GPU
//!   counts over ranges of one capacity (each copies its count word in before its passes).
//!   A recording that needs a copy of its own takes a free one and writes its head through the
//!   queue, which lands before the next submission's commands.
//! - **A copy is in flight** from its recording until the work of the encoder it was recorded
//!   into has run on the device, or the encoder is dropped unsubmitted (`Held`, which the
//!   encoder keeps: wgpu's submitted-work-done callback, or the simulator encoder). A recording
//!   that finds every copy in flight with other heads is refused with a typed error before
//!   anything is recorded: recordings never overwrite a head another one still reads.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::context::BufferRef;

/// How many elements a recording processes.
#[derive(Clone, Copy, Debug)]
pub enum Count<'a> {
    /// Known on the host.
    Host(u32),
    /// A u32 at the start of this range (an offset that is a multiple of 4, in a buffer with
    /// `COPY_SRC`), read when the work runs; it is clamped on the GPU to what every range the
    /// recording binds holds.
    Gpu(BufferRef<'a>),
}

/// Copies of a counted plan's control blocks: recordings of one object with different heads
/// (host counts, or GPU counts over ranges of different sizes) that may be in flight at once.
pub const SLOTS: u32 = 256;

/// What a copy's head holds for the recordings that share it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    /// A host count, with itself as the limit.
    Host(u32),
    /// GPU counts clamped to `limit`: each recording copies its count word in.
    Gpu {
        /// The most elements the ranges bound hold.
        limit: u32,
    },
}

struct Slots {
    /// Per copy, what its head holds (`None`: never written).
    content: Vec<Option<Content>>,
    /// Per copy, the recordings in flight that use it.
    holds: Vec<u32>,
    /// Where the search for a free copy starts (round robin).
    next: usize,
}

/// The copies of one object's control blocks, and which are in flight.
pub(crate) struct Ring {
    slots: Arc<Mutex<Slots>>,
}

/// One recording's use of a copy, released when dropped.
pub(crate) struct Held {
    slots: Arc<Mutex<Slots>>,
    slot: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut s = lock(&self.slots);
        s.holds[self.slot] = s.holds[self.slot].saturating_sub(1);
    }
}

fn lock(m: &Mutex<Slots>) -> MutexGuard<'_, Slots> {
    // (a panic elsewhere while holding it leaves the counts consistent: each update is one
    // statement)
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A copy taken for a recording ([`Ring::take`]).
pub(crate) struct Taken {
    /// Which copy.
    pub slot: u32,
    /// The recording's hold on it.
    pub held: Held,
}

impl Ring {
    /// [`SLOTS`] copies, none written.
    pub fn new() -> Ring {
        Ring {
            slots: Arc::new(Mutex::new(Slots {
                content: vec![None; SLOTS as usize],
                holds: vec![0; SLOTS as usize],
                next: 0,
            })),
        }
    }

    /// A copy whose head holds `want`: one that already does, or a free one whose head `write`
    /// writes (given the copy) before any other recording can take it; `Ok(None)` when every
    /// copy is in flight with another head. A failed write leaves the copy free and unwritten.
    pub fn take<E>(
        &self,
        want: Content,
        write: impl FnOnce(u32) -> Result<(), E>,
    ) -> Result<Option<Taken>, E> {
        let mut s = lock(&self.slots);
        let n = s.content.len();
        let slot = match s.content.iter().position(|c| *c == Some(want)) {
            Some(i) => i,
            None => {
                let start = s.next;
                let Some(i) = (0..n).map(|k| (start + k) % n).find(|&i| s.holds[i] == 0) else {
                    return Ok(None);
                };
                // (under the lock: no other recording finds the head until it is written)
                s.content[i] = None;
                write(i as u32)?;
                s.content[i] = Some(want);
                s.next = (i + 1) % n;
                i
            }
        };
        s.holds[slot] += 1;
        Ok(Some(Taken {
            slot: slot as u32,
            held: Held {
                slots: self.slots.clone(),
                slot,
            },
        }))
    }

    /// Recordings in flight, over all copies.
    #[cfg(test)]
    pub fn in_flight(&self) -> u32 {
        lock(&self.slots).holds.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recordings with one head share a copy and write it once; a new head takes a free copy;
    /// with every copy in flight a new head is refused until one is released; a failed write
    /// leaves its copy unwritten and free.
    #[test]
    fn copies_are_shared_by_head_and_freed_by_their_holds() {
        let ring = Ring::new();
        // (the copy, and whether its head was written)
        let take = |c| {
            let mut wrote = false;
            let t = ring.take(c, |_| {
                wrote = true;
                Ok::<(), ()>(())
            });
            t.unwrap().map(|t| (t, wrote))
        };
        let (a, fresh) = take(Content::Host(5)).unwrap();
        assert!(fresh);
        let (b, fresh) = take(Content::Host(5)).unwrap();
        assert_eq!((b.slot, fresh), (a.slot, false));
        let (g, _) = take(Content::Gpu { limit: 5 }).unwrap();
        assert_ne!(g.slot, a.slot);
        let mut tried = u32::MAX;
        let failed = ring.take(Content::Host(6), |s| {
            tried = s;
            Err(())
        });
        assert!(failed.is_err());
        let (f, fresh) = take(Content::Host(6)).unwrap();
        assert_eq!((f.slot, fresh), (tried, true), "the failed write's copy");
        drop(f);
        let mut held: Vec<Taken> = (0..SLOTS - 2)
            .map(|i| take(Content::Host(100 + i)).unwrap().0)
            .collect();
        assert!(take(Content::Host(7)).is_none(), "every copy in flight");
        // a head in flight is still shared
        assert_eq!(take(Content::Host(5)).unwrap().0.slot, a.slot);
        let freed = held.pop().unwrap();
        let slot = freed.slot;
        drop(freed);
        let (c, fresh) = take(Content::Host(7)).unwrap();
        assert_eq!((c.slot, fresh), (slot, true));
        drop((a, b, g, c, held));
        assert_eq!(ring.in_flight(), 0);
        // a released head is found again without a write
        assert!(!take(Content::Host(100)).unwrap().1);
    }
}
