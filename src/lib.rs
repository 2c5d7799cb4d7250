//! # wgsimd — portable GPU SIMD kernels, executed twice
//!
//! The classic SIMD kernels (reductions, scans, radix sort, tiled GEMM, a persistent work queue)
//! written once in WGSL, run through wgpu on any GPU, and run again on CPU-simulated SIMD lanes.
//!
//! The rules that hold the crate together:
//! - **Describe once, execute twice.** An algorithm validates its input, picks a policy and builds
//!   a [`plan::Plan`] of passes. An [`exec::Executor`] runs it: [`gpu::GpuExecutor`] on wgpu, or
//!   the simulator. No algorithm touches wgpu.
//! - **WGSL is the single source of truth** for bindings and workgroup sizes: [`kernel`]
//!   reflects them from naga. One file per dispatch stage under `wgsl/`.
//! - **Every result has a CPU reference** in [`reference`](mod@reference), with the stage's stem.
//! - **Errors are typed** ([`Error`]); nothing panics on user input.

pub mod device;
pub mod dtype;
pub mod error;
pub mod exec;
pub mod finding;
pub mod gemm;
pub mod gpu;
pub mod kernel;
pub mod plan;
pub mod queue;
pub mod reduce;
pub mod reference;
pub mod scan;
pub mod sim;
pub mod sort;

pub use error::{Error, Result};
pub use device::{Backend, Caps, DeviceKind};
pub use exec::{Executor, RunOutput, Timing};
pub use gpu::GpuExecutor;
pub use plan::Plan;
