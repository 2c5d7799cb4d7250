//! `tests/sim_corpus/*.wgsl` run as `wgsimd check` runs them: every file's verdict at each of
//! its subgroup sizes, with the linear and a shuffled lane layout. A file states its verdict
//! and setup in header comments: `// expect: KIND[, KIND]` or `// expect: clean`,
//! `// workgroups: X[,Y,Z]`, `// bind: I=TYPE:INIT ...`, and optionally `// may: KIND[, KIND]`
//! (kinds a run may add to the expected ones: a race's output also differs between schedules,
//! `schedule-divergence`, where the racing invocations run in different threads), `// max-steps: N`,
//! `// sizes: 4,8,...` (default 4, 8, 32, 64), `// options: OPTION[, OPTION]` (the
//! [`CheckOptions`] to turn on: `discarded-read`, `uninit-workgroup`, `non-finite`) and
//! `// notes: KIND[, KIND]` (the kinds reported as notes, at every size: without it, none).
//! Files named `*_bug` must be flagged, `*_fine` and `*_fixed` must be clean.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::check::{check, CheckOptions};
use crate::finding::FindingKind;

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

fn list(v: &str, sep: char) -> impl Iterator<Item = &str> {
    v.split(sep).map(str::trim).filter(|s| !s.is_empty())
}

/// Runs `path` at every size of its header; returns the failures.
fn verdicts(path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let source = std::fs::read_to_string(path).unwrap();
    let expect: BTreeSet<String> = list(header(&source, "expect").expect("// expect:"), ',')
        .filter(|s| *s != "clean")
        .map(String::from)
        .collect();
    let may: BTreeSet<String> = header(&source, "may")
        .map(|v| list(v, ',').map(String::from).collect())
        .unwrap_or_default();
    let notes: BTreeSet<String> = header(&source, "notes")
        .map(|v| list(v, ',').map(String::from).collect())
        .unwrap_or_default();
    for k in expect.iter().chain(&may).chain(&notes) {
        assert!(
            FindingKind::ALL.iter().any(|f| f.name() == k),
            "{name}: unknown kind {k}"
        );
    }
    let stem = name.trim_end_matches(".wgsl");
    if stem.ends_with("_bug") {
        assert!(!expect.is_empty(), "{name}: a bug must be flagged");
    } else if stem.ends_with("_fine") || stem.ends_with("_fixed") {
        assert!(expect.is_empty(), "{name}: must be clean");
    }
    let mut workgroups = [1u32; 3];
    for (i, v) in list(header(&source, "workgroups").expect("// workgroups:"), ',').enumerate() {
        workgroups[i] = v.parse().unwrap();
    }
    let binds: Vec<&str> = header(&source, "bind")
        .map(|b| b.split_whitespace().collect())
        .unwrap_or_default();
    let sizes: Vec<u32> = header(&source, "sizes")
        .map(|v| list(v, ',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![4, 8, 32, 64]);
    let mut options = CheckOptions::default();
    for o in header(&source, "options")
        .map(|v| list(v, ','))
        .into_iter()
        .flatten()
    {
        match o {
            "discarded-read" => options.discarded_read = true,
            "uninit-workgroup" => options.uninit_workgroup = true,
            "non-finite" => options.non_finite = true,
            other => panic!("{name}: unknown option {other}"),
        }
    }
    let mut failures = Vec::new();
    for &s in &sizes {
        for shuffle in [None, Some(11)] {
            let mut req = super::request(&source, s, shuffle, workgroups, &binds);
            req.name = name.clone();
            req.config.loop_limit = true;
            if let Some(m) = header(&source, "max-steps") {
                req.config.max_steps = m.parse().unwrap();
            }
            req.config.checks = options;
            let report = check(&req).unwrap_or_else(|e| panic!("{name}: {e}"));
            let findings = report.findings;
            let got: BTreeSet<String> = findings.iter().map(|f| f.kind.name().into()).collect();
            let extra: BTreeSet<&String> = got.difference(&expect).collect();
            let noted: BTreeSet<String> =
                report.notes.iter().map(|f| f.kind.name().into()).collect();
            if !got.is_superset(&expect)
                || extra.iter().any(|k| !may.contains(*k))
                || noted != notes
            {
                let list: Vec<String> = findings
                    .iter()
                    .map(|f| f.to_string())
                    .chain(report.notes.iter().map(|f| format!("note: {f}")))
                    .collect();
                failures.push(format!(
                    "{name} at subgroup size {s} (shuffle {shuffle:?}): expected {expect:?}, got:\n  {}",
                    list.join("\n  ")
                ));
            }
        }
    }
    failures
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/sim_corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn corpus_verdicts_at_every_subgroup_size() {
    let failures: Vec<String> = corpus().iter().flat_map(|p| verdicts(p)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_kind_has_a_flagged_kernel_and_a_clean_twin() {
    let texts: Vec<String> = corpus()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for kind in FindingKind::ALL {
        let flagged = texts
            .iter()
            .any(|t| header(t, "expect").is_some_and(|e| list(e, ',').any(|k| k == kind.name())));
        assert!(flagged, "no corpus kernel is flagged {}", kind.name());
    }
    let clean = texts
        .iter()
        .filter(|t| header(t, "expect") == Some("clean"))
        .count();
    assert!(clean >= FindingKind::ALL.len(), "only {clean} clean twins");
}
