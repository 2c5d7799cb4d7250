//! Findings on `tests/sim_corpus` kernels point at the source: every flagged kernel's findings
//! name a line of the file and the invocations involved, the seed bugs are found on the very
//! statement that is wrong at every subgroup size, and findings in shipped kernels name the
//! `wgsl/` file a person edits. (Each file's verdict at every size is `src/sim/tests/corpus.rs`.)

use std::path::{Path, PathBuf};

use wgsimd::finding::{Finding, FindingKind};
use wgsimd::kernel::{self, Flavor};
use wgsimd::sim::SimConfig;
use wgsimd_sim::check::{check, BindSpec, CheckOptions, CheckRequest};

/// A corpus file and the setup its header comments describe (see `src/sim/tests/corpus.rs`
/// for the header format).
struct Case {
    name: String,
    source: String,
    flagged: bool,
    sizes: Vec<u32>,
    workgroups: [u32; 3],
    binds: Vec<BindSpec>,
    config: SimConfig,
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

fn items(v: &str) -> impl Iterator<Item = &str> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty())
}

fn load(path: &Path) -> Case {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let source = std::fs::read_to_string(path).unwrap();
    let flagged = header(&source, "expect").expect("// expect:") != "clean";
    let sizes = header(&source, "sizes")
        .map(|v| items(v).map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![4, 8, 32, 64]);
    let mut workgroups = [1u32; 3];
    for (i, v) in items(header(&source, "workgroups").expect("// workgroups:")).enumerate() {
        workgroups[i] = v.parse().unwrap();
    }
    let binds = header(&source, "bind")
        .map(|b| b.split_whitespace().map(|s| s.parse().unwrap()).collect())
        .unwrap_or_default();
    let mut config = SimConfig {
        loop_limit: true,
        ..Default::default()
    };
    if let Some(m) = header(&source, "max-steps") {
        config.max_steps = m.parse().unwrap();
    }
    let mut checks = CheckOptions::default();
    for o in header(&source, "options").into_iter().flat_map(items) {
        match o {
            "discarded-read" => checks.discarded_read = true,
            "uninit-workgroup" => checks.uninit_workgroup = true,
            "non-finite" => checks.non_finite = true,
            other => panic!("{name}: unknown option {other}"),
        }
    }
    config.checks = checks;
    Case {
        name,
        source,
        flagged,
        sizes,
        workgroups,
        binds,
        config,
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

/// The findings of `case` at subgroup size `sg`, lanes in order.
fn run(case: &Case, sg: u32) -> Vec<Finding> {
    let req = CheckRequest {
        name: case.name.clone(),
        source: case.source.clone(),
        entry: "main".into(),
        workgroups: case.workgroups,
        binds: case.binds.clone(),
        overrides: vec![],
        immediates: None,
        config: SimConfig {
            subgroup_size: sg,
            ..case.config.clone()
        },
    };
    check(&req)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name))
        .findings
}

/// The text of `line` (1-based) of `source`.
fn line(source: &str, line: u32) -> &str {
    source.lines().nth(line as usize - 1).unwrap_or("")
}

/// Each flagged kernel at subgroups of 32, or at the largest size it is run at where 32 is not
/// one (a bug of wider subgroups).
#[test]
fn findings_point_at_the_source() {
    for case in corpus().iter().filter(|c| c.flagged) {
        let sg = if case.sizes.contains(&32) {
            32
        } else {
            *case.sizes.iter().max().unwrap()
        };
        let findings = run(case, sg);
        assert!(!findings.is_empty(), "{}: nothing found", case.name);
        for f in findings {
            if f.kind == FindingKind::UnwrittenOutput {
                // about a buffer after the run, not a statement
                assert!(f.message.contains("never written"), "{}: {f}", case.name);
                continue;
            }
            let loc = f
                .loc
                .as_ref()
                .unwrap_or_else(|| panic!("{}: {f}: no location", case.name));
            assert!(
                loc.line >= 1 && loc.line as usize <= case.source.lines().count(),
                "{}: {f}",
                case.name
            );
            let text = line(&case.source, loc.line);
            assert!(loc.col as usize <= text.len() + 1, "{}: {f}", case.name);
            if f.kind == FindingKind::BindingTooSmall {
                // about a binding, at its declaration: no invocation is involved
                assert!(f.parties.is_empty(), "{}: {f}", case.name);
                continue;
            }
            assert!(!f.parties.is_empty(), "{}: {f}: no parties", case.name);
        }
    }
}

/// The seeds' bugs, with the statement each finding must name, at every subgroup size.
#[test]
fn seed_bugs_are_caught_where_they_are() {
    let cases = corpus();
    let find = |name: &str| cases.iter().find(|c| c.name == name).unwrap();
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
        for sg in [4, 8, 32, 64] {
            let findings = run(case, sg);
            let hit = findings
                .iter()
                .find(|f| f.kind == kind)
                .unwrap_or_else(|| panic!("{file} at {sg}: no {kind} in {findings:#?}"));
            let loc = hit.loc.as_ref().unwrap();
            let text = line(&case.source, loc.line);
            assert!(
                text.contains(needle),
                "{file} at {sg}: finding at {loc} is on `{text}`"
            );
        }
    }
    // rows 32..64 of a 16-column f32 tile: words 512..=1023
    let findings = run(find("gemm_rows_unwritten_bug.wgsl"), 64);
    let msg = &findings
        .iter()
        .find(|f| f.kind == FindingKind::UnwrittenOutput)
        .unwrap_or_else(|| panic!("{findings:#?}"))
        .message;
    assert!(
        msg.contains("512 of its 1024 words") && msg.contains("words 512..=1023"),
        "{msg}"
    );
}

/// A span in the composed text of a shipped kernel maps to the `wgsl/` file and line a person
/// edits, not to the composed line: `subgroupMin` inside the helper `reduce/minmax` includes.
#[test]
fn shipped_kernel_locations_map_to_wgsl_files() {
    let k = kernel::load("reduce/minmax", Flavor::Subgroup).unwrap();
    let needle = "case 1u: { return subgroupMin(x); }";
    let row = k.source.lines().position(|l| l.contains(needle)).unwrap();
    let start: usize = k.source.lines().take(row).map(|l| l.len() + 1).sum();
    let col = k
        .source
        .lines()
        .nth(row)
        .unwrap()
        .find("subgroupMin")
        .unwrap();
    let span = naga::Span::new((start + col) as u32, (start + col + 11) as u32);
    let loc = k.location(span).unwrap();
    assert_eq!(loc.file, "wgsl/shared/wg_ops.subgroup.wgsl");
    let text = kernel::wgsl_file("shared/wg_ops.subgroup.wgsl").unwrap();
    assert!(line(text, loc.line).contains("subgroupMin"), "{loc}");
    assert_ne!(
        loc.line as usize,
        row + 1,
        "the composed line, not the file's"
    );
    assert_eq!(loc.col as usize, col + 1);
}
