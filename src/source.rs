//! The simulator crate's `source` module ([`wgsimd_sim::source`]), whose rules hold here.

pub use wgsimd_sim::source::*;
