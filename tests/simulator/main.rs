//! The simulator and the shipped WGSL from outside the crate: finding locations and the seed
//! bugs of the corpus (`corpus`), the execution model (`model`), interpreter semantics against
//! Rust (`semantics`), the shipped algorithms under the default exploration of schedules at
//! the subgroup sizes the behaviour suite does not run (`schedules`), f16 and
//! cooperative-matrix semantics (`coop_semantics`), the
//! cooperative-matrix GEMM kernels (`coop`) and where they are planned (`coop_plans`), the
//! layout rules of `wgsl/` (`contract`), the composed stages through naga's MSL, HLSL and
//! SPIR-V writers (`translate`), and real pipelines' input: directives naga refuses, overrides,
//! other bind groups and raw files (`inputs`), pipelines of several passes (`pipeline`) and
//! wgpu API traces (`replay`). The checkers' per-kind unit tests and the corpus verdicts are
//! `src/sim/tests`.

mod contract;
mod coop;
mod coop_plans;
mod coop_semantics;
mod corpus;
mod cts_subgroups;
mod inputs;
mod model;
mod pipeline;
mod replay;
mod schedules;
mod semantics;
mod translate;

use std::sync::Arc;

use wgsimd::finding::{Finding, FindingKind};
use wgsimd::kernel::{Flavor, Kernel};
use wgsimd::sim::SimConfig;
use wgsimd_sim::check::{check, CheckReport, CheckRequest};

/// `src` composed as a subgroup-flavour kernel named `test.wgsl`.
pub fn kernel(src: &str) -> Arc<Kernel> {
    Arc::new(Kernel::from_source("test.wgsl", Flavor::Subgroup, src.to_string()).unwrap())
}

/// Runs `main` of `src` in one workgroup at subgroup size `sg`, binding 0 an uninitialized
/// `array<u32>` of `out_words`.
pub fn check_src(src: &str, out_words: usize, sg: u32) -> wgsimd::Result<CheckReport> {
    check(&CheckRequest {
        name: "inline.wgsl".into(),
        source: src.into(),
        entry: "main".into(),
        workgroups: [1, 1, 1],
        binds: vec![format!("0=u32:uninit:{out_words}").parse().unwrap()],
        overrides: vec![],
        immediates: None,
        config: SimConfig {
            subgroup_size: sg,
            ..Default::default()
        },
    })
}

/// The kinds of `findings`, sorted by name.
pub fn kinds(findings: &[Finding]) -> Vec<FindingKind> {
    let mut k: Vec<FindingKind> = findings.iter().map(|f| f.kind).collect();
    k.sort_by_key(|k| k.name());
    k
}

/// Panics unless `findings` has one of `kind`.
pub fn assert_finds(findings: &[Finding], kind: FindingKind) {
    assert!(
        findings.iter().any(|f| f.kind == kind),
        "no {kind} in {findings:#?}"
    );
}
