//! [`SimExecutor`]: runs a [`Plan`] on the simulator, pass by pass, with every checker on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, Result};
use crate::device::{Caps, CoopShape};
use crate::exec::{Executor, RunOutput};
use crate::finding::FindingKind;
use crate::plan::{BufferInit, Plan, Workgroups, POISON_WORD};

use super::checks;
use super::events::Findings;
use super::interp::{buffer_metas, Bound, Hooks, Interp};
use super::mask::MAX_LANES;
use super::program::Program;

/// Order in which a dispatch's workgroups run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// Linear workgroup index order (x fastest).
    #[default]
    InOrder,
    /// A random permutation from this seed.
    Shuffled(u64),
    /// The listed linear workgroup indices are starved: they run only after every other
    /// workgroup finished, in reverse order.
    Unfair {
        /// Linear indices of the starved workgroups.
        starved: Vec<u32>,
    },
}

impl std::str::FromStr for Scheduler {
    type Err = Error;
    /// `in-order`, `shuffled:SEED` or `unfair:I[,J...]` (linear workgroup indices starved).
    fn from_str(s: &str) -> Result<Scheduler> {
        let bad = || {
            Error::InvalidInput(format!(
                "schedule {s:?}: expected in-order, shuffled:SEED or unfair:I[,J...]"
            ))
        };
        if s == "in-order" {
            return Ok(Scheduler::InOrder);
        }
        if let Some(seed) = s.strip_prefix("shuffled:") {
            return Ok(Scheduler::Shuffled(seed.parse().map_err(|_| bad())?));
        }
        if let Some(list) = s.strip_prefix("unfair:") {
            let starved: std::result::Result<Vec<u32>, _> =
                list.split(',').map(|x| x.trim().parse()).collect();
            return Ok(Scheduler::Unfair {
                starved: starved.map_err(|_| bad())?,
            });
        }
        Err(bad())
    }
}

/// Simulator settings.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The device simulated ([`Caps::profile`]): algorithms plan for its caps, with the subgroup
    /// size replaced by `subgroup_size` (where it has subgroups). Cooperative matrices are offered
    /// where the profile has them and the simulator runs them ([`SimConfig::coop_shapes`]).
    pub profile: Caps,
    /// Lanes per subgroup, a power of two in 4..=128.
    pub subgroup_size: u32,
    /// Permute the lane layout with this seed.
    pub shuffle_lanes: Option<u64>,
    /// Workgroup order.
    pub scheduler: Scheduler,
    /// Step budget per workgroup (statements executed in lockstep).
    pub max_steps: u64,
    /// Seed of the poison generator.
    pub seed: u64,
    /// Turn a `step-limit` finding into `Error::Sim` (so no partial result is returned).
    pub fail_on_step_limit: bool,
    /// Report `loop-limit` (lavapipe ends every loop of an invocation after 65535 back-edges);
    /// on where the profile is a CPU device.
    pub loop_limit: bool,
}

impl SimConfig {
    /// The cooperative-matrix shapes the simulator runs: f16 × f16 → f32 at 16×16×16 and 8×8×8.
    pub fn coop_shapes() -> Vec<CoopShape> {
        vec![CoopShape::f16_f32(16), CoopShape::f16_f32(8)]
    }

    /// Settings that simulate `profile` at its own subgroup size (32 where it has none).
    pub fn for_profile(profile: Caps) -> SimConfig {
        SimConfig {
            subgroup_size: if profile.subgroups {
                profile.subgroup_max
            } else {
                32
            },
            loop_limit: profile.is_cpu(),
            profile,
            shuffle_lanes: None,
            scheduler: Scheduler::InOrder,
            max_steps: 20_000_000,
            seed: 0x5eed,
            fail_on_step_limit: false,
        }
    }

    /// The caps a simulator with these settings reports.
    pub fn caps(&self) -> Result<Caps> {
        let mut caps = if self.profile.subgroups {
            self.profile.clone().with_subgroup_size(self.subgroup_size)?
        } else {
            self.profile.clone()
        };
        let runs = Self::coop_shapes();
        caps.cooperative_matrix.retain(|s| runs.contains(s));
        Ok(caps)
    }
}

impl Default for SimConfig {
    /// The H100 profile at subgroups of 32.
    fn default() -> Self {
        SimConfig::for_profile(Caps::h100())
    }
}

/// Work counters, summed over every run of an executor.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimStats {
    /// Runs.
    pub runs: u64,
    /// Workgroups executed.
    pub workgroups: u64,
    /// Statements executed (each once per workgroup, whatever its active lanes).
    pub statements: u64,
    /// Lane-operations: active lanes summed over every evaluated expression.
    pub lane_ops: u64,
}

/// Runs plans on CPU-simulated SIMD lanes; findings come back in [`RunOutput::findings`].
pub struct SimExecutor {
    caps: Caps,
    config: SimConfig,
    stats: Mutex<SimStats>,
    programs: Mutex<HashMap<(usize, String), Arc<Program>>>,
}

impl SimExecutor {
    /// A simulator with `config`.
    pub fn new(config: SimConfig) -> Result<SimExecutor> {
        let s = config.subgroup_size;
        if !s.is_power_of_two() || !(4..=128).contains(&s) {
            return Err(Error::InvalidInput(format!(
                "subgroup size {s} is not a power of two in 4..=128"
            )));
        }
        let caps = config.caps()?;
        Ok(SimExecutor {
            caps,
            config,
            stats: Mutex::new(SimStats::default()),
            programs: Mutex::new(HashMap::new()),
        })
    }

    /// Work done so far (for lane-operations per second).
    pub fn stats(&self) -> SimStats {
        *self.stats.lock().unwrap()
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    fn program(&self, spec: Arc<crate::kernel::Specialized>, entry: &str) -> Result<Arc<Program>> {
        let key = (Arc::as_ptr(&spec) as usize, entry.to_string());
        if let Some(p) = self.programs.lock().unwrap().get(&key) {
            return Ok(p.clone());
        }
        let p = Arc::new(Program::new(spec, entry)?);
        self.programs.lock().unwrap().insert(key, p.clone());
        Ok(p)
    }

    fn order(&self, total: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (0..total).collect();
        match &self.config.scheduler {
            Scheduler::InOrder => {}
            Scheduler::Shuffled(seed) => v.shuffle(&mut ChaCha8Rng::seed_from_u64(*seed)),
            Scheduler::Unfair { starved } => {
                let mut late: Vec<u32> =
                    v.iter().copied().filter(|i| starved.contains(i)).collect();
                late.reverse();
                v.retain(|i| !starved.contains(i));
                v.extend(late);
            }
        }
        v
    }

    fn lanes(&self, n: usize) -> Vec<u32> {
        let mut v: Vec<u32> = (0..n as u32).collect();
        if let Some(seed) = self.config.shuffle_lanes {
            v.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        }
        v
    }
}

impl Executor for SimExecutor {
    fn caps(&self) -> &Caps {
        &self.caps
    }

    fn simulated(&self) -> bool {
        true
    }

    fn run(&self, plan: &Plan) -> Result<RunOutput> {
        plan.validate()?;
        let mut buffers: Vec<Vec<u32>> = Vec::with_capacity(plan.buffers.len());
        for b in &plan.buffers {
            if b.size > self.caps.max_buffer {
                return Err(Error::TooLarge(format!(
                    "buffer {} needs {} bytes; the simulator's largest buffer is {}",
                    b.label, b.size, self.caps.max_buffer
                )));
            }
            let words = (b.size / 4) as usize;
            buffers.push(match &b.init {
                BufferInit::Zeroed => vec![0; words],
                BufferInit::Poison => vec![POISON_WORD; words],
                BufferInit::Bytes(bytes) => {
                    let mut v = vec![0u32; words];
                    bytemuck::cast_slice_mut::<u32, u8>(&mut v)[..bytes.len()]
                        .copy_from_slice(bytes);
                    v
                }
            });
        }
        let metas = buffer_metas(plan);
        let mut checkers = checks::all(self.config.loop_limit);
        let mut findings = Findings::default();
        for c in checkers.iter_mut() {
            c.run_start(&metas);
        }
        let mut stopped = false;
        for (pi, pass) in plan.passes.iter().enumerate() {
            // an invalidation: poison the buffer as the GPU's fill would, without running the
            // fill, and let the checkers forget what was written to it
            if let Some(target) = pass.invalidates {
                buffers[target.0].fill(POISON_WORD);
                for c in checkers.iter_mut() {
                    c.invalidate(target.0, &pass.label);
                }
                continue;
            }
            let spec = pass.kernel.specialize(&pass.entry, &pass.overrides)?;
            let prog = self.program(spec, &pass.entry)?;
            let counts = match pass.workgroups {
                Workgroups::Direct(c) => c,
                Workgroups::Indirect { buffer, offset } => {
                    let w = (offset / 4) as usize;
                    let b = &buffers[buffer.0];
                    [b[w], b[w + 1], b[w + 2]]
                }
            };
            if counts.contains(&0) {
                continue;
            }
            if counts.iter().any(|&c| c > self.caps.max_workgroups_per_dim) {
                return Err(Error::Plan(format!(
                    "pass {}: workgroup count {counts:?} exceeds {} per dimension",
                    pass.label, self.caps.max_workgroups_per_dim
                )));
            }
            if prog.wg_bytes > self.caps.max_workgroup_storage as u64 {
                return Err(Error::TooLarge(format!(
                    "pass {}: {} bytes of workgroup memory (limit {})",
                    pass.label, prog.wg_bytes, self.caps.max_workgroup_storage
                )));
            }
            let n = prog.wg_size.iter().product::<u32>() as usize;
            if n == 0 || n > MAX_LANES {
                return Err(Error::Sim(format!(
                    "pass {}: {n} invocations per workgroup (simulator limit {MAX_LANES})",
                    pass.label
                )));
            }
            let mut bound = vec![None; prog.globals.len()];
            for (gi, g) in prog.globals.iter().enumerate() {
                let Some(bn) = g.binding else { continue };
                let Some(b) = pass.bindings.iter().find(|b| b.binding == bn) else {
                    continue;
                };
                let size = plan.buffers[b.buffer.0].size;
                let len = b.size.unwrap_or(size - b.offset.min(size));
                bound[gi] = Some(Bound {
                    buffer: b.buffer.0,
                    base: (b.offset / 4) as usize,
                    len: (len / 4) as usize,
                    uniform: g.space == naga::AddressSpace::Uniform,
                    read_only: matches!(g.space, naga::AddressSpace::Storage { access }
                        if !access.contains(naga::StorageAccess::STORE)),
                });
            }
            let hooks = Hooks {
                checkers: &mut checkers,
                findings: &mut findings,
            };
            let mut it = Interp::new(
                &prog,
                &pass.kernel,
                pi,
                self.config.subgroup_size,
                self.lanes(n),
                bound,
                &mut buffers,
                counts,
                self.config.max_steps,
                self.config.seed ^ (pi as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                hooks,
            )?;
            let [x, y, z] = counts;
            let mut done = 0;
            for lin in self.order(x * y * z) {
                let wg = [lin % x, lin / x % y, lin / (x * y)];
                done += 1;
                if !it.run_workgroup(wg)? {
                    stopped = true;
                    break;
                }
            }
            {
                let mut st = self.stats.lock().unwrap();
                st.workgroups += done;
                st.statements += it.statements;
                st.lane_ops += it.lane_ops;
            }
            if stopped {
                break;
            }
        }
        if !stopped {
            for c in checkers.iter_mut() {
                c.run_end(&metas, &mut findings);
            }
        }
        self.stats.lock().unwrap().runs += 1;
        let findings = findings.into_vec();
        if self.config.fail_on_step_limit {
            if let Some(f) = findings.iter().find(|f| f.kind == FindingKind::StepLimit) {
                return Err(Error::Sim(f.to_string()));
            }
        }
        let mut out = RunOutput {
            findings,
            ..Default::default()
        };
        for (i, b) in plan.buffers.iter().enumerate() {
            if b.readback {
                out.buffers.insert(
                    crate::plan::BufferId(i),
                    bytemuck::cast_slice::<u32, u8>(&buffers[i]).to_vec(),
                );
            }
        }
        Ok(out)
    }
}
