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

use super::events::Checker;

/// Every checker, fresh; `loop_limit`: with [`LoopLimit`].
pub fn all(loop_limit: bool) -> Vec<Box<dyn Checker>> {
    let mut v: Vec<Box<dyn Checker>> = vec![
        Box::new(Uniformity),
        Box::new(Race::default()),
        Box::new(StorageRace::default()),
        Box::new(GridRace::default()),
        Box::new(Bounds),
        Box::new(Init::default()),
        Box::new(Lanes::default()),
        Box::new(Shift::default()),
    ];
    if loop_limit {
        v.push(Box::new(LoopLimit::default()));
    }
    v
}
