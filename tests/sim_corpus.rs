//! The simulator's corpus: for every finding kind, kernels that must be flagged and
//! looks-bad-but-fine twins that must not, including the four seed bugs and their fixes.
//! Each `tests/sim_corpus/*.wgsl` states its verdict and setup in header comments:
//! `// expect: KIND[, KIND]` or `// expect: clean`, `// workgroups: X[,Y,Z]`,
//! `// bind: I=TYPE:INIT ...`, optional `// max-steps: N` and `// sizes: 4,8,...`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use wgsimd::finding::FindingKind;
use wgsimd::sim::check::{check, BindSpec, CheckRequest};
use wgsimd::sim::SimConfig;

struct Case {
    path: PathBuf,
    source: String,
    expect: BTreeSet<String>,
    workgroups: [u32; 3],
    binds: Vec<BindSpec>,
    max_steps: Option<u64>,
    sizes: Vec<u32>,
}

fn header<'a>(source: &'a str, key: &str) -> Option<&'a str> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| {
            l.strip_prefix("//")?
                .trim()
                .strip_prefix(key)?
                .strip_prefix(':')
        })
        .map(str::trim)
}

fn load(path: &Path) -> Case {
    let source = std::fs::read_to_string(path).unwrap();
    let expect: BTreeSet<String> = header(&source, "expect")
        .expect("// expect: header")
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| s != "clean")
        .collect();
    for k in &expect {
        assert!(
            FindingKind::ALL.iter().any(|f| f.name() == k),
            "{}: unknown kind {k}",
            path.display()
        );
    }
    let wg: Vec<u32> = header(&source, "workgroups")
        .expect("// workgroups: header")
        .split(',')
        .map(|v| v.trim().parse().unwrap())
        .collect();
    let mut workgroups = [1; 3];
    workgroups[..wg.len()].copy_from_slice(&wg);
    let binds = header(&source, "bind")
        .map(|b| b.split_whitespace().map(|s| s.parse().unwrap()).collect())
        .unwrap_or_default();
    let max_steps = header(&source, "max-steps").map(|v| v.parse().unwrap());
    let sizes = header(&source, "sizes")
        .map(|v| v.split(',').map(|x| x.trim().parse().unwrap()).collect())
        .unwrap_or_else(|| vec![4, 8, 32, 64]);
    Case {
        path: path.to_path_buf(),
        source,
        expect,
        workgroups,
        binds,
        max_steps,
        sizes,
    }
}

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sim_corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    paths.sort();
    paths.iter().map(|p| load(p)).collect()
}

fn run(case: &Case, subgroup_size: u32, shuffle: Option<u64>) -> Vec<wgsimd::finding::Finding> {
    let mut config = SimConfig {
        subgroup_size,
        shuffle_lanes: shuffle,
        ..Default::default()
    };
    if let Some(m) = case.max_steps {
        config.max_steps = m;
    }
    let req = CheckRequest {
        name: case
            .path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        source: case.source.clone(),
        entry: "main".into(),
        workgroups: case.workgroups,
        binds: case.binds.clone(),
        config,
    };
    check(&req)
        .unwrap_or_else(|e| panic!("{}: {e}", case.path.display()))
        .findings
}

#[test]
fn corpus_verdicts_at_every_subgroup_size() {
    let cases = corpus();
    assert!(cases.len() >= 14, "corpus too small");
    let mut failures = Vec::new();
    for case in &cases {
        for &s in &case.sizes {
            for shuffle in [None, Some(11)] {
                let findings = run(case, s, shuffle);
                let got: BTreeSet<String> =
                    findings.iter().map(|f| f.kind.name().to_string()).collect();
                if got != case.expect {
                    failures.push(format!(
                        "{} at subgroup size {s} (shuffle {shuffle:?}): expected {:?}, got:\n  {}",
                        case.path.file_name().unwrap().to_string_lossy(),
                        case.expect,
                        findings
                            .iter()
                            .map(|f| f.to_string())
                            .collect::<Vec<_>>()
                            .join("\n  ")
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_kind_has_a_flagged_kernel_and_a_clean_twin() {
    let cases = corpus();
    for kind in FindingKind::ALL {
        assert!(
            cases.iter().any(|c| c.expect.contains(kind.name())),
            "no corpus kernel is flagged {}",
            kind.name()
        );
    }
    let clean = cases.iter().filter(|c| c.expect.is_empty()).count();
    assert!(clean >= FindingKind::ALL.len(), "only {clean} clean twins");
}

#[test]
fn findings_point_at_the_source() {
    for case in corpus().iter().filter(|c| !c.expect.is_empty()) {
        for f in run(case, 32, None) {
            if f.kind == FindingKind::UnwrittenOutput {
                assert!(f.message.contains("never written"), "{f}");
                continue;
            }
            let loc = f.loc.as_ref().unwrap_or_else(|| panic!("{f}: no location"));
            let line = case.source.lines().nth(loc.line as usize - 1).unwrap();
            assert!(loc.col as usize <= line.len() + 1, "{f}");
            assert!(!f.parties.is_empty(), "{f}: no parties");
        }
    }
}

/// The seeds' bugs, with the statement each finding must name.
#[test]
fn seed_bugs_are_caught_where_they_are() {
    let cases = corpus();
    let find = |name: &str| cases.iter().find(|c| c.path.ends_with(name)).unwrap();
    for (file, kind, needle) in [
        (
            "shuffle_loop_bound_bug.wgsl",
            FindingKind::NonUniformSubgroupOp,
            "subgroupShuffleXor",
        ),
        (
            "partial_valid_shuffle_bug.wgsl",
            FindingKind::NonUniformSubgroupOp,
            "subgroupShuffleXor",
        ),
        (
            "reduce_read_past_end_bug.wgsl",
            FindingKind::OutOfBounds,
            "input[i",
        ),
    ] {
        let case = find(file);
        for s in [4, 8, 32, 64] {
            let f = run(case, s, None);
            let hit = f
                .iter()
                .find(|f| f.kind == kind)
                .unwrap_or_else(|| panic!("{file}: no {kind}"));
            let loc = hit.loc.as_ref().unwrap();
            let line = case.source.lines().nth(loc.line as usize - 1).unwrap();
            assert!(
                line.contains(needle),
                "{file}: finding at {loc} is on `{line}`"
            );
        }
    }
    let f = run(find("gemm_rows_unwritten_bug.wgsl"), 64, None);
    let msg = &f
        .iter()
        .find(|f| f.kind == FindingKind::UnwrittenOutput)
        .unwrap()
        .message;
    // rows 32..64 of a 16-column f32 tile: words 512..=1023
    assert!(
        msg.contains("512 of its 1024 words") && msg.contains("words 512..=1023"),
        "{msg}"
    );
}

/// Findings in shipped kernels name the `wgsl/` file and line a person edits, not the line of
/// the composed text: a subgroup op in a shared helper, made non-uniform by a caller.
#[test]
fn shipped_kernel_locations_map_to_wgsl_files() {
    use wgsimd::kernel::{self, Flavor};
    use wgsimd::plan::{BufferInit, Plan, Workgroups};
    use wgsimd::Executor;
    let k = kernel::load("reduce/minmax", Flavor::Subgroup).unwrap();
    // a span on `subgroupMin` inside the included helper maps to the helper's own file and line
    let line = k
        .source
        .lines()
        .position(|l| l.contains("case 1u: { return subgroupMin(x); }"))
        .unwrap();
    let start: usize = k.source.lines().take(line).map(|l| l.len() + 1).sum();
    let col = k
        .source
        .lines()
        .nth(line)
        .unwrap()
        .find("subgroupMin")
        .unwrap();
    let span = naga::Span::new((start + col) as u32, (start + col + 11) as u32);
    let loc = wgsimd::sim::events::loc(&k, span).unwrap();
    let text = kernel::wgsl_file("shared/wg_ops.subgroup.wgsl").unwrap();
    assert_eq!(loc.file, "wgsl/shared/wg_ops.subgroup.wgsl");
    assert!(
        text.lines()
            .nth(loc.line as usize - 1)
            .unwrap()
            .contains("subgroupMin"),
        "{loc}"
    );
    assert_eq!(loc.col as usize, col + 1);
    // and a whole run of a shipped kernel stays clean
    let mut plan = Plan::new("t");
    let params = plan.upload("params", &[12u32, 0, 3, 0]);
    let input = plan.upload("input", &[5u32, 7, 8, 9, 6, 3, 7, 7, 9, 9, 9, 9]);
    let slots = plan.buffer("slots", 40, BufferInit::Zeroed);
    let out_b = plan.buffer("result", 4, BufferInit::Poison);
    plan.read_back(out_b);
    plan.pass(
        "reduce",
        &k,
        "main",
        &[("OP", 1.0)],
        &[params, input, slots, out_b],
        Workgroups::Direct([3, 1, 1]),
    );
    let sim = wgsimd::sim::SimExecutor::new(Default::default()).unwrap();
    let out = sim.run(&plan).unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert_eq!(out.get::<u32>(out_b), vec![3]);
}
