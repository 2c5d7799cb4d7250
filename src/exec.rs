//! Executors: what runs a [`Plan`].
//!
//! An [`Executor`] reports its capabilities ([`Caps`]) so algorithms can choose policies and
//! split work to fit limits, and runs plans. Two implement it: [`crate::gpu::GpuExecutor`]
//! (wgpu) and the simulator's `SimExecutor`. Algorithms take `&dyn Executor` and never learn
//! which one they have.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::error::Result;
use crate::finding::Finding;
use crate::kernel::Flavor;
use crate::plan::{BufferId, Plan};

/// What an executor can do; algorithms size and choose their plans from this.
#[derive(Clone, Debug)]
pub struct Caps {
    /// Adapter (or simulator) name.
    pub name: String,
    /// Backend: "Vulkan", "Metal", "Dx12", "Gl", or "sim".
    pub backend: String,
    /// Driver name and version, where known.
    pub driver: String,
    /// Subgroup operations available.
    pub subgroups: bool,
    /// Smallest subgroup size the device may use.
    pub subgroup_min: u32,
    /// Largest subgroup size the device may use.
    pub subgroup_max: u32,
    /// `f16` in shaders.
    pub f16: bool,
    /// Timestamp queries.
    pub timestamps: bool,
    /// Largest storage-buffer binding, bytes.
    pub max_storage_binding: u64,
    /// Largest buffer, bytes.
    pub max_buffer: u64,
    /// Alignment of storage-binding offsets, bytes.
    pub storage_offset_alignment: u64,
    /// Largest workgroup count per dimension.
    pub max_workgroups_per_dim: u32,
    /// Workgroup memory, bytes.
    pub max_workgroup_storage: u32,
    /// Cooperative-matrix shapes offered (m, n, k, "f16->f32" style description).
    pub cooperative_matrix: Vec<CoopShape>,
}

/// A cooperative-matrix configuration offered by the adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoopShape {
    /// Rows of A/C.
    pub m: u32,
    /// Columns of B/C.
    pub n: u32,
    /// Inner dimension.
    pub k: u32,
    /// Element type of A and B ("f16", "f32").
    pub ab: String,
    /// Element type of the accumulator ("f16", "f32").
    pub acc: String,
}

impl Caps {
    /// Whether the adapter is a CPU implementation (lavapipe/llvmpipe, SwiftShader, WARP)
    /// rather than a GPU. The simulator's caps count as CPU too.
    pub fn is_cpu(&self) -> bool {
        let name = self.name.to_lowercase();
        self.backend == "sim"
            || ["llvmpipe", "lavapipe", "swiftshader", "basic render"]
                .iter()
                .any(|n| name.contains(n))
    }

    /// The kernel flavor these caps call for.
    pub fn flavor(&self) -> Flavor {
        if self.subgroups {
            Flavor::Subgroup
        } else {
            Flavor::Emulated
        }
    }
}

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
    /// Capabilities.
    fn caps(&self) -> &Caps;

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

impl Caps {
    /// Splits `n` elements of `elem_bytes` into ranges `(first, count)` that each fit one storage
    /// binding, with every range's byte offset a multiple of the storage offset alignment, of 16
    /// (so vec4 views line up) and of `multiple` elements (e.g. a tile). One range `(0, 0)` for
    /// `n = 0`.
    pub fn chunks(&self, n: u64, elem_bytes: u64, multiple: u64) -> Vec<(u64, u64)> {
        let align = lcm(
            lcm(
                self.storage_offset_alignment.max(16),
                elem_bytes * multiple.max(1),
            ),
            16,
        );
        let per = (self.max_storage_binding / align * align / elem_bytes).max(1);
        if n == 0 {
            return vec![(0, 0)];
        }
        let mut out = Vec::new();
        let mut first = 0;
        while first < n {
            let count = per.min(n - first);
            out.push((first, count));
            first += count;
        }
        out
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b) * b
}

/// A 2-D workgroup grid covering `count` workgroups within `max` per dimension; kernels
/// linearize it as `wid.x + wid.y * nwg.x` and let the few extra workgroups exit.
pub fn grid_2d(count: u64, max: u32) -> [u32; 3] {
    if count == 0 {
        return [0, 1, 1];
    }
    // (a hand-built `Caps` may say 0)
    let x = count.min(max.max(1) as u64);
    let y = count.div_ceil(x);
    [x as u32, y as u32, 1]
}
