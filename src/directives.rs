//! The simulator crate's `directives` module ([`wgsimd_sim::directives`]), whose rules hold here.

pub use wgsimd_sim::directives::*;
