//! Choosing an executor: `--backend auto|gpu|sim` for the CLI, the benchmark and tests.
//!
//! `auto` takes a GPU adapter when one exists and otherwise falls back to the simulator,
//! saying so on stderr. `sim` ignores any GPU.

use crate::error::{Error, Result};
use crate::exec::Executor;

/// Which executor to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// A GPU when one exists, else the simulator.
    #[default]
    Auto,
    /// A GPU, or an error.
    Gpu,
    /// The CPU simulator of SIMD lanes.
    Sim,
}

impl std::str::FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Backend::Auto),
            "gpu" => Ok(Backend::Gpu),
            "sim" => Ok(Backend::Sim),
            _ => Err(Error::InvalidInput(format!(
                "unknown backend {s:?} (auto, gpu, sim)"
            ))),
        }
    }
}

/// Simulator settings that the CLI exposes on every command.
#[derive(Clone, Debug)]
pub struct SimSettings {
    /// Subgroup size, a power of two in 4..=128.
    pub subgroup_size: u32,
    /// Permute the lane layout with this seed.
    pub shuffle_lanes: Option<u64>,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            subgroup_size: 32,
            shuffle_lanes: None,
        }
    }
}

/// Opens the executor `backend` asks for.
pub fn open(backend: Backend, sim: &SimSettings) -> Result<Box<dyn Executor>> {
    match backend {
        Backend::Gpu => Ok(Box::new(crate::gpu::GpuExecutor::new()?)),
        Backend::Sim => open_sim(sim),
        Backend::Auto => match crate::gpu::GpuExecutor::new() {
            Ok(g) => Ok(Box::new(g)),
            Err(e) => {
                eprintln!(
                    "wgsimd: {e}; running on the simulator (subgroup size {})",
                    sim.subgroup_size
                );
                open_sim(sim)
            }
        },
    }
}

fn open_sim(sim: &SimSettings) -> Result<Box<dyn Executor>> {
    let config = crate::sim::SimConfig {
        subgroup_size: sim.subgroup_size,
        shuffle_lanes: sim.shuffle_lanes,
        fail_on_step_limit: true,
        ..Default::default()
    };
    Ok(Box::new(crate::sim::SimExecutor::new(config)?))
}
