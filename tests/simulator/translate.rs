//! Portability: every composed stage `wgsimd kernels` writes (`kernel::composed_stages`: each
//! shipped stage in each flavour it ships), parsed from the very text of its file, validated,
//! specialised with its override defaults and translated by naga to MSL 2.4, HLSL SM 6.0 and
//! SPIR-V 1.3. Any translation error fails, except the combinations listed as unsupported with
//! their reason, which must still fail (so the list stays true). Also: how stages are composed
//! (includes by flavour, once each) and how malformed WGSL is reported.

use std::collections::BTreeSet;

use naga::back::{hlsl, msl, spv};
use wgsimd::kernel::{self, ComposedStage, Flavor, Kernel, Specialized};

/// The stages a back end cannot express, with the reason; everything else must translate.
const UNSUPPORTED: &[(&str, &str, &str)] = &[
    // DX12 never gets these: gemm::coop::usable needs the cooperative-matrix feature
    (
        "gemm/coop16",
        "HLSL",
        "naga 30's HLSL writer has no cooperative matrices",
    ),
    (
        "gemm/coop8",
        "HLSL",
        "naga 30's HLSL writer has no cooperative matrices",
    ),
    (
        "gemm/coop16_int4",
        "HLSL",
        "naga 30's HLSL writer has no cooperative matrices",
    ),
    (
        "gemm/coop8_int4",
        "HLSL",
        "naga 30's HLSL writer has no cooperative matrices",
    ),
];

const BACKENDS: [&str; 3] = ["MSL", "HLSL", "SPIR-V"];

fn unsupported(stage: &str, backend: &str) -> Option<&'static str> {
    UNSUPPORTED
        .iter()
        .find(|(s, b, _)| *s == stage && *b == backend)
        .map(|(_, _, why)| *why)
}

/// Translates `entry` of `spec` with `backend`'s writer; the error as text.
fn translate(backend: &str, spec: &Specialized, entry: &naga::EntryPoint) -> Result<(), String> {
    let (m, info) = (&spec.module, &spec.info);
    match backend {
        "MSL" => {
            let opts = msl::Options {
                lang_version: (2, 4),
                ..Default::default()
            };
            let popts = msl::PipelineOptions {
                entry_point: Some((entry.stage, entry.name.clone())),
                ..Default::default()
            };
            msl::write_string(m, info, &opts, &popts)
                .map(drop)
                .map_err(|e| format!("{e:?}"))
        }
        "HLSL" => {
            let opts = hlsl::Options {
                shader_model: hlsl::ShaderModel::V6_0,
                ..Default::default()
            };
            let popts = hlsl::PipelineOptions {
                entry_point: Some((entry.stage, entry.name.clone())),
            };
            let mut out = String::new();
            hlsl::Writer::new(&mut out, &opts, &popts)
                .write(m, info, None)
                .map(drop)
                .map_err(|e| format!("{e:?}"))
        }
        "SPIR-V" => {
            let opts = spv::Options {
                lang_version: (1, 3),
                ..Default::default()
            };
            let popts = spv::PipelineOptions {
                shader_stage: entry.stage,
                entry_point: entry.name.clone(),
            };
            spv::write_vec(m, info, &opts, Some(&popts))
                .map(drop)
                .map_err(|e| format!("{e:?}"))
        }
        other => unreachable!("{other}"),
    }
}

/// What is wrong with translating `stage` (its file's text) everywhere.
fn failures(stage: &ComposedStage) -> Vec<String> {
    let tag = format!("{} ({:?})", stage.path, stage.flavor);
    let k = match Kernel::from_source(stage.name, stage.flavor, stage.text()) {
        Ok(k) => k,
        Err(e) => return vec![format!("{tag}: {e}")],
    };
    let mut out = Vec::new();
    for ep in &k.module.entry_points {
        let spec = match k.specialize(&ep.name, &[]) {
            Ok(s) => s,
            Err(e) => {
                out.push(format!("{tag} {}: {e}", ep.name));
                continue;
            }
        };
        for backend in BACKENDS {
            let result = translate(backend, &spec, ep);
            match (unsupported(stage.name, backend), result) {
                (None, Err(e)) => out.push(format!("{tag} {} -> {backend}: {e}", ep.name)),
                (Some(why), Ok(())) => out.push(format!(
                    "{tag} {} -> {backend}: translates, but is listed as unsupported ({why})",
                    ep.name
                )),
                _ => {}
            }
        }
    }
    out
}

#[test]
fn every_composed_stage_translates_to_msl_hlsl_spirv() {
    let stages = kernel::composed_stages().unwrap();
    let names: BTreeSet<&str> = stages.iter().map(|s| s.name).collect();
    for (stage, backend, _) in UNSUPPORTED {
        assert!(names.contains(stage), "{stage} is not a shipped stage");
        assert!(BACKENDS.contains(backend), "{backend}");
    }
    let failed: Vec<String> = stages.iter().flat_map(failures).collect();
    assert!(
        failed.is_empty(),
        "translation failures:\n{}",
        failed.join("\n")
    );
}

/// The set `wgsimd kernels` writes: every shipped stage once in the subgroup flavour, and once
/// more, as `.portable.wgsl`, exactly where the workgroup-memory flavour composes otherwise.
#[test]
fn composed_stages_are_every_stage_in_each_flavour_it_ships() {
    let stages = kernel::composed_stages().unwrap();
    let shipped = kernel::shipped_kernels();
    assert!(shipped.len() >= 20, "{shipped:?}");
    let paths: BTreeSet<&str> = stages.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths.len(), stages.len(), "two stages share a path");
    for name in shipped {
        let sub = kernel::compose(name, Flavor::Subgroup, "").unwrap();
        let emu = kernel::compose(name, Flavor::Emulated, "").unwrap();
        let of: Vec<&ComposedStage> = stages.iter().filter(|s| s.name == name).collect();
        assert_eq!(of[0].path, format!("{name}.wgsl"));
        assert_eq!(of[0].source, sub);
        if sub == emu {
            assert_eq!(of.len(), 1, "{name}");
            assert!(of[0].both);
        } else {
            assert_eq!(of.len(), 2, "{name}");
            assert_eq!(of[1].path, format!("{name}.portable.wgsl"));
            assert_eq!((of[1].flavor, &of[1].source), (Flavor::Emulated, &emu));
        }
        let text = of[0].text();
        assert!(text.starts_with(&format!("// wgsimd kernel `{name}`")));
        assert!(text.ends_with(&of[0].source));
        assert!(text.contains("`override` declarations"));
    }
    // the flavours differ where the shared workgroup helpers are included
    assert!(paths.contains("reduce/sum_u64.portable.wgsl"));
    assert!(!paths.contains("gemm/tiled.portable.wgsl"));
}

#[test]
fn malformed_wgsl_is_a_typed_error_with_naga_spans() {
    let e = Kernel::from_source("bad", Flavor::Emulated, "fn main( {".into()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("bad"), "{msg}");
    assert!(msg.contains("expected"), "{msg}");
    let e = Kernel::from_source(
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
        "the emulated flavour must not use subgroup builtins"
    );
    assert_eq!(sub.matches("// ---- begin shared/ops.wgsl").count(), 1);
    // a prelude (e.g. Dawn's `enable subgroups;`) goes first
    let p = kernel::compose("reduce/sum_u64", Flavor::Subgroup, "enable subgroups;").unwrap();
    assert!(p.starts_with("enable subgroups;\n"));
}
