//! The device's clock inside kernels, for measuring latency where WGSL has no clock.
//!
//! Rules:
//! - **A kernel names the clock, WGSL does not have one.** A kernel that wants it declares
//!   `fn device_clock() -> vec2<u32>` (a stand-in returning a value no clock gives) and the
//!   override `DEVICE_CLOCK`; only a pipeline built with `DEVICE_CLOCK` set calls it. Such a
//!   pipeline is compiled here: naga writes the SPIR-V, every call of `device_clock` becomes
//!   `OpReadClockKHR` at device scope (`SPV_KHR_shader_clock`, low word first), and the module
//!   goes to the driver as it is (wgpu's `PASSTHROUGH_SHADERS`), with an explicit layout.
//! - **Only devices wgsimd opens with it have it**: [`GpuContext::open_with_clock`] on a Vulkan
//!   adapter whose driver has `VK_KHR_shader_clock` with `shaderDeviceClock` (the H200's driver
//!   580 and lavapipe do). Anywhere else, a plan that sets `DEVICE_CLOCK` fails when it is
//!   prepared ([`Error::MissingFeature`]), on the simulator too: nothing runs with a stand-in.
//! - **Units are the driver's**: Vulkan does not say what a device-clock unit is.
//!   [`GpuContext::probe_clock`] measures them against the device's timestamp queries (a pass
//!   that spins on the clock between two timestamps), and says whether the clock and the
//!   timestamps are one time line; [`GpuContext::device_now`] reads the timestamps' time line
//!   from the host (`VK_KHR_calibrated_timestamps` or the EXT), so a host event can be placed on
//!   the kernels' clock when the probe says the two agree.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::kernel::Kernel;

#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
use super::context::{Calibrated, Clock};
use super::GpuContext;

/// The override by which a pipeline asks for the device's clock.
pub const CLOCK_OVERRIDE: &str = "DEVICE_CLOCK";
/// The stand-in function every call of which becomes the clock read.
pub const CLOCK_FUNCTION: &str = "device_clock";

/// Whether a pass's overrides ask for the device clock.
pub(crate) fn asks_clock(overrides: &[(String, f64)]) -> bool {
    overrides
        .iter()
        .any(|(n, v)| n == CLOCK_OVERRIDE && *v != 0.0)
}

/// The error for a plan that asks for the clock on a device without it.
pub(crate) fn missing_clock(what: &str) -> Error {
    Error::MissingFeature {
        feature: "PASSTHROUGH_SHADERS",
        needed_for: format!(
            "{what} (the device clock: a Vulkan device opened by GpuContext::open_with_clock \
             whose driver has VK_KHR_shader_clock)"
        ),
    }
}

/// What [`GpuContext::probe_clock`] measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockProbe {
    /// Device-clock units per ns of the timestamp queries (1.0 where the clock counts ns).
    pub units_per_ns: f64,
    /// Whether the clock and the timestamp queries are one time line in ns: the clock counts
    /// ns (`units_per_ns` within 1% of 1; the pass's launch makes it read a little low) and
    /// its reads in the probe's pass fall between the pass's two timestamps.
    pub same_timeline: bool,
    /// The probe pass as the timestamps saw it, ns.
    pub pass_ns: f64,
    /// The pass's start and end timestamps, ns.
    pub timestamps_ns: [u64; 2],
    /// The clock's first and last reads.
    pub clock: [u64; 2],
}

const OP_EXTENSION: u32 = 10;
const OP_NAME: u32 = 5;
const OP_CAPABILITY: u32 = 17;
const OP_TYPE_INT: u32 = 21;
const OP_CONSTANT: u32 = 43;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_CALL: u32 = 57;
const OP_READ_CLOCK_KHR: u32 = 5056;
const CAPABILITY_SHADER_CLOCK_KHR: u32 = 5055;
const SCOPE_DEVICE: u32 = 1;

/// A SPIR-V string literal's words (NUL-terminated, zero-padded).
fn literal(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `words` (a SPIR-V module) with every call of the function named [`CLOCK_FUNCTION`] replaced
/// by `OpReadClockKHR` at device scope, and the capability and extension it needs declared;
/// unchanged where no function has the name (naga's debug names). The function takes no
/// argument.
pub(crate) fn patch_clock(words: &[u32]) -> std::result::Result<Vec<u32>, String> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err("not a SPIR-V module".into());
    }
    let mut bound = words[3];
    // instructions as (start, len, opcode)
    let mut insts = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if len == 0 || at + len > words.len() {
            return Err(format!("malformed instruction at word {at}"));
        }
        insts.push((at, len, op));
        at += len;
    }
    // the stand-in: a function (naga names arguments and locals too) of that name
    let name = literal(CLOCK_FUNCTION);
    let functions: Vec<u32> = insts
        .iter()
        .filter(|&&(_, len, op)| op == OP_FUNCTION && len >= 3)
        .map(|&(s, _, _)| words[s + 2])
        .collect();
    let named = insts.iter().find(|&&(s, len, op)| {
        op == OP_NAME && words[s + 2..s + len] == name[..] && functions.contains(&words[s + 1])
    });
    // naga writes only what the entry point reaches: no function, no call, nothing to patch
    let Some(&(named, _, _)) = named else {
        return Ok(words.to_vec());
    };
    let function = words[named + 1];
    let uint = insts
        .iter()
        .find(|&&(s, len, op)| {
            op == OP_TYPE_INT && len == 4 && words[s + 2] == 32 && words[s + 3] == 0
        })
        .map(|&(s, _, _)| words[s + 1]);
    let existing_scope = uint.and_then(|u| {
        insts
            .iter()
            .find(|&&(s, len, op)| {
                op == OP_CONSTANT && len == 4 && words[s + 1] == u && words[s + 3] == SCOPE_DEVICE
            })
            .map(|&(s, _, _)| words[s + 2])
    });
    let mut extra_constant = Vec::new();
    let scope = match (existing_scope, uint) {
        (Some(c), _) => c,
        (None, Some(u)) => {
            let c = bound;
            bound += 1;
            extra_constant = vec![(4 << 16) | OP_CONSTANT, u, c, SCOPE_DEVICE];
            c
        }
        (None, None) => return Err("no 32-bit unsigned type for the scope".into()),
    };
    let last_capability = insts
        .iter()
        .rposition(|&(_, _, op)| op == OP_CAPABILITY)
        .ok_or("no capability")?;
    let first_function = insts
        .iter()
        .position(|&(_, _, op)| op == OP_FUNCTION)
        .ok_or("no function")?;
    let ext = literal("SPV_KHR_shader_clock");
    let mut out = words[..5].to_vec();
    for (i, &(s, len, op)) in insts.iter().enumerate() {
        if i == first_function {
            out.extend_from_slice(&extra_constant);
        }
        if op == OP_FUNCTION_CALL && words[s + 3] == function {
            if len != 4 {
                return Err(format!("{CLOCK_FUNCTION} takes arguments"));
            }
            out.extend_from_slice(&[
                (4 << 16) | OP_READ_CLOCK_KHR,
                words[s + 1],
                words[s + 2],
                scope,
            ]);
        } else {
            out.extend_from_slice(&words[s..s + len]);
        }
        if i == last_capability {
            out.extend_from_slice(&[(2 << 16) | OP_CAPABILITY, CAPABILITY_SHADER_CLOCK_KHR]);
            out.push(((1 + ext.len() as u32) << 16) | OP_EXTENSION);
            out.extend_from_slice(&ext);
        }
    }
    out[3] = bound;
    Ok(out)
}

/// The SPIR-V of `entry` of `k` with `overrides` applied and the clock patched in.
pub(crate) fn clocked_spirv(
    k: &Kernel,
    entry: &str,
    overrides: &[(String, f64)],
    bounds_checks: bool,
) -> Result<Vec<u32>> {
    use naga::back::spv;
    let fail = |e: String| Error::Gpu(format!("kernel {} with the device clock: {e}", k.name));
    let constants: naga::back::PipelineConstants =
        overrides.iter().map(|(n, v)| (n.clone(), *v)).collect();
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &k.module,
        &k.info,
        Some((naga::ShaderStage::Compute, entry)),
        &constants,
    )
    .map_err(|e| fail(e.to_string()))?;
    let policy = if bounds_checks {
        naga::proc::BoundsCheckPolicy::Restrict
    } else {
        naga::proc::BoundsCheckPolicy::Unchecked
    };
    // wgpu's Vulkan layouts number a group's bindings 0, 1, 2 … in the order of their WGSL
    // numbers (the explicit layout holds exactly the entry point's): the module must say the same
    let used = k
        .entry(entry)
        .ok_or_else(|| fail(format!("no entry point {entry}")))?;
    // (the rule is wgpu-hal 30's `create_bind_group_layout`: recheck it when wgpu moves)
    if let Some(b) = used.bindings.iter().find(|b| b.group != 0) {
        return Err(fail(format!(
            "binding {} is in group {}: only group 0 is laid out for the clock",
            b.binding, b.group
        )));
    }
    let mut numbers: Vec<u32> = used.bindings.iter().map(|b| b.binding).collect();
    numbers.sort_unstable();
    let binding_map = numbers
        .iter()
        .enumerate()
        .map(|(rank, &binding)| {
            let info = spv::BindingInfo {
                descriptor_set: 0,
                binding: rank as u32,
                binding_array_size: None,
            };
            (naga::ResourceBinding { group: 0, binding }, info)
        })
        .collect();
    let options = spv::Options {
        lang_version: (1, 3),
        binding_map,
        fake_missing_bindings: false,
        flags: spv::WriterFlags::DEBUG,
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: policy,
            buffer: policy,
            image_load: policy,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        force_loop_bounding: false,
        ..spv::Options::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry.to_string(),
    };
    let words = spv::write_vec(&module, &info, &options, Some(&pipeline))
        .map_err(|e| fail(e.to_string()))?;
    patch_clock(&words).map_err(fail)
}

impl GpuContext {
    /// Whether this device has the clock (opened by [`GpuContext::open_with_clock`] where the
    /// driver has it).
    pub fn has_clock(&self) -> bool {
        self.clock.is_some()
    }

    /// The shader module of a pipeline that asks for the clock (module docs).
    pub(super) fn clocked_module(
        &self,
        k: &Kernel,
        entry: &str,
        overrides: &[(String, f64)],
    ) -> Result<wgpu::ShaderModule> {
        if self.clock.is_none() {
            return Err(missing_clock(&format!("kernel {}", k.name)));
        }
        let checks = super::runtime_checks(k);
        let words = clocked_spirv(k, entry, overrides, checks.bounds_checks)?;
        self.scoped(|| {
            // SAFETY: the words are naga's SPIR-V of a validated kernel with calls of a
            // function returning vec2<u32> replaced by the clock read, which returns the same
            // type; the device has the extension and feature the read needs (`self.clock`).
            unsafe {
                self.device.create_shader_module_passthrough(
                    wgpu::ShaderModuleDescriptorPassthrough {
                        label: Some(&k.name),
                        entry_points: Cow::Owned(vec![wgpu::PassthroughShaderEntryPoint {
                            name: Cow::Borrowed(entry),
                            workgroup_size: (0, 0, 0),
                        }]),
                        spirv: Some(Cow::Owned(words)),
                        ..Default::default()
                    },
                )
            }
        })
    }
}

impl GpuContext {
    /// Opens the adapter [`GpuContext::open`] would, with the device's clock where it has one
    /// (module docs); without it, the device [`GpuContext::open`] opens ([`GpuContext::has_clock`]
    /// says which).
    pub fn open_with_clock() -> Result<GpuContext> {
        let adapter = Self::best_adapter()?;
        // a driver that lists the extension and then fails to open with it gets the plain device
        #[cfg(any(
            windows,
            target_os = "linux",
            target_os = "android",
            target_os = "freebsd"
        ))]
        if let Ok(Some(ctx)) = open_clocked(&adapter) {
            return Ok(ctx);
        }
        Self::open_adapter(adapter)
    }

    /// The device's timestamp time line now, read from the host, in ns (the timestamp queries'
    /// period applied; exact where it is 1 ns, as on the H200); `None` where the driver cannot
    /// say (no calibrated timestamps, or not on the device's time line).
    pub fn device_now(&self) -> Option<u64> {
        #[cfg(any(
            windows,
            target_os = "linux",
            target_os = "android",
            target_os = "freebsd"
        ))]
        {
            let c = self.clock.as_ref()?.calibrated.as_ref()?;
            let info = [ash::vk::CalibratedTimestampInfoKHR::default()
                .time_domain(ash::vk::TimeDomainKHR::DEVICE)];
            // SAFETY: the extension was enabled on this device when it was opened, with the
            // device's time domain among those the driver calibrates (`open_clocked`)
            let read = unsafe {
                match c {
                    Calibrated::Khr(d) => d.get_calibrated_timestamps(&info),
                    Calibrated::Ext(d) => d.get_calibrated_timestamps(&info),
                }
            };
            Some(ticks_ns(read.ok()?.0[0], self.queue.get_timestamp_period()))
        }
        #[cfg(not(any(
            windows,
            target_os = "linux",
            target_os = "android",
            target_os = "freebsd"
        )))]
        None
    }
}

/// The clock read the probe left at words `at` (low) and `at + 1` (high) of its reads.
fn clock_read(reads: &[u32], at: usize) -> u64 {
    (reads[at + 1] as u64) << 32 | reads[at] as u64
}

/// Timestamp ticks in ns: exact where a tick is 1 ns (f64 keeps only 53 bits of a time line that
/// may count from the epoch).
fn ticks_ns(ticks: u64, period: f32) -> u64 {
    if period == 1.0 {
        ticks
    } else {
        (ticks as f64 * period as f64) as u64
    }
}

/// A device on `adapter` with the clock, or `None` where the adapter is not Vulkan or its
/// driver lacks the extension or `shaderDeviceClock`.
#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
fn open_clocked(adapter: &wgpu::Adapter) -> Result<Option<GpuContext>> {
    use ash::vk;
    use wgpu::hal::api::Vulkan;
    if !adapter
        .features()
        .contains(wgpu::Features::PASSTHROUGH_SHADERS)
    {
        return Ok(None);
    }
    let desc = super::context::device_descriptor(adapter, wgpu::Features::PASSTHROUGH_SHADERS);
    // SAFETY: the hal adapter's handles are the adapter's own; the device is opened from it with
    // wgpu's own extensions and features plus the shader clock's (only where the driver lists
    // the extension and the feature, on a Vulkan 1.1 instance), and handed straight to wgpu
    // (`create_device_from_hal`) with the descriptor it was opened with
    let opened = unsafe {
        let Some(hal) = adapter.as_hal::<Vulkan>() else {
            return Ok(None);
        };
        let phd = hal.physical_device_capabilities();
        if !phd.supports_extension(ash::khr::shader_clock::NAME) {
            return Ok(None);
        }
        let shared = hal.shared_instance();
        // the features query below is Vulkan 1.1's
        if shared.instance_api_version() < vk::API_VERSION_1_1 {
            return Ok(None);
        }
        let instance = shared.raw_instance();
        let mut has = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
        let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut has);
        instance.get_physical_device_features2(hal.raw_physical_device(), &mut features);
        if has.shader_device_clock == vk::FALSE {
            return Ok(None);
        }
        // calibrated timestamps only where the driver calibrates the device's own time domain
        let raw_phd = hal.raw_physical_device();
        let device_domain = |domains: ash::prelude::VkResult<Vec<vk::TimeDomainKHR>>| {
            domains.is_ok_and(|d| d.contains(&vk::TimeDomainKHR::DEVICE))
        };
        let entry = shared.entry();
        let calibrated = if phd.supports_extension(ash::khr::calibrated_timestamps::NAME)
            && device_domain(
                ash::khr::calibrated_timestamps::Instance::new(entry, instance)
                    .get_physical_device_calibrateable_time_domains(raw_phd),
            ) {
            Some(ash::khr::calibrated_timestamps::NAME)
        } else if phd.supports_extension(ash::ext::calibrated_timestamps::NAME)
            && device_domain(
                ash::ext::calibrated_timestamps::Instance::new(entry, instance)
                    .get_physical_device_calibrateable_time_domains(raw_phd),
            )
        {
            Some(ash::ext::calibrated_timestamps::NAME)
        } else {
            None
        };
        let mut enable =
            vk::PhysicalDeviceShaderClockFeaturesKHR::default().shader_device_clock(true);
        let enable_ref = &mut enable;
        let open = hal
            .open_with_callback(
                desc.required_features,
                &desc.required_limits,
                &desc.memory_hints,
                Some(Box::new(
                    move |args: wgpu::hal::vulkan::CreateDeviceCallbackArgs| {
                        args.extensions.push(ash::khr::shader_clock::NAME);
                        args.extensions.extend(calibrated);
                        let info = std::mem::take(args.create_info);
                        *args.create_info = info.push_next(enable_ref);
                    },
                )),
            )
            .map_err(|e| Error::Device(format!("opening the device with its clock: {e}")))?;
        drop(hal);
        let (device, queue) = adapter
            .create_device_from_hal(open, &desc)
            .map_err(|e| Error::Device(e.to_string()))?;
        (device, queue, calibrated)
    };
    let (device, queue, calibrated) = opened;
    let calibrated = calibrated.and_then(|name| {
        // SAFETY: the handles are the device's own, alive as long as it is; the extension is
        // enabled on it
        unsafe {
            let hal = device.as_hal::<Vulkan>()?;
            let instance = hal.shared_instance().raw_instance();
            let raw = hal.raw_device();
            Some(if name == ash::khr::calibrated_timestamps::NAME {
                Calibrated::Khr(ash::khr::calibrated_timestamps::Device::new(instance, raw))
            } else {
                Calibrated::Ext(ash::ext::calibrated_timestamps::Device::new(instance, raw))
            })
        }
    });
    let clock = std::sync::Arc::new(Clock { calibrated });
    Ok(Some(GpuContext::opened(
        adapter,
        device,
        queue,
        Some(clock),
    )))
}

impl GpuContext {
    /// Measures the clock against the device's timestamp queries ([`ClockProbe`]): one pass in
    /// which one invocation reads the clock until ten million units have passed, timed by a
    /// timestamp at its start and its end. Needs the clock and `TIMESTAMP_QUERY`.
    pub fn probe_clock(&self) -> Result<ClockProbe> {
        if !self.caps.timestamps {
            return Err(Error::MissingFeature {
                feature: "TIMESTAMP_QUERY",
                needed_for: "the clock's probe".into(),
            });
        }
        let probe = self.probe_pass(None, true)?;
        let (enc, reads, stamps) = (probe.encoder, probe.reads, probe.stamps);
        let stamps = stamps.ok_or_else(|| Error::Gpu("the probe kept no timestamps".into()))?;
        self.submit_and_wait(enc)?;
        let r: Vec<u32> = bytemuck::pod_collect_to_vec(&self.download(&reads, 0, 32)?);
        let t: Vec<u64> = bytemuck::pod_collect_to_vec(&self.download(&stamps, 0, 16)?);
        let period = self.queue.get_timestamp_period();
        let (t0, t1) = (ticks_ns(t[0], period), ticks_ns(t[1], period));
        let (first, last) = (clock_read(&r, 0), clock_read(&r, 2));
        if last <= first || t1 <= t0 {
            return Err(Error::Gpu(format!(
                "the device clock did not advance over a {} ns pass ({} reads)",
                t1.saturating_sub(t0),
                r[4]
            )));
        }
        let pass_ns = (t1 - t0) as f64;
        let units_per_ns = (last - first) as f64 / pass_ns;
        Ok(ClockProbe {
            units_per_ns,
            same_timeline: (units_per_ns - 1.0).abs() < 0.01 && t0 <= first && last <= t1,
            pass_ns,
            timestamps_ns: [t0, t1],
            clock: [first, last],
        })
    }

    /// The floor under any kernel's latency from the host: a pass of one invocation that reads
    /// the clock once (`util/clock_probe` with `SPIN` 0), submitted alone on an otherwise idle
    /// device. Returns the host's moment just before `queue.submit` (the command buffer
    /// finished; [`GpuContext::device_now`]) and the pass's first clock read, both in ns where
    /// the clock is on the timestamps' time line ([`ClockProbe::same_timeline`]), and how long
    /// the `queue.submit` call took on the host, ns. Needs the clock and calibrated timestamps.
    pub fn bare_submit(&self) -> Result<(u64, u64, f64)> {
        let probe = self.probe_pass(Some(0), false)?;
        let (submitted, call_ns) = self.submit_timed(probe.encoder)?;
        let r: Vec<u32> = bytemuck::pod_collect_to_vec(&self.download(&probe.reads, 0, 32)?);
        Ok((submitted, clock_read(&r, 0), call_ns))
    }

    /// [`GpuContext::submit_and_wait`] of `enc`, with the host's moment on the device's
    /// timestamp time line read just before `queue.submit` (the command buffer finished;
    /// [`GpuContext::device_now`]) and how long that call took on the host, ns: where a
    /// latency from the host starts. Needs calibrated timestamps.
    pub fn submit_timed(&self, enc: wgpu::CommandEncoder) -> Result<(u64, f64)> {
        let commands = enc.finish();
        let (submitted, call_ns) = self.scoped(|| {
            let submitted = self.device_now();
            let call = std::time::Instant::now();
            self.queue.submit([commands]);
            (submitted, call.elapsed().as_nanos() as f64)
        })?;
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        self.scoped(|| ())?;
        let submitted = submitted.ok_or_else(|| Error::MissingFeature {
            feature: "VK_KHR_calibrated_timestamps",
            needed_for: "the host's moment on the device's time line".into(),
        })?;
        Ok((submitted, call_ns))
    }

    /// The probe's pass, recorded: `util/clock_probe` with `SPIN` where given, and with
    /// `timestamps` a timestamp at its start and end, resolved into `stamps`.
    fn probe_pass(&self, spin: Option<u32>, timestamps: bool) -> Result<ProbePass> {
        use crate::stages::util::clock_probe as probe;
        if self.clock.is_none() {
            return Err(missing_clock("the clock's probe"));
        }
        let k = probe::STAGE.load(self.caps.flavor())?;
        let mut overrides = vec![(probe::DEVICE_CLOCK.name().to_string(), 1.0)];
        overrides.extend(spin.map(|n| (probe::SPIN.name().to_string(), n as f64)));
        let pipeline = self.pipeline(&k, probe::entry::main.name(), &overrides, &[])?;
        let reads = self.create_buffer("clock probe", 32, wgpu::BufferUsages::empty())?;
        let stamps = if timestamps {
            Some(self.create_buffer("clock probe stamps", 16, wgpu::BufferUsages::QUERY_RESOLVE)?)
        } else {
            None
        };
        let (set, group) = self.scoped(|| {
            let set = timestamps.then(|| {
                self.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("clock probe"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                })
            });
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("clock probe"),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: reads.as_entire_binding(),
                }],
            });
            (set, group)
        })?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("clock probe"),
                timestamp_writes: set.as_ref().map(|set| wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        if let (Some(set), Some(stamps)) = (&set, &stamps) {
            encoder.resolve_query_set(set, 0..2, stamps, 0);
        }
        Ok(ProbePass {
            encoder,
            reads,
            stamps,
        })
    }
}

/// [`GpuContext::probe_pass`]'s recording and buffers.
struct ProbePass {
    encoder: wgpu::CommandEncoder,
    reads: wgpu::Buffer,
    stamps: Option<wgpu::Buffer>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// naga's SPIR-V of `src`'s `main`, with the debug names the patch finds the stand-in by.
    fn spirv(src: &str) -> Vec<u32> {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let info = naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&module)
            .unwrap();
        let options = naga::back::spv::Options {
            flags: naga::back::spv::WriterFlags::DEBUG,
            ..Default::default()
        };
        naga::back::spv::write_vec(&module, &info, &options, None).unwrap()
    }

    /// (opcode, operands) of every instruction after the header.
    fn instructions(words: &[u32]) -> Vec<(u32, Vec<u32>)> {
        let mut at = 5;
        let mut out = Vec::new();
        while at < words.len() {
            let len = (words[at] >> 16) as usize;
            out.push((words[at] & 0xffff, words[at + 1..at + len].to_vec()));
            at += len;
        }
        out
    }

    const STAND_IN: &str = "fn device_clock() -> vec2<u32> { return vec2<u32>(0xffffffffu); }\n";

    #[test]
    fn every_call_of_the_stand_in_becomes_the_clock_read() {
        let src = format!(
            "fn shadows(device_clock: u32) -> u32 {{ return device_clock + 1u; }}
             {STAND_IN}fn device_clock_twice() -> vec2<u32> {{ return device_clock(); }}
             @group(0) @binding(0) var<storage, read_write> out: array<u32>;
             @compute @workgroup_size(1) fn main() {{
                 let a = device_clock();
                 let b = device_clock_twice();
                 out[0] = b.x - a.x + shadows(a.y);
             }}"
        );
        let words = spirv(&src);
        let patched = patch_clock(&words).unwrap();
        let ops = instructions(&patched);
        let count = |op| ops.iter().filter(|(o, _)| *o == op).count();
        assert_eq!(count(OP_READ_CLOCK_KHR), 2, "both calls of the stand-in");
        // the calls of a function whose name only starts like the stand-in's, and of one whose
        // parameter has the stand-in's name (named first), stay calls
        assert_eq!(count(OP_FUNCTION_CALL), 2);
        assert!(ops.contains(&(OP_CAPABILITY, vec![CAPABILITY_SHADER_CLOCK_KHR])));
        assert!(ops.contains(&(OP_EXTENSION, literal("SPV_KHR_shader_clock"))));
        // the scope operand is a 32-bit constant 1 (device) below the new bound
        let scope = ops.iter().find(|(o, _)| *o == OP_READ_CLOCK_KHR).unwrap().1[2];
        assert!(scope < patched[3]);
        assert!(ops
            .iter()
            .any(|(o, a)| *o == OP_CONSTANT && a[1] == scope && a[2] == SCOPE_DEVICE));
        assert_eq!(
            patched.len(),
            words.len() + 2 + 7 + (patched[3] - words[3]) as usize * 4
        );
    }

    #[test]
    fn a_module_without_the_stand_in_is_left_alone() {
        let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
                   @compute @workgroup_size(1) fn main() { out[0] = 1u; }";
        let words = spirv(src);
        assert_eq!(patch_clock(&words).unwrap(), words);
    }

    #[test]
    fn a_stand_in_with_arguments_and_what_is_not_spirv_are_refused() {
        let src = "fn device_clock(x: u32) -> vec2<u32> { return vec2<u32>(x); }
                   @group(0) @binding(0) var<storage, read_write> out: array<u32>;
                   @compute @workgroup_size(1) fn main() { out[0] = device_clock(3u).x; }";
        let e = patch_clock(&spirv(src)).unwrap_err();
        assert!(e.contains("takes arguments"), "{e}");
        assert!(patch_clock(&[1, 2, 3])
            .unwrap_err()
            .contains("not a SPIR-V"));
        let mut cut = spirv(STAND_IN);
        cut.truncate(cut.len() - 2); // the return value's operand and the function's end
        assert!(patch_clock(&cut).unwrap_err().contains("malformed"));
    }
}
