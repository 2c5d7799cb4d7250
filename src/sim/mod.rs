//! # The simulator: CPU-simulated SIMD lanes over naga IR
//!
//! The same validated, override-processed naga module the GPU runs is interpreted here, a
//! workgroup at a time, with every subgroup in lockstep. The point is not speed but *seeing*
//! the porting bugs a real GPU hides: a shuffle from a lane that already left the loop, a
//! barrier half the workgroup never reaches, a read past the end that happens to hit mapped
//! memory, an output row nobody writes.
//!
//! Rules of the model (`docs/simulator.md` has the full catalogue):
//! - **Lockstep.** A workgroup's invocations are lane *slots*; slot `i` is lane `i % S` of
//!   subgroup `i / S` (the last subgroup may be partial). The interpreter ([`interp`]) runs a
//!   statement for all slots at once under an active mask, over naga's structured control flow.
//!   `--shuffle-lanes SEED` permutes which local invocation sits in which slot.
//! - **Workgroups run one after another**, to completion, in the order the [`Scheduler`] picks:
//!   in order, shuffled, or unfair (chosen workgroups starved until all others finished). A
//!   kernel that waits on another workgroup without a fallback runs out of its step budget.
//! - **Poison.** Shuffles and broadcasts from inactive or absent lanes return random words;
//!   host-uninit buffers (`BufferInit::Poison`) hold `POISON_WORD`, as on the GPU.
//! - **Checkers are plugins** ([`events::Checker`]); the core only reports events.
//! - **f16** values are words holding the f32 bits of a half, rounded after every operation;
//!   never in host-visible buffers ([`layout`]). **Cooperative matrices** are one matrix per
//!   subgroup, each operation a subgroup operation whose memory elements go through the normal
//!   access path (`interp/coop.rs`); offered to plans where the simulated profile offers the
//!   shape and the simulator runs it ([`SimConfig::coop_shapes`]).
//!
//! Entry point: [`Simulator`], a device for `wgsimd::Context::simulator`.

pub mod check;
pub mod checks;
mod device;
pub mod events;
pub mod interp;
pub mod layout;
pub mod mask;
mod ops;
pub mod pipeline;
pub mod program;
pub mod replay;
mod rng;
pub mod ron;

pub use device::{
    Buffer, Encoder, Prepared, Report, Scheduler, SimConfig, SimSlice, SimStats, Simulator,
};

#[cfg(test)]
mod tests;
