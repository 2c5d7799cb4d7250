//! The targets every test runs on: the simulator at several subgroup sizes with its lanes
//! shuffled and its workgroups out of order, under the default exploration of schedules, and
//! the machine's GPU with and without subgroups.

use std::sync::Arc;

use wgsimd::sim::{Schedule, Scheduler, SimConfig};
use wgsimd::{Caps, Context};

use crate::harness::On;

#[path = "slot.rs"]
mod slot;
pub use slot::{Missing, Slot};

/// A device a test runs on.
pub struct Target {
    name: &'static str,
    /// The device.
    pub ctx: Context,
}

impl Target {
    /// A target of a test's own (a simulator configured for it).
    pub fn new(name: &'static str, ctx: Context) -> Target {
        Target { name, ctx }
    }

    /// Its name in trial names (`sim-4`, `gpu`, ...).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether it is the simulator, where sizes stay small.
    pub fn is_sim(&self) -> bool {
        self.ctx.is_simulator()
    }

    /// The same target, its simulator (if it is one) running `schedules` instead of the
    /// default exploration: for cases outside what the exploration must cover, to keep the
    /// suite's time (the GEMM cases run lockstep and round-robin).
    pub fn with_schedules(&self, schedules: &[Schedule]) -> Target {
        let ctx = match self.ctx.sim() {
            Some(s) => {
                let mut config = s.config().clone();
                config.schedules = schedules.to_vec();
                Context::simulator(config).expect("simulator")
            }
            None => self.ctx.clone(),
        };
        Target {
            name: self.name,
            ctx,
        }
    }

    /// Its caps.
    pub fn caps(&self) -> &Caps {
        self.ctx.caps()
    }

    /// `sizes` that this target runs in reasonable time: all of them on a GPU, those up to
    /// `sim_max` on the simulator.
    pub fn sizes(&self, sizes: &[usize], sim_max: usize) -> Vec<usize> {
        sizes
            .iter()
            .copied()
            .filter(|&n| !self.is_sim() || n <= sim_max)
            .collect()
    }
}

/// The simulator configurations and the GPU (opened once).
pub struct Targets {
    sims: Vec<Arc<Target>>,
    gpus: Vec<Slot>,
}

/// The H100 profile at `sg` lanes, lanes shuffled and workgroups in a random order (both
/// seeded), so no test depends on lane order or dispatch order.
fn sim(name: &'static str, profile: Caps, sg: u32, seed: u64) -> Arc<Target> {
    let mut config = SimConfig::for_profile(profile);
    config.subgroup_size = sg;
    config.shuffle_lanes = Some(seed);
    config.scheduler = Scheduler::Shuffled(seed);
    config.fail_on_step_limit = true;
    Arc::new(Target {
        name,
        ctx: Context::simulator(config).expect("simulator"),
    })
}

impl Targets {
    /// Opens the GPU (if any) and makes the simulators.
    pub fn new() -> Targets {
        let h100 = Caps::h100();
        let sims = vec![
            sim("sim-4", h100.clone(), 4, 4),
            sim("sim-32", h100.clone(), 32, 32),
            sim("sim-128", h100.clone(), 128, 128),
            sim("sim-portable", Caps::lavapipe().without_subgroups(), 32, 7),
        ];
        let gpus = match Context::open_gpu() {
            Ok(ctx) => {
                let portable = ctx.without_subgroups().expect("same GPU without subgroups");
                vec![
                    Slot::Ok(Arc::new(Target { name: "gpu", ctx })),
                    Slot::Ok(Arc::new(Target {
                        name: "gpu-portable",
                        ctx: portable,
                    })),
                ]
            }
            Err(e) => ["gpu", "gpu-portable"]
                .into_iter()
                .map(|name| {
                    Slot::Err(Arc::new(Missing {
                        name,
                        reason: format!("no GPU adapter: {e}"),
                    }))
                })
                .collect(),
        };
        Targets { sims, gpus }
    }

    /// The targets a test marked `on` runs on.
    pub fn for_test(&self, on: On) -> Vec<Slot> {
        let sims = self.sims.iter().map(|t| Slot::Ok(t.clone()));
        let gpus = self.gpus.iter().map(|s| match s {
            Slot::Ok(t) => Slot::Ok(t.clone()),
            Slot::Err(m) => Slot::Err(m.clone()),
        });
        match on {
            On::Every => sims.chain(gpus).collect(),
            On::Gpu => gpus.collect(),
            On::Once => sims.take(1).collect(),
        }
    }

    /// Why the GPU targets are missing, if they are.
    pub fn gpu_missing(&self) -> Option<&str> {
        self.gpus.iter().find_map(|s| match s {
            Slot::Err(m) => Some(m.reason.as_str()),
            Slot::Ok(_) => None,
        })
    }
}
