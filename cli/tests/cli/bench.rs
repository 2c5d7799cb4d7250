//! `wgsimd info`, `wgsimd bench` and `wgsimd plot`: the device description, verified rows in
//! the JSON report (with each sort's per-pass times where the GPU has timestamps), and the
//! report drawn again as an image.

use crate::common::{self, assert_success, s};

/// The JSON report of `wgsimd bench ARGS --json PATH`, after asserting the run succeeded.
fn bench_report(json: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["bench"];
    all.extend(args);
    all.extend(["--json", s(json)]);
    let o = common::wgsimd(&all);
    assert_success(&o);
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

/// The row of `algorithm` and `variant` in `rows`.
fn row<'a>(rows: &'a [serde_json::Value], algorithm: &str, variant: &str) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["algorithm"] == algorithm && r["variant"] == variant)
        .unwrap_or_else(|| panic!("no {algorithm} row {variant:?} in {rows:?}"))
}

/// `info` names the device and its limits on the simulator and on the GPU.
#[test]
fn info_names_the_device() {
    for backend in common::backends() {
        let o = common::wgsimd(&["info", "--backend", backend]);
        assert_success(&o);
        let out = String::from_utf8_lossy(&o.stdout);
        for key in [
            "selected:",
            "backend:",
            "subgroups:",
            "max storage binding:",
        ] {
            assert!(out.contains(key), "{backend}: {out}");
        }
    }
}

/// On the simulator: copy, reduce, scan and queue rows, all verified, in the JSON report (the
/// queue's state is the case's own buffers, whose ring the schedules leave differently);
/// `plot` draws the saved report as a PNG, and a file that is not a report is a clear error.
#[test]
fn sim_bench_verifies_and_plots_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let v = bench_report(
        &json,
        &[
            "--backend",
            "sim",
            "--only",
            "copy,reduce,scan,queue,select,runs,topk,histogram",
            "--sizes",
            "2048",
        ],
    );
    assert_eq!(v["backend"], "simulator");
    let rows = v["rows"].as_array().unwrap();
    for algorithm in ["copy", "reduce", "scan", "queue"] {
        assert!(
            rows.iter().any(|r| r["algorithm"] == algorithm),
            "no {algorithm} row in {rows:?}"
        );
    }
    assert!(rows.iter().all(|r| r["verified"] == true), "{rows:?}");
    let png = dir.path().join("b.png");
    let o = common::wgsimd(&["plot", s(&json), "-o", s(&png)]);
    assert_success(&o);
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "{}",
        bytes.len()
    );
    let o = common::wgsimd(&["plot", s(&png), "-o", s(&json)]);
    common::assert_clean_error(&o, "not a wgsimd bench report");
}

/// On the GPU at small sizes: every algorithm's rows verified, each sort strategy's keys and
/// pairs with its passes (histogram, scan and scatter per digit; OneSweep's global histogram
/// and one pass per digit) where the adapter has timestamps, and the GEMM's kernels at the
/// shape asked for.
#[test]
fn gpu_bench_verifies_every_algorithm() {
    if !common::gpu() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let v = bench_report(
        &json,
        &[
            "--backend",
            "gpu",
            "--only",
            "copy,reduce,scan,sort,gemm",
            "--sizes",
            "2^12",
            "--gemm-shapes",
            "33x17x65",
            "--repeats",
            "2",
            "--warmup",
            "1",
        ],
    );
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["verified"] == true), "{rows:?}");
    for algorithm in ["copy", "reduce", "scan"] {
        assert!(
            rows.iter().any(|r| r["algorithm"] == algorithm),
            "no {algorithm} row in {rows:?}"
        );
    }
    let pass_names = |r: &serde_json::Value| -> Vec<String> {
        r["passes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[0].as_str().unwrap().to_string())
            .collect()
    };
    for (strategy, wanted) in [
        (
            "reduce-then-scan",
            &["histogram 0", "scan 0", "scatter 0", "scatter 3"][..],
        ),
        (
            "onesweep",
            &["global histogram", "onesweep 0", "onesweep 3"][..],
        ),
    ] {
        for what in ["keys", "pairs"] {
            let r = row(rows, "sort", &format!("{what} u32 {strategy}"));
            assert!(r["median_ms"].as_f64().unwrap() > 0.0, "{r}");
            if r["time_source"] == "gpu timestamps" {
                let names = pass_names(r);
                for w in wanted {
                    assert!(
                        names.contains(&w.to_string()),
                        "{what} {strategy}: {names:?}"
                    );
                }
            }
        }
    }
    for variant in ["f32 tiled", "f16 tiled", "int4 tiled", "f16 tiled f16 out"] {
        let r = row(rows, "gemm", variant);
        assert_eq!(r["size_label"], "33x17x65", "{r}");
    }
}
