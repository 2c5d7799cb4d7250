//! What a device can do: the [`Caps`] every algorithm plans from, and named device profiles.
//!
//! Rules:
//! - **Caps describe a device, never who runs it.** Algorithms choose kernels, tiles and grids
//!   from these fields alone. A wgpu device's are read from its features and limits; the
//!   simulator reports the caps of the device profile it stands in for ([`Caps::profile`]),
//!   with its simulated subgroup size, so it runs the plan that device would run.
//! - **Profiles are measured devices.** Each one lists what wgpu 30 reported on that device (the
//!   H100 and lavapipe here; Apple's from wgpu's Metal limits). A profile is a starting point:
//!   [`Caps::with_subgroup_size`] and [`Caps::without_subgroups`] derive the variants tests run.

use crate::error::{Error, Result};

/// The graphics API behind an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Vulkan.
    Vulkan,
    /// Metal.
    Metal,
    /// Direct3D 12.
    Dx12,
    /// OpenGL / GLES.
    Gl,
    /// WebGPU in a browser.
    BrowserWebGpu,
    /// Anything else wgpu may report.
    Other,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// What kind of processor the adapter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceKind {
    /// A GPU with its own memory.
    DiscreteGpu,
    /// A GPU sharing memory with the CPU.
    IntegratedGpu,
    /// A virtualized GPU.
    VirtualGpu,
    /// A software implementation on the CPU (lavapipe, SwiftShader, WARP).
    Cpu,
    /// Unknown.
    Other,
}

/// A cooperative-matrix configuration a device offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoopShape {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Inner dimension.
    pub k: u32,
    /// Element type of A and B ("f16", "f32").
    pub ab: String,
    /// Element type of the accumulator ("f16", "f32").
    pub acc: String,
}

impl CoopShape {
    /// An f16 × f16 → f32 shape of `s × s × s`.
    pub fn f16_f32(s: u32) -> CoopShape {
        CoopShape {
            m: s,
            n: s,
            k: s,
            ab: "f16".into(),
            acc: "f32".into(),
        }
    }
}

/// What a device can do; algorithms size and choose their plans from this.
#[derive(Clone, Debug)]
pub struct Caps {
    /// Adapter name.
    pub name: String,
    /// Graphics API.
    pub backend: Backend,
    /// Kind of processor.
    pub kind: DeviceKind,
    /// Driver name and version, where known.
    pub driver: String,
    /// Subgroup operations available.
    pub subgroups: bool,
    /// Smallest subgroup size the device may use (0 without subgroups).
    pub subgroup_min: u32,
    /// Largest subgroup size the device may use (0 without subgroups).
    pub subgroup_max: u32,
    /// `f16` in shaders.
    pub f16: bool,
    /// Timestamp queries.
    pub timestamps: bool,
    /// Largest storage-buffer binding, bytes.
    pub max_storage_binding: u64,
    /// Largest buffer, bytes.
    pub max_buffer: u64,
    /// Alignment of storage-binding offsets, bytes.
    pub storage_offset_alignment: u64,
    /// Largest workgroup count per dimension.
    pub max_workgroups_per_dim: u32,
    /// Workgroup memory, bytes.
    pub max_workgroup_storage: u32,
    /// Invocations per workgroup.
    pub max_workgroup_invocations: u32,
    /// Cooperative-matrix shapes offered.
    pub cooperative_matrix: Vec<CoopShape>,
}

/// The names [`Caps::profile`] knows.
pub const PROFILES: &[&str] = &["h100", "apple-m", "lavapipe"];

impl Caps {
    /// A named device profile: `h100`, `apple-m` or `lavapipe` ([`PROFILES`]).
    pub fn profile(name: &str) -> Result<Caps> {
        match name {
            "h100" => Ok(Caps::h100()),
            "apple-m" => Ok(Caps::apple_m()),
            "lavapipe" => Ok(Caps::lavapipe()),
            _ => Err(Error::InvalidInput(format!(
                "unknown device profile {name:?} (known: {})",
                PROFILES.join(", ")
            ))),
        }
    }

    /// NVIDIA H100 80GB through Vulkan, as wgpu 30 reports it with the features wgsimd requests
    /// (driver 580, 2026-11-27): subgroups of 32, f16, timestamps, f16 16×16×16 → f32
    /// cooperative matrices, 48 KiB of workgroup memory, 2 GiB storage bindings.
    pub fn h100() -> Caps {
        Caps {
            name: "NVIDIA H100 80GB HBM3 (profile)".into(),
            backend: Backend::Vulkan,
            kind: DeviceKind::DiscreteGpu,
            driver: "NVIDIA 580".into(),
            subgroups: true,
            subgroup_min: 32,
            subgroup_max: 32,
            f16: true,
            timestamps: true,
            max_storage_binding: (1 << 31) - 4,
            max_buffer: (1 << 31) - 4,
            storage_offset_alignment: 16,
            max_workgroups_per_dim: 65535,
            max_workgroup_storage: 48 << 10,
            max_workgroup_invocations: 1024,
            cooperative_matrix: vec![CoopShape::f16_f32(16)],
        }
    }

    /// An Apple M-series GPU through Metal, from wgpu 30's Metal limits for Apple GPUs (not
    /// measured here): SIMD groups of 32, f16, 32 KiB of threadgroup memory, 8×8 f16 → f32
    /// simdgroup matrices.
    pub fn apple_m() -> Caps {
        Caps {
            name: "Apple M-series (profile)".into(),
            backend: Backend::Metal,
            kind: DeviceKind::IntegratedGpu,
            driver: String::new(),
            subgroups: true,
            subgroup_min: 32,
            subgroup_max: 32,
            f16: true,
            timestamps: true,
            max_storage_binding: 1 << 30,
            max_buffer: 1 << 30,
            storage_offset_alignment: 256,
            max_workgroups_per_dim: 65535,
            max_workgroup_storage: 32 << 10,
            max_workgroup_invocations: 1024,
            cooperative_matrix: vec![CoopShape::f16_f32(8)],
        }
    }

    /// lavapipe (Mesa's Vulkan on the CPU, Debian's `mesa-vulkan-drivers` 22.3), as wgpu 30
    /// reports it: subgroups of 8, f16, timestamps, 128 MiB storage bindings, 32 KiB of
    /// workgroup memory.
    pub fn lavapipe() -> Caps {
        Caps {
            name: "llvmpipe (profile)".into(),
            backend: Backend::Vulkan,
            kind: DeviceKind::Cpu,
            driver: "llvmpipe Mesa 22.3.6".into(),
            subgroups: true,
            subgroup_min: 8,
            subgroup_max: 8,
            f16: true,
            timestamps: true,
            max_storage_binding: 128 << 20,
            max_buffer: (2047 << 20) as u64,
            storage_offset_alignment: 32,
            max_workgroups_per_dim: 65535,
            max_workgroup_storage: 32 << 10,
            max_workgroup_invocations: 1024,
            cooperative_matrix: Vec::new(),
        }
    }

    /// The same device with subgroups of exactly `size` lanes (a power of two in 4..=128).
    pub fn with_subgroup_size(mut self, size: u32) -> Result<Caps> {
        if !size.is_power_of_two() || !(4..=128).contains(&size) {
            return Err(Error::InvalidInput(format!(
                "subgroup size {size} is not a power of two in 4..=128"
            )));
        }
        self.subgroups = true;
        self.subgroup_min = size;
        self.subgroup_max = size;
        Ok(self)
    }

    /// The same device without subgroup operations (algorithms take their workgroup-memory
    /// kernels).
    pub fn without_subgroups(mut self) -> Caps {
        self.subgroups = false;
        self.subgroup_min = 0;
        self.subgroup_max = 0;
        self
    }

    /// `Error::Limit` (`max_buffer_size`) where a buffer of `bytes` does not fit the device.
    pub fn check_buffer(&self, bytes: u64, needed_for: impl FnOnce() -> String) -> Result<()> {
        if bytes > self.max_buffer {
            return Err(Error::Limit {
                limit: "max_buffer_size",
                needed: bytes,
                available: self.max_buffer,
                needed_for: needed_for(),
            });
        }
        Ok(())
    }

    /// An error unless one storage binding of `bytes` fits the device
    /// (`max_storage_buffer_binding_size`), naming what `needed_for` says.
    pub fn check_binding(&self, bytes: u64, needed_for: impl FnOnce() -> String) -> Result<()> {
        if bytes > self.max_storage_binding {
            return Err(Error::Limit {
                limit: "max_storage_buffer_binding_size",
                needed: bytes,
                available: self.max_storage_binding,
                needed_for: needed_for(),
            });
        }
        Ok(())
    }

    /// Whether the device is a software implementation on the CPU.
    pub fn is_cpu(&self) -> bool {
        self.kind == DeviceKind::Cpu
    }

    /// The kernel flavor these caps call for.
    pub fn flavor(&self) -> crate::kernel::Flavor {
        if self.subgroups {
            crate::kernel::Flavor::Subgroup
        } else {
            crate::kernel::Flavor::Emulated
        }
    }

    /// Splits `n` elements of `elem_bytes` into ranges `(first, count)` that each fit one storage
    /// binding, with every range's byte offset a multiple of the storage offset alignment, of 16
    /// (so vec4 views line up) and of `multiple` elements (e.g. a tile). One range `(0, 0)` for
    /// `n = 0`.
    pub fn chunks(&self, n: u64, elem_bytes: u64, multiple: u64) -> Vec<(u64, u64)> {
        let align = lcm(
            lcm(
                self.storage_offset_alignment.max(16),
                elem_bytes * multiple.max(1),
            ),
            16,
        );
        let per = (self.max_storage_binding / align * align / elem_bytes).max(1);
        if n == 0 {
            return vec![(0, 0)];
        }
        let mut out = Vec::new();
        let mut first = 0;
        while first < n {
            let count = per.min(n - first);
            out.push((first, count));
            first += count;
        }
        out
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_named_and_derive_variants() {
        for name in PROFILES {
            let c = Caps::profile(name).unwrap();
            assert!(c.subgroups && c.subgroup_min == c.subgroup_max, "{name}");
            let c8 = c.clone().with_subgroup_size(8).unwrap();
            assert_eq!((c8.subgroup_min, c8.subgroup_max), (8, 8));
            assert!(!c.without_subgroups().subgroups);
        }
        assert!(Caps::profile("h200").is_err());
        assert!(Caps::h100().with_subgroup_size(12).is_err());
        assert!(Caps::h100().with_subgroup_size(256).is_err());
        assert!(Caps::lavapipe().is_cpu() && !Caps::h100().is_cpu());
    }
}
