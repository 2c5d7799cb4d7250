//! The conformance suite's targets, in the shape the behaviour suite's harness takes: the GPU
//! (lavapipe in CI), where the differential tests run (each makes its own simulator at the
//! GPU's subgroup size), and one simulator for the tests that need no GPU.

use std::sync::Arc;

use wgsimd::sim::SimConfig;
use wgsimd::{Caps, Context};

use crate::harness::On;

#[path = "../behaviour/slot.rs"]
mod slot;
pub use slot::{Missing, Slot};

/// A device a test runs on.
pub struct Target {
    name: &'static str,
    /// The device.
    pub ctx: Context,
}

impl Target {
    /// Its name in trial names.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// The GPU (opened once) and one simulator.
pub struct Targets {
    sim: Arc<Target>,
    gpu: Slot,
}

impl Targets {
    /// Opens the GPU, if any.
    pub fn new() -> Targets {
        let sim = Arc::new(Target {
            name: "sim",
            ctx: Context::simulator(SimConfig::for_profile(Caps::lavapipe())).expect("simulator"),
        });
        let gpu = match Context::open_gpu() {
            Ok(ctx) => Slot::Ok(Arc::new(Target { name: "gpu", ctx })),
            Err(e) => Slot::Err(Arc::new(Missing {
                name: "gpu",
                reason: format!("no GPU adapter: {e}"),
            })),
        };
        Targets { sim, gpu }
    }

    /// The targets a test marked `on` runs on: `Gpu` the GPU, anything else the simulator.
    pub fn for_test(&self, on: On) -> Vec<Slot> {
        match on {
            On::Gpu => vec![match &self.gpu {
                Slot::Ok(t) => Slot::Ok(t.clone()),
                Slot::Err(m) => Slot::Err(m.clone()),
            }],
            On::Every | On::Once => vec![Slot::Ok(self.sim.clone())],
        }
    }

    /// Why the GPU target is missing, if it is.
    pub fn gpu_missing(&self) -> Option<&str> {
        match &self.gpu {
            Slot::Err(m) => Some(m.reason.as_str()),
            Slot::Ok(_) => None,
        }
    }
}
