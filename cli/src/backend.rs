//! Choosing an executor: `--backend auto|gpu|sim` for the CLI, the benchmark and tests.
//!
//! `auto` takes a GPU adapter when one exists and otherwise falls back to the simulator,
//! saying so on stderr. `sim` ignores any GPU.

use wgsimd::error::{Error, Result};
use wgsimd::exec::Executor;

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
        Backend::Gpu => Ok(Box::new(open_gpu()?)),
        Backend::Sim => open_sim(sim),
        Backend::Auto => match open_gpu() {
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

/// The GPU executor; `WGSIMD_DISABLE_SUBGROUPS=1` makes it run the workgroup-memory kernels on
/// an adapter that has subgroups (to compare the two paths on one device).
fn open_gpu() -> Result<wgsimd::gpu::GpuExecutor> {
    let mut g = wgsimd::gpu::GpuExecutor::new()?;
    if std::env::var("WGSIMD_DISABLE_SUBGROUPS").is_ok_and(|v| v == "1") {
        g.disable_subgroups();
    }
    Ok(g)
}

fn open_sim(sim: &SimSettings) -> Result<Box<dyn Executor>> {
    let config = wgsimd::sim::SimConfig {
        subgroup_size: sim.subgroup_size,
        shuffle_lanes: sim.shuffle_lanes,
        fail_on_step_limit: true,
        ..Default::default()
    };
    Ok(Box::new(wgsimd::sim::SimExecutor::new(config)?))
}
