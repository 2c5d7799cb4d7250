//! Typed errors, one type for the simulator and for wgsimd, which re-exports it as
//! `wgsimd::Error`. Every failure a caller can cause (bad input, missing adapter, malformed
//! WGSL, limits exceeded) is an [`Error`](enum@Error) variant; nothing panics on user input. The
//! variants that name a wgpu device's features, limits and usages are wgsimd's, spelt in wgpu's
//! names without its types. Binaries wrap these in `anyhow` for one-line messages.

use thiserror::Error;

/// The error type of the simulator and of wgsimd.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// Input the operation cannot accept (empty where forbidden, wrong length, bad option).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The element type is not supported by this operation.
    #[error("unsupported dtype {dtype} for {op} (supported: {supported})")]
    UnsupportedDtype {
        /// What the caller passed.
        dtype: String,
        /// The operation.
        op: &'static str,
        /// The accepted types.
        supported: &'static str,
    },
    /// A GEMM operand's layout the kernels cannot take (a row stride below the row length, a
    /// stride or offset off the kernels' vector loads, overlapping matrices of C), or a buffer
    /// too small for it; `operand` is "A", "B" or "C".
    #[error("gemm operand {operand}: {message}")]
    Layout {
        /// "A", "B" or "C".
        operand: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The input is larger than this implementation handles (beyond any device's limits).
    #[error("input too large: {0}")]
    TooLarge(String),
    /// The device lacks a feature the operation needs: request it when creating the device
    /// (wgsimd's `gpu::wanted_features`) or choose another path.
    #[error("the device lacks wgpu::Features::{feature}, which {needed_for} needs")]
    MissingFeature {
        /// The `wgpu::Features` flag.
        feature: &'static str,
        /// What needs it.
        needed_for: String,
    },
    /// A device limit is too low for the operation: request the adapter's own limits
    /// (wgsimd's `gpu::wanted_limits`), or make the input smaller.
    #[error("{needed_for} needs {limit} ≥ {needed}; the device has {available}")]
    Limit {
        /// The `wgpu::Limits` field (or `max_buffer_size`).
        limit: &'static str,
        /// What the operation needs.
        needed: u64,
        /// What the device allows.
        available: u64,
        /// What needs it.
        needed_for: String,
    },
    /// A caller's buffer lacks a usage flag its binding needs.
    #[error("buffer `{buffer}` lacks wgpu::BufferUsages::{usage}, which {needed_for} needs")]
    BufferUsage {
        /// The plan's name for the buffer.
        buffer: String,
        /// The missing `wgpu::BufferUsages` flag.
        usage: &'static str,
        /// What needs it.
        needed_for: String,
    },
    /// No GPU adapter matched the request.
    #[error("no GPU adapter found{0}")]
    NoAdapter(String),
    /// Creating the wgpu device failed.
    #[error("could not create GPU device: {0}")]
    Device(String),
    /// WGSL failed to parse or validate; the message is naga's span-rendered diagnostic.
    #[error("shader {name}: {message}")]
    Shader {
        /// The kernel's name (stage path).
        name: String,
        /// naga's rendered diagnostic.
        message: String,
    },
    /// A plan referenced something that does not exist or does not fit together.
    #[error("invalid plan: {0}")]
    Plan(String),
    /// The GPU reported an error while running a plan (validation, out of memory, lost device).
    #[error("GPU execution failed: {0}")]
    Gpu(String),
    /// The simulator stopped a run (step limit, internal fault of a kernel).
    #[error("simulator: {0}")]
    Sim(String),
}

/// Result alias with [`Error`](enum@Error).
pub type Result<T, E = Error> = std::result::Result<T, E>;
