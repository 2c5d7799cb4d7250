//! A suite's targets as the harness (`harness.rs`) sees them: one that runs, or one missing
//! here. Included by each suite's `targets.rs`, whose `Target` it names.

use std::sync::Arc;

use super::Target;

/// A GPU target this machine lacks, and why.
pub struct Missing {
    /// The target's name.
    pub name: &'static str,
    /// The error opening the adapter gave.
    pub reason: String,
}

impl Missing {
    /// The target's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A target, or one that is missing here.
pub enum Slot {
    /// Runs.
    Ok(Arc<Target>),
    /// Skipped (or failed under `WGSIMD_REQUIRE_GPU=1`).
    Err(Arc<Missing>),
}

impl Slot {
    /// The target's name.
    pub fn name(&self) -> &'static str {
        match self {
            Slot::Ok(t) => t.name(),
            Slot::Err(m) => m.name(),
        }
    }
}
