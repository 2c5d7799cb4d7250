//! # wgsimd — portable GPU SIMD kernels, recorded into your frames and run again on simulated lanes
//!
//! The classic SIMD kernels (reductions, scans, radix sort, tiled GEMM, a persistent work queue)
//! written once in WGSL, recorded through wgpu into the caller's command encoder on the
//! caller's buffers, and run again on CPU-simulated SIMD lanes that report the bugs such ports
//! suffer.
//!
//! The rules that hold the crate together:
//! - **Describe once, execute twice.** An algorithm object ([`sort::Sorter`],
//!   [`reduce::Reducer`], [`scan::Scanner`], [`gemm::Gemm`]) validates its configuration, picks a
//!   policy for the device's [`Caps`] and builds a [`plan::Plan`] once; it records that plan into
//!   a wgpu command encoder or a simulator encoder ([`Context`]). No policy reads which of the two
//!   runs it.
//! - **The caller's device, buffers and encoder.** Recording creates no device, submits nothing,
//!   polls nothing, and allocates nothing after the first use with the same buffers. Counts come
//!   from the host or from a GPU buffer ([`Count`]).
//! - **WGSL is the single source of truth** for bindings, workgroup sizes and the constants the
//!   host needs: [`kernel`] reflects them from naga. One file per dispatch stage under `wgsl/`.
//! - **Every result has a CPU reference** in [`reference`](mod@reference).
//! - **Errors are typed** ([`Error`]); nothing panics on user input, nothing is printed.

pub mod context;
pub mod count;
pub mod device;
pub mod dtype;
pub mod error;
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

pub use context::{Buffer, BufferRef, Context, Encoder, EncoderRef, Report};
pub use count::Count;
pub use device::{Backend, Caps, DeviceKind};
pub use error::{Error, Result};
