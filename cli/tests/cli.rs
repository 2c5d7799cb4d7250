//! The `wgsimd` binary as users and scripts meet it: results on the last stdout line, one-line
//! errors with a non-zero exit code, no panics.

mod common;

use std::process::Output;

fn last_line(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

fn assert_clean_error(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "expected failure, stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("wgsimd: error:"))
        .unwrap_or_else(|| panic!("no error line in {err:?}"));
    assert!(line.contains(needle), "{line:?} should mention {needle:?}");
}

#[test]
fn reduce_prints_the_result_last() {
    if common::gpu().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let u = common::write_npy(dir.path(), "u.npy", &[1u32, 2, 3, u32::MAX]);
    let i = common::write_npy(dir.path(), "i.npy", &[-5i32, 7, i32::MIN]);
    let f = common::write_npy(dir.path(), "f.npy", &[1.5f32, f32::NAN, -2.0]);
    let u = u.to_str().unwrap();
    let i = i.to_str().unwrap();
    let f = f.to_str().unwrap();
    let run = |p: &str, op: &str| {
        let o = common::wgsimd(&["reduce", p, "--op", op, "--backend", "gpu"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        last_line(&o)
    };
    assert_eq!(run(u, "sum"), (u32::MAX as u64 + 6).to_string());
    assert_eq!(run(u, "min"), "1");
    assert_eq!(run(u, "max"), u32::MAX.to_string());
    assert_eq!(run(i, "sum"), (i32::MIN as i64 + 2).to_string());
    assert_eq!(run(i, "min"), i32::MIN.to_string());
    assert_eq!(run(f, "max"), "nan");
    assert_eq!(run(f, "min"), "nan");
    let e = common::write_npy(dir.path(), "e.npy", &[] as &[f32]);
    assert_eq!(run(e.to_str().unwrap(), "sum"), "0.0");
}

#[test]
fn bad_input_is_one_line_and_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.npy");
    assert_clean_error(
        &common::wgsimd(&["reduce", missing.to_str().unwrap(), "--op", "sum"]),
        "cannot open",
    );
    let not_npy = dir.path().join("x.npy");
    std::fs::write(&not_npy, b"hello, world").unwrap();
    assert_clean_error(
        &common::wgsimd(&["reduce", not_npy.to_str().unwrap(), "--op", "sum"]),
        "not a .npy",
    );
    let f64s = common::write_npy(dir.path(), "d.npy", &[1.0f64, 2.0]);
    assert_clean_error(
        &common::wgsimd(&["reduce", f64s.to_str().unwrap(), "--op", "sum"]),
        "unsupported dtype",
    );
    let ok = common::write_npy(dir.path(), "ok.npy", &[1u32]);
    assert_clean_error(
        &common::wgsimd(&["reduce", ok.to_str().unwrap(), "--op", "mean"]),
        "unknown reduce op",
    );
    assert_clean_error(
        &common::wgsimd(&[
            "reduce",
            ok.to_str().unwrap(),
            "--op",
            "sum",
            "--backend",
            "tpu",
        ]),
        "unknown backend",
    );
    if common::gpu().is_some() {
        let empty = common::write_npy(dir.path(), "e.npy", &[] as &[i32]);
        assert_clean_error(
            &common::wgsimd(&[
                "reduce",
                empty.to_str().unwrap(),
                "--op",
                "min",
                "--backend",
                "gpu",
            ]),
            "empty",
        );
    }
    // a header whose element count overflows (npyz wraps it) with two elements of data
    let huge = common::write_raw_npy(
        dir.path(),
        "huge.npy",
        "{'descr': '<u4', 'fortran_order': False, 'shape': (9223372036854775809, 2), }",
        &[5, 0, 0, 0, 6, 0, 0, 0],
    );
    assert_clean_error(
        &common::wgsimd(&["reduce", huge.to_str().unwrap(), "--op", "sum"]),
        "more elements than can be counted",
    );
    // usage errors exit 2 through clap
    let o = common::wgsimd(&["reduce"]);
    assert_eq!(o.status.code(), Some(2));
}

/// reduce takes any shape in either order: a 2-D Fortran-order array is a bag of elements.
#[test]
fn reduce_takes_fortran_order() {
    let dir = tempfile::tempdir().unwrap();
    let bytes: Vec<u8> = [1u32, 2, 3, 4, 5, 6]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let f = common::write_raw_npy(
        dir.path(),
        "f.npy",
        "{'descr': '<u4', 'fortran_order': True, 'shape': (2, 3), }",
        &bytes,
    );
    let o = common::wgsimd(&[
        "reduce",
        f.to_str().unwrap(),
        "--op",
        "sum",
        "--backend",
        "sim",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_line(&o), "21");
}

/// Headers as numpy reads them: exactly the keys 'descr', 'fortran_order' and 'shape' (numpy
/// refuses a header with more or fewer), in any order, with a structured dtype named by its
/// fields rather than as a debug dump.
#[test]
fn npy_headers_as_numpy_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = [4u32, 5].iter().flat_map(|x| x.to_le_bytes()).collect();
    let sum = |name: &str, dict: &str| {
        let f = common::write_raw_npy(dir.path(), name, dict, &data);
        common::wgsimd(&[
            "reduce",
            f.to_str().unwrap(),
            "--op",
            "sum",
            "--backend",
            "sim",
        ])
    };
    assert_clean_error(
        &sum(
            "extra.npy",
            "{'descr': '<u4', 'fortran_order': False, 'shape': (2,), 'extra': 1, }",
        ),
        r#"header has keys ["descr", "fortran_order", "shape", "extra"]"#,
    );
    assert_clean_error(
        &sum("missing.npy", "{'descr': '<u4', 'shape': (2,), }"),
        r#"header has keys ["descr", "shape"]"#,
    );
    assert_clean_error(
        &sum(
            "record.npy",
            "{'descr': [('a', '<u4'), ('b', '<u4')], 'fortran_order': False, 'shape': (1,), }",
        ),
        "unsupported dtype structured [('a', '<u4'), ('b', '<u4'), ]",
    );
    // a field name with both quotes (numpy escapes one), and a field named `shape`: read as
    // the dicts they are (the keys right, the shape the array's), refused for their dtypes
    let escaped = sum(
        "escaped.npy",
        "{'descr': [('a\"b\\'c', '<u4'), ('shape', '<u4', (3, 5))], \
         'fortran_order': False, 'shape': (1,), }",
    );
    assert_clean_error(&escaped, "unsupported dtype structured");
    let field = sum(
        "field.npy",
        "{'descr': [('shape', '<u4', (9223372036854775809, 2))], 'fortran_order': False, \
         'shape': (1,), }",
    );
    assert_clean_error(&field, "field.npy");
    let err = String::from_utf8_lossy(&field.stderr);
    assert!(
        !err.contains("header has keys") && !err.contains("more elements"),
        "{err}"
    );
    // looks odd, is fine: keys in another order, in double quotes
    let o = sum(
        "reordered.npy",
        "{\"shape\": (2,), 'fortran_order': False, 'descr': '<u4', }",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_line(&o), "9");
    // an overflowing shape under a double-quoted key is refused before npyz counts it (which
    // panics in a debug build)
    assert_clean_error(
        &sum(
            "huge.npy",
            "{\"shape\": (9223372036854775809, 2), 'fortran_order': False, 'descr': '<u4', }",
        ),
        "more elements than can be counted",
    );
}

/// Shapes as Python literals (numpy reads them with `ast.literal_eval`): hex, underscores and a
/// Python 2 `L` are numbers like any other, and one that overflows is an error in every
/// spelling, never npyz's unchecked product (a panic in a debug build). A list is no shape
/// (numpy refuses it), and an oversized header is refused before it is read.
#[test]
fn npy_shapes_as_python_literals() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = [4u32, 5, 6].iter().flat_map(|x| x.to_le_bytes()).collect();
    let sum = |name: &str, dict: &str| {
        let f = common::write_raw_npy(dir.path(), name, dict, &data);
        common::wgsimd(&[
            "reduce",
            f.to_str().unwrap(),
            "--op",
            "sum",
            "--backend",
            "sim",
        ])
    };
    // looks odd, is fine: each header below describes the 3-element array [4, 5, 6]
    let dict = |descr: &str, shape: &str| {
        format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}")
    };
    for (name, descr, shape) in [
        ("hex.npy", "'<u4'", "(0x3,)"),
        ("under.npy", "'<u4'", "(0x_3,)"),
        ("long.npy", "'<u4'", "(3L,)"),
        ("bin.npy", "'<u4'", "(0b11, )"),
        // a unary plus is a number too
        ("plus.npy", "'<u4'", "(+3,)"),
        // byte order "not applicable" / "native" on a 4-byte type: read as numpy reads it
        ("bar.npy", "'|u4'", "(3,)"),
        ("eq.npy", "'=u4'", "(3,)"),
    ] {
        let o = sum(name, &dict(descr, shape));
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(last_line(&o), "15", "{name}");
    }
    // refused, each for its reason: "(3)" is an int and "03" no Python 3 literal (numpy refuses
    // both), a list is no shape (numpy refuses it), nor are negative or float sizes; an
    // overflowing shape in every spelling
    for (name, shape, needle) in [
        ("int.npy", "(3)", "not a tuple"),
        ("zero.npy", "(03,)", "not a tuple"),
        ("list.npy", "[3]", "not a tuple"),
        ("list_huge.npy", "[4294967296, 4294967296]", "not a tuple"),
        ("negative.npy", "(-3,)", "not a tuple"),
        ("float.npy", "(3.0,)", "not a tuple"),
        (
            "hex_huge.npy",
            "(0x100000000, 0x100000000)",
            "more elements than can be counted",
        ),
        (
            "under_huge.npy",
            "(4_294_967_296, 4294967296)",
            "more elements than can be counted",
        ),
    ] {
        assert_clean_error(&sum(name, &dict("'<u4'", shape)), needle);
    }
    // text outside the dict's entries (numpy's literal_eval refuses it)
    for (name, text) in [
        (
            "junk.npy",
            "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), } x",
        ),
        (
            "inner.npy",
            "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), x}",
        ),
    ] {
        assert_clean_error(&sum(name, text), "not a Python dict");
    }
    // a 2 MiB version 2 header, its shape after the padding
    let mut header = format!(
        "{{'descr': '<u4', 'fortran_order': False, {}'shape': (3,), }}",
        " ".repeat(2 << 20)
    );
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend((header.len() as u32).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(&data);
    let big = dir.path().join("big.npy");
    std::fs::write(&big, bytes).unwrap();
    let o = common::wgsimd(&[
        "reduce",
        big.to_str().unwrap(),
        "--op",
        "sum",
        "--backend",
        "sim",
    ]);
    assert_clean_error(&o, "at most 1048576 are read");
    // a minor version numpy does not know, and a directory as the input (its read error, not
    // "not a .npy file")
    let mut v15 = std::fs::read(&big).unwrap();
    v15[7] = 5;
    std::fs::write(&big, v15).unwrap();
    let o = common::wgsimd(&[
        "reduce",
        big.to_str().unwrap(),
        "--op",
        "sum",
        "--backend",
        "sim",
    ]);
    assert_clean_error(&o, "format version 2.5");
    let o = common::wgsimd(&[
        "reduce",
        dir.path().to_str().unwrap(),
        "--op",
        "sum",
        "--backend",
        "sim",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && !err.contains("panicked"), "{err}");
    assert!(!err.contains("not a .npy file"), "{err}");
}

/// An input read from a pipe (no seeking back to the start).
#[cfg(unix)]
#[test]
fn npy_input_from_a_pipe() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = [4u32, 5, 6].iter().flat_map(|x| x.to_le_bytes()).collect();
    let f = common::write_raw_npy(
        dir.path(),
        "k.npy",
        "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }",
        &data,
    );
    let bytes = std::fs::read(f).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgsimd"))
        .args(["reduce", "/dev/stdin", "--op", "sum", "--backend", "sim"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_line(&o), "15");
}

#[test]
fn info_names_the_adapter() {
    if common::gpu().is_none() {
        return;
    }
    let o = common::wgsimd(&["info", "--backend", "gpu"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    for key in [
        "selected:",
        "backend:",
        "subgroups:",
        "max storage binding:",
    ] {
        assert!(out.contains(key), "{out}");
    }
}

#[test]
fn quick_bench_verifies_and_writes_json() {
    if common::gpu().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let o = common::wgsimd(&[
        "bench",
        "--quick",
        "--only",
        "reduce,scan,copy",
        "--backend",
        "gpu",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() >= 6, "{rows:?}");
    assert!(rows.iter().all(|r| r["verified"] == true));
    assert!(rows.iter().any(|r| r["algorithm"] == "scan"));
    // the saved report draws again as an image; a file that is not a report is a clear error
    let png = dir.path().join("b.png");
    let o = common::wgsimd(&["plot", json.to_str().unwrap(), "-o", png.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "{}",
        bytes.len()
    );
    let o = common::wgsimd(&["plot", png.to_str().unwrap(), "-o", json.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("report"));
}

/// `wgsimd bench` on the sort and the GEMM (issues 3 and 4), end to end: every strategy's keys
/// and pairs and the GEMM's kernels at a small size, each verified, and the sort rows carry the
/// per-pass breakdown (histogram, scan, each scatter pass) wherever the adapter times on the GPU.
#[test]
fn bench_sorts_and_gemms_with_their_passes() {
    if common::gpu().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_wgsimd"))
        .args([
            "bench",
            "--quick",
            "--only",
            "sort,gemm",
            "--sizes",
            "2^12",
            "--gemm-shapes",
            "33x17x65",
            "--backend",
            "gpu",
            "--json",
            json.to_str().unwrap(),
        ])
        .env("WGSIMD_WARMUP_MS", "10")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let row = |algorithm: &str, variant: &str| {
        rows.iter()
            .find(|r| r["algorithm"] == algorithm && r["variant"] == variant)
            .unwrap_or_else(|| panic!("no {algorithm} row {variant:?} in {rows:?}"))
    };
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
            vec!["histogram 0", "scan 0", "scatter 0", "scatter 3"],
        ),
        (
            "onesweep",
            vec!["global histogram", "onesweep 0", "onesweep 3"],
        ),
        (
            "hybrid",
            vec!["histogram msd", "scatter msd", "buckets", "scatter 2"],
        ),
    ] {
        for what in ["keys", "pairs"] {
            let r = row("sort", &format!("{what} u32 {strategy}"));
            assert_eq!(r["verified"], true, "{r}");
            assert!(r["median_ms"].as_f64().unwrap() > 0.0, "{r}");
            if r["time_source"] == "gpu timestamps" {
                let names = pass_names(r);
                for w in &wanted {
                    assert!(names.iter().any(|n| n == w), "{what} {strategy}: {names:?}");
                }
            }
        }
    }
    for variant in ["f32 tiled", "f16 tiled", "int4 tiled", "f16 tiled f16 out"] {
        let r = row("gemm", variant);
        assert_eq!(r["verified"], true, "{r}");
        assert_eq!(r["size_label"], "33x17x65", "{r}");
    }
}
