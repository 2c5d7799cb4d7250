//! `wgsimd pipeline FILE`: the reduce-then-scan of tests/fixtures/pipeline/reduce_scan (three
//! passes, state kept in buffers between them, `enable subgroups;` in both shaders), findings
//! per pass, `--json`, buffers from files, and every error of the file exiting 2.

use std::path::Path;

use crate::common;

fn fixture_dir() -> String {
    format!(
        "{}/../tests/fixtures/pipeline/reduce_scan",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `wgsimd ARGS`: exit code, stdout, stderr.
fn wgsimd(args: &[&str]) -> (i32, String, String) {
    let out = common::command().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The values after `buffer NAME: ` on stdout.
fn dumped(out: &str, name: &str) -> Vec<u32> {
    let prefix = format!("buffer {name}: ");
    let line = out
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in {out}"));
    line[prefix.len()..]
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect()
}

fn exclusive_scan(input: &[u32]) -> (Vec<u32>, u32) {
    let mut sum = 0;
    let scan = input
        .iter()
        .map(|x| {
            sum += x;
            sum - x
        })
        .collect();
    (scan, sum)
}

/// The fixture as checked in: three clean passes, the output the exclusive scan of 0..1000,
/// at subgroup sizes 4 to 128; a note for each shader's blanked `enable subgroups;`.
#[test]
fn reduce_then_scan_fixture() {
    let file = format!("{}/pipeline.json", fixture_dir());
    let input: Vec<u32> = (0..1000).collect();
    let (scan, sum) = exclusive_scan(&input);
    for sg in ["4", "32", "128"] {
        let (code, out, err) = wgsimd(&["--subgroup-size", sg, "pipeline", &file]);
        assert_eq!(code, 0, "{sg}: {out}{err}");
        assert_eq!(dumped(&out, "output"), scan);
        assert_eq!(dumped(&out, "total"), [sum]);
        for (i, name) in ["reduce", "scan", "downsweep"].iter().enumerate() {
            assert!(
                out.contains(&format!("== pass {i} `{name}` (")) && out.contains("): clean"),
                "{out}"
            );
        }
        assert_eq!(
            err.matches("removed `subgroups` before parsing").count(),
            2,
            "{err}"
        );
    }
}

/// The pipeline file with `buffers` and `passes` replaced (shader paths absolute).
fn edited(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let text = std::fs::read_to_string(format!("{}/pipeline.json", fixture_dir())).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for p in v["passes"].as_array_mut().unwrap() {
        let shader = p["shader"].as_str().unwrap().to_string();
        p["shader"] = format!("{}/{shader}", fixture_dir()).into();
    }
    edit(&mut v);
    let path = dir.join("pipeline.json");
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    common::s(&path).to_string()
}

/// Input from a .npy file and a raw file named relative to the pipeline file; `--dump` adds a
/// buffer; `--json` has per-pass findings and the dumps.
#[test]
fn inputs_from_files_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let input: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
    let (scan, sum) = exclusive_scan(&input);
    common::write_npy(dir.path(), "input.npy", &input);
    std::fs::write(
        dir.path().join("params.bin"),
        common::u32_bytes(&[1000, 8, 0, 0]),
    )
    .unwrap();
    let file = edited(dir.path(), |v| {
        v["buffers"]["input"]["init"] = "file:input.npy".into();
        v["buffers"]["params"]["init"] = "file:params.bin".into();
    });
    let (code, out, err) = wgsimd(&["pipeline", &file, "--dump", "partials"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(dumped(&out, "output"), scan);
    assert_eq!(dumped(&out, "partials").len(), 8);
    let (code, out, _) = wgsimd(&["pipeline", &file, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["clean"], true);
    assert_eq!(v["passes"].as_array().unwrap().len(), 3);
    assert_eq!(v["passes"][2]["name"], "downsweep");
    assert_eq!(v["dumps"]["total"][0], sum);
    assert_eq!(v["stripped"].as_array().unwrap().len(), 2);
}

/// A bug in one pass is reported under that pass, exit 1: the downsweep given 7 of the 8
/// workgroups leaves output unwritten (a finding of the whole run); a length past the input
/// makes the first and the last pass read past its end.
#[test]
fn findings_per_pass_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = edited(dir.path(), |v| {
        v["passes"][2]["workgroups"] = serde_json::json!([7])
    });
    let (code, out, _) = wgsimd(&["pipeline", &file]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("== the whole run: 1 finding(s)\nunwritten-output: "),
        "{out}"
    );
    let file = edited(dir.path(), |v| {
        v["buffers"]["params"]["init"] = serde_json::json!([1100, 9, 0, 0]);
        v["buffers"]["partials"]["init"] = "zeros:9".into();
        v["buffers"]["output"]["init"] = "uninit:1100".into();
        v["passes"][0]["workgroups"] = serde_json::json!([9]);
        v["passes"][2]["workgroups"] = serde_json::json!([9]);
    });
    let (code, out, _) = wgsimd(&["pipeline", &file, "--json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kinds = |i: usize| -> Vec<String> {
        v["passes"][i]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(kinds(0), ["out-of-bounds"]);
    assert!(kinds(1).is_empty());
    assert_eq!(kinds(2), ["out-of-bounds"]);
}

/// Every error of a pipeline file exits 2 with a message naming it.
#[test]
fn file_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|v| v["passes"] = serde_json::json!([])),
            "no passes",
        ),
        (Box::new(|v| v["extra"] = 1.into()), "unknown field `extra`"),
        (
            Box::new(|v| v["passes"][0]["bind"]["0"] = "nope".into()),
            "no buffer `nope`",
        ),
        (
            Box::new(|v| v["passes"][0]["bind"]["x:0"] = "input".into()),
            "binding \"x:0\" is not I or G:I",
        ),
        (
            Box::new(|v| v["passes"][0]["bind"]["3:3"] = "input".into()),
            "declares no @group(3) @binding(3)",
        ),
        (
            Box::new(|v| v["passes"][0]["entry"] = "main".into()),
            "no compute entry point `main`",
        ),
        (
            Box::new(|v| v["passes"][0]["overrides"]["NOPE"] = 1.into()),
            "declares no override `NOPE`",
        ),
        (
            Box::new(|v| v["passes"][0]["overrides"]["WG"] = "big".into()),
            "override `WG` is not a number or boolean",
        ),
        (
            Box::new(|v| v["passes"][0]["workgroups"] = serde_json::json!([1, 2, 3, 4])),
            "1 to 3 counts",
        ),
        (
            Box::new(|v| v["passes"][0]["workgroups"] = serde_json::json!([4294967296u64])),
            "pass 0 (`reduce`): `workgroups` is not [X]",
        ),
        (
            Box::new(|v| {
                v["passes"][0]["workgroups"] = serde_json::json!({"indirect": "params", "skip": 1})
            }),
            "unknown field `skip`",
        ),
        (
            Box::new(|v| {
                v["passes"][0]["bind"]["0"] = serde_json::json!({"buffer": "input", "offset": -4})
            }),
            "`offset` is not an unsigned number",
        ),
        (
            Box::new(|v| v["passes"][0]["bind"]["0"] = 3.into()),
            "binding \"0\": not a buffer name",
        ),
        (
            Box::new(|v| v["buffers"]["input"]["init"] = serde_json::json!({"a": 1})),
            "`init` is neither a string",
        ),
        (
            Box::new(|v| {
                v["passes"][0]["workgroups"] =
                    serde_json::json!({"indirect": "params", "offset": 8})
            }),
            "indirect args outside",
        ),
        (
            Box::new(|v| v["passes"][0]["shader"] = "/nonexistent.wgsl".into()),
            "/nonexistent.wgsl",
        ),
        (
            Box::new(|v| v["buffers"]["input"]["type"] = "u64".into()),
            "unknown element type \"u64\"",
        ),
        (
            Box::new(|v| v["buffers"]["input"]["init"] = "random:4611686018427387904".into()),
            "a binding may have",
        ),
        (
            Box::new(|v| v["buffers"]["input"]["init"] = "zeros:4611686018427387908".into()),
            "a binding may have",
        ),
        (
            Box::new(|v| v["buffers"]["input"]["init"] = serde_json::json!([])),
            "no values",
        ),
        (
            Box::new(|v| v["buffers"]["input"]["init"] = serde_json::json!([1.5])),
            "a value is not a u32",
        ),
        (
            Box::new(|v| v["buffers"]["input"]["init"] = "file:missing.npy".into()),
            "missing.npy",
        ),
        (
            Box::new(|v| v["buffers"]["output"]["init"] = "uninit:0".into()),
            "at least one element",
        ),
        (
            Box::new(|v| {
                v["passes"][0]["bind"]["1:0"] =
                    serde_json::json!({"buffer": "partials", "offset": 18446744073709551612u64})
            }),
            "outside buffer",
        ),
        (
            Box::new(|v| v["dump"] = serde_json::json!(["nope"])),
            "dump: no buffer `nope`",
        ),
    ];
    for (edit, want) in cases {
        let file = edited(dir.path(), edit);
        let (code, out, err) = wgsimd(&["pipeline", &file]);
        assert_eq!(code, 2, "{want}: {out}{err}");
        assert!(!err.contains("panicked"), "{err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("wgsimd pipeline: "))
            .unwrap_or("");
        assert!(line.contains(want), "{want}: {err}");
    }
    let bad_json = dir.path().join("bad.json");
    std::fs::write(&bad_json, "{").unwrap();
    for (args, want) in [
        (vec!["pipeline", common::s(&bad_json)], "EOF while parsing"),
        (vec!["pipeline", "/nonexistent.json"], "/nonexistent.json"),
        (
            vec!["--subgroup-size", "3", "pipeline", common::s(&bad_json)],
            "--subgroup-size must be a power of two",
        ),
    ] {
        let (code, _, err) = wgsimd(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// Immediate data: `check --immediates` and a pipeline pass's `immediates` buffer give a
/// `var<immediate>` its bytes; a kernel that reads it without them exits 2 with one line.
#[test]
fn immediates_from_check_and_from_a_pipeline_file() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("scaled.wgsl");
    std::fs::write(
        &shader,
        "struct P { scale: u32, offset: u32 }
         var<immediate> p: P;
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(8)
         fn main(@builtin(local_invocation_index) i: u32) { out[i] = i * p.scale + p.offset; }",
    )
    .unwrap();
    let want: Vec<u32> = (0..8).map(|i| i * 3 + 10).collect();
    let shader_arg = common::s(&shader);
    let base = ["check", shader_arg, "--entry", "main", "--workgroups", "1"];
    let mut args = base.to_vec();
    args.extend([
        "--bind",
        "0=u32:uninit:8",
        "--dump",
        "0",
        "--immediates",
        "u32:[3,10]",
    ]);
    let (code, out, err) = wgsimd(&args);
    assert_eq!(code, 0, "{out}{err}");
    let line = out.lines().find(|l| l.starts_with("binding 0: ")).unwrap();
    let got: Vec<u32> = line["binding 0: ".len()..]
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(got, want);
    let mut args = base.to_vec();
    args.extend(["--bind", "0=u32:uninit:8"]);
    let (code, out, err) = wgsimd(&args);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("reads immediate data `p` (8 bytes)"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let file = dir.path().join("scaled.json");
    std::fs::write(
        &file,
        r#"{ "buffers": { "out": { "type": "u32", "init": "uninit:8" },
                           "p": { "type": "u32", "init": [3, 10] } },
             "passes": [ { "shader": "scaled.wgsl", "entry": "main", "workgroups": [1],
                           "bind": { "0": "out" }, "immediates": "p" } ],
             "dump": ["out"] }"#,
    )
    .unwrap();
    let (code, out, err) = wgsimd(&["pipeline", common::s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(dumped(&out, "out"), want);
}
