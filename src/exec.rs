//! Executors: what runs a [`Plan`].
//!
//! An [`Executor`] reports the capabilities of the device it runs for ([`Caps`]) so algorithms
//! can choose policies and split work to fit limits, and runs plans. Two implement it: [`crate::gpu::GpuExecutor`]
//! (wgpu) and the simulator's `SimExecutor`. Algorithms take `&dyn Executor` and never learn
//! which one they have.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::error::Result;
use crate::finding::Finding;
use crate::device::Caps;
use crate::plan::{BufferId, Plan};

/// The result of one run of a plan.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    /// Contents of the buffers marked `readback`.
    pub buffers: BTreeMap<BufferId, Vec<u8>>,
    /// Findings (the simulator's checkers; always empty on a GPU).
    pub findings: Vec<Finding>,
}

impl RunOutput {
    /// A read-back buffer as `T`s (copying; no alignment requirement on the bytes).
    pub fn get<T: bytemuck::Pod>(&self, id: BufferId) -> Vec<T> {
        match self.buffers.get(&id) {
            Some(bytes) => bytemuck::pod_collect_to_vec(bytes),
            None => Vec::new(),
        }
    }
}

/// How times were measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeSource {
    /// GPU timestamp queries around each pass.
    Timestamps,
    /// Host wall clock around submit-and-wait (includes submission overhead).
    Host,
}

/// Timings of repeated runs of one plan.
#[derive(Clone, Debug)]
pub struct Timing {
    /// How the times were taken.
    pub source: TimeSource,
    /// Labels of the timed (non-setup) passes.
    pub pass_labels: Vec<String>,
    /// For each repeat, nanoseconds per timed pass (empty per repeat with host timing).
    pub pass_ns: Vec<Vec<f64>>,
    /// For each repeat, nanoseconds of the whole run. GPU executors may take these from runs
    /// timed whole (no per-pass timestamps), so they can be less than the sum of `pass_ns`;
    /// without timestamps, from the host clock, each is the mean run of a batch of runs
    /// queued back to back (about 10 ms of them).
    pub total_ns: Vec<f64>,
}

impl Timing {
    /// Median of the totals.
    pub fn median_ns(&self) -> f64 {
        median(&self.total_ns)
    }
    /// Minimum of the totals.
    pub fn min_ns(&self) -> f64 {
        self.total_ns.iter().copied().fold(f64::INFINITY, f64::min)
    }
    /// Median per pass.
    pub fn pass_median_ns(&self) -> Vec<f64> {
        (0..self.pass_labels.len())
            .map(|i| {
                median(
                    &self
                        .pass_ns
                        .iter()
                        .filter_map(|r| r.get(i).copied())
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    }
}

/// Median of a sample (NaN for an empty one).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        0.5 * (s[m - 1] + s[m])
    }
}

/// Runs plans.
pub trait Executor {
    /// Capabilities of the device this executor runs plans for.
    fn caps(&self) -> &Caps;

    /// Whether plans run on simulated lanes rather than a device (for labelling results; plans
    /// never depend on it).
    fn simulated(&self) -> bool {
        false
    }

    /// Runs `plan` once and returns the read-back buffers.
    fn run(&self, plan: &Plan) -> Result<RunOutput>;

    /// Runs `plan` `warmup + repeats` times and times the last `repeats`; returns the timings
    /// and, for verification, the output of a run whose outputs were poisoned before it (so a
    /// word the run did not write shows). The default times on the host and returns the last
    /// run's output, each [`Executor::run`] starting from fresh buffers.
    fn time(&self, plan: &Plan, warmup: usize, repeats: usize) -> Result<(RunOutput, Timing)> {
        let mut out = RunOutput::default();
        for _ in 0..warmup {
            out = self.run(plan)?;
        }
        let mut total_ns = Vec::new();
        for _ in 0..repeats.max(1) {
            let t = Instant::now();
            out = self.run(plan)?;
            total_ns.push(t.elapsed().as_secs_f64() * 1e9);
        }
        let pass_labels = plan
            .passes
            .iter()
            .filter(|p| !p.setup)
            .map(|p| p.label.clone())
            .collect();
        Ok((
            out,
            Timing {
                source: TimeSource::Host,
                pass_labels,
                pass_ns: vec![],
                total_ns,
            },
        ))
    }
}
