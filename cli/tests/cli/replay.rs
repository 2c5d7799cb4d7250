//! `wgsimd replay DIR`: the trace wgpu 30 recorded of the lab's `trace_app`
//! (tests/fixtures/replay/reduce_scan) at several subgroup sizes, `--dump`, `--json`, and the
//! errors (exit 2).

use crate::common;

fn fixture() -> String {
    format!(
        "{}/../tests/fixtures/replay/reduce_scan",
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

/// At 32 lanes: both dispatches clean (exit 0), and the scan's output what the application
/// meant; at 8 (lavapipe's) the reduction's butterfly reaches past the subgroup, reported at
/// the line of the application's shader file (exit 1).
#[test]
fn replays_the_fixture() {
    let dir = fixture();
    let (code, out, err) = wgsimd(&[
        "--subgroup-size",
        "32",
        "replay",
        &dir,
        "--all",
        "--dump",
        "offsets",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("== dispatch 0 (submission 1, pass `reduce`): pipeline `partial sums`"),
        "{out}"
    );
    assert!(
        out.contains("indirect workgroups from `args` at byte 16: clean"),
        "{out}"
    );
    assert!(
        out.contains("buffer offsets: 0 16256 65280 147072 261632 408960 589056 801920 999000\n"),
        "{out}"
    );
    assert!(
        err.contains("2 compute dispatch(es) replayed at subgroup size 32"),
        "{err}"
    );
    let (code, out, _) = wgsimd(&["--subgroup-size", "8", "replay", &dir]);
    assert_eq!(code, 1, "{out}");
    let first = out.lines().nth(1).unwrap();
    assert!(first.starts_with("shuffle-out-of-range: "), "{out}");
    assert!(first.ends_with("reduce_scan/data1.wgsl:33:10]"), "{first}");
    // only the dispatch with findings is listed without --all
    assert!(!out.contains("== dispatch 1"), "{out}");
}

/// `--json`: the dispatches with their findings, the dumps typed as asked.
#[test]
fn json_output() {
    let (code, out, _) = wgsimd(&[
        "--subgroup-size",
        "16",
        "replay",
        &fixture(),
        "--json",
        "--dump",
        "offsets:f32",
        "--dump",
        "args",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["clean"], false);
    assert_eq!(v["subgroup_size"], 16);
    let d = v["dispatches"].as_array().unwrap();
    assert_eq!(d.len(), 2);
    assert_eq!(d[0]["entry"], "partial");
    assert_eq!(d[0]["workgroups"], serde_json::json!([8, 1, 1]));
    assert_eq!(d[0]["findings"][0]["kind"], "shuffle-out-of-range");
    assert_eq!(
        d[1]["workgroups"],
        serde_json::json!({"indirect": "args", "offset": 16})
    );
    assert_eq!(
        v["dumps"]["args"],
        serde_json::json!([0, 0, 0, 0, 1, 1, 1, 0])
    );
    assert!(v["dumps"]["offsets"][0].is_f64());
    assert!(v["stopped"].is_null());
}

/// A missing folder, a file that is not a trace, a `--dump` label no buffer has, a bad
/// simulator option: exit 2 with a message; a trace whose dispatch cannot run stops with the
/// reason (exit 2).
#[test]
fn errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("trace.ron"), "Init()").unwrap();
    let stops = tempfile::tempdir().unwrap();
    std::fs::write(
        stops.path().join("trace.ron"),
        r#"[
CreateShaderModule(id: PointerId(1), desc: (label: Some("m")), data: File("data1.spv")),
CreateComputePipeline(id: PointerId(3), desc: (label: Some("p"), layout: None, stage: (module: PointerId(1), entry_point: Some("main"), constants: {}))),
Submit(1, [RunComputePass(pass: (label: None, commands: [SetPipeline(PointerId(3)), DispatchWorkgroups((1, 1, 1))], dynamic_offsets: [], string_data: [], immediates_data: []), timestamp_writes: None)]),
]"#,
    )
    .unwrap();
    let fx = fixture();
    for (args, want) in [
        (vec!["replay", "/nonexistent"], "/nonexistent/trace.ron"),
        (
            vec!["replay", common::s(dir.path())],
            "a wgpu trace is a list of actions",
        ),
        (
            vec!["replay", &fx, "--dump", "nope"],
            "no buffer of the trace is labelled `nope`",
        ),
        (vec!["replay", &fx, "--dump", ":u32"], "no buffer label"),
        (vec!["replay", &fx, "--schedule", "sideways"], "sideways"),
        (
            vec!["--subgroup-size", "3", "replay", &fx],
            "--subgroup-size must be a power of two",
        ),
        (
            vec!["replay", common::s(stops.path())],
            "stopped: action 3 (Submit): shader module m",
        ),
    ] {
        let (code, out, err) = wgsimd(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
