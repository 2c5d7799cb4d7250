//! `wgsimd reduce` and the .npy reader behind every command: the result on the last stdout
//! line, headers read as numpy reads them, bad input a one-line error with a non-zero exit code.

use crate::common::{self, assert_clean_error, assert_success, last_line, s};

/// `reduce IN.npy --op OP --backend sim`.
fn reduce_sim(path: &std::path::Path, op: &str) -> std::process::Output {
    common::wgsimd(&["reduce", s(path), "--op", op, "--backend", "sim"])
}

/// Sums widen (u32 to u64, i32 to i64), min and max of floats propagate NaN, an empty sum is
/// 0 and an empty min an error: on the simulator and on the GPU.
#[test]
fn reduce_prints_the_result_last() {
    let dir = tempfile::tempdir().unwrap();
    let u = common::write_npy(dir.path(), "u.npy", &[1u32, 2, 3, u32::MAX]);
    let i = common::write_npy(dir.path(), "i.npy", &[-5i32, 7, i32::MIN]);
    let f = common::write_npy(dir.path(), "f.npy", &[1.5f32, f32::NAN, -2.0]);
    let e = common::write_npy(dir.path(), "e.npy", &[] as &[f32]);
    let ei = common::write_npy(dir.path(), "ei.npy", &[] as &[i32]);
    for backend in common::backends() {
        let run = |p: &std::path::Path, op: &str| {
            let o = common::wgsimd(&["reduce", s(p), "--op", op, "--backend", backend]);
            assert_success(&o);
            last_line(&o)
        };
        assert_eq!(
            run(&u, "sum"),
            (u32::MAX as u64 + 6).to_string(),
            "{backend}"
        );
        assert_eq!(run(&u, "min"), "1", "{backend}");
        assert_eq!(run(&u, "max"), u32::MAX.to_string(), "{backend}");
        assert_eq!(
            run(&i, "sum"),
            (i32::MIN as i64 + 2).to_string(),
            "{backend}"
        );
        assert_eq!(run(&i, "min"), i32::MIN.to_string(), "{backend}");
        assert_eq!(run(&f, "max"), "nan", "{backend}");
        assert_eq!(run(&f, "min"), "nan", "{backend}");
        assert_eq!(run(&e, "sum"), "0.0", "{backend}");
        assert_clean_error(
            &common::wgsimd(&["reduce", s(&ei), "--op", "min", "--backend", backend]),
            "empty",
        );
    }
}

/// A missing file, a file that is no .npy, a dtype reduce does not take, an unknown op or
/// backend and a header whose element count overflows are one-line errors; a missing argument
/// is clap's usage error (exit 2).
#[test]
fn bad_input_is_one_line_and_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    assert_clean_error(
        &reduce_sim(&dir.path().join("missing.npy"), "sum"),
        "cannot open",
    );
    let not_npy = dir.path().join("x.npy");
    std::fs::write(&not_npy, b"hello, world").unwrap();
    assert_clean_error(&reduce_sim(&not_npy, "sum"), "not a .npy");
    let f64s = common::write_npy(dir.path(), "d.npy", &[1.0f64, 2.0]);
    assert_clean_error(&reduce_sim(&f64s, "sum"), "unsupported dtype");
    let halves = common::write_npy(dir.path(), "h.npy", &[half::f16::ONE]);
    assert_clean_error(
        &reduce_sim(&halves, "sum"),
        "unsupported dtype float16 for reduce",
    );
    let ok = common::write_npy(dir.path(), "ok.npy", &[1u32]);
    assert_clean_error(&reduce_sim(&ok, "mean"), "unknown reduce op");
    assert_clean_error(
        &common::wgsimd(&["reduce", s(&ok), "--op", "sum", "--backend", "tpu"]),
        "unknown backend",
    );
    // a header whose element count overflows (npyz wraps it) with two elements of data
    let huge = common::write_raw_npy(
        dir.path(),
        "huge.npy",
        "{'descr': '<u4', 'fortran_order': False, 'shape': (9223372036854775809, 2), }",
        &[5, 0, 0, 0, 6, 0, 0, 0],
    );
    assert_clean_error(
        &reduce_sim(&huge, "sum"),
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
    let f = common::write_raw_npy(
        dir.path(),
        "f.npy",
        "{'descr': '<u4', 'fortran_order': True, 'shape': (2, 3), }",
        &common::u32_bytes(&[1, 2, 3, 4, 5, 6]),
    );
    let o = reduce_sim(&f, "sum");
    assert_success(&o);
    assert_eq!(last_line(&o), "21");
}

/// Headers as numpy reads them: exactly the keys 'descr', 'fortran_order' and 'shape' (numpy
/// refuses a header with more or fewer), in any order, with a structured dtype named by its
/// fields rather than as a debug dump.
#[test]
fn npy_headers_as_numpy_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = common::u32_bytes(&[4, 5]);
    let sum = |name: &str, dict: &str| {
        reduce_sim(&common::write_raw_npy(dir.path(), name, dict, &data), "sum")
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
    assert_success(&o);
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
    let data = common::u32_bytes(&[4, 5, 6]);
    let sum = |name: &str, dict: &str| {
        reduce_sim(&common::write_raw_npy(dir.path(), name, dict, &data), "sum")
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
    assert_clean_error(&reduce_sim(&big, "sum"), "at most 1048576 are read");
    // a minor version numpy does not know, and a directory as the input (its read error, not
    // "not a .npy file")
    let mut v25 = std::fs::read(&big).unwrap();
    v25[7] = 5;
    std::fs::write(&big, v25).unwrap();
    assert_clean_error(&reduce_sim(&big, "sum"), "format version 2.5");
    let o = reduce_sim(dir.path(), "sum");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && !err.contains("panicked"), "{err}");
    assert!(!err.contains("not a .npy file"), "{err}");
}

/// An input read from a pipe (no seeking back to the start).
#[cfg(unix)]
#[test]
fn npy_input_from_a_pipe() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let f = common::write_raw_npy(
        dir.path(),
        "k.npy",
        "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }",
        &common::u32_bytes(&[4, 5, 6]),
    );
    let bytes = std::fs::read(f).unwrap();
    let mut child = common::command()
        .args(["reduce", "/dev/stdin", "--op", "sum", "--backend", "sim"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_success(&o);
    assert_eq!(last_line(&o), "15");
}
