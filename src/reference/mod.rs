//! CPU references: the answer each GPU stage must give, written for clarity, not speed.
//! Each file mirrors a `wgsl/<algorithm>/` folder; each function names the stage it checks.

pub mod gemm;
pub mod histogram;
pub mod queue;
pub mod reduce;
pub mod runs;
pub mod scan;
pub mod select;
pub mod sort;
pub mod topk;
