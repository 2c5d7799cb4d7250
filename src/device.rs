//! What a device can do: [`Caps`] and the device profiles are the simulator crate's
//! ([`wgsimd_sim::caps`], whose rules hold here); this module reads them from wgpu's names for
//! an adapter ([`backend_of`], [`kind_of`]) and holds the grid helper algorithms share.

pub use wgsimd_sim::caps::*;

/// The [`Backend`] of wgpu's backend.
pub fn backend_of(b: wgpu::Backend) -> Backend {
    match b {
        wgpu::Backend::Vulkan => Backend::Vulkan,
        wgpu::Backend::Metal => Backend::Metal,
        wgpu::Backend::Dx12 => Backend::Dx12,
        wgpu::Backend::Gl => Backend::Gl,
        wgpu::Backend::BrowserWebGpu => Backend::BrowserWebGpu,
        _ => Backend::Other,
    }
}

/// The [`DeviceKind`] of wgpu's device type.
pub fn kind_of(t: wgpu::DeviceType) -> DeviceKind {
    match t {
        wgpu::DeviceType::DiscreteGpu => DeviceKind::DiscreteGpu,
        wgpu::DeviceType::IntegratedGpu => DeviceKind::IntegratedGpu,
        wgpu::DeviceType::VirtualGpu => DeviceKind::VirtualGpu,
        wgpu::DeviceType::Cpu => DeviceKind::Cpu,
        wgpu::DeviceType::Other => DeviceKind::Other,
    }
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
