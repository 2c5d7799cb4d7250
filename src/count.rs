//! Element counts of a recording: given on the host, or read from a GPU buffer a pass of the
//! caller's wrote (a culling pass's visible count, say).
//!
//! Rules:
//! - Either way the count lands in word 0 of the algorithm's control buffer through a buffer
//!   copy recorded before its passes, and a one-invocation `prepare` pass turns it into the
//!   passes' params and indirect dispatch arguments: one prepared plan serves every count up to
//!   the object's maximum, and recording allocates nothing.
//! - **Host counts** go through a ring of [`RING_SLOTS`] words written with the queue
//!   (`Queue::write_buffer` lands before the next submission's commands): each recording takes
//!   the next slot, so up to that many recordings with different counts may share one
//!   submission.
//! - **GPU counts** are one u32 at the given offset (a multiple of 4) of a buffer with
//!   `COPY_SRC`; a count above the object's maximum is clamped to it.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::context::{BufferRef, Context, EncoderRef, Prepared};
use crate::error::{Error, Result};
use crate::plan::{BufferId, BufferInit, Plan};

/// How many elements a recording processes.
#[derive(Clone, Debug)]
pub enum Count<'a> {
    /// Known on the host.
    Host(u32),
    /// A u32 at the start of this range, read when the work runs.
    Gpu(BufferRef<'a>),
}

/// Slots of the host-count ring: recordings with host counts one object may make per
/// submission.
pub const RING_SLOTS: u32 = 256;

/// The control buffer and host-count ring of a plan, and the next ring slot.
pub(crate) struct CountInput {
    /// Word 0: the count; the rest as the algorithm's prepare stage lays it out.
    pub control: BufferId,
    ring: BufferId,
    next: AtomicU32,
}

impl CountInput {
    /// Declares a control buffer of `control_bytes` and the ring in `plan`.
    pub fn declare(plan: &mut Plan, control_bytes: u64) -> CountInput {
        CountInput {
            control: plan.buffer("control", control_bytes, BufferInit::Zeroed),
            ring: plan.buffer("host counts", RING_SLOTS as u64 * 4, BufferInit::Zeroed),
            next: AtomicU32::new(0),
        }
    }

    /// Records the copy of `count` into the control word (and, for a host count, its queue
    /// write into the next ring slot). `max`: the object's maximum, which a host count may not
    /// exceed.
    pub fn record(
        &self,
        ctx: &Context,
        prepared: &Prepared,
        enc: &mut EncoderRef,
        count: &Count,
        max: u64,
    ) -> Result<()> {
        let control = prepared.own(self.control).expect("own buffer").range(0, 4);
        match count {
            Count::Host(n) => {
                if *n as u64 > max {
                    return Err(Error::InvalidInput(format!(
                        "count {n} exceeds the maximum {max} this object was made for"
                    )));
                }
                let slot = self.next.fetch_add(1, Ordering::Relaxed) % RING_SLOTS;
                let ring = prepared
                    .own(self.ring)
                    .expect("own buffer")
                    .range(slot as u64 * 4, 4);
                ctx.write_buffer(&ring, &n.to_le_bytes())?;
                enc.copy(&ring, &control, 4)
            }
            Count::Gpu(src) => {
                if src.offset() % 4 != 0 || src.len() < 4 {
                    return Err(Error::InvalidInput(format!(
                        "a GPU count is a u32 at an offset that is a multiple of 4; got {} \
                         bytes at offset {}",
                        src.len(),
                        src.offset()
                    )));
                }
                if let BufferRef::Gpu(s) = src {
                    if !s.buffer.usage().contains(wgpu::BufferUsages::COPY_SRC) {
                        return Err(Error::InvalidInput(
                            "the count's buffer lacks BufferUsages::COPY_SRC, which copying the \
                             count needs"
                                .into(),
                        ));
                    }
                }
                enc.copy(src, &control, 4)
            }
        }
    }
}
