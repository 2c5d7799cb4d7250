//! Typed errors of the library. Every failure a caller can cause (bad input, missing adapter,
//! malformed WGSL, limits exceeded) is an [`Error`](enum@Error) variant; nothing in the library
//! panics on user input. Binaries wrap these in `anyhow` for one-line messages.

use thiserror::Error;

/// The library's error type.
#[derive(Debug, Error)]
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
    /// The input is larger than the device (or this implementation) can handle.
    #[error("input too large: {0}")]
    TooLarge(String),
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

/// Result alias for the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;
