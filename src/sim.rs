//! The simulator: the crate [`wgsimd_sim`] (as naga is to wgpu), whose rules hold here.
//! [`Context::simulator`](crate::Context::simulator) runs wgsimd's algorithms on it; its own API
//! runs a kernel of one's own on simulated lanes.

pub use wgsimd_sim::*;
