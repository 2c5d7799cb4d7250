//! # The simulator: CPU-simulated SIMD lanes over naga IR
//!
//! The same validated, override-processed naga module the GPU runs is interpreted here, the
//! lanes of every subgroup in lockstep. The point is not speed but *seeing* the porting bugs a
//! real GPU hides: a shuffle from a lane that already left the loop, a barrier half the
//! workgroup never reaches, a read past the end that happens to hit mapped memory, an output row
//! nobody writes, a missing barrier that lockstep papers over, a wait on a preempted workgroup.
//!
//! Rules of the model (`docs/simulator.md` has the full catalogue):
//! - **Lanes and threads.** A workgroup's invocations are lane *slots*; slot `i` is lane `i % S`
//!   of subgroup `i / S` (the last subgroup may be partial). The interpreter ([`interp`]) runs a
//!   statement for a *thread* of whole subgroups at once under an active mask, over naga's
//!   structured control flow. `--shuffle-lanes SEED` permutes which local invocation sits in
//!   which slot.
//! - **Schedules** ([`Schedule`], [`schedule`]): every submission runs under each schedule of
//!   [`SimConfig::schedules`] from the same contents. Lockstep runs a workgroup as one thread
//!   and workgroups one after another; the others run its subgroups as threads that advance
//!   independently between barriers, keep several workgroups resident and suspend the one that
//!   took a chosen ticket. Outputs that differ between schedules are a `schedule-divergence`,
//!   a spin on the suspended workgroup a `forward-progress` finding. Workgroups start in the
//!   order the [`Scheduler`] picks: in order, shuffled, or unfair (chosen workgroups last).
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

pub mod caps;
#[cfg(any(test, feature = "tools"))]
pub mod check;
pub mod checks;
mod device;
pub mod directives;
pub mod error;
pub mod events;
pub mod finding;
#[cfg(any(test, feature = "tools"))]
mod inputs;
pub mod interp;
pub mod kernel;
pub mod layout;
pub mod mask;
pub mod names;
mod ops;
#[cfg(any(test, feature = "tools"))]
pub mod pipeline;
pub mod plan;
pub mod program;
mod regs;
#[cfg(any(test, feature = "tools"))]
pub mod replay;
mod rng;
#[cfg(any(test, feature = "tools"))]
pub mod ron;
pub mod schedule;
pub mod source;
mod tables;
mod uses;

pub use caps::Caps;
pub use device::{
    Report, Scheduler, SimBuffer, SimConfig, SimCopyIn, SimEncoder, SimPlan, SimSlice, SimStats,
    Simulator, MAX_DISPATCH_WORKGROUPS, MAX_RUN_STEPS, MEMORY_BUDGET, RACE_BYTES_PER_WORD,
};
pub use error::{Error, Result};
pub use finding::{Finding, FindingKind};
pub use kernel::{Flavor, Kernel};
pub use plan::Plan;
pub use schedule::Schedule;

#[cfg(test)]
mod tests;
