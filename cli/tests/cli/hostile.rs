//! Input written to break the tool: grids whose workgroup total wraps in 32 bits, runs that
//! would take days, and files larger than anything the simulator holds. Each is a one-line
//! error (exit 2) or a finding (exit 1), quickly, never a crash, a hang or a clean verdict.

use std::path::Path;

use crate::common;

/// `wgsimd ARGS`: exit code, stdout, stderr.
fn wgsimd(args: &[&str]) -> (i32, String, String) {
    let out = common::command().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn fixture(rel: &str) -> String {
    format!("{}/../tests/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Copies the files of folder `from` into `to`.
fn copy_dir(from: &str, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// A pipeline pass and a replayed dispatch of 4096x4096x256 workgroups (0 in 32 bits) exit 2
/// naming the count, as `check` does, instead of running none and answering clean.
#[test]
fn pipeline_and_replay_refuse_grids_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("pipeline/reduce_scan"), dir.path());
    let file = dir.path().join("pipeline.json");
    let json = std::fs::read_to_string(&file).unwrap();
    let huge = json.replacen(
        "\"workgroups\": [8]",
        "\"workgroups\": [4096, 4096, 256]",
        1,
    );
    assert_ne!(huge, json);
    std::fs::write(&file, huge).unwrap();
    let (code, out, err) = wgsimd(&["pipeline", common::s(&file)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("4294967296 workgroups"), "{err}");

    let trace = tempfile::tempdir().unwrap();
    copy_dir(&fixture("replay/reduce_scan"), trace.path());
    let ron = trace.path().join("trace.ron");
    let text = std::fs::read_to_string(&ron).unwrap();
    let huge = text.replacen(
        "DispatchWorkgroups((8, 1, 1))",
        "DispatchWorkgroups((4096, 4096, 256))",
        1,
    );
    assert_ne!(huge, text);
    std::fs::write(&ron, huge).unwrap();
    let (code, out, err) = wgsimd(&["replay", common::s(trace.path())]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("4294967296 workgroups"), "{err}");
}

/// A kernel whose 4096 workgroups each loop 10,000 times would run for minutes; under
/// `--max-run-steps 100000` it stops at once with a `step-limit` finding (exit 1). Under the
/// default the first 16 workgroups run to the end, clean.
#[test]
fn a_run_past_its_step_budget_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("spin.wgsl");
    std::fs::write(
        &f,
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) w: vec3<u32>) {
    var s = 0u;
    for (var i = 0u; i < 10000u; i++) { s += i; }
    out[w.x % 16u] = s;
}
",
    )
    .unwrap();
    let f = common::s(&f);
    let base = ["check", f, "--entry", "main", "--bind", "0=u32:zeros:16"];
    let t = std::time::Instant::now();
    let mut args = base.to_vec();
    args.extend(["--workgroups", "4096", "--max-run-steps", "100000"]);
    let (code, out, err) = wgsimd(&args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with("step-limit: the run ran out of its budget of 100000 steps"),
        "{out}"
    );
    assert!(t.elapsed().as_secs() < 60, "{:?}", t.elapsed());
    let mut args = base.to_vec();
    args.extend(["--workgroups", "16", "--schedules", "1"]);
    let (code, out, err) = wgsimd(&args);
    assert_eq!(code, 0, "{out}{err}");
}

/// `/dev/zero` as the shader file: exit 2 at the 1 MiB cap, not a process that grows until it
/// is killed; as a pipeline file, at 64 MiB.
#[test]
fn an_endless_shader_file_is_refused_at_the_cap() {
    let (code, out, err) = wgsimd(&["check", "/dev/zero", "--entry", "main", "--workgroups", "1"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("more than 1048576 bytes"), "{err}");
    let (code, out, err) = wgsimd(&["pipeline", "/dev/zero"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("more than 67108864 bytes"), "{err}");
}

/// A .npy header declaring 2^40 elements, over a pipe that never ends: refused from the header
/// (exit 2) before any data is read; and a regular file whose header declares more data than
/// it holds, from its length.
#[test]
fn npy_sizes_are_checked_from_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("k.wgsl");
    std::fs::write(
        &shader,
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = 1u; }",
    )
    .unwrap();
    let header = |n: u64| {
        let dict = format!("{{'descr': '<u4', 'fortran_order': False, 'shape': ({n},), }}");
        let mut h = b"\x93NUMPY\x01\x00".to_vec();
        let pad = (64 - (10 + dict.len() + 1) % 64) % 64;
        let text = format!("{dict}{}\n", " ".repeat(pad));
        h.extend((text.len() as u16).to_le_bytes());
        h.extend(text.as_bytes());
        h
    };
    let fifo = dir.path().join("endless.npy");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let path = fifo.clone();
        let h = header(1 << 40);
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            let _ = f.write_all(&h);
            let zeros = vec![0u8; 1 << 16];
            // until the reader goes away (a broken pipe)
            while f.write_all(&zeros).is_ok() {}
        });
        let bind = format!("0=u32:file:{}", common::s(&fifo));
        let t = std::time::Instant::now();
        let (code, out, err) = wgsimd(&[
            "check",
            common::s(&shader),
            "--entry",
            "main",
            "--workgroups",
            "1",
            "--bind",
            &bind,
        ]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains("its header declares 1099511627776 elements"),
            "{err}"
        );
        assert!(t.elapsed().as_secs() < 30, "{:?}", t.elapsed());
        writer.join().unwrap();
    }
    let short = dir.path().join("short.npy");
    let mut bytes = header(1000);
    bytes.extend([0u8; 40]);
    std::fs::write(&short, bytes).unwrap();
    let bind = format!("0=u32:file:{}", common::s(&short));
    let (code, out, err) = wgsimd(&[
        "check",
        common::s(&shader),
        "--entry",
        "main",
        "--workgroups",
        "1",
        "--bind",
        &bind,
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("declares 4000 bytes of data"), "{err}");
}

/// A bench report row as `wgsimd bench --json` writes it.
fn row(unit: &str, size: u64, throughput: &str) -> String {
    format!(
        r#"{{"algorithm": "reduce", "variant": "u32", "size": {size}, "size_label": "{size}",
"median_ms": 1.0, "min_ms": 1.0, "throughput": {throughput}, "unit": "{unit}",
"frac_of_copy": null, "verified": true, "error": null, "time_source": "wall",
"passes": [], "yardstick": null, "ratio": null}}"#
    )
}

/// `plot` of rows whose throughput is null, ~1e308 or whose size is 0 (each spun forever)
/// draws the good rows and leaves those out; 10,000 units (an image of 4.2 million rows of
/// pixels, an abort) is an error; `/dev/zero` as the report is an error at the cap.
#[test]
fn plot_is_bounded_on_degenerate_rows_and_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let report = |rows: Vec<String>| {
        let f = dir.path().join("r.json");
        std::fs::write(
            &f,
            format!(r#"{{"adapter": "t", "rows": [{}]}}"#, rows.join(",")),
        )
        .unwrap();
        f
    };
    for bad in [
        row("GB/s", 1024, "null"),
        row("GB/s", 0, "5.0"),
        row("GB/s", 1024, "1e308"),
        row("Gkeys/s", 1024, "null"),
    ] {
        for image in ["p.svg", "p.png"] {
            let f = report(vec![row("GB/s", 2048, "3.0"), bad.clone()]);
            let out = dir.path().join(image);
            let t = std::time::Instant::now();
            let o = common::wgsimd(&["plot", common::s(&f), "-o", common::s(&out)]);
            common::assert_success(&o);
            assert!(t.elapsed().as_secs() < 30, "{bad}: {:?}", t.elapsed());
            assert!(std::fs::metadata(&out).unwrap().len() > 1000);
        }
    }
    let many: Vec<String> = (0..10_000)
        .map(|i| row(&format!("u{i}"), 1024, "1.0"))
        .collect();
    let f = report(many);
    let o = common::wgsimd(&[
        "plot",
        common::s(&f),
        "-o",
        common::s(&dir.path().join("m.png")),
    ]);
    common::assert_clean_error(&o, "10000 units");
    let o = common::wgsimd(&[
        "plot",
        "/dev/zero",
        "-o",
        common::s(&dir.path().join("z.png")),
    ]);
    common::assert_clean_error(&o, "more than 67108864 bytes");
}

/// `replay --dump` of a buffer the trace creates with 2^60 bytes and never uses (its zeros
/// were allocated, an abort): exit 2 naming the buffer; the trace's real buffers still dump.
#[test]
fn replay_dump_of_a_huge_unused_buffer_is_an_error() {
    let trace = tempfile::tempdir().unwrap();
    copy_dir(&fixture("replay/reduce_scan"), trace.path());
    let ron = trace.path().join("trace.ron");
    let text = std::fs::read_to_string(&ron).unwrap();
    let huge = text.replacen(
        "CreateBuffer(PointerId(94677590192960), (",
        "CreateBuffer(PointerId(1), (
    label: Some(\"huge\"),
    size: 1152921504606846976,
    usage: \"STORAGE\",
    mapped_at_creation: false,
)),
CreateBuffer(PointerId(94677590192960), (",
        1,
    );
    assert_ne!(huge, text);
    std::fs::write(&ron, huge).unwrap();
    let dir = common::s(trace.path());
    let (code, out, err) = wgsimd(&["--subgroup-size", "32", "replay", dir, "--dump", "huge"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("buffer `huge` has 1152921504606846976 bytes"),
        "{err}"
    );
    let (code, out, err) = wgsimd(&["--subgroup-size", "32", "replay", dir, "--dump", "input"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("buffer input: 0 1 2"), "{out}");
}

/// `--memory-budget`: under 1K the replay stops at the trace's first buffer (exit 2, naming
/// it), `check` and `pipeline` refuse their buffers before the run; a bad value is a usage
/// error; the default replays the fixture.
#[test]
fn the_memory_budget_is_settable_and_bounds_every_command() {
    let trace = fixture("replay/reduce_scan");
    let (code, out, err) = wgsimd(&[
        "--subgroup-size",
        "32",
        "replay",
        &trace,
        "--memory-budget",
        "1K",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("buffer `input` has 4000 bytes"), "{err}");
    assert!(err.contains("memory budget of 1024"), "{err}");
    let (code, out, err) = wgsimd(&["--subgroup-size", "32", "replay", &trace]);
    assert_eq!(code, 0, "{out}{err}");
    let pipeline = fixture("pipeline/reduce_scan/pipeline.json");
    let (code, out, err) = wgsimd(&["pipeline", &pipeline, "--memory-budget", "1K"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("the memory budget is 1024"), "{err}");
    let (code, out, err) = wgsimd(&["pipeline", &pipeline, "--memory-budget", "lots"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--memory-budget \"lots\""), "{err}");
}

/// `plot` of rows whose yardstick is 0, missing (null, as NaN is written), 1e308, or so small
/// that the ratio is 1e300: those yardsticks are left out, the rows are drawn, and with no
/// yardstick left there is no ratios' panel.
#[test]
fn plot_leaves_out_degenerate_yardsticks() {
    let dir = tempfile::tempdir().unwrap();
    let with = |value: &str, ratio: &str| {
        row("GB/s", 2048, "3.0").replace(
            r#""yardstick": null, "ratio": null"#,
            &format!(
                r#""yardstick": "cub DeviceReduce::Sum u32 = {value} GB/s", "ratio": {ratio},
"yardstick_value": {value}"#
            ),
        )
    };
    for bad in [
        with("0.0", "null"),
        with("null", "null"),
        with("null", "0.0"),
        with("1e308", "3e-308"),
        with("3e-300", "1e300"),
    ] {
        assert!(bad.contains("yardstick_value"), "{bad}");
        for image in ["p.svg", "p.png"] {
            let f = dir.path().join("r.json");
            std::fs::write(
                &f,
                format!(
                    r#"{{"adapter": "t", "rows": [{bad}, {}]}}"#,
                    row("GB/s", 1024, "2.0")
                ),
            )
            .unwrap();
            let out = dir.path().join(image);
            let t = std::time::Instant::now();
            let o = common::wgsimd(&["plot", common::s(&f), "-o", common::s(&out)]);
            common::assert_success(&o);
            assert!(t.elapsed().as_secs() < 30, "{bad}: {:?}", t.elapsed());
            assert!(std::fs::metadata(&out).unwrap().len() > 1000);
            if image.ends_with("svg") {
                let text = std::fs::read_to_string(&out).unwrap();
                assert!(!text.contains("ours / yardstick"), "{bad}: {text}");
                assert!(text.contains(r#"height="420""#), "{bad}");
            }
        }
    }
}
