//! `wgsimd info`, `wgsimd bench` and `wgsimd plot`: the device description, verified rows in
//! the JSON report (with each sort's per-pass times where the GPU has timestamps), and the
//! report drawn again as an image.

use crate::common::{self, assert_clean_error, assert_success, s};

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

/// `bench --compare LOG --plot`: the yardstick's figure is in the report (`yardstick_value`)
/// and the image draws it beside the row, with the panel of ratios; `plot` of the report draws
/// the same.
#[test]
fn sim_bench_plots_its_yardsticks_and_their_ratios() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cub.log");
    std::fs::write(
        &log,
        "RESULT cub | DeviceReduce::Sum u32 | 2048 | 0.001 GB/s | median 1 ms | x\n",
    )
    .unwrap();
    let svg = dir.path().join("b.svg");
    let json = dir.path().join("b.json");
    let v = bench_report(
        &json,
        &[
            "--backend",
            "sim",
            "--only",
            "reduce",
            "--sizes",
            "2048",
            "--compare",
            s(&log),
            "--plot",
            s(&svg),
        ],
    );
    let sum = row(v["rows"].as_array().unwrap(), "reduce", "sum u32");
    assert_eq!(sum["yardstick_value"], 0.001, "{sum}");
    assert!(sum["ratio"].as_f64().unwrap() > 0.0, "{sum}");
    let again = dir.path().join("again.svg");
    let o = common::wgsimd(&["plot", s(&json), "-o", s(&again)]);
    assert_success(&o);
    for image in [&svg, &again] {
        let text = std::fs::read_to_string(image).unwrap();
        assert!(text.contains("ours / yardstick at the same size"), "{text}");
        assert!(text.contains("cub DeviceReduce::Sum u32"), "{text}");
        assert!(text.contains("reduce sum u32"), "{text}");
    }
}

/// A report row for `plot`: `extra` is spliced in after the figures (yardstick fields).
fn saved_row(variant: &str, size: u64, throughput: f64, extra: &str) -> String {
    format!(
        r#"{{"algorithm": "sort", "variant": "{variant}", "size": {size}, "size_label": "{size}",
"median_ms": 1.0, "min_ms": 1.0, "throughput": {throughput}, "unit": "Gkeys/s",
"frac_of_copy": null, "verified": true, "error": null, "time_source": "gpu timestamps",
"passes": [] {extra}}}"#
    )
}

/// `plot` of several reports (a process per size, as the H200 table runs the sort): their rows
/// drawn as one picture; reports of two adapters, or a row in two reports, are clear errors.
#[test]
fn plot_draws_several_reports_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let report = |name: &str, adapter: &str, rows: &[String]| {
        let json = dir.path().join(name);
        std::fs::write(
            &json,
            format!(
                r#"{{"adapter": "{adapter}", "rows": [{}]}}"#,
                rows.join(",")
            ),
        )
        .unwrap();
        json
    };
    let plain = r#", "yardstick": null, "ratio": null"#;
    let a = report(
        "a.json",
        "H200",
        &[saved_row("keys u32", 1 << 20, 10.0, plain)],
    );
    let b = report(
        "b.json",
        "H200",
        &[saved_row("keys u32", 1 << 24, 30.0, plain)],
    );
    let svg = dir.path().join("r.svg");
    let o = common::wgsimd(&["plot", s(&a), s(&b), "-o", s(&svg)]);
    assert_success(&o);
    let both = std::fs::read_to_string(&svg).unwrap();
    let one = dir.path().join("one.svg");
    assert_success(&common::wgsimd(&["plot", s(&a), "-o", s(&one)]));
    let one = std::fs::read_to_string(&one).unwrap();
    assert!(both.contains("2^24") && !one.contains("2^24"), "{both}");
    let other = report(
        "c.json",
        "M2",
        &[saved_row("keys u32", 1 << 22, 20.0, plain)],
    );
    let again = report(
        "d.json",
        "H200",
        &[saved_row("keys u32", 1 << 20, 11.0, plain)],
    );
    // each drawn with `a`, refused with an error line naming what clashed (one report named
    // twice is a case in two reports too)
    let refusals: [(&std::path::Path, &[&str]); 3] = [
        (&other, &["H200", "M2"]),
        (&again, &["keys u32", "d.json"]),
        (&a, &["keys u32", "a.json"]),
    ];
    for (second, needles) in refusals {
        let o = common::wgsimd(&["plot", s(&a), s(second), "-o", s(&svg)]);
        for needle in needles {
            assert_clean_error(&o, needle);
        }
    }
}

/// `plot` of a saved report: without yardsticks one panel per unit and no ratios (a report
/// from before `yardstick_value` reads as before); with them, each yardstick's line and the
/// ratios' panel, the yardstick's figure taken from the ratio where the report has only that.
#[test]
fn plot_draws_the_ratios_only_where_rows_were_compared() {
    let dir = tempfile::tempdir().unwrap();
    let plot = |rows: &[String]| {
        let json = dir.path().join("r.json");
        std::fs::write(
            &json,
            format!(r#"{{"adapter": "H200", "rows": [{}]}}"#, rows.join(",")),
        )
        .unwrap();
        let svg = dir.path().join("r.svg");
        let o = common::wgsimd(&["plot", s(&json), "-o", s(&svg)]);
        assert_success(&o);
        std::fs::read_to_string(&svg).unwrap()
    };
    let plain = plot(&[
        saved_row(
            "keys u32",
            1 << 20,
            10.0,
            r#", "yardstick": null, "ratio": null"#,
        ),
        saved_row(
            "keys u32",
            1 << 24,
            30.0,
            r#", "yardstick": null, "ratio": null"#,
        ),
    ]);
    assert!(!plain.contains("ours / yardstick"), "{plain}");
    assert!(plain.contains(r#"height="420""#), "one panel: {plain}");
    let compared = plot(&[
        saved_row(
            "keys u32",
            1 << 20,
            12.0,
            r#", "yardstick": "cub SortKeys u32 = 10.0 Gkeys/s", "ratio": 1.2, "yardstick_value": 10.0"#,
        ),
        // a report from before `yardstick_value`: the figure is 30 / 0.75
        saved_row(
            "keys u32",
            1 << 24,
            30.0,
            r#", "yardstick": "cub SortKeys u32 = 40.0 Gkeys/s", "ratio": 0.75"#,
        ),
    ]);
    assert!(compared.contains("H200: ours / yardstick at the same size"));
    assert!(compared.contains("cub SortKeys u32"), "{compared}");
    assert!(
        compared.contains(r#"height="840""#),
        "two panels: {compared}"
    );
}
