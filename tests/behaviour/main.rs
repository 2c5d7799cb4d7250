//! The behaviour suite: one case list per algorithm, each case run on every target this
//! machine has (the simulator at subgroups of 4, 32 and 128 with shuffled lanes and workgroup
//! order, and without subgroups; the GPU with and without subgroups), through the public
//! recording API and the host-slice functions. Every result is checked against the CPU
//! reference; outputs start poisoned so unwritten elements show; on the simulator every
//! finding fails the case.
//!
//! GPU cases without an adapter are reported as skipped, with a count at the end;
//! `WGSIMD_REQUIRE_GPU=1` (CI, on lavapipe) fails them instead.

mod data;
mod fold;
mod gemm;
mod harness;
mod histogram;
mod protocol;
mod queue;
mod recording;
mod reduce;
mod runs;
mod scan;
mod select;
mod sort;
mod sort_wide;
mod targets;
mod topk;
mod util;

fn main() -> std::process::ExitCode {
    let tests = [
        reduce::tests(),
        gemm::tests(),
        histogram::tests(),
        scan::tests(),
        fold::tests(),
        select::tests(),
        runs::tests(),
        sort::tests(),
        sort_wide::tests(),
        topk::tests(),
        queue::tests(),
        recording::tests(),
        protocol::tests(),
    ]
    .into_iter()
    .flatten()
    .collect();
    harness::main(tests, targets::Targets::new())
}
