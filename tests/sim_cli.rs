//! `wgsimd check` end to end: exit codes 0/1/2, `--dump`, `--json`, naga's rendered errors.

use std::process::Command;

fn corpus(name: &str) -> String {
    format!("{}/tests/sim_corpus/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn check(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wgsimd"))
        .arg("check")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

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
