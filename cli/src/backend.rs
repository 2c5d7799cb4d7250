//! Choosing where to run: `--backend auto|gpu|sim` for the CLI and the benchmark.
//!
//! `auto` takes a GPU adapter when one exists and otherwise falls back to the simulator,
//! saying so on stderr. `sim` ignores any GPU.

use wgsimd::error::{Error, Result};
use wgsimd::Context;

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
    /// The device profile simulated (`wgsimd::device::PROFILES`).
    pub profile: String,
    /// Subgroup size, a power of two in 4..=128; `None`: the profile's.
    pub subgroup_size: Option<u32>,
    /// Permute the lane layout with this seed.
    pub shuffle_lanes: Option<u64>,
    /// The schedules each submission runs under; `None`: the default exploration
    /// (`wgsimd::sim::Schedule::DEFAULT`).
    pub schedules: Option<Vec<wgsimd::sim::Schedule>>,
    /// Workgroups per dispatch whose subgroups run as threads (`Some(None)`: all); `None`:
    /// the default (`wgsimd::sim::schedule::THREADED_WORKGROUPS`).
    pub threaded_workgroups: Option<Option<u32>>,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            profile: "h100".into(),
            subgroup_size: None,
            shuffle_lanes: None,
            schedules: None,
            threaded_workgroups: None,
        }
    }
}

impl SimSettings {
    /// The simulator configuration these settings ask for.
    pub fn config(&self) -> Result<wgsimd::sim::SimConfig> {
        let mut config = wgsimd::sim::SimConfig::for_profile(wgsimd::Caps::profile(&self.profile)?);
        if let Some(s) = self.subgroup_size {
            config.subgroup_size = s;
        }
        config.shuffle_lanes = self.shuffle_lanes;
        if let Some(s) = &self.schedules {
            config.schedules = s.clone();
        }
        if let Some(t) = self.threaded_workgroups {
            config.threaded_workgroups = t;
        }
        Ok(config)
    }
}

/// Opens the device `backend` asks for.
pub fn open(backend: Backend, sim: &SimSettings) -> Result<Context> {
    match backend {
        Backend::Gpu => open_gpu(),
        Backend::Sim => open_sim(sim),
        Backend::Auto => match open_gpu() {
            Ok(g) => Ok(g),
            Err(e) => {
                eprintln!(
                    "wgsimd: {e}; running on the simulator ({} profile)",
                    sim.profile
                );
                open_sim(sim)
            }
        },
    }
}

/// A GPU; `WGSIMD_DISABLE_SUBGROUPS=1` makes it run the workgroup-memory kernels on an adapter
/// that has subgroups (to compare the two paths on one device).
fn open_gpu() -> Result<Context> {
    // with the device's clock where it has one: the bench's queue latency reads it
    let g = Context::open_gpu_with_clock()?;
    if std::env::var("WGSIMD_DISABLE_SUBGROUPS").is_ok_and(|v| v == "1") {
        return g.without_subgroups();
    }
    Ok(g)
}

fn open_sim(sim: &SimSettings) -> Result<Context> {
    let mut config = sim.config()?;
    config.fail_on_step_limit = true;
    Context::simulator(config)
}
