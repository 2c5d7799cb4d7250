//! Choosing an adapter and opening a device.
//!
//! Rules: the adapter is picked by `WGSIMD_ADAPTER` (case-insensitive name substring) among the
//! backends in `WGPU_BACKEND` (default: all); otherwise discrete before integrated before virtual
//! before CPU, and non-GL backends before GL. A CPU adapter behind GL (llvmpipe through Mesa's
//! GL, found where no Vulkan driver is installed) is taken only when asked for by name or by
//! `WGPU_BACKEND`: its compiler spends minutes on each of our larger kernels (a 4096-key sort
//! ran over ten minutes in LLVM's coroutine passes on 2 cores, 2026-11-27), so without a GPU
//! the bench and the CLI run on the simulator instead, and the error says how to get lavapipe
//! (Vulkan), which compiles them in seconds. We request every feature the kernels can use when
//! the adapter has it (subgroups, f16, timestamps, cooperative matrices) and the adapter's own
//! limits (`required_limits: adapter.limits()`): defaults would cap storage bindings at 128 MiB.

use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::device::{Caps, CoopShape};

/// Features requested when present.
pub fn wanted_features() -> wgpu::Features {
    wgpu::Features::SUBGROUP
        | wgpu::Features::SUBGROUP_BARRIER
        | wgpu::Features::SHADER_F16
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
}

/// An open device with what the executor needs to know about it.
pub struct GpuContext {
    /// The adapter.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Adapter description.
    pub info: wgpu::AdapterInfo,
    /// Features enabled on the device.
    pub features: wgpu::Features,
    /// Limits of the device.
    pub limits: wgpu::Limits,
    /// Capabilities for algorithms.
    pub caps: Caps,
    /// Errors reported by wgpu outside error scopes (kept instead of panicking).
    pub uncaptured: Arc<Mutex<Vec<String>>>,
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
    let instance = wgpu::Instance::new(desc);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    adapters.retain(|a| {
        let ds = a.get_downlevel_capabilities();
        ds.flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
    });
    adapters.sort_by_key(|a| rank(&a.get_info()));
    adapters
}

impl GpuContext {
    /// Opens the best adapter (see module docs).
    pub fn new() -> Result<GpuContext> {
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
        Self::open(adapter)
    }

    /// Opens a device on `adapter`.
    pub fn open(adapter: wgpu::Adapter) -> Result<GpuContext> {
        let info = adapter.get_info();
        let features = adapter.features() & wanted_features();
        let limits = adapter.limits();
        let experimental = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            // SAFETY: cooperative matrices are only used by the GEMM kernel that is validated
            // against the portable kernel in tests; wgpu asks callers to acknowledge that
            // experimental features may have implementation bugs.
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("wgsimd"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: experimental,
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| Error::Device(e.to_string()))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock().unwrap().push(e.to_string());
        }));
        let cooperative_matrix =
            if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
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
        let caps = Caps {
            name: info.name.clone(),
            backend: crate::device::Backend::from_wgpu(info.backend),
            kind: crate::device::DeviceKind::from_wgpu(info.device_type),
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
            cooperative_matrix,
        };
        Ok(GpuContext {
            adapter,
            device,
            queue,
            info,
            features,
            limits,
            caps,
            uncaptured,
        })
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
