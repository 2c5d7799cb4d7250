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
//!
//! ## Quick start
//!
//! Make a [`Context`] from your device ([`Context::from_wgpu`]; request
//! [`gpu::wanted_features`] and [`gpu::wanted_limits`] when you create it), make the algorithm
//! objects once, and record them into your frames. The same calls run on the simulator, as here:
//!
//! ```
//! use wgsimd::dtype::Dtype;
//! use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
//! use wgsimd::sort::{SortConfig, Sorter};
//! use wgsimd::{BufferRef, Context, Count};
//! # fn main() -> wgsimd::Result<()> {
//! let ctx = Context::simulator(Default::default())?; // or Context::from_wgpu(&adapter, &device, &queue)
//! // once: objects sized for the largest count they will see
//! let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::U32, 1 << 20).with_values())?;
//! let sum = Reducer::new(&ctx, ReduceOp::Sum, Dtype::U32, 1 << 20)?;
//! // your buffers (any wgpu::Buffer with STORAGE, or a slice of one)
//! let keys = ctx.upload("keys", &[40u32, 10, 30, 20])?;
//! let values = ctx.upload("values", &[0u32, 1, 2, 3])?;
//! let total = ctx.zeroed("total", 8)?;
//! // every frame: record into your encoder, submit it yourself
//! let mut enc = ctx.encoder();
//! sum.record(&mut enc, &keys, &total, Count::Host(4))?;
//! sorter.record(&mut enc, &keys, Some(BufferRef::from(&values)), Count::Host(4))?;
//! ctx.submit(enc)?.clean("the frame")?; // on a device: queue.submit([encoder.finish()])
//! assert_eq!(ctx.read::<u32>(&keys)?, [10, 20, 30, 40]);
//! assert_eq!(ctx.read::<u32>(&values)?, [1, 3, 2, 0]);
//! assert_eq!(sum.decode(&ctx.read::<u32>(&total)?)?, Scalar::U64(100));
//! # Ok(()) }
//! ```
//!
//! Counts may come from a GPU word a pass of yours wrote ([`Count::Gpu`]); `examples/app_sort.rs`
//! culls points and sorts the visible ones' depths by such a count, 60 frames on one device.

pub mod context;
pub mod count;
pub mod device;
pub mod directives;
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
