//! Benchmark cases: a built plan plus what it computes and how to check it.
//!
//! Each algorithm module exposes `bench_cases(...) -> Result<Vec<Case>>`; the `wgsimd bench`
//! binary times each case's plan on an executor, verifies the output of the timed run against
//! the CPU reference with `verify`, and reports throughput from `work`. A case that fails
//! verification is reported as failed, never timed silently.

use crate::exec::RunOutput;
use crate::plan::Plan;

/// What a case's throughput is measured in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// Bytes read + written: reported as GB/s.
    Bytes(f64),
    /// Keys (or elements) processed: reported as G/s (Gkeys/s); `bytes` moved for the fraction
    /// of copy bandwidth.
    Keys {
        /// Number of keys.
        keys: f64,
        /// Bytes the algorithm must move at least (read + write).
        bytes: f64,
    },
    /// Floating-point operations: reported as TFLOP/s.
    Flops(f64),
}

/// Checks a run's output; `Err` carries what was wrong.
pub type Verify = Box<dyn Fn(&RunOutput) -> Result<(), String> + Send + Sync>;

/// One benchmark case.
pub struct Case {
    /// Algorithm: "reduce", "scan", "sort", "gemm", "queue", "copy".
    pub algorithm: String,
    /// Variant within it, e.g. "sum u32", "keys u32 onesweep", "f16 coop".
    pub variant: String,
    /// Problem size (elements, or the largest matrix dimension for GEMM), for tables and plots.
    pub size: u64,
    /// Shape or size as a person reads it: "2^24", "4096x4096x4096".
    pub size_label: String,
    /// The plan to time.
    pub plan: Plan,
    /// Units of work per run.
    pub work: Work,
    /// Checks the output of a run against the CPU reference.
    pub verify: Verify,
}
