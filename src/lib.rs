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
//!   host needs: [`kernel`] reflects them from naga. One file per dispatch stage under `wgsl/`,
//!   named from Rust through the descriptors `build.rs` generates ([`stages`]), so a misspelt
//!   stage, override, constant or binding name does not compile.
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
pub mod fold;
pub mod gemm;
pub mod gpu;
pub mod histogram;
pub mod kernel;
mod names;
pub mod plan;
pub mod queue;
pub mod record;
pub mod reduce;
pub mod reference;
pub mod runs;
pub mod scan;
pub mod select;
pub mod sim;
pub mod sort;
pub mod source;
pub mod stages;
pub mod topk;

pub use context::{Buffer, BufferRef, Context, Encoder, EncoderRef, Report};
pub use count::Count;
pub use device::{Backend, Caps, DeviceKind};
pub use error::{Error, Result};
pub use record::Timestamps;

/// Every code block of the README and of the pages under `docs/`, compiled and run as
/// doctests (on the simulator where no GPU can be assumed), so no snippet drifts from the API.
#[cfg(doctest)]
mod markdown {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/architecture.md")]
    struct Architecture;
    #[doc = include_str!("../docs/benchmarks.md")]
    struct Benchmarks;
    #[doc = include_str!("../docs/fold.md")]
    struct Fold;
    #[doc = include_str!("../docs/gemm.md")]
    struct Gemm;
    #[doc = include_str!("../docs/histogram.md")]
    struct Histogram;
    #[doc = include_str!("../docs/queue.md")]
    struct Queue;
    #[doc = include_str!("../docs/reduce.md")]
    struct Reduce;
    #[doc = include_str!("../docs/runs.md")]
    struct Runs;
    #[doc = include_str!("../docs/scan.md")]
    struct Scan;
    #[doc = include_str!("../docs/select.md")]
    struct Select;
    #[doc = include_str!("../docs/simulator.md")]
    struct Simulator;
    #[doc = include_str!("../docs/simulator-tools.md")]
    struct SimulatorTools;
    #[doc = include_str!("../docs/conformance.md")]
    struct Conformance;
    #[doc = include_str!("../docs/sort.md")]
    struct Sort;
    #[doc = include_str!("../docs/topk.md")]
    struct TopK;
}

#[cfg(test)]
mod tests {
    /// Every page under `docs/` is among the doctests of [`markdown`](self).
    #[test]
    fn every_page_is_a_doctest() {
        let root = env!("CARGO_MANIFEST_DIR");
        let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
        for e in std::fs::read_dir(format!("{root}/docs")).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".md") {
                let line = format!("include_str!(\"../docs/{name}\")");
                assert!(lib.contains(&line), "docs/{name} is not a doctest");
            }
        }
    }
}
