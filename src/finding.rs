//! The simulator crate's `finding` module ([`wgsimd_sim::finding`]), whose rules hold here.

pub use wgsimd_sim::finding::*;
