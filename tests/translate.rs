//! Portability evidence: every shipped kernel, in both flavours, composed, validated, specialised
//! with its default overrides, and translated by naga to MSL 2.4, HLSL SM 6.0 and SPIR-V 1.3.
//! Any translation error fails the test.

use naga::back::{hlsl, msl, spv};
use wgsimd::kernel::{self, Flavor};

/// Kernels a backend cannot express, with the reason; everything else must translate.
fn unsupported(kernel: &str, backend: &str) -> Option<&'static str> {
    match (kernel, backend) {
        // DX12 never gets this kernel: gemm::coop::usable needs the cooperative-matrix feature
        (
            "gemm/coop16" | "gemm/coop16w" | "gemm/coop16v" | "gemm/coop16vw" | "gemm/coop8",
            "hlsl",
        ) => Some("naga 30's HLSL writer has no cooperative matrices"),
        _ => None,
    }
}

#[test]
fn every_kernel_translates_to_msl_hlsl_spirv() {
    let names = kernel::shipped_kernels();
    assert!(
        names.len() >= 8,
        "expected the shipped kernels, found {names:?}"
    );
    let mut failures = Vec::new();
    let mut translated = 0;
    for name in names {
        for flavor in [Flavor::Subgroup, Flavor::Emulated] {
            let k = match kernel::load(name, flavor) {
                Ok(k) => k,
                Err(e) => {
                    failures.push(format!("{name} {flavor:?}: {e}"));
                    continue;
                }
            };
            for ep in &k.module.entry_points {
                let spec = match k.specialize(&ep.name, &[]) {
                    Ok(s) => s,
                    Err(e) => {
                        failures.push(format!("{name} {flavor:?} {}: {e}", ep.name));
                        continue;
                    }
                };
                let (m, info) = (&spec.module, &spec.info);
                let tag = format!("{name} {flavor:?} {}", ep.name);
                if unsupported(name, "msl").is_none() {
                    let opts = msl::Options {
                        lang_version: (2, 4),
                        ..Default::default()
                    };
                    let popts = msl::PipelineOptions {
                        entry_point: Some((ep.stage, ep.name.clone())),
                        ..Default::default()
                    };
                    if let Err(e) = msl::write_string(m, info, &opts, &popts) {
                        failures.push(format!("{tag} -> MSL 2.4: {e:?}"));
                    }
                }
                if unsupported(name, "hlsl").is_none() {
                    let opts = hlsl::Options {
                        shader_model: hlsl::ShaderModel::V6_0,
                        ..Default::default()
                    };
                    let popts = hlsl::PipelineOptions {
                        entry_point: Some((ep.stage, ep.name.clone())),
                    };
                    let mut out = String::new();
                    if let Err(e) = hlsl::Writer::new(&mut out, &opts, &popts).write(m, info, None)
                    {
                        failures.push(format!("{tag} -> HLSL SM 6.0: {e:?}"));
                    }
                }
                if unsupported(name, "spirv").is_none() {
                    let opts = spv::Options {
                        lang_version: (1, 3),
                        ..Default::default()
                    };
                    let popts = spv::PipelineOptions {
                        shader_stage: ep.stage,
                        entry_point: ep.name.clone(),
                    };
                    if let Err(e) = spv::write_vec(m, info, &opts, Some(&popts)) {
                        failures.push(format!("{tag} -> SPIR-V 1.3: {e:?}"));
                    }
                }
                translated += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "translation failures:\n{}",
        failures.join("\n")
    );
    assert!(translated > 0);
}

#[test]
fn malformed_wgsl_is_a_typed_error_with_naga_spans() {
    let e = kernel::Kernel::from_source("bad", Flavor::Emulated, "fn main( {".into()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("bad"), "{msg}");
    assert!(msg.contains("expected"), "{msg}");
    let e = kernel::Kernel::from_source(
        "invalid",
        Flavor::Emulated,
        "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }".into(),
    )
    .unwrap_err();
    assert!(matches!(e, wgsimd::Error::Shader { .. }), "{e:?}");
}

#[test]
fn includes_resolve_by_flavor_and_once() {
    let sub = kernel::compose("reduce/sum_u64", Flavor::Subgroup, "").unwrap();
    let emu = kernel::compose("reduce/sum_u64", Flavor::Emulated, "").unwrap();
    assert!(sub.contains("subgroupAdd"));
    let code: String = emu
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    assert!(
        !code.contains("subgroup"),
        "emulated flavour must not use subgroup builtins"
    );
    assert_eq!(sub.matches("// ---- begin shared/ops.wgsl").count(), 1);
    // a prelude (e.g. Dawn's `enable subgroups;`) goes first
    let p = kernel::compose("reduce/sum_u64", Flavor::Subgroup, "enable subgroups;").unwrap();
    assert!(p.starts_with("enable subgroups;\n"));
}
