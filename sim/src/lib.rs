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
//!   of subgroup `i / S` (the last subgroup may be partial). The interpreter runs a statement
//!   for a *thread* of whole subgroups at once under an active mask, over naga's structured
//!   control flow. [`SimConfig::shuffle_lanes`] permutes which local invocation sits in which
//!   slot.
//! - **Schedules** ([`Schedule`], [`schedule`]): every submission runs under each schedule of
//!   [`SimConfig::schedules`] from the same contents. Lockstep runs a workgroup as one thread
//!   and workgroups one after another; the others run its subgroups as threads that advance
//!   independently between barriers, keep several workgroups resident and suspend the one that
//!   took a chosen ticket. Outputs that differ between schedules are a `schedule-divergence`,
//!   a spin on the suspended workgroup a `forward-progress` finding. Workgroups start in the
//!   order the [`Scheduler`] picks: in order, shuffled, or unfair (chosen workgroups last).
//! - **Poison.** Shuffles and broadcasts from inactive or absent lanes return random words;
//!   host-uninit buffers ([`BufferInit::Poison`](plan::BufferInit::Poison)) hold
//!   [`POISON_WORD`](plan::POISON_WORD), as on the GPU.
//! - **Checkers are plugins**; the core only reports events, and each checker turns the events
//!   of one bug family into [`Finding`]s ([`CheckOptions`] turns the optional ones on).
//! - **f16** values are words holding the f32 bits of a half, rounded after every operation;
//!   in storage and uniform buffers they keep WGSL's two-byte layout, each access translated
//!   (`halves.rs`). **Cooperative matrices** are one matrix per subgroup, each
//!   operation a subgroup operation whose memory elements go through the normal access path;
//!   offered to plans where the simulated profile offers the shape and the simulator runs it
//!   ([`SimConfig::coop_shapes`]).
//!
//! The crate holds the WGSL layer the simulator stands on: [`kernel`] (naga validation and
//! reflection; a [`Library`](kernel::Library) of embedded files to compose from), [`plan`] (the
//! program: buffers, textures and passes; [`texture`] has the texel formats), [`finding`],
//! [`caps`] (device profiles) and one [`Error`] type. wgsimd re-exports all of it; `check`,
//! `pipeline` and `replay`, the engines of the `wgsimd` binary's commands, are behind the
//! feature `tools`.
//!
//! ## Running a kernel of one's own
//!
//! A [`Kernel`] from WGSL text, a [`Plan`] of its passes over the plan's buffers (several
//! passes share buffers; each pass sees everything the passes before it wrote), and
//! [`Simulator::run_plan`]: the words of the buffers marked read-back, and a [`Report`] of the
//! findings (and notes) as values. A buffer made [`Poison`](plan::BufferInit::Poison) must be written before it is
//! read; one also marked read-back is an output, each of its words to be written.
//!
//! ```
//! use std::sync::Arc;
//! use wgsimd_sim::plan::{BufferInit, Workgroups};
//! use wgsimd_sim::{FindingKind, Flavor, Kernel, Plan, SimConfig, Simulator};
//!
//! const WGSL: &str = "
//! @group(0) @binding(0) var<storage, read> src: array<u32>;
//! @group(0) @binding(1) var<storage, read_write> mid: array<u32>;
//! @group(0) @binding(2) var<storage, read_write> out: array<u32>;
//!
//! @compute @workgroup_size(64)
//! fn square(@builtin(global_invocation_id) g: vec3<u32>) {
//!     if g.x < arrayLength(&src) { mid[g.x] = src[g.x] * src[g.x]; }
//! }
//!
//! @compute @workgroup_size(64)
//! fn sum_pairs(@builtin(global_invocation_id) g: vec3<u32>) {
//!     // the last invocation reads mid[4], past the end
//!     if g.x < arrayLength(&out) { out[g.x] = mid[g.x] + mid[g.x + 1]; }
//! }
//! ";
//!
//! # fn main() -> wgsimd_sim::Result<()> {
//! let kernel = Arc::new(Kernel::from_source("pairs", Flavor::Subgroup, WGSL.into())?);
//! let mut plan = Plan::new("square, then sum pairs");
//! let src = plan.upload("src", &[1u32, 2, 3, 4]);
//! let mid = plan.buffer("mid", 16, BufferInit::Poison);
//! let out = plan.buffer("out", 16, BufferInit::Poison);
//! plan.read_back(out);
//! let one = Workgroups::Direct([1, 1, 1]);
//! plan.pass_named("square", &kernel, "square", &[], &[("src", src), ("mid", mid)], one)?;
//! plan.pass_named("sum", &kernel, "sum_pairs", &[], &[("mid", mid), ("out", out)], one)?;
//!
//! let sim = Simulator::new(SimConfig::default())?;
//! let (words, report) = sim.run_plan(&plan)?;
//! assert_eq!(words[&out][..3], [1 + 4, 4 + 9, 9 + 16]);
//! let oob = report.findings.iter().find(|f| f.kind == FindingKind::OutOfBounds).unwrap();
//! assert_eq!(oob.pass, Some(1));
//! # Ok(()) }
//! ```
//!
//! Buffers that outlive a run, shared by several plans and runs, are the simulator's own
//! ([`Simulator::upload`], [`Simulator::uninit`]): a plan declares them as
//! [`Plan::arg`](plan::Plan::arg), [`Simulator::prepare`] makes it ready once, a
//! [`SimEncoder`] records runs of it on those buffers, and [`Simulator::submit`] runs what was
//! recorded as one submission and returns its [`Report`]. wgsimd's `Context::simulator` is this
//! device under wgsimd's algorithms, so a kernel of one's own and a wgsimd sort can share a
//! submission (`examples/own_kernel.rs` in wgsimd).

pub mod caps;
#[cfg(any(test, feature = "tools"))]
pub mod check;
mod checks;
mod device;
pub mod directives;
pub mod error;
mod events;
mod filters;
pub mod finding;
mod halves;
#[cfg(any(test, feature = "tools"))]
mod inputs;
mod interp;
pub mod kernel;
mod layout;
mod location;
mod mask;
pub mod names;
mod ops;
#[cfg(any(test, feature = "tools"))]
pub mod pipeline;
pub mod plan;
mod pointers;
mod program;
mod regs;
#[cfg(any(test, feature = "tools"))]
pub mod replay;
mod rng;
#[cfg(any(test, feature = "tools"))]
mod ron;
pub mod schedule;
pub mod source;
mod tables;
pub mod texture;
mod uses;

pub use caps::Caps;
pub use checks::CheckOptions;
pub use device::{
    Scheduler, SimBuffer, SimConfig, SimCopyIn, SimEncoder, SimPlan, SimSlice, SimStats, Simulator,
    MAX_DISPATCH_WORKGROUPS, MAX_RUN_STEPS, MEMORY_BUDGET, RACE_BYTES_PER_WORD,
};
pub use error::{Error, Result};
pub use finding::{Finding, FindingKind, Report};
pub use kernel::{Flavor, Kernel, MAX_IMMEDIATE_BYTES};
pub use plan::Plan;
pub use schedule::Schedule;

#[cfg(test)]
mod tests;
