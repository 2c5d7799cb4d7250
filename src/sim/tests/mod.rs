//! Unit tests of the simulator through `check::check`: semantics word for word against CPU
//! computations (`semantics`, `builtins`), and every finding kind with a flagged kernel and a
//! looks-bad-but-fine twin.

mod builtins;
mod semantics;

use super::check::{check, CheckReport, CheckRequest};
use super::SimConfig;

/// Runs `main` of `source` in one workgroup at subgroup size `s` with `binds`.
pub(super) fn run(source: &str, s: u32, binds: &[&str]) -> crate::error::Result<CheckReport> {
    let req = CheckRequest {
        name: "test.wgsl".into(),
        source: source.into(),
        entry: "main".into(),
        workgroups: [1, 1, 1],
        binds: binds.iter().map(|b| b.parse().unwrap()).collect(),
        config: SimConfig {
            subgroup_size: s,
            ..Default::default()
        },
    };
    check(&req)
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
