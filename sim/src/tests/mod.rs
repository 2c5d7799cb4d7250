//! Unit tests of the simulator through `check::check`: semantics word for word against CPU
//! computations (`semantics`, `builtins`), and every finding kind with a flagged kernel and a
//! looks-bad-but-fine twin.

mod bind;
mod builtins;
mod corpus;
mod counts;
mod declared;
mod findings;
mod halves;
mod limits;
mod pointers;
mod quiet;
mod races;
mod schedules;
mod semantics;
mod textures;

use std::collections::BTreeSet;

use super::check::{check, CheckReport, CheckRequest};
use super::SimConfig;
use crate::finding::Finding;

/// Runs `main` of `source` in one workgroup at subgroup size `s` with `binds`.
pub(super) fn run(source: &str, s: u32, binds: &[&str]) -> crate::error::Result<CheckReport> {
    check(&request(source, s, None, [1, 1, 1], binds))
}

/// Runs `main` of `source` in one workgroup at subgroup size `s`, lanes shuffled by `shuffle`
/// if given; panics on an error.
pub(super) fn run_with(source: &str, s: u32, shuffle: Option<u64>, binds: &[&str]) -> CheckReport {
    check(&request(source, s, shuffle, [1, 1, 1], binds)).unwrap_or_else(|e| panic!("{e}"))
}

/// The request to run `main` of `source`.
pub(super) fn request(
    source: &str,
    s: u32,
    shuffle: Option<u64>,
    workgroups: [u32; 3],
    binds: &[&str],
) -> CheckRequest {
    CheckRequest {
        name: "test.wgsl".into(),
        source: source.into(),
        entry: "main".into(),
        workgroups,
        binds: binds.iter().map(|b| b.parse().unwrap()).collect(),
        overrides: vec![],
        immediates: None,
        config: SimConfig {
            subgroup_size: s,
            shuffle_lanes: shuffle,
            ..Default::default()
        },
    }
}

/// The words of binding 0 after one invocation ran `body` with `out` as the output.
pub(super) fn words(body: &str, n: usize) -> Vec<u32> {
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(1)\nfn main() {{\n{body}\n}}\n"
    );
    let r = run(&src, 4, &[&format!("0=u32:zeros:{n}")]).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    r.buffers[&0].1.clone()
}

/// f32 values as the words a kernel stores.
pub(super) fn f32s(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The list bind spec `I=u32:[..]` of `words`.
pub(super) fn list(binding: u32, words: &[u32]) -> String {
    let items: Vec<String> = words.iter().map(u32::to_string).collect();
    format!("{binding}=u32:[{}]", items.join(","))
}

/// The findings of `main` of `source` in `workgroups` workgroups at subgroup size `s`, with
/// lanes shuffled by `shuffle` if given.
pub(super) fn findings_at(
    source: &str,
    s: u32,
    shuffle: Option<u64>,
    workgroups: [u32; 3],
    binds: &[&str],
) -> Vec<Finding> {
    check(&request(source, s, shuffle, workgroups, binds))
        .unwrap_or_else(|e| panic!("{e}"))
        .findings
}

/// The kinds found at each subgroup size of `sizes` (linear and shuffled lanes must agree);
/// one workgroup.
pub(super) fn kinds(source: &str, sizes: &[u32], binds: &[&str]) -> Vec<BTreeSet<String>> {
    sizes
        .iter()
        .map(|&s| {
            let names = |f: Vec<Finding>| -> BTreeSet<String> {
                f.iter().map(|f| f.kind.name().to_string()).collect()
            };
            let linear = names(findings_at(source, s, None, [1, 1, 1], binds));
            let shuffled = names(findings_at(source, s, Some(7), [1, 1, 1], binds));
            assert_eq!(linear, shuffled, "subgroup size {s}: lane layouts disagree");
            linear
        })
        .collect()
}

/// `{name}` alone, or nothing.
pub(super) fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// The one finding of `kind` (panics unless exactly one).
pub(super) fn only(findings: &[Finding], kind: crate::finding::FindingKind) -> Finding {
    let of: Vec<&Finding> = findings.iter().filter(|f| f.kind == kind).collect();
    assert_eq!(of.len(), 1, "{findings:#?}");
    of[0].clone()
}

/// The 1-based line of `source` that contains `needle` (panics unless exactly one does).
pub(super) fn line_of(source: &str, needle: &str) -> u32 {
    let lines: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "{needle:?} on lines {lines:?}");
    lines[0] as u32
}
