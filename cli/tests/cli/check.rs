//! `wgsimd check` end to end: exit codes 0/1/2, `--dump`, `--json`, `--schedule`, naga's
//! rendered errors; kernels from the library's simulator corpus (tests/sim_corpus).

use crate::common;

/// The corpus kernel `name`.
fn corpus(name: &str) -> String {
    format!("{}/../tests/sim_corpus/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `wgsimd check ARGS`: exit code, stdout, stderr.
fn check(args: &[&str]) -> (i32, String, String) {
    let out = common::command().arg("check").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A clean kernel exits 0, and `--dump 1` prints binding 1's values after the run.
#[test]
fn clean_kernel_exits_0_and_dumps() {
    let f = corpus("partial_valid_shuffle_fixed.wgsl");
    let (code, out, _) = check(&[
        &f,
        "--entry",
        "main",
        "--workgroups",
        "1",
        "--bind",
        "0=u32:iota:61",
        "--bind",
        "1=u32:uninit:61",
        "--dump",
        "1",
        "--subgroup-size",
        "8",
    ]);
    assert_eq!(code, 0, "{out}");
    let line = out.lines().find(|l| l.starts_with("binding 1: ")).unwrap();
    let vals: Vec<u32> = line["binding 1: ".len()..]
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    // x + x ^ 1's value: pairs (2k, 2k+1) both get 4k+1; the last element pairs with a zero
    let want: Vec<u32> = (0..61u32)
        .map(|i| if i == 60 { 60 } else { (i & !1) * 2 + 1 })
        .collect();
    assert_eq!(vals, want);
}

/// Each corpus bug exits 1 with a finding line that starts with its kind's name.
#[test]
fn findings_exit_1_with_kind_names() {
    for (file, wg, binds, kind) in [
        (
            "partial_valid_shuffle_bug.wgsl",
            "1",
            vec!["0=u32:iota:61", "1=u32:uninit:61"],
            "non-uniform-subgroup-op",
        ),
        (
            "reduce_read_past_end_bug.wgsl",
            "2",
            vec!["0=u32:iota:200", "1=u32:uninit:2"],
            "out-of-bounds",
        ),
        (
            "gemm_rows_unwritten_bug.wgsl",
            "1",
            vec!["0=f32:random:512", "1=f32:random:128", "2=f32:uninit:1024"],
            "unwritten-output",
        ),
    ] {
        let f = corpus(file);
        let mut args = vec![f.as_str(), "--entry", "main", "--workgroups", wg];
        for b in &binds {
            args.push("--bind");
            args.push(b);
        }
        let (code, out, err) = check(&args);
        assert_eq!(code, 1, "{file}: {out}{err}");
        assert!(
            out.lines().any(|l| l.starts_with(&format!("{kind}: "))),
            "{file}: {out}"
        );
    }
}

/// `--json`: one object on stdout with the findings (a race's two parties, its source line)
/// and the dumped bindings.
#[test]
fn json_is_machine_readable() {
    let f = corpus("race_missing_barrier_bug.wgsl");
    let (code, out, _) = check(&[
        &f,
        "--entry",
        "main",
        "--workgroups",
        "1",
        "--bind",
        "0=u32:random:64",
        "--bind",
        "1=u32:uninit:64",
        "--json",
        "--dump",
        "1",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["clean"], false);
    assert_eq!(v["findings"][0]["kind"], "workgroup-race");
    assert_eq!(v["findings"][0]["parties"].as_array().unwrap().len(), 2);
    assert!(v["findings"][0]["loc"]["line"].as_u64().unwrap() > 0);
    assert_eq!(v["dumps"]["1"].as_array().unwrap().len(), 64);
}

/// A validation error (naga's message at file:line:column), an unknown entry point, bad
/// `--workgroups`, `--bind` and `--subgroup-size` values, no `--entry` and a missing file exit 2
/// with a message.
#[test]
fn errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.wgsl");
    std::fs::write(
        &bad,
        "@compute @workgroup_size(64)\nfn main() { let x: u32 = 1.5; }\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    // validation error: naga's span-rendered message
    let (code, _, err) = check(&[bad, "--entry", "main", "--workgroups", "1"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.wgsl:2:17") && err.contains("let x: u32 = 1.5"),
        "{err}"
    );
    let ok = corpus("race_missing_barrier_bug.wgsl");
    for args in [
        vec![ok.as_str(), "--entry", "nope", "--workgroups", "1"],
        vec![ok.as_str(), "--entry", "main", "--workgroups", "x"],
        vec![
            ok.as_str(),
            "--entry",
            "main",
            "--workgroups",
            "1",
            "--bind",
            "0=u64:zeros:4",
        ],
        vec![
            ok.as_str(),
            "--entry",
            "main",
            "--workgroups",
            "1",
            "--bind",
            "0=u32:zeros:64",
        ],
        vec![
            ok.as_str(),
            "--entry",
            "main",
            "--workgroups",
            "1",
            "--subgroup-size",
            "3",
        ],
        vec![ok.as_str(), "--workgroups", "1"],
        vec!["/nonexistent.wgsl", "--entry", "main", "--workgroups", "1"],
    ] {
        let (code, out, err) = check(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(!err.is_empty());
    }
}

/// `--schedule`: the kernel with a bounded wait is clean in every order; the unbounded wait
/// (workgroup 0 spins on workgroup 1) hangs in order and passes only when workgroup 0 is starved.
#[test]
fn schedule_flag() {
    let f = corpus("spin_wait_with_fallback_fine.wgsl");
    let base = [
        f.as_str(),
        "--entry",
        "main",
        "--workgroups",
        "2",
        "--bind",
        "0=u32:zeros:1",
        "--bind",
        "1=u32:uninit:2",
        "--max-steps",
        "20000",
    ];
    for sched in ["in-order", "shuffled:3", "unfair:0", "unfair:1"] {
        let mut args = base.to_vec();
        args.extend(["--schedule", sched]);
        let (code, out, err) = check(&args);
        assert_eq!(code, 0, "{sched}: {out}{err}");
    }
    let mut args = base.to_vec();
    args.extend(["--schedule", "sideways"]);
    assert_eq!(check(&args).0, 2);
    let bug = corpus("spin_wait_on_later_workgroup_bug.wgsl");
    let mut args = base.to_vec();
    args[0] = bug.as_str();
    let (code, out, _) = check(&args);
    assert_eq!(code, 1);
    assert!(out.starts_with("step-limit: "), "{out}");
    args.extend(["--schedule", "unfair:0"]);
    assert_eq!(check(&args).0, 0);
}
