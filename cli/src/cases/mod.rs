//! Benchmark cases: for each algorithm, plans to time and the verifier of each against its CPU
//! reference.

pub mod gemm;
pub mod histogram;
pub mod queue;
pub mod reduce;
pub mod runs;
pub mod scan;
pub mod select;
pub mod sort;
pub mod sort_wide;
pub mod topk;
