//! `wgsimd check` end to end: exit codes 0/1/2, `--dump`, `--json`, `--schedule`,
//! `--schedules`, naga's rendered errors; kernels from the library's simulator corpus
//! (tests/sim_corpus).

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
        (
            "binding_too_small_bug.wgsl",
            "1",
            vec!["0=u32:[64,3,0]", "1=u32:zeros:64"],
            "binding-too-small",
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

/// `--json`: one object on stdout with the findings (a race's two parties, its source line, the
/// invocations it happened in: each of the 64 reads a word another wrote) and the dumped
/// bindings.
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
    assert_eq!(v["findings"][0]["invocations"], 64);
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
        // 2^32 workgroups: 0 in 32 bits, never a clean verdict
        vec![
            ok.as_str(),
            "--entry",
            "main",
            "--workgroups",
            "4096,4096,256",
        ],
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

/// The fixtures of the pipeline tests (tests/fixtures/pipeline/reduce_scan).
fn pipeline_fixture(name: &str) -> String {
    format!(
        "{}/../tests/fixtures/pipeline/reduce_scan/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A browser's WGSL (`enable subgroups;`) checked without edits: the directive is blanked with
/// a note on stderr (and in `--json`'s `stripped`), `--override` sets the workgroup size,
/// `--bind 1:0=...` binds `@group(1)`, `--dump 1:0` prints it.
#[test]
fn real_pipeline_input_without_edits() {
    let f = pipeline_fixture("reduce.wgsl");
    let base = [
        f.as_str(),
        "--entry",
        "reduce",
        "--workgroups",
        "8",
        "--bind",
        "0=u32:iota:1000",
        "--bind",
        "1=u32:[1000,8]",
        "--bind",
        "1:0=u32:uninit:8",
        "--dump",
        "1:0",
    ];
    let sums = |wg: u32| -> String {
        let v: Vec<String> = (0..8u32)
            .map(|g| (g * wg..((g + 1) * wg).min(1000)).sum::<u32>().to_string())
            .collect();
        v.join(" ")
    };
    let mut args = base.to_vec();
    args.extend(["--override", "WG=128"]);
    let (code, out, err) = check(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("binding 1:0: {}\n", sums(128))),
        "{out}"
    );
    assert!(
        err.contains("reduce.wgsl:4:8: removed `subgroups` before parsing"),
        "{err}"
    );
    // at the default WG = 64 the eight workgroups cover the first 512 elements
    let (code, out, _) = check(&base);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("binding 1:0: {}\n", sums(64))),
        "{out}"
    );
    args.push("--json");
    let (code, out, _) = check(&args);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["dumps"]["1:0"].as_array().unwrap().len(), 8);
    assert_eq!(v["stripped"][0]["text"], "subgroups");
    assert_eq!(v["stripped"][0]["line"], 4);
    assert_eq!(v["clean"], true);
}

/// `file:PATH` takes a .npy of the binding's dtype or a raw file of little-endian words.
#[test]
fn buffers_from_npy_and_raw_files() {
    let dir = tempfile::tempdir().unwrap();
    let input: Vec<u32> = (0..1000).map(|i| i % 7).collect();
    let npy = common::write_npy(dir.path(), "input.npy", &input);
    let raw = dir.path().join("input.bin");
    std::fs::write(&raw, common::u32_bytes(&input)).unwrap();
    let f = pipeline_fixture("reduce.wgsl");
    let want: Vec<String> = (0..8)
        .map(|g| {
            input[g * 128..((g + 1) * 128).min(1000)]
                .iter()
                .sum::<u32>()
                .to_string()
        })
        .collect();
    for path in [&npy, &raw] {
        let bind = format!("0=u32:file:{}", common::s(path));
        let (code, out, err) = check(&[
            &f,
            "--entry",
            "reduce",
            "--workgroups",
            "8",
            "--bind",
            &bind,
            "--bind",
            "1=u32:[1000,8]",
            "--bind",
            "1:0=u32:uninit:8",
            "--override",
            "WG=128",
            "--dump",
            "1:0",
        ]);
        assert_eq!(code, 0, "{path:?}: {out}{err}");
        assert!(
            out.contains(&format!("binding 1:0: {}\n", want.join(" "))),
            "{out}"
        );
    }
}

/// Each input error exits 2 with a message saying what is wrong, never a panic: sizes past
/// what a binding may have (a count whose byte size wraps too), bad overrides, slots the shader
/// does not declare, `.npy` files of another dtype or too large, raw files of a partial word.
#[test]
fn input_errors_exit_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let f64_npy = common::write_npy(dir.path(), "f.npy", &[1.0f64, 2.0]);
    let f32_npy = common::write_npy(dir.path(), "g.npy", &[1.0f32, 2.0]);
    let huge_npy = common::write_raw_npy(
        dir.path(),
        "huge.npy",
        "{'descr': '<u4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &common::u32_bytes(&[1, 2]),
    );
    let odd = dir.path().join("odd.bin");
    std::fs::write(&odd, [1u8, 2, 3]).unwrap();
    let f = pipeline_fixture("reduce.wgsl");
    let bind_file = |p: &std::path::Path| format!("0=u32:file:{}", common::s(p));
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--bind".into(), "0=u32:random:4611686018427387904".into()],
            "4611686018427387904 elements is more than the 1073741824 a binding may have",
        ),
        (
            vec!["--bind".into(), "0=u32:zeros:4611686018427387908".into()],
            "a binding may have",
        ),
        (
            vec!["--bind".into(), "0=u32:zeros:1073741824".into()],
            "largest buffer",
        ),
        (
            vec!["--bind".into(), "99999999999:0=u32:zeros:4".into()],
            "the binding is not I or G:I",
        ),
        (
            vec!["--override".into(), "WG".into()],
            "expected NAME=VALUE",
        ),
        (vec!["--override".into(), "=3".into()], "no name"),
        (
            vec!["--override".into(), "WG=inf".into()],
            "not a finite number",
        ),
        (
            vec!["--override".into(), "NOPE=1".into()],
            "declares no override `NOPE`",
        ),
        (
            vec!["--override".into(), "WG=0".into()],
            "isn't strictly positive",
        ),
        (vec!["--override".into(), "WG=-3".into()], "doesn't fit"),
        (
            vec!["--bind".into(), "3:5=u32:zeros:4".into()],
            "declares no @group(3) @binding(5)",
        ),
        (
            vec!["--dump".into(), "2:x".into()],
            "--dump \"2:x\": expected I or G:I",
        ),
        (vec!["--dump".into(), "4:4".into()], "no --bind 4:4="),
        (
            vec!["--bind".into(), bind_file(&f64_npy)],
            "holds float64, not u32",
        ),
        (
            vec!["--bind".into(), bind_file(&f32_npy)],
            "holds float32, not u32",
        ),
        (vec!["--bind".into(), bind_file(&huge_npy)], "huge.npy"),
        (vec!["--bind".into(), bind_file(&odd)], "holds 3 bytes"),
        (
            vec!["--bind".into(), bind_file(&dir.path().join("none.bin"))],
            "none.bin",
        ),
    ];
    for (extra, want) in cases {
        let mut args: Vec<String> = [&f, "--entry", "reduce", "--workgroups", "8"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let binds_0 = extra.iter().any(|a| a.starts_with("0="));
        if !binds_0 {
            args.extend(["--bind".into(), "0=u32:iota:1000".into()]);
        }
        args.extend([
            "--bind".into(),
            "1=u32:[1000,8]".into(),
            "--bind".into(),
            "1:0=u32:uninit:8".into(),
        ]);
        args.extend(extra.iter().cloned());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = check(&refs);
        assert_eq!(code, 2, "{extra:?}: {out}{err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("wgsimd check: "))
            .unwrap_or("");
        assert!(line.contains(want), "{extra:?}: {err}");
    }
}

/// `--schedules`: the default exploration finds `hasty_main`'s missing barrier (exit 1, the
/// finding names both schedules); one lockstep run does not, nor one schedule run twice (each
/// is seeded) (exit 0); `--json` lists the schedules run; a bad list exits 2;
/// `--threaded-workgroups` reaches the simulator. The look-back
/// without fallback is a forward-progress finding under the default exploration.
#[test]
fn schedules_flag() {
    let f = corpus("schedule_missing_barrier_atomics_bug.wgsl");
    let base = [
        "--subgroup-size",
        "8",
        f.as_str(),
        "--entry",
        "main",
        "--workgroups",
        "1",
        "--bind",
        "0=u32:zeros:1",
    ];
    let (code, out, err) = check(&base);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with("schedule-divergence: word 0 of `binding 0` is 64 (0x40) under lockstep"),
        "{out}"
    );
    assert!(
        err.contains("schedules: lockstep, round-robin, random:1, run-ahead:1"),
        "{err}"
    );
    for one in ["1", "lockstep", "run-ahead:3,run-ahead:3"] {
        let mut args = base.to_vec();
        args.extend(["--schedules", one]);
        let (code, out, err) = check(&args);
        assert_eq!(code, 0, "{one}: {out}{err}");
    }
    let mut args = base.to_vec();
    args.extend(["--json", "--schedules", "lockstep,round-robin"]);
    let (code, out, _) = check(&args);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["schedules"],
        serde_json::json!(["lockstep", "round-robin"])
    );
    assert_eq!(v["findings"][0]["kind"], "schedule-divergence");
    assert_eq!(v["findings"][0]["parties"].as_array().unwrap().len(), 2);
    // about an output word, not a statement: no invocation count
    assert!(v["findings"][0]["invocations"].is_null());
    for bad in ["0", "sideways", "random:x"] {
        let mut args = base.to_vec();
        args.extend(["--schedules", bad]);
        assert_eq!(check(&args).0, 2, "{bad}");
    }
    // `--threaded-workgroups`: none threaded, the subgroups stay in lockstep under every
    // schedule (clean); all, or a bound the one workgroup is within, finds it; a bad count
    // exits 2
    for (threaded, want) in [("0", 0), ("all", 1), ("1", 1), ("many", 2), ("-1", 2)] {
        let mut args = base.to_vec();
        args.extend(["--threaded-workgroups", threaded]);
        let (code, out, err) = check(&args);
        assert_eq!(code, want, "{threaded}: {out}{err}");
    }
    let lb = corpus("ticketed_lookback_without_fallback_bug.wgsl");
    let (code, out, _) = check(&[
        lb.as_str(),
        "--entry",
        "main",
        "--workgroups",
        "8",
        "--bind",
        "0=u32:iota:256",
        "--bind",
        "1=u32:uninit:8",
        "--bind",
        "2=u32:zeros:9",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("forward-progress: workgroup (1,0,0) spins"),
        "{out}"
    );
}

/// A workgroup that is one subgroup at the simulated size: the default exploration cannot
/// reorder its invocations, so `hasty_main`'s missing barrier stays hidden at 64 lanes and a
/// note says so (and how to split it), in text and in `--json`; at 8 lanes, where the finding
/// shows, and with one schedule, nothing is noted.
#[test]
fn a_workgroup_of_one_subgroup_is_noted() {
    let f = corpus("schedule_missing_barrier_atomics_bug.wgsl");
    let args = |size: &'static str| {
        vec![
            "--subgroup-size".to_string(),
            size.to_string(),
            f.clone(),
            "--entry".into(),
            "main".into(),
            "--workgroups".into(),
            "1".into(),
            "--bind".into(),
            "0=u32:zeros:1".into(),
        ]
    };
    let run = |a: &[String]| check(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let note = "note: the workgroup's 64 invocations are one subgroup of 64 lanes";
    let (code, out, err) = run(&args("64"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains(note), "{err}");
    assert!(
        err.contains("`--subgroup-size 4` runs them as 16 subgroups"),
        "{err}"
    );
    let mut json = args("128");
    json.push("--json".into());
    let (code, out, _) = run(&json);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let notes = v["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{out}");
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("one subgroup of 128 lanes"),
        "{out}"
    );
    let (code, _, err) = run(&args("8"));
    assert_eq!(code, 1);
    assert!(!err.contains("note:"), "{err}");
    let mut one = args("64");
    one.extend(["--schedules".into(), "lockstep".into()]);
    let (code, _, err) = run(&one);
    assert_eq!(code, 0);
    assert!(!err.contains("note:"), "{err}");
}

/// A subgroup operation with lanes missing under the author's `diagnostic(off,
/// subgroup_uniformity)` is a note: printed, in JSON `filtered`, and exit 0; without the
/// filter it is a finding (`partial_valid_shuffle_bug`).
#[test]
fn a_filtered_subgroup_op_is_a_note_and_exits_0() {
    let args = |file: &str, json: bool| {
        let mut a = vec![
            corpus(file),
            "--entry".into(),
            "main".into(),
            "--workgroups".into(),
            "1".into(),
            "--bind".into(),
            "0=u32:iota:61".into(),
            "--bind".into(),
            "1=u32:uninit:61".into(),
            "--subgroup-size".into(),
            "8".into(),
        ];
        if json {
            a.push("--json".into());
        }
        a
    };
    let run = |a: &[String]| check(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (code, out, err) = run(&args("subgroup_filter_off_fine.wgsl", false));
    assert_eq!(code, 0, "{out}{err}");
    let note = out
        .lines()
        .find(|l| l.starts_with("note: non-uniform-subgroup-op: subgroupShuffleXor"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        note.contains("a note, not a finding: `diagnostic(off, subgroup_uniformity)` at ")
            && note.contains("subgroup_filter_off_fine.wgsl:8:1 is in force here"),
        "{note}"
    );
    assert!(err.contains("no findings, 1 note(s)"), "{err}");
    let (code, out, _) = run(&args("subgroup_filter_off_fine.wgsl", true));
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["clean"], true);
    assert_eq!(v["findings"].as_array().unwrap().len(), 0);
    let filtered = v["filtered"].as_array().unwrap();
    assert_eq!(filtered.len(), 1, "{out}");
    assert_eq!(filtered[0]["kind"], "non-uniform-subgroup-op");
    let (code, out, _) = run(&args("partial_valid_shuffle_bug.wgsl", false));
    assert_eq!(code, 1);
    assert!(!out.contains("note: "), "{out}");
}
