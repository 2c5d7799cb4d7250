//! The layout rules of `wgsl/` that the host relies on: a stage file `ALGORITHM/STAGE.wgsl`
//! declares its entry points and its `@group(0)` bindings itself; helper files (under
//! `ALGORITHM/lib/` and `shared/`) start `// include-only` and declare no `@compute` entry and
//! no `@binding`; an algorithm's `lib/` is included by its own stages only; and every file in
//! `shared/` is included by stages of at least two algorithms.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use wgsimd::kernel::{self, Flavor};

/// Every `.wgsl` file under `wgsl/`, relative to it, with `/` separators.
fn wgsl_files() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p: PathBuf = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "wgsl") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy();
                out.push(rel.replace('\\', "/"));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("wgsl");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// `path`'s text without comments (the `//!include` lines are comments too).
fn code(path: &str) -> String {
    let text = kernel::wgsl_file(path).unwrap_or_else(|| panic!("{path} is not embedded"));
    let mut out = String::new();
    let mut block = false;
    for line in text.lines() {
        let mut rest = line;
        loop {
            if block {
                match rest.find("*/") {
                    Some(i) => {
                        rest = &rest[i + 2..];
                        block = false;
                    }
                    None => break,
                }
            } else {
                let line_c = rest.find("//");
                let block_c = rest.find("/*");
                match (line_c, block_c) {
                    (Some(l), b) if b.is_none_or(|b| l < b) => {
                        out.push_str(&rest[..l]);
                        break;
                    }
                    (_, Some(b)) => {
                        out.push_str(&rest[..b]);
                        rest = &rest[b + 2..];
                        block = true;
                    }
                    _ => {
                        out.push_str(rest);
                        break;
                    }
                }
            }
        }
        out.push('\n');
    }
    out
}

fn is_stage(path: &str) -> bool {
    path.matches('/').count() == 1 && !path.starts_with("shared/")
}

#[test]
fn the_stages_are_the_files_of_each_algorithm_folder() {
    let stages: Vec<String> = wgsl_files().into_iter().filter(|p| is_stage(p)).collect();
    let shipped: Vec<String> = kernel::shipped_kernels()
        .iter()
        .map(|n| format!("{n}.wgsl"))
        .collect();
    assert_eq!(stages, shipped);
}

#[test]
fn every_stage_declares_its_entry_points_and_bindings() {
    let mut broken = Vec::new();
    for path in wgsl_files().into_iter().filter(|p| is_stage(p)) {
        let own = code(&path);
        if !own.contains("@compute") || !own.contains("@binding(") {
            broken.push(format!(
                "{path}: declares no @compute entry or no @binding itself"
            ));
        }
        let name = path.trim_end_matches(".wgsl");
        for flavor in [Flavor::Subgroup, Flavor::Emulated] {
            let k = kernel::load(name, flavor).unwrap();
            if k.entries.is_empty() {
                broken.push(format!("{path} ({flavor:?}): no entry point"));
            }
            for e in k.entries.iter().filter(|e| e.bindings.is_empty()) {
                broken.push(format!(
                    "{path} ({flavor:?}): entry {} binds nothing",
                    e.name
                ));
            }
            for (_, g) in k.module.global_variables.iter() {
                if let Some(b) = g.binding.as_ref().filter(|b| b.group != 0) {
                    let var = g.name.as_deref().unwrap_or("?");
                    broken.push(format!("{path}: `{var}` in @group({})", b.group));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn helpers_declare_no_entry_point_and_no_binding() {
    let mut broken = Vec::new();
    for path in wgsl_files().into_iter().filter(|p| !is_stage(p)) {
        let helper = path.starts_with("shared/") || path.split('/').nth(1) == Some("lib");
        if !helper {
            broken.push(format!(
                "{path}: neither a stage nor under ALGORITHM/lib/ or shared/"
            ));
            continue;
        }
        let text = kernel::wgsl_file(&path).unwrap();
        if text.lines().next() != Some("// include-only") {
            broken.push(format!("{path}: does not start with `// include-only`"));
        }
        let own = code(&path);
        for word in ["@compute", "@binding"] {
            if own.contains(word) {
                broken.push(format!("{path}: declares {word}"));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// For each helper file, the algorithms whose stages include it (through other helpers too),
/// in either flavour.
fn includers() -> BTreeMap<String, BTreeSet<String>> {
    let mut by: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for name in kernel::shipped_kernels() {
        let algorithm = name.split('/').next().unwrap().to_string();
        for flavor in [Flavor::Subgroup, Flavor::Emulated] {
            for line in kernel::compose(name, flavor, "").unwrap().lines() {
                if let Some(file) = line.strip_prefix("// ---- begin ") {
                    by.entry(file.to_string())
                        .or_default()
                        .insert(algorithm.clone());
                }
            }
        }
    }
    by
}

#[test]
fn lib_files_serve_their_algorithm_and_shared_files_several() {
    let by = includers();
    let mut broken = Vec::new();
    for path in wgsl_files().into_iter().filter(|p| !is_stage(p)) {
        let users = by.get(&path).cloned().unwrap_or_default();
        if path.starts_with("shared/") {
            if users.len() < 2 {
                broken.push(format!("{path}: included by the stages of {users:?} only"));
            }
        } else {
            let own: BTreeSet<String> = [path.split('/').next().unwrap().to_string()].into();
            if users != own {
                broken.push(format!("{path}: included by the stages of {users:?}"));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
