//! Driver compile statistics of wgsimd's compute pipelines (a lab tool, not a test): registers,
//! local memory / spills, shared memory, instruction counts — whatever the Vulkan driver reports
//! through `VK_KHR_pipeline_executable_properties` — for every distinct (kernel, entry point,
//! overrides) among:
//!
//! - the passes of the GEMM plans (`wgsimd::gemm::plan`, public): f16 8192³ and 2048³, f32
//!   4096³, the few-rows kernel (forced) at 1, 8 and 16 rows (f32, f16, int4 B), the decode-sized
//!   cooperative tiles at 16, 32 and 64 rows of 14336×4096 (f16, int4), every cooperative tile
//!   of the lab's list (`lab/src/tiles.rs`) at 8192³, and the candidate kernels of `lab/wgsl/`
//!   on their tiles;
//! - the passes of the sort plans (`Sorter::plan`, made on a simulator of this device's caps):
//!   u32 keys and pairs by each strategy at 2^20 and 2^24 keys (OneSweep's small and large
//!   tiles), f32 and i32 keys by OneSweep;
//! - with `VK_STATS_STAGES`, shipped stages at their WGSL override defaults.
//!
//! `cargo run --release -p wgsimd-lab --bin vk_stats`
//!
//! The device is opened through wgpu-hal with the features and limits wgsimd requests
//! (`wgsimd::gpu::wanted_features`, the adapter's limits), plus the extension, and each kernel is
//! compiled to SPIR-V with naga as wgpu-hal does (capabilities, bounds-check policies,
//! workgroup-memory zeroing, and the runtime checks of `wgsimd::gpu::runtime_checks`). The
//! adapter is the Vulkan adapter `Context::open_gpu` picks (`WGSIMD_ADAPTER` filters by name).
//!
//! Environment:
//! - `VK_STATS_ONLY=substr`: only kernels whose name contains `substr`.
//! - `VK_STATS_EDIT=from=>to`: kernels whose composed text contains `from` are compiled with it
//!   replaced by `to` (compose, replace, `Kernel::from_source`: the statistics of a variant,
//!   e.g. `const LOOKBACK: u32 = 4u;=>const LOOKBACK: u32 = 8u;`).
//! - `VK_STATS_SOURCE=file`: the cooperative-matrix passes (`gemm/coop*`) are compiled from that
//!   WGSL file instead (its `//!include` lines resolved against the library's `wgsl/`, as
//!   `lab/wgsl/` candidates are).
//! - `VK_STATS_SET=NAME=VALUE,...`: these overrides, on every target whose kernel declares them
//!   (the sort stages' defaults, or a plan's pass).
//! - `VK_STATS_STAGES=scan/,reduce/`: the shipped stages under these prefixes compiled at their
//!   defaults (none by default).
//! - `VK_STATS_DIR=dir`: write each pipeline's SPIR-V, the driver's text internal
//!   representations and the pipeline cache's data (`.cache`) there, named after the pass.
//!   NVIDIA's driver reports no internal representation, but its cache data holds the
//!   compiled machine code: a zstd frame whose content starts `NVDANVVMNVuc`, with a table at
//!   byte 0x48 of (kind, size, offset) and the instructions from offset + 8 on. That code is
//!   written as `.sm.bin`; on a machine with the CUDA toolkit `nvdisasm -b SM90 FILE` prints
//!   its SASS. The layout was read off driver 580.159.04; where it differs, only the `.cache`
//!   file is written.
//! - `VK_STATS_NO_CAPTURE=1`: without the extension (lavapipe lacks it): build every pipeline
//!   and print "pipeline ok", to check the SPIR-V and pipeline path.
//! - `VK_STATS_PROBE=1`: also a small kernel that must use local memory (a dynamically indexed
//!   1 KiB array per invocation), to see how the driver reports it.
//! - `VK_STATS_FAKE_COOP=1`: plan as on an adapter with 32-wide subgroups and 16×16×16
//!   f16 → f32 cooperative matrices, and only write SPIR-V (creates no Vulkan objects), to
//!   check the cooperative-matrix kernels' SPIR-V on an adapter without them.

use std::collections::HashSet;
use std::ffi::CStr;
use std::sync::Arc;

use ash::{khr, vk};
use naga::back::spv;
use wgpu::hal::api::Vulkan;
use wgpu::hal::vulkan::{CreateDeviceCallback, CreateDeviceCallbackArgs};
use wgsimd::device::CoopShape;
use wgsimd::gemm::{self, Format, GemmOptions, PathChoice};
use wgsimd::kernel::{self, BindingKind, Flavor, Kernel};
use wgsimd::plan::{BufferInit, Plan, Workgroups};
use wgsimd::{Caps, Context};
use wgsimd_lab::{candidates, tiles};

/// One pipeline to inspect: where it was first seen and what it compiles.
struct Target {
    plan: String,
    pass: String,
    kernel: Arc<Kernel>,
    entry: String,
    overrides: Vec<(String, f64)>,
}

impl Target {
    fn overrides_text(&self) -> String {
        let o: Vec<String> = self
            .overrides
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        o.join(",")
    }
}

/// `VK_STATS_SET`'s overrides.
fn set_overrides() -> Vec<(String, f64)> {
    std::env::var("VK_STATS_SET")
        .iter()
        .flat_map(|s| s.split(','))
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let (k, v) = s.split_once('=').expect("VK_STATS_SET=NAME=VALUE,...");
            (k.trim().to_string(), v.trim().parse().expect("a number"))
        })
        .collect()
}

/// Collects the distinct targets of `plans` (their passes by kernel, entry point and overrides)
/// into `out`, with the environment's edits applied.
fn collect(
    plans: Vec<(String, Result<Vec<Target>, String>)>,
    seen: &mut HashSet<String>,
    out: &mut Vec<Target>,
) {
    let only = std::env::var("VK_STATS_ONLY").ok();
    let edit = std::env::var("VK_STATS_EDIT").ok();
    let edit = edit
        .as_deref()
        .map(|e| e.split_once("=>").expect("VK_STATS_EDIT is from=>to"));
    // (named `source:FILE`: a name of its own, as the module cache of a GPU context wants)
    let source = std::env::var("VK_STATS_SOURCE").ok().map(|f| {
        let text =
            std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("VK_STATS_SOURCE {f}: {e}"));
        (format!("source:{f}"), text)
    });
    let set = set_overrides();
    for (label, targets) in plans {
        let targets = match targets {
            Ok(t) => t,
            Err(e) => {
                println!("-- {label}: no plan: {e}");
                continue;
            }
        };
        for mut t in targets {
            if only
                .as_ref()
                .is_some_and(|o| !t.kernel.name.contains(o.as_str()))
            {
                continue;
            }
            let replaced = match (edit, &source) {
                (_, Some((name, src))) if t.kernel.name.starts_with("gemm/coop") => {
                    let flavor = t.kernel.flavor;
                    kernel::compose_text(name, src, flavor)
                        .and_then(|text| Kernel::from_source(name, flavor, text).map(Arc::new))
                }
                (Some((from, to)), _) if t.kernel.source.contains(from) => {
                    candidates::edited(&t.kernel, t.kernel.source.replace(from, to))
                }
                _ => Ok(t.kernel.clone()),
            };
            t.kernel = match replaced {
                Ok(k) => k,
                Err(e) => {
                    println!("-- {label} / {}: the edited kernel: {e}", t.pass);
                    continue;
                }
            };
            // overrides the (possibly replaced) kernel declares, then VK_STATS_SET's
            let declared = candidates::override_names(&t.kernel);
            t.overrides.retain(|(k, _)| declared.contains(k));
            for (k, v) in &set {
                if declared.contains(k) {
                    t.overrides.retain(|(o, _)| o != k);
                    t.overrides.push((k.clone(), *v));
                }
            }
            let key = format!("{} {} {}", t.kernel.name, t.entry, t.overrides_text());
            if seen.insert(key) {
                out.push(t);
            }
        }
    }
}

/// The targets of `plan`'s passes.
fn targets_of(label: &str, plan: &Plan) -> Vec<Target> {
    plan.passes
        .iter()
        .map(|p| Target {
            plan: label.to_string(),
            pass: p.label.clone(),
            kernel: p.kernel.clone(),
            entry: p.entry.clone(),
            overrides: p.overrides.clone(),
        })
        .collect()
}

/// The sort plans of the module docs, each as a sorter on a simulator of `caps` makes it.
fn sort_plans(caps: &Caps) -> Vec<(String, Result<Vec<Target>, String>)> {
    use wgsimd::dtype::Dtype;
    use wgsimd::sort::{SortConfig, Sorter, Strategy};
    let sim = match Context::simulator(wgsimd::sim::SimConfig::for_profile(caps.clone())) {
        Ok(s) => s,
        Err(e) => return vec![("sort".into(), Err(e.to_string()))],
    };
    let mut configs = Vec::new();
    for n in [1u64 << 20, 1 << 24] {
        for strategy in [Strategy::ReduceThenScan, Strategy::OneSweep] {
            let keys = SortConfig::keys(Dtype::U32, n).strategy(strategy);
            configs.push((format!("sort keys u32 {strategy} {n}"), keys));
            configs.push((format!("sort pairs u32 {strategy} {n}"), keys.with_values()));
        }
    }
    for dtype in [Dtype::F32, Dtype::I32] {
        let keys = SortConfig::keys(dtype, 1 << 20).strategy(Strategy::OneSweep);
        configs.push((format!("sort keys {dtype} onesweep"), keys));
    }
    configs
        .into_iter()
        .map(|(label, config)| {
            let targets = Sorter::new(&sim, config)
                .map(|s| targets_of(&label, s.plan()))
                .map_err(|e| e.to_string());
            (label, targets)
        })
        .collect()
}

/// The shipped stages under the prefixes of `VK_STATS_STAGES`, every entry point at its WGSL
/// override defaults.
fn stage_targets(caps: &Caps) -> Vec<(String, Result<Vec<Target>, String>)> {
    let prefixes = std::env::var("VK_STATS_STAGES").unwrap_or_default();
    let prefixes: Vec<&str> = prefixes.split(',').filter(|p| !p.is_empty()).collect();
    kernel::shipped_kernels()
        .into_iter()
        .filter(|name| prefixes.iter().any(|p| name.starts_with(p)))
        .map(|name| {
            let label = format!("{name} (stage defaults)");
            let targets = kernel::load(name, caps.flavor())
                .map(|k| {
                    k.entries
                        .iter()
                        .map(|e| Target {
                            plan: label.clone(),
                            pass: e.name.clone(),
                            kernel: k.clone(),
                            entry: e.name.clone(),
                            overrides: Vec::new(),
                        })
                        .collect()
                })
                .map_err(|e| e.to_string());
            (label, targets)
        })
        .collect()
}

/// The GEMM plans: f16 8192³ and 2048³, f32 4096³ and the few-rows kernel as the plan chooses,
/// then every cooperative tile of the lab's list at 8192³ and the candidate kernels on theirs.
fn gemm_plans(caps: &Caps) -> Vec<(String, Result<Vec<Target>, String>)> {
    let mut plans = Vec::new();
    let mut add = |label: String, r: wgsimd::Result<gemm::GemmPlan>| {
        let t = r.map(|p| targets_of(&label, &p.plan));
        plans.push((label, t.map_err(|e| e.to_string())));
    };
    let auto = GemmOptions::default();
    for n in [8192, 2048] {
        add(
            format!("gemm f16 {n}³"),
            gemm::plan(caps, Format::F16, n, n, n, auto),
        );
    }
    let n = 4096;
    add(
        format!("gemm f32 {n}³"),
        gemm::plan(caps, Format::F32, n, n, n, auto),
    );
    // the few-rows kernel, forced (where the adapter has cooperative matrices, `Auto` takes
    // them from 5 rows for int4 on coop16's int4 tile): one pipeline per B format and row count (1, its 8-row block,
    // the most the product sends it)
    let gemv = GemmOptions {
        path: PathChoice::Gemv,
        ..Default::default()
    };
    for m in [1, 8, gemm::GEMV_MAX_M] {
        for fmt in [Format::F32, Format::F16] {
            add(
                format!("gemm {fmt:?} {m}x{n}x{n}").to_lowercase(),
                gemm::plan(caps, fmt, m, n, n, gemv),
            );
        }
        add(
            format!("gemm int4 {m}x{n}x{n}"),
            gemm::plan_int4(caps, m, n, n, false, gemv),
        );
    }
    // the decode-sized products' cooperative tiles (coop::rows_tile) as the plan chooses them
    for m in [16, 32, 64] {
        let (dn, dk) = (14336, 4096);
        add(
            format!("gemm f16 {m}x{dn}x{dk}"),
            gemm::plan(caps, Format::F16, m, dn, dk, auto),
        );
        add(
            format!("gemm int4 {m}x{dn}x{dk}"),
            gemm::plan_int4(caps, m, dk, dn, false, auto),
        );
    }
    let big = 8192;
    let coop = |v| GemmOptions {
        path: PathChoice::Coop,
        coop: Some(v),
        ..Default::default()
    };
    for (name, v) in tiles::coop() {
        add(
            format!("gemm f16 {big}³ {name}"),
            gemm::plan(caps, Format::F16, big, big, big, coop(v)),
        );
    }
    for c in candidates::all() {
        for (tile, v) in &c.tiles {
            let label = format!("gemm f16 {big}³ cand {} {tile}", c.name);
            let r = gemm::plan(caps, Format::F16, big, big, big, coop(*v))
                .map_err(|e| e.to_string())
                .and_then(|mut p| {
                    let k = c.kernel(caps.flavor()).map_err(|e| e.to_string())?;
                    candidates::swap_kernel(&mut p.plan, "gemm/coop", &k);
                    Ok(targets_of(&label, &p.plan))
                });
            plans.push((label, r));
        }
    }
    plans
}

/// A kernel that must keep a dynamically indexed 1 KiB array per invocation in local memory:
/// shows how the driver reports local memory (`VK_STATS_PROBE=1`).
fn probe_plan() -> (String, Result<Vec<Target>, String>) {
    const SOURCE: &str = "
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var a: array<u32, 256>;
    let n = arrayLength(&data);
    for (var i = 0u; i < 256u; i++) {
        a[i] = data[(id.x + i * 977u) % n];
    }
    var s = 0u;
    for (var i = 0u; i < 256u; i++) {
        s += a[(data[i % n] + id.x) & 255u];
    }
    data[id.x % n] = s;
}
";
    let plan = Kernel::from_source("probe/local_array", Flavor::Subgroup, SOURCE.into())
        .and_then(|k| {
            let mut p = Plan::new("probe");
            let b = p.buffer("data", 1 << 20, BufferInit::Zeroed);
            let wg = Workgroups::Direct([1, 1, 1]);
            p.pass_named("local array", &Arc::new(k), "main", &[], &[("data", b)], wg)?;
            Ok(targets_of("probe", &p))
        })
        .map_err(|e| e.to_string());
    ("probe".into(), plan)
}

/// What the Vulkan side needs: the raw device (kept open by `_hal`), the extension's functions
/// (`None` without capture) and the SPIR-V options wgpu-hal would use.
struct Vk {
    device: ash::Device,
    exec_props: Option<khr::pipeline_executable_properties::Device>,
    spv: spv::Options<'static>,
    varying_subgroups: bool,
    _hal: wgpu::hal::OpenDevice<Vulkan>,
}

/// Whether the physical device reports `name` among its extensions.
fn has_extension(instance: &ash::Instance, phd: vk::PhysicalDevice, name: &CStr) -> bool {
    // SAFETY: `phd` comes from this instance.
    unsafe { instance.enumerate_device_extension_properties(phd) }
        .unwrap_or_default()
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// The device features wgpu-hal derives its SPIR-V options from (its `PrivateCapabilities`).
struct PhdCaps {
    api_version: u32,
    vendor_id: u32,
    robust_buffer_access2: bool,
    robust_image_access: bool,
    zero_initialize_workgroup_memory: bool,
    shader_integer_dot_product: bool,
    shader_int8: bool,
    storage_input_output16: bool,
    pipeline_executable_info: bool,
}

fn phd_caps(instance: &ash::Instance, phd: vk::PhysicalDevice) -> PhdCaps {
    let has = |n: &CStr| has_extension(instance, phd, n);
    // SAFETY: `phd` comes from this instance.
    let props = unsafe { instance.get_physical_device_properties(phd) };
    let api = props.api_version;
    let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
    let mut image_robustness = vk::PhysicalDeviceImageRobustnessFeatures::default();
    let mut zero_init = vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default();
    let mut dot = vk::PhysicalDeviceShaderIntegerDotProductFeatures::default();
    let mut f16_i8 = vk::PhysicalDeviceShaderFloat16Int8Features::default();
    let mut storage16 = vk::PhysicalDevice16BitStorageFeatures::default();
    let mut exec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default();
    // chain only structures the device knows, as wgpu-hal does
    if has(ash::ext::robustness2::NAME) {
        f2 = f2.push_next(&mut robustness2);
    }
    if api >= vk::API_VERSION_1_3 || has(ash::ext::image_robustness::NAME) {
        f2 = f2.push_next(&mut image_robustness);
    }
    if api >= vk::API_VERSION_1_3 || has(khr::zero_initialize_workgroup_memory::NAME) {
        f2 = f2.push_next(&mut zero_init);
    }
    if api >= vk::API_VERSION_1_3 || has(khr::shader_integer_dot_product::NAME) {
        f2 = f2.push_next(&mut dot);
    }
    if api >= vk::API_VERSION_1_2 || has(khr::shader_float16_int8::NAME) {
        f2 = f2.push_next(&mut f16_i8);
    }
    if has(khr::_16bit_storage::NAME) {
        f2 = f2.push_next(&mut storage16);
    }
    let exec_ext = has(khr::pipeline_executable_properties::NAME);
    if exec_ext {
        f2 = f2.push_next(&mut exec);
    }
    // SAFETY: every chained structure is valid for this device (checked above).
    unsafe { instance.get_physical_device_features2(phd, &mut f2) };
    PhdCaps {
        api_version: api,
        vendor_id: props.vendor_id,
        robust_buffer_access2: robustness2.robust_buffer_access2 != 0,
        robust_image_access: robustness2.robust_image_access2 != 0
            || image_robustness.robust_image_access != 0,
        zero_initialize_workgroup_memory: zero_init.shader_zero_initialize_workgroup_memory != 0,
        shader_integer_dot_product: dot.shader_integer_dot_product != 0,
        shader_int8: f16_i8.shader_int8 != 0,
        storage_input_output16: storage16.storage_input_output16 != 0,
        pipeline_executable_info: exec_ext && exec.pipeline_executable_info != 0,
    }
}

/// wgpu-hal 30's `naga::back::spv::Options` for a device with `features` (adapter.rs,
/// `device_from_raw`), restricted to what compute shaders and our features touch.
fn spv_options(
    c: &PhdCaps,
    features: wgpu::Features,
    downlevel: wgpu::DownlevelFlags,
    limits: &wgpu::Limits,
) -> spv::Options<'static> {
    use spv::Capability as C;
    let mut caps = vec![
        C::Shader,
        C::Matrix,
        C::Sampled1D,
        C::Image1D,
        C::ImageQuery,
        C::DerivativeControl,
        C::StorageImageExtendedFormats,
    ];
    if downlevel.contains(wgpu::DownlevelFlags::CUBE_ARRAY_TEXTURES) {
        caps.push(C::SampledCubeArray);
    }
    if downlevel.contains(wgpu::DownlevelFlags::MULTISAMPLED_SHADING) {
        caps.push(C::SampleRateShading);
    }
    if features.contains(wgpu::Features::SUBGROUP) {
        caps.extend([
            C::GroupNonUniform,
            C::GroupNonUniformVote,
            C::GroupNonUniformArithmetic,
            C::GroupNonUniformBallot,
            C::GroupNonUniformShuffle,
            C::GroupNonUniformShuffleRelative,
            C::GroupNonUniformQuad,
        ]);
    }
    if features.contains(wgpu::Features::SHADER_F16) {
        caps.push(C::Float16);
    }
    if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
        caps.extend([C::CooperativeMatrixKHR, C::VulkanMemoryModel]);
    }
    if c.shader_integer_dot_product {
        caps.extend([
            C::DotProductInputAllKHR,
            C::DotProductInput4x8BitKHR,
            C::DotProductInput4x8BitPackedKHR,
            C::DotProductKHR,
        ]);
    }
    if c.shader_int8 {
        caps.push(C::Int8);
    }
    let mut flags = spv::WriterFlags::FORCE_POINT_SIZE;
    // the instance flags `list_adapters` creates its instance with
    let instance_flags = wgpu::InstanceFlags::from_build_config().with_env();
    flags.set(
        spv::WriterFlags::DEBUG,
        instance_flags.contains(wgpu::InstanceFlags::DEBUG),
    );
    // Qualcomm's vendor id (wgpu-hal auxil::db::qualcomm::VENDOR)
    flags.set(spv::WriterFlags::LABEL_VARYINGS, c.vendor_id != 0x5143);
    let restrict_unless = |robust: bool| {
        if robust {
            naga::proc::BoundsCheckPolicy::Unchecked
        } else {
            naga::proc::BoundsCheckPolicy::Restrict
        }
    };
    spv::Options {
        lang_version: match c.api_version {
            v if v >= vk::API_VERSION_1_3 => (1, 6),
            v if v >= vk::API_VERSION_1_2 => (1, 5),
            v if v >= vk::API_VERSION_1_1 => (1, 3),
            _ => (1, 0),
        },
        flags,
        capabilities: Some(caps.into_iter().collect()),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer: restrict_unless(c.robust_buffer_access2),
            image_load: restrict_unless(c.robust_image_access),
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: if c.zero_initialize_workgroup_memory {
            spv::ZeroInitializeWorkgroupMemoryMode::Native
        } else {
            spv::ZeroInitializeWorkgroupMemoryMode::Polyfill
        },
        force_loop_bounding: true,
        ray_query_initialization_tracking: true,
        trace_ray_argument_validation: true,
        use_storage_input_output_16: features.contains(wgpu::Features::SHADER_F16)
            && c.storage_input_output16,
        fake_missing_bindings: false,
        binding_map: Default::default(),
        debug_info: None,
        task_dispatch_limits: Some(naga::back::TaskDispatchLimits {
            max_mesh_workgroups_per_dim: limits.max_mesh_workgroups_per_dimension,
            max_mesh_workgroups_total: limits.max_mesh_workgroup_total_count,
        }),
        mesh_shader_primitive_indices_clamp: true,
        emit_int_div_checks: true,
    }
}

/// The SPIR-V of `t` as wgpu-hal's `compile_stage` writes it. Like wgpu-hal's descriptor set
/// layouts, the entry point's group-0 bindings are renumbered 0, 1, 2... in binding order
/// (`inspect` builds the matching layout).
fn spirv(base: &spv::Options<'static>, t: &Target) -> Result<Vec<u32>, String> {
    let s = t
        .kernel
        .specialize(&t.entry, &t.overrides)
        .map_err(|e| e.to_string())?;
    let checks = wgsimd::gpu::runtime_checks(&t.kernel);
    let mut o = base.clone();
    let entry = t
        .kernel
        .entry(&t.entry)
        .ok_or_else(|| format!("no entry point {}", t.entry))?;
    for (i, b) in entry.bindings.iter().enumerate() {
        o.binding_map.insert(
            naga::ResourceBinding {
                group: b.group,
                binding: b.binding,
            },
            spv::BindingInfo {
                descriptor_set: 0,
                binding: i as u32,
                binding_array_size: None,
            },
        );
    }
    if !checks.bounds_checks {
        o.bounds_check_policies = naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Unchecked,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        };
    }
    o.force_loop_bounding &= checks.force_loop_bounding;
    o.ray_query_initialization_tracking &= checks.ray_query_initialization_tracking;
    if !checks.task_shader_dispatch_tracking {
        o.task_dispatch_limits = None;
    }
    o.mesh_shader_primitive_indices_clamp = checks.mesh_shader_primitive_indices_clamp;
    o.emit_int_div_checks = checks.int_div_checks;
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: t.entry.clone(),
    };
    spv::write_vec(&s.module, &s.info, &o, Some(&pipeline)).map_err(|e| e.to_string())
}

/// Vulkan objects of one pipeline, destroyed on drop (null handles are skipped).
struct Objects<'a> {
    device: &'a ash::Device,
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        // SAFETY: the handles were created on this device and nothing uses them any more.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device
                .destroy_descriptor_set_layout(self.set_layout, None);
            self.device.destroy_shader_module(self.module, None);
        }
    }
}

fn c_str(chars: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    chars.map_or_else(|_| "?".into(), |s| s.to_string_lossy().into_owned())
}

/// A file name made of `parts` (letters, digits, `-`, `.`, `=`; the rest becomes `_`).
fn file_name(parts: &[&str]) -> String {
    parts
        .join("-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-.=".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Builds `t`'s pipeline on `vk` and prints what the driver reports.
fn inspect(vk: &Vk, t: &Target, index: usize, dir: Option<&str>) -> Result<(), String> {
    let words = spirv(&vk.spv, t)?;
    let stem = file_name(&[&format!("{index:03}"), &t.kernel.name, &t.pass]);
    if let Some(dir) = dir {
        let path = format!("{dir}/{stem}.spv");
        std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(&words))
            .map_err(|e| format!("{path}: {e}"))?;
    }
    let d = &vk.device;
    let err = |what: &'static str| move |e: vk::Result| format!("{what}: {e}");
    let mut o = Objects {
        device: d,
        module: vk::ShaderModule::null(),
        set_layout: vk::DescriptorSetLayout::null(),
        layout: vk::PipelineLayout::null(),
        pipeline: vk::Pipeline::null(),
    };
    let entry = t
        .kernel
        .entry(&t.entry)
        .ok_or_else(|| format!("no entry point {}", t.entry))?;
    let bindings: Vec<vk::DescriptorSetLayoutBinding> = entry
        .bindings
        .iter()
        .enumerate()
        .map(|(i, b)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i as u32)
                .descriptor_type(match b.kind {
                    BindingKind::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                    BindingKind::StorageRead | BindingKind::StorageReadWrite => {
                        vk::DescriptorType::STORAGE_BUFFER
                    }
                })
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let entry_name = std::ffi::CString::new(t.entry.as_str()).map_err(|e| e.to_string())?;
    let mut flags = vk::PipelineCreateFlags::empty();
    if vk.exec_props.is_some() {
        flags |= vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
            | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
    }
    let stage_flags = if vk.varying_subgroups {
        vk::PipelineShaderStageCreateFlags::ALLOW_VARYING_SUBGROUP_SIZE
    } else {
        vk::PipelineShaderStageCreateFlags::empty()
    };
    // SAFETY: valid create infos on a live device; the objects are destroyed by `o`'s drop.
    unsafe {
        o.module = d
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
            .map_err(err("vkCreateShaderModule"))?;
        o.set_layout = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .map_err(err("vkCreateDescriptorSetLayout"))?;
        let set_layouts = [o.set_layout];
        o.layout = d
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                None,
            )
            .map_err(err("vkCreatePipelineLayout"))?;
        let info = vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .layout(o.layout)
            .stage(
                vk::PipelineShaderStageCreateInfo::default()
                    .flags(stage_flags)
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(o.module)
                    .name(&entry_name),
            );
        // with VK_STATS_DIR, a pipeline cache of its own, saved beside the SPIR-V: NVIDIA's
        // holds the compiled machine code (`nvidia_code`), written as `.sm.bin` for nvdisasm
        let cache = match dir {
            Some(_) => d
                .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
                .map_err(err("vkCreatePipelineCache"))?,
            None => vk::PipelineCache::null(),
        };
        let created = d
            .create_compute_pipelines(cache, &[info], None)
            .map_err(|(_, e)| format!("vkCreateComputePipelines: {e}"));
        if let Some(dir) = dir {
            let data = d.get_pipeline_cache_data(cache);
            d.destroy_pipeline_cache(cache, None);
            let data = data.map_err(err("vkGetPipelineCacheData"))?;
            let path = format!("{dir}/{stem}.cache");
            std::fs::write(&path, &data).map_err(|e| format!("{path}: {e}"))?;
            if let Some(code) = nvidia_code(&data) {
                let path = format!("{dir}/{stem}.sm.bin");
                std::fs::write(&path, code).map_err(|e| format!("{path}: {e}"))?;
                println!("  machine code: {path} (`nvdisasm -b SM90 {path}`)");
            }
        }
        o.pipeline = created?[0];
    }
    let Some(ext) = &vk.exec_props else {
        println!("  pipeline ok ({} bytes of SPIR-V)", words.len() * 4);
        return Ok(());
    };
    // SAFETY: the pipeline was created with the capture flags on a device with the extension.
    let executables = unsafe {
        ext.get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(o.pipeline))
    }
    .map_err(err("vkGetPipelineExecutablePropertiesKHR"))?;
    for (i, p) in executables.iter().enumerate() {
        println!(
            "  executable {i}: {} ({}), subgroup size {}",
            c_str(p.name_as_c_str()),
            c_str(p.description_as_c_str()),
            p.subgroup_size
        );
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(o.pipeline)
            .executable_index(i as u32);
        // SAFETY: as above, `i` is one of the pipeline's executables.
        match unsafe { ext.get_pipeline_executable_statistics(&info) } {
            Ok(stats) => {
                for s in &stats {
                    let value = statistic_value(s);
                    println!(
                        "    {} = {value}    ({}; {:?})",
                        c_str(s.name_as_c_str()),
                        c_str(s.description_as_c_str()),
                        s.format
                    );
                }
            }
            Err(e) => println!("    vkGetPipelineExecutableStatisticsKHR: {e}"),
        }
        match internal_representations(ext, &info) {
            Ok(irs) if irs.is_empty() => println!("    (no internal representations)"),
            Ok(irs) => {
                for ir in irs {
                    let kind = if ir.text { "text" } else { "binary" };
                    println!(
                        "    IR {} ({}): {} bytes, {kind}",
                        ir.name,
                        ir.description,
                        ir.data.len()
                    );
                    if let (Some(dir), true) = (dir, ir.text) {
                        let name = file_name(&[&stem, &i.to_string(), &ir.name]);
                        let path = format!("{dir}/{name}.txt");
                        let body = String::from_utf8_lossy(&ir.data);
                        if let Err(e) = std::fs::write(&path, body.trim_end_matches('\0')) {
                            println!("    {path}: {e}");
                        }
                    }
                }
            }
            Err(e) => println!("    vkGetPipelineExecutableInternalRepresentationsKHR: {e}"),
        }
    }
    Ok(())
}

/// A statistic's value as text. A 64-bit integer above `u32::MAX` also shows its bits and low
/// half: NVIDIA 580 on the H100 reports "Local Memory Size" with 0x10 in the high word, the size
/// in the low one (0x1000000000 for kernels without local memory, 0x1000000400 for the probe's
/// 1 KiB array).
fn statistic_value(s: &vk::PipelineExecutableStatisticKHR) -> String {
    use vk::PipelineExecutableStatisticFormatKHR as F;
    // SAFETY: the union member read is the one `format` names.
    let (v, bits) = unsafe {
        match s.format {
            F::BOOL32 => return (s.value.b32 != 0).to_string(),
            F::FLOAT64 => return s.value.f64.to_string(),
            F::INT64 => (s.value.i64.to_string(), s.value.u64),
            F::UINT64 => (s.value.u64.to_string(), s.value.u64),
            _ => return format!("? (bits {:#x})", s.value.u64),
        }
    };
    if bits > u64::from(u32::MAX) {
        format!("{v} (bits {bits:#x}, low 32 bits {})", bits as u32)
    } else {
        v
    }
}

/// An internal representation of an executable (driver IR, assembly...).
struct Ir {
    name: String,
    description: String,
    text: bool,
    data: Vec<u8>,
}

/// The internal representations of one executable.
fn internal_representations(
    ext: &khr::pipeline_executable_properties::Device,
    info: &vk::PipelineExecutableInfoKHR,
) -> Result<Vec<Ir>, vk::Result> {
    // first call: how many and how large (ash leaves p_data null)
    // SAFETY: `info` names a captured executable.
    let mut irs = unsafe { ext.get_pipeline_executable_internal_representations(info) }?;
    let mut data: Vec<Vec<u8>> = irs.iter().map(|r| vec![0u8; r.data_size]).collect();
    for (r, d) in irs.iter_mut().zip(data.iter_mut()) {
        r.p_data = d.as_mut_ptr().cast();
    }
    let mut count = irs.len() as u32;
    // SAFETY: every p_data points at data_size writable bytes that outlive the call.
    unsafe {
        (ext.fp()
            .get_pipeline_executable_internal_representations_khr)(
            ext.device(),
            info,
            &mut count,
            irs.as_mut_ptr(),
        )
    }
    .result()?;
    Ok(irs
        .iter()
        .zip(data)
        .take(count as usize)
        .map(|(r, mut d)| {
            d.truncate(r.data_size);
            Ir {
                name: c_str(r.name_as_c_str()),
                description: c_str(r.description_as_c_str()),
                text: r.is_text != 0,
                data: d,
            }
        })
        .collect())
}

/// Opens the Vulkan adapter named like wgsimd's (or the best Vulkan one) through
/// wgpu-hal, adding the extension unless `no_capture`. `Err` carries the line to print when the
/// extension is missing or there is no Vulkan adapter.
fn open(adapter: &wgpu::Adapter, no_capture: bool) -> Result<Vk, String> {
    let info = adapter.get_info();
    let features = adapter.features() & wgsimd::gpu::wanted_features();
    let limits = adapter.limits();
    // SAFETY: the hal adapter is only used here, while `adapter` is alive.
    let hal = unsafe { adapter.as_hal::<Vulkan>() }
        .ok_or_else(|| format!("{} is not a Vulkan adapter", info.name))?;
    let instance = hal.shared_instance().raw_instance().clone();
    let phd = hal.raw_physical_device();
    let c = phd_caps(&instance, phd);
    if !no_capture && !c.pipeline_executable_info {
        return Err(format!(
            "VK_KHR_pipeline_executable_properties: extension not supported by {} ({} {}); \
             VK_STATS_NO_CAPTURE=1 builds the pipelines without statistics",
            info.name, info.driver, info.driver_info
        ));
    }
    let mut exec_features = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let exec_ref = &mut exec_features;
    let callback: Box<CreateDeviceCallback> = Box::new(move |args: CreateDeviceCallbackArgs| {
        if !no_capture {
            args.extensions
                .push(khr::pipeline_executable_properties::NAME);
            let ci = std::mem::take(args.create_info);
            *args.create_info = ci.push_next(exec_ref);
        }
    });
    // SAFETY: the callback only adds an extension the device reports and its feature.
    let open = unsafe {
        hal.open_with_callback(
            features,
            &limits,
            &wgpu::MemoryHints::Performance,
            Some(callback),
        )
    }
    .map_err(|e| format!("opening {}: {e}", info.name))?;
    let device = open.device.raw_device().clone();
    let exec_props =
        (!no_capture).then(|| khr::pipeline_executable_properties::Device::new(&instance, &device));
    let downlevel = adapter.get_downlevel_capabilities().flags;
    Ok(Vk {
        device,
        exec_props,
        spv: spv_options(&c, features, downlevel, &limits),
        varying_subgroups: features.contains(wgpu::Features::SUBGROUP),
        _hal: open,
    })
}

/// `caps` as on an adapter with 32-wide subgroups, f16, 16×16×16 f16 → f32 cooperative
/// matrices, 48 KiB of workgroup memory and 2 GiB bindings (like the H100), for
/// `VK_STATS_FAKE_COOP`.
fn fake_coop(mut caps: Caps) -> Caps {
    caps.subgroups = true;
    caps.subgroup_min = 32;
    caps.subgroup_max = 32;
    caps.f16 = true;
    caps.max_workgroup_storage = caps.max_workgroup_storage.max(48 << 10);
    caps.max_storage_binding = caps.max_storage_binding.max(1 << 31);
    caps.max_buffer = caps.max_buffer.max(1 << 31);
    caps.cooperative_matrix = vec![CoopShape::f16_f32(16)];
    caps
}

fn main() {
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    let no_capture = flag("VK_STATS_NO_CAPTURE");
    let fake = flag("VK_STATS_FAKE_COOP");
    let dir = std::env::var("VK_STATS_DIR").ok();
    if let Some(d) = &dir {
        std::fs::create_dir_all(d).expect("VK_STATS_DIR");
    }
    let caps = match Context::open_gpu() {
        Ok(ctx) => ctx.caps().clone(),
        Err(e) => return println!("no adapter: {e}"),
    };
    println!(
        "# wgsimd's adapter: {} ({}, {}), subgroups {}..{}",
        caps.name, caps.backend, caps.driver, caps.subgroup_min, caps.subgroup_max
    );
    let filter = std::env::var("WGSIMD_ADAPTER")
        .ok()
        .map(|s| s.to_lowercase());
    let vulkan: Vec<wgpu::Adapter> = wgsimd::gpu::list_adapters()
        .into_iter()
        .filter(|a| a.get_info().backend == wgpu::Backend::Vulkan)
        .filter(|a| {
            filter
                .as_ref()
                .is_none_or(|f| a.get_info().name.to_lowercase().contains(f))
        })
        .collect();
    let Some(adapter) = vulkan
        .iter()
        .find(|a| a.get_info().name == caps.name)
        .or(vulkan.first())
    else {
        println!("no Vulkan adapter (WGPU_BACKEND / WGSIMD_ADAPTER); nothing to inspect");
        return;
    };
    let caps = if fake { fake_coop(caps) } else { caps };
    let mut vk = match open(adapter, no_capture || fake) {
        Ok(vk) => vk,
        Err(line) => {
            println!("{line}");
            return;
        }
    };
    if fake {
        vk.spv.capabilities.get_or_insert_default().extend([
            spv::Capability::CooperativeMatrixKHR,
            spv::Capability::VulkanMemoryModel,
            spv::Capability::Float16,
        ]);
    }
    println!(
        "# device: {} (SPIR-V {}.{}, checked kernels: buffer bounds policy {:?}, workgroup zeroing {:?}){}",
        adapter.get_info().name,
        vk.spv.lang_version.0,
        vk.spv.lang_version.1,
        vk.spv.bounds_check_policies.buffer,
        vk.spv.zero_initialize_workgroup_memory,
        match (fake, vk.exec_props.is_some()) {
            (true, _) => ", fake cooperative-matrix caps: SPIR-V only",
            (false, true) => ", capturing statistics",
            (false, false) => ", no capture",
        }
    );
    let mut seen = HashSet::new();
    let mut targets = Vec::new();
    collect(sort_plans(&caps), &mut seen, &mut targets);
    collect(stage_targets(&caps), &mut seen, &mut targets);
    collect(gemm_plans(&caps), &mut seen, &mut targets);
    if flag("VK_STATS_PROBE") {
        collect(vec![probe_plan()], &mut seen, &mut targets);
    }
    let (mut ok, mut failed) = (0, 0);
    for (i, t) in targets.iter().enumerate() {
        println!(
            "== {} / {}: {} {} {}",
            t.plan,
            t.pass,
            t.kernel.name,
            t.entry,
            t.overrides_text()
        );
        let r = if fake {
            spirv(&vk.spv, t).and_then(|words| {
                if let Some(d) = &dir {
                    let stem = file_name(&[&format!("{i:03}"), &t.kernel.name, &t.pass]);
                    let path = format!("{d}/{stem}.spv");
                    std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(&words))
                        .map_err(|e| format!("{path}: {e}"))?;
                }
                println!("  SPIR-V ok ({} bytes)", words.len() * 4);
                Ok(())
            })
        } else {
            inspect(&vk, t, i, dir.as_deref())
        };
        match r {
            Ok(()) => ok += 1,
            Err(e) => {
                failed += 1;
                println!("  FAILED: {e}");
            }
        }
    }
    println!("# {ok} ok, {failed} failed");
}

/// The machine code inside an NVIDIA pipeline cache blob (see `VK_STATS_DIR` at the top), or
/// `None` when the blob does not have the layout this was read from.
fn nvidia_code(blob: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read;
    let at = blob
        .windows(4)
        .position(|w| w == [0x28, 0xb5, 0x2f, 0xfd])?;
    let mut unpacked = Vec::new();
    ruzstd::decoding::StreamingDecoder::new(&blob[at..])
        .ok()?
        .read_to_end(&mut unpacked)
        .ok()?;
    if !unpacked.starts_with(b"NVDANVVMNVuc") || unpacked.len() < 0x54 {
        return None;
    }
    let word = |i: usize| u32::from_le_bytes(unpacked[i..i + 4].try_into().unwrap()) as usize;
    let (size, offset) = (word(0x4c), word(0x50));
    let code = unpacked.get(offset + 8..offset + size)?;
    Some(code[..code.len() / 16 * 16].to_vec())
}
