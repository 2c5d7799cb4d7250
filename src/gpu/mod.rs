//! wgsimd on a wgpu device: plans recorded into command encoders.
//!
//! Rules:
//! - Shader modules are created from the kernel's composed WGSL; pipelines use wgpu's automatic
//!   layout, so binding kinds come from the shader (never restated) and only bindings the entry
//!   point uses are bound. Pipelines are cached per (kernel, flavour, entry, overrides) for the
//!   context's lifetime. The one exception: a pipeline that asks for the device's clock is
//!   SPIR-V wgsimd writes and patches ([`clock`]), with an explicit layout of the same bindings.
//! - Shader modules are built with bounds checks but without wgpu's loop bounding (see
//!   [`runtime_checks`]).
//! - A plan is made ready once ([`DevicePlan`]) and recorded any number of times; recording
//!   allocates nothing after the first use with the same caller buffers, submits nothing, polls
//!   nothing.
//! - The host-slice functions' transfers (uploads, read-backs, [`GpuContext::submit_and_wait`])
//!   run on a device wgsimd opened or the caller's, and do poll; transfers above 1 MiB go through
//!   two persistent staging buffers (`staging.rs`).
//! - Object creation runs inside validation and out-of-memory error scopes; errors become
//!   [`Error::Gpu`], never panics.

pub mod clock;
mod context;
mod prepared;
mod staging;

pub use context::{
    caps_of, instance_flags, list_adapters, wanted_features, wanted_limits, Created, GpuContext,
};
pub use prepared::{internal_usage, CopyIn, DevicePlan, GpuSlice, Timestamps};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::kernel::{BindingKind, Flavor, Kernel};

/// The line by which a kernel asks to be built without runtime checks (see [`runtime_checks`]).
pub const UNCHECKED_DIRECTIVE: &str = "// wgsimd: runtime checks off";

/// The runtime checks wgpu compiles into one of our shaders. Bounds checks stay on and wgpu's
/// loop bounding (an extra counter and branch in every loop, meant for untrusted web shaders)
/// is off: on the H100 it cost a grid-stride reduction 3×. A kernel whose every access the
/// simulator proves in bounds in its tests (its out-of-bounds checker at several subgroup
/// sizes, edge tiles included) may carry the line [`UNCHECKED_DIRECTIVE`] and is built without
/// checks: the cooperative-matrix GEMM does, because the checks on its workgroup-memory staging
/// cost 45% on the H100 (8192³: 98 against 178 TFLOP/s).
pub fn runtime_checks(k: &Kernel) -> wgpu::ShaderRuntimeChecks {
    if asks_unchecked(k) {
        return wgpu::ShaderRuntimeChecks::unchecked();
    }
    let mut c = wgpu::ShaderRuntimeChecks::checked();
    c.force_loop_bounding = false;
    c
}

/// Whether `k` carries the line [`UNCHECKED_DIRECTIVE`].
pub fn asks_unchecked(k: &Kernel) -> bool {
    k.source.lines().any(|l| l.trim() == UNCHECKED_DIRECTIVE)
}

/// Shader modules and pipelines of a context.
#[derive(Default)]
pub(crate) struct PipelineCache {
    shaders: Mutex<HashMap<(String, Flavor), Arc<wgpu::ShaderModule>>>,
    pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
}

impl GpuContext {
    /// The pipeline of `entry` in `k` with `overrides` (compiled once per context); the
    /// bindings numbered in `dynamic` take a dynamic offset (an explicit layout; otherwise
    /// wgpu derives it).
    pub fn pipeline(
        &self,
        k: &Arc<Kernel>,
        entry: &str,
        overrides: &[(String, f64)],
        dynamic: &[u32],
    ) -> Result<Arc<wgpu::ComputePipeline>> {
        let mut key = format!("{}|{:?}|{entry}", k.name, k.flavor);
        for (n, v) in overrides {
            key.push_str(&format!("|{n}={v}"));
        }
        if !dynamic.is_empty() {
            key.push_str(&format!("|dynamic={dynamic:?}"));
        }
        if let Some(p) = self.pipelines.pipelines.lock().unwrap().get(&key) {
            return Ok(p.clone());
        }
        let clocked = clock::asks_clock(overrides);
        let module = if clocked {
            // overrides are applied before the clock is patched in: one module per pipeline
            Arc::new(self.clocked_module(k, entry, overrides)?)
        } else {
            let mut shaders = self.pipelines.shaders.lock().unwrap();
            match shaders.get(&(k.name.clone(), k.flavor)) {
                Some(m) => m.clone(),
                None => {
                    let checks = runtime_checks(k);
                    let m = Arc::new(self.scoped(|| {
                        let desc = wgpu::ShaderModuleDescriptor {
                            label: Some(&k.name),
                            source: wgpu::ShaderSource::Wgsl(k.source.as_str().into()),
                        };
                        // SAFETY: only composed, naga-validated kernels reach this point, and
                        // the checks dropped are the ones `runtime_checks` says may be: loop
                        // bounding, and bounds checks of kernels whose accesses the simulator
                        // proves in bounds.
                        unsafe { self.device.create_shader_module_trusted(desc, checks) }
                    })?);
                    shaders.insert((k.name.clone(), k.flavor), m.clone());
                    m
                }
            }
        };
        let constants: Vec<(&str, f64)> = if clocked {
            Vec::new()
        } else {
            overrides.iter().map(|(n, v)| (n.as_str(), *v)).collect()
        };
        self.created
            .pipelines
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // a passthrough module carries no reflection: its layout is always explicit
        let layout = if dynamic.is_empty() && !clocked {
            None
        } else {
            Some(self.layout_with_dynamic(k, entry, dynamic)?)
        };
        let pipeline = Arc::new(self.scoped(|| {
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&key),
                    layout: layout.as_ref(),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        zero_initialize_workgroup_memory: true,
                    },
                    cache: None,
                })
        })?);
        // Two threads may have built the same pipeline at once: every caller must get the one
        // that stays cached, or a bind group made from the other's (automatic) layout fails
        // later with "pipelines don't match".
        Ok(self
            .pipelines
            .pipelines
            .lock()
            .unwrap()
            .entry(key)
            .or_insert(pipeline)
            .clone())
    }

    /// The layout wgpu would derive for `entry` of `k` (group 0, every binding it uses), with a
    /// dynamic offset on the bindings numbered in `dynamic`.
    fn layout_with_dynamic(
        &self,
        k: &Kernel,
        entry: &str,
        dynamic: &[u32],
    ) -> Result<wgpu::PipelineLayout> {
        let used = k
            .entry(entry)
            .ok_or_else(|| Error::Plan(format!("kernel {} has no entry {entry}", k.name)))?;
        let entries: Vec<wgpu::BindGroupLayoutEntry> = used
            .bindings
            .iter()
            .map(|b| wgpu::BindGroupLayoutEntry {
                binding: b.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match b.kind {
                        BindingKind::Uniform => wgpu::BufferBindingType::Uniform,
                        BindingKind::StorageRead => {
                            wgpu::BufferBindingType::Storage { read_only: true }
                        }
                        BindingKind::StorageReadWrite => {
                            wgpu::BufferBindingType::Storage { read_only: false }
                        }
                    },
                    has_dynamic_offset: dynamic.contains(&b.binding),
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        self.scoped(|| {
            let group = self
                .device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(&k.name),
                    entries: &entries,
                });
            self.device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(&k.name),
                    bind_group_layouts: &[Some(&group)],
                    immediate_size: 0,
                })
        })
    }

    /// A buffer of `size` bytes with the usages wgsimd's own buffers have
    /// ([`internal_usage`]) and `extra`.
    pub fn create_buffer(
        &self,
        label: &str,
        size: u64,
        extra: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer> {
        self.caps
            .check_buffer(size, || format!("buffer `{label}`"))?;
        self.created
            .buffers
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.scoped(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(4).div_ceil(4) * 4,
                usage: internal_usage() | extra,
                mapped_at_creation: false,
            })
        })
    }

    /// Writes `bytes` (a multiple of 4 long) into `buffer` from byte `at` and waits for it:
    /// small writes through the queue, large ones through the staging buffers.
    pub fn upload(&self, buffer: &wgpu::Buffer, at: u64, bytes: &[u8]) -> Result<()> {
        if bytes.len() as u64 <= staging::SMALL {
            self.queue.write_buffer(buffer, at, bytes);
            return Ok(());
        }
        self.staging
            .lock()
            .unwrap()
            .upload(&self.device, &self.queue, buffer, at, bytes)
    }

    /// Reads `size` bytes of `buffer` from byte `at` (a multiple of 4 each), waiting for the
    /// work submitted before.
    pub fn download(&self, buffer: &wgpu::Buffer, at: u64, size: u64) -> Result<Vec<u8>> {
        self.staging
            .lock()
            .unwrap()
            .download(&self.device, &self.queue, buffer, at, size)
    }

    /// Submits `enc` and waits until the device has run it; errors it raised become
    /// [`Error::Gpu`].
    pub fn submit_and_wait(&self, enc: wgpu::CommandEncoder) -> Result<()> {
        self.scoped(|| self.queue.submit([enc.finish()]))?;
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        self.scoped(|| ())
    }
}
