//! The simulator crate's `error` module ([`wgsimd_sim::error`]), whose rules hold here.

pub use wgsimd_sim::error::*;
