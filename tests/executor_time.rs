//! `Executor::time` on the GPU (lavapipe in CI): the output it returns for checking comes from a
//! run whose outputs were poisoned first, so a word the timed runs stopped writing shows as
//! poison instead of an earlier run's right value.

mod common;

use std::sync::Arc;

use wgsimd::kernel::{Flavor, Kernel};
use wgsimd::plan::{BufferInit, Plan, Workgroups, POISON_WORD};
use wgsimd::Executor;

/// Word 5 is written by the first run only (a counter in an uploaded buffer, which runs do not
/// reset, tells the runs apart); every other word by every run. Looks bad but is fine: the words
/// every run writes come back written.
#[test]
fn the_checked_output_is_a_poisoned_run() {
    let Some(g) = common::gpu() else { return };
    first_run_only(g);
}

/// The same on the host clock (an adapter without timestamp queries), where each repeat is a
/// sample of its own: the totals are not one mean copied `repeats` times.
#[test]
fn host_timing_checks_a_poisoned_run_and_samples_each_repeat() {
    if common::gpu().is_none() {
        return;
    }
    let mut g = wgsimd::GpuExecutor::new().expect("a second executor on the adapter just found");
    g.disable_timestamps();
    let timing = first_run_only(&g);
    assert_eq!(timing.source, wgsimd::exec::TimeSource::Host);
    assert!(timing.total_ns.iter().all(|&t| t > 0.0));
    assert!(
        timing.total_ns.windows(2).any(|w| w[0] != w[1]),
        "every repeat reported the same time: {:?}",
        timing.total_ns
    );
}

/// Times a plan whose word 5 only the first run writes, checks the output returned, and returns
/// the timing (3 repeats).
fn first_run_only(g: &wgsimd::GpuExecutor) -> wgsimd::exec::Timing {
    let k = Arc::new(
        Kernel::from_source(
            "first_run_only.wgsl",
            Flavor::Subgroup,
            "@group(0) @binding(0) var<storage, read_write> runs: array<atomic<u32>>;
             @group(0) @binding(1) var<storage, read_write> out: array<u32>;
             @compute @workgroup_size(64)
             fn main(@builtin(local_invocation_index) i: u32) {
                 if i != 5u || atomicAdd(&runs[0], 1u) == 0u {
                     out[i] = i + 1u;
                 }
             }"
            .to_string(),
        )
        .unwrap(),
    );
    let mut plan = Plan::new("first run only");
    let runs = plan.upload("runs", &[0u32]);
    let out = plan.buffer("out", 64 * 4, BufferInit::Poison);
    plan.pass(
        "write",
        &k,
        "main",
        &[],
        &[runs, out],
        Workgroups::Direct([1, 1, 1]),
    );
    plan.read_back(out);
    let (output, timing) = g.time(&plan, 0, 3).unwrap();
    assert_eq!(timing.total_ns.len(), 3);
    let words: Vec<u32> = output.get(out);
    for (i, &w) in words.iter().enumerate() {
        let want = if i == 5 { POISON_WORD } else { i as u32 + 1 };
        assert_eq!(w, want, "word {i}");
    }
    timing
}
