//! Timing a case's recording: the method of `wgsimd_timing` (its docs give the rules), then the
//! run the case verifies, on poisoned outputs.

use wgsimd::Context;
use wgsimd_timing::Job;
pub use wgsimd_timing::{median, TimeSource, Timing};

use crate::case::Case;

/// Times `c` on `ctx` (`wgsimd_timing::time`), then runs it once more on poisoned outputs for
/// the caller to verify. Returns the timings and the findings of that run (the simulator's).
pub fn time(
    ctx: &Context,
    c: &Case,
    warmup: usize,
    repeats: usize,
) -> wgsimd::Result<(Timing, Vec<wgsimd::finding::Finding>)> {
    let job = Job {
        passes: c.passes.clone(),
        setup: c
            .setup
            .as_ref()
            .map(|s| Box::new(move |enc: wgsimd::EncoderRef| s(enc)) as wgsimd_timing::Setup),
        record: Box::new(|enc, stamps| (c.record)(enc, stamps)),
    };
    let (timing, report) = wgsimd_timing::time_verified(ctx, &job, &c.outputs, warmup, repeats)?;
    Ok((timing, report.findings))
}
