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

mod bounds;
mod init;
mod loops;
mod race;
mod uniformity;

pub use bounds::Bounds;
pub use init::Init;
pub use loops::LoopLimit;
pub use race::{GridRace, Race, StorageRace};
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
    ];
    if loop_limit {
        v.push(Box::new(LoopLimit::default()));
    }
    v
}
