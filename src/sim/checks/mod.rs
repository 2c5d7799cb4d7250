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
//!
//! `ir` holds the static facts about a program's IR that checkers look up.

mod bounds;
mod discard;
mod init;
pub mod ir;
mod lanes;
mod loops;
mod race;
mod shift;
mod uniformity;

pub use bounds::Bounds;
pub use init::Init;
pub use lanes::Lanes;
pub use loops::LoopLimit;
pub use race::{GridRace, Race, StorageRace};
pub use shift::Shift;
pub use uniformity::Uniformity;

use std::cell::Cell;

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
}

thread_local! {
    /// The options [`all`] builds checkers with on this thread (see [`with_options`]).
    static OPTIONS: Cell<CheckOptions> = Cell::new(CheckOptions::default());
}

/// Runs `f` with `options` for the checkers [`all`] builds on this thread meanwhile. The
/// executor builds its checkers with `all(loop_limit)`, and its settings (`SimConfig`) carry no
/// checker options, so a caller running a plan with options goes through this.
pub fn with_options<R>(options: CheckOptions, f: impl FnOnce() -> R) -> R {
    struct Restore(CheckOptions);
    impl Drop for Restore {
        fn drop(&mut self) {
            OPTIONS.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OPTIONS.with(|o| o.replace(options)));
    f()
}

/// Every checker, fresh, with the options of [`with_options`] (the defaults outside it);
/// `loop_limit`: with [`LoopLimit`].
pub fn all(loop_limit: bool) -> Vec<Box<dyn Checker>> {
    all_with(loop_limit, OPTIONS.with(Cell::get))
}

/// Every checker, fresh, with `options`; `loop_limit`: with [`LoopLimit`].
pub fn all_with(loop_limit: bool, options: CheckOptions) -> Vec<Box<dyn Checker>> {
    let mut v: Vec<Box<dyn Checker>> = vec![
        Box::new(Uniformity),
        Box::new(Race::default()),
        Box::new(StorageRace::default()),
        Box::new(GridRace::default()),
        Box::new(Bounds::new(options.discarded_read)),
        Box::new(Init::new(options)),
        Box::new(Lanes::default()),
        Box::new(Shift::default()),
    ];
    if loop_limit {
        v.push(Box::new(LoopLimit::default()));
    }
    v
}
