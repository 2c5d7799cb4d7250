//! The checkers: one plugin per family of porting bugs, each reporting typed findings.
//!
//! | checker | kinds |
//! |---|---|
//! | [`Uniformity`] | `non-uniform-subgroup-op`, `barrier-divergence` |
//! | [`Race`] | `workgroup-race` |
//! | [`StorageRace`] | `storage-race` |
//! | [`GridRace`] | `cross-workgroup-race` |
//! | [`Bounds`] | `out-of-bounds`, `step-limit` |
//! | [`Init`] | `uninitialized-read`, `unwritten-output` |
//! | [`LoopLimit`] | `loop-limit` |
//! | [`Lanes`] | `shuffle-out-of-range`, `ballot-high-lanes`, `lane-layout-assumption` |
//! | [`Shift`] | `shift-overflow` |
//! | [`Progress`] | `forward-progress` |
//! | [`NonFinite`] | `non-finite` (an option) |
//!
//! `schedule-divergence` is the device's: it compares the outputs of the schedules explored,
//! and names the invocations that last wrote the first differing word ([`LastWriter`]).
//!
//! Workgroups resident at once interleave their events; a checker keeps per-workgroup state by
//! [`Ctx::resident`](super::events::Ctx::resident).
//!
//! `ir` holds the static facts about a program's IR that checkers look up.

mod atomics;
mod bounds;
mod discard;
mod init;
pub mod ir;
mod lanes;
mod loops;
mod nonfinite;
mod progress;
mod race;
mod shift;
mod uniformity;
mod writer;

pub use bounds::Bounds;
pub use init::Init;
pub use lanes::Lanes;
pub use loops::LoopLimit;
pub use nonfinite::NonFinite;
pub use progress::Progress;
pub use race::{GridRace, Race, StorageRace};
pub use shift::Shift;
pub use uniformity::Uniformity;
pub use writer::LastWriter;

use super::events::Checker;

/// What the checkers report beyond their defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Report `discarded-read`: an out-of-bounds or uninitialized read whose value a `select`
    /// discards in that lane. Off, such reads are not reported at all (WGSL evaluates both
    /// arms of a `select`, and robust buffer access makes the read itself harmless).
    pub discarded_read: bool,
    /// Report reads of workgroup memory that no invocation of the workgroup wrote, as
    /// `uninitialized-read`: for a kernel ported from Metal or CUDA, where workgroup memory
    /// starts undefined. Off, such reads are fine: WGSL zero-fills workgroup memory.
    pub uninit_workgroup: bool,
    /// Report `non-finite`: a float operation that gave NaN or an infinity from finite
    /// operands (WGSL lets implementations assume none occur). Off, such values are not
    /// watched: kernels that handle them on purpose are common.
    pub non_finite: bool,
}

/// Every checker, fresh, with `options`; `loop_limit`: with [`LoopLimit`].
pub fn all_with(loop_limit: bool, options: CheckOptions) -> Vec<Box<dyn Checker>> {
    let mut v: Vec<Box<dyn Checker>> = vec![
        Box::new(Uniformity),
        Box::new(atomics::PlainAtomic::default()),
        Box::new(Race::default()),
        Box::new(StorageRace::default()),
        Box::new(GridRace::default()),
        Box::new(Bounds::new(options.discarded_read)),
        Box::new(Init::new(options)),
        Box::new(Lanes::default()),
        Box::new(Shift::default()),
        Box::new(Progress),
    ];
    if loop_limit {
        v.push(Box::new(LoopLimit::default()));
    }
    if options.non_finite {
        v.push(Box::new(NonFinite::default()));
    }
    v
}
