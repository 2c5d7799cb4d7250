//! A wgpu device as wgsimd sees it: the caller's, or one wgsimd opens for the host-slice
//! functions.
//!
//! Rules:
//! - **The caller's device is used as it is.** [`GpuContext::from_wgpu`] reads the caps from the
//!   device's enabled features and limits (never the adapter's wishes) and installs nothing on
//!   the device: no error handler, no polling. [`wanted_features`] and [`wanted_limits`] say what
//!   to request when creating it, and what is lost without each.
//! - **Opening a device** (host-slice functions, the CLI, tests) picks the adapter by
//!   `WGSIMD_ADAPTER` (case-insensitive name substring) among the backends in `WGPU_BACKEND`
//!   (default: all); otherwise discrete before integrated before virtual before CPU, and non-GL
//!   backends before GL. A CPU adapter behind GL (llvmpipe through Mesa's GL, found where no
//!   Vulkan driver is installed) is taken only when asked for by name or by `WGPU_BACKEND`: its
//!   compiler spends minutes on each larger kernel (a 4096-key sort ran over ten minutes in LLVM's
//!   coroutine passes on 2 cores, 2026-11-27), and lavapipe (Vulkan) compiles them in seconds.
//!   It requests every feature of [`wanted_features`] the adapter has and the adapter's own
//!   limits (defaults would cap storage bindings at 128 MiB).

use std::sync::{Arc, Mutex};

use crate::device::{Caps, CoopShape};
use crate::error::{Error, Result};

/// Features the kernels use when the device has them. Without `SUBGROUP` the sort, scan and
/// reduce take their workgroup-memory kernels (slower, same results) and the sort takes
/// reduce-then-scan; without `SHADER_F16` the cooperative-matrix GEMM is off; without
/// `TIMESTAMP_QUERY` no profiling; without `EXPERIMENTAL_COOPERATIVE_MATRIX` f16 GEMM takes the
/// portable kernel (0.17× the cooperative kernel's speed on the H100).
pub fn wanted_features() -> wgpu::Features {
    wgpu::Features::SUBGROUP
        | wgpu::Features::SUBGROUP_BARRIER
        | wgpu::Features::SHADER_F16
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
}

/// What wgsimd asks of `adapter` when it opens a device: every wanted feature it has, `extra`,
/// and its own limits.
pub(super) fn device_descriptor(
    adapter: &wgpu::Adapter,
    extra: wgpu::Features,
) -> wgpu::DeviceDescriptor<'static> {
    let features = adapter.features() & wanted_features() | extra;
    let experimental = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
        // SAFETY: cooperative matrices are only used by the GEMM kernels, which are
        // validated against the portable kernel in tests; wgpu asks callers to acknowledge
        // that experimental features may have implementation bugs.
        unsafe { wgpu::ExperimentalFeatures::enabled() }
    } else {
        wgpu::ExperimentalFeatures::disabled()
    };
    wgpu::DeviceDescriptor {
        label: Some("wgsimd"),
        required_features: features,
        required_limits: wanted_limits(adapter),
        experimental_features: experimental,
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }
}

/// The limits to request from `adapter`: its own. wgpu's defaults bind at most 128 MiB per
/// storage buffer (2^25 sort keys) and allow 16 KiB of workgroup memory, which no OneSweep
/// tile fits (reduce-then-scan then sorts, 0.7× as fast on the H100).
pub fn wanted_limits(adapter: &wgpu::Adapter) -> wgpu::Limits {
    adapter.limits()
}

/// `flags` without [`wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL`] (unless the environment
/// sets `WGPU_VALIDATION_INDIRECT_CALL=1`): with it, wgpu checks every indirect dispatch with a
/// dispatch of its own first, which costs about 10 µs per indirect pass on the H100, and
/// every pass of wgsimd after its prepare pass is indirect. The prepare passes keep their
/// dispatch arguments within the device's limits, so nothing is lost. An application that
/// makes its own instance should do the same ([`Context::from_wgpu`](crate::Context::from_wgpu)).
pub fn instance_flags(flags: wgpu::InstanceFlags) -> wgpu::InstanceFlags {
    let mut f = flags;
    f.remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    if std::env::var("WGPU_VALIDATION_INDIRECT_CALL").is_ok_and(|v| v != "0") {
        f.insert(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
    f
}

/// A device with what wgsimd needs to know about it, and what it keeps for it: compiled
/// pipelines, and staging buffers for the host-slice functions' transfers.
pub struct GpuContext {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Capabilities for algorithms.
    pub caps: Caps,
    /// Errors wgpu reported outside error scopes, on a device wgsimd opened (kept instead of
    /// panicking); `None` on the caller's device, whose error handling is the caller's.
    pub uncaptured: Option<Arc<Mutex<Vec<String>>>>,
    pub(super) pipelines: super::PipelineCache,
    pub(super) staging: Mutex<super::staging::Staging>,
    pub(super) created: Counters,
    /// The device's clock, where wgsimd opened the device with it ([`GpuContext::open_with_clock`]).
    pub(super) clock: Option<Arc<Clock>>,
}

/// What a device opened with its clock keeps for it (`super::clock`).
pub(crate) struct Clock {
    /// The host's read of the device's timestamp time line, where the driver has it.
    #[cfg(any(
        windows,
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd"
    ))]
    pub(super) calibrated: Option<Calibrated>,
}

/// The calibrated-timestamps extension a device was opened with.
#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
pub(super) enum Calibrated {
    Khr(ash::khr::calibrated_timestamps::Device),
    Ext(ash::ext::calibrated_timestamps::Device),
}

/// How many device objects a context has created, over its life ([`GpuContext::created`]):
/// an application can check that recording a frame creates none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Created {
    /// Buffers: plans' scratch and uploads (not the two staging buffers the host-slice
    /// functions keep for transfers).
    pub buffers: u64,
    /// Bind groups.
    pub bind_groups: u64,
    /// Compute pipelines.
    pub pipelines: u64,
}

#[derive(Default)]
pub(super) struct Counters {
    pub buffers: std::sync::atomic::AtomicU64,
    pub bind_groups: std::sync::atomic::AtomicU64,
    pub pipelines: std::sync::atomic::AtomicU64,
}

fn rank(info: &wgpu::AdapterInfo) -> (u32, u32) {
    let ty = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let gl = u32::from(info.backend == wgpu::Backend::Gl);
    (gl, ty)
}

/// Whether an adapter is taken without being asked for (module docs): all but a CPU adapter
/// behind GL.
fn taken_unasked(info: &wgpu::AdapterInfo) -> bool {
    !cpu_behind_gl(info.backend, info.device_type)
}

fn cpu_behind_gl(backend: wgpu::Backend, ty: wgpu::DeviceType) -> bool {
    backend == wgpu::Backend::Gl && ty == wgpu::DeviceType::Cpu
}

fn scalar_name(t: wgpu::CooperativeScalarType) -> String {
    format!("{t:?}").to_lowercase()
}

/// Lists the adapters visible under `WGPU_BACKEND`, best first.
pub fn list_adapters() -> Vec<wgpu::Adapter> {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    desc.flags = instance_flags(desc.flags);
    let instance = wgpu::Instance::new(desc);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    adapters.retain(|a| {
        let ds = a.get_downlevel_capabilities();
        ds.flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
    });
    adapters.sort_by_key(|a| rank(&a.get_info()));
    adapters
}

/// The caps of `device` (created from `adapter`): its enabled features and limits.
pub fn caps_of(adapter: &wgpu::Adapter, device: &wgpu::Device) -> Caps {
    let info = adapter.get_info();
    let features = device.features();
    let limits = device.limits();
    let cooperative_matrix = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
        adapter
            .cooperative_matrix_properties()
            .into_iter()
            .map(|p| CoopShape {
                m: p.m_size,
                n: p.n_size,
                k: p.k_size,
                ab: scalar_name(p.ab_type),
                acc: scalar_name(p.cr_type),
            })
            .collect()
    } else {
        Vec::new()
    };
    let subgroups = features.contains(wgpu::Features::SUBGROUP);
    Caps {
        name: info.name.clone(),
        backend: crate::device::backend_of(info.backend),
        kind: crate::device::kind_of(info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        subgroups,
        subgroup_min: if subgroups { info.subgroup_min_size } else { 0 },
        subgroup_max: if subgroups { info.subgroup_max_size } else { 0 },
        f16: features.contains(wgpu::Features::SHADER_F16),
        timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
        max_storage_binding: limits.max_storage_buffer_binding_size,
        max_buffer: limits.max_buffer_size,
        storage_offset_alignment: limits.min_storage_buffer_offset_alignment as u64,
        max_workgroups_per_dim: limits.max_compute_workgroups_per_dimension,
        max_workgroup_storage: limits.max_compute_workgroup_storage_size,
        max_workgroup_invocations: limits.max_compute_invocations_per_workgroup,
        cooperative_matrix,
    }
}

impl GpuContext {
    /// The device objects this context has created so far.
    pub fn created(&self) -> Created {
        use std::sync::atomic::Ordering::Relaxed;
        Created {
            buffers: self.created.buffers.load(Relaxed),
            bind_groups: self.created.bind_groups.load(Relaxed),
            pipelines: self.created.pipelines.load(Relaxed),
        }
    }

    /// The caller's device (created from `adapter`), as it is.
    pub fn from_wgpu(adapter: &wgpu::Adapter, device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        GpuContext {
            caps: caps_of(adapter, device),
            device: device.clone(),
            queue: queue.clone(),
            uncaptured: None,
            pipelines: Default::default(),
            staging: Default::default(),
            created: Default::default(),
            clock: None,
        }
    }

    /// The same device with `caps` (e.g. [`Caps::without_subgroups`], to run the
    /// workgroup-memory kernels on a device that has subgroups), with caches of its own.
    pub fn with_caps(&self, caps: Caps) -> GpuContext {
        GpuContext {
            device: self.device.clone(),
            queue: self.queue.clone(),
            caps,
            uncaptured: self.uncaptured.clone(),
            pipelines: Default::default(),
            staging: Default::default(),
            created: Default::default(),
            clock: self.clock.clone(),
        }
    }

    /// Opens the best adapter (see the module docs).
    pub fn open() -> Result<GpuContext> {
        Self::open_adapter(Self::best_adapter()?)
    }

    /// The adapter [`GpuContext::open`] takes (see the module docs).
    pub fn best_adapter() -> Result<wgpu::Adapter> {
        let filter = std::env::var("WGSIMD_ADAPTER")
            .ok()
            .map(|s| s.to_lowercase());
        let adapters = list_adapters();
        let seen: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let asked = filter.is_some() || std::env::var_os("WGPU_BACKEND").is_some();
        let skipped = adapters
            .iter()
            .any(|a| !asked && !taken_unasked(&a.get_info()));
        let adapter = adapters
            .into_iter()
            .find(|a| match &filter {
                Some(f) => a.get_info().name.to_lowercase().contains(f),
                None => asked || taken_unasked(&a.get_info()),
            })
            .ok_or_else(|| {
                Error::NoAdapter(match &filter {
                    Some(f) => format!(" matching WGSIMD_ADAPTER={f:?} (adapters: {seen:?})"),
                    None if skipped => format!(
                        " but a CPU one through GL ({seen:?}), which takes minutes to compile \
                         these kernels: install a Vulkan driver (on Linux without a GPU, \
                         `apt-get install mesa-vulkan-drivers` gives lavapipe), or set \
                         WGPU_BACKEND=gl to use it anyway"
                    ),
                    None => " (no Vulkan, Metal, DX12 or GL adapter with compute shaders)".into(),
                })
            })?;
        Ok(adapter)
    }

    /// Opens a device on `adapter` with every wanted feature it has and its own limits.
    pub fn open_adapter(adapter: wgpu::Adapter) -> Result<GpuContext> {
        let desc = device_descriptor(&adapter, wgpu::Features::empty());
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| Error::Device(e.to_string()))?;
        Ok(Self::opened(&adapter, device, queue, None))
    }

    /// A context on a device wgsimd opened: its errors kept, not raised.
    pub(super) fn opened(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        clock: Option<Arc<Clock>>,
    ) -> GpuContext {
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock().unwrap().push(e.to_string());
        }));
        GpuContext {
            caps: caps_of(adapter, &device),
            device,
            queue,
            uncaptured: Some(uncaptured),
            pipelines: Default::default(),
            staging: Default::default(),
            created: Default::default(),
            clock,
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes: an error wgpu reports for it
    /// becomes [`Error::Gpu`] instead of reaching the device's handler (which panics by default).
    pub fn scoped<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let v = pollster::block_on(val.pop());
        let o = pollster::block_on(oom.pop());
        if let Some(e) = v.or(o) {
            return Err(Error::Gpu(e.to_string()));
        }
        if let Some(sink) = &self.uncaptured {
            if let Some(e) = sink.lock().unwrap().drain(..).next() {
                return Err(Error::Gpu(e));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvmpipe_behind_gl_is_taken_only_when_asked_for() {
        use wgpu::{Backend, DeviceType};
        assert!(cpu_behind_gl(Backend::Gl, DeviceType::Cpu));
        // lavapipe (Vulkan), a GPU behind GL, SwiftShader or WARP: taken
        assert!(!cpu_behind_gl(Backend::Vulkan, DeviceType::Cpu));
        assert!(!cpu_behind_gl(Backend::Gl, DeviceType::IntegratedGpu));
        assert!(!cpu_behind_gl(Backend::Dx12, DeviceType::Cpu));
    }
}
