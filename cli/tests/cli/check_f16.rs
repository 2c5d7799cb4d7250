//! `wgsimd check` with f16 bindings: `--bind I=f16:...` gives two-byte elements (two to a
//! word, as an `array<f16>` holds them), `--dump` and `--json` print them as f16 values, an
//! odd count is an input error (exit 2), and the checkers tell the halves of a word apart.

use crate::common;

/// Each invocation stores `src[i] * 2 + 0.5` into `dst[INDEX]`.
const KERNEL: &str = "enable f16;
@group(0) @binding(0) var<storage, read> src: array<f16>;
@group(0) @binding(1) var<storage, read_write> dst: array<f16>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    dst[INDEX] = src[i] * 2.0h + 0.5h;
}
";

/// `wgsimd check` of `KERNEL` (storing to `dst[index]`) with `extra` arguments: exit code,
/// stdout, stderr.
fn check(index: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("halves.wgsl");
    std::fs::write(&file, KERNEL.replace("INDEX", index)).unwrap();
    let out = common::command()
        .arg("check")
        .arg(&file)
        .args(["--entry", "main", "--workgroups", "1"])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// f16 in, f16 out: 2000.5 rounds to the even 2000; `--dump` and `--json` show the values.
#[test]
fn f16_bindings_are_read_written_and_dumped() {
    let binds = [
        "--bind",
        "0=f16:[1.5,-2,0.25,1000]",
        "--bind",
        "1=f16:uninit:4",
        "--dump",
        "1",
    ];
    let (code, out, err) = check("i", &binds);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("binding 1: 3.5 -3.5 1 2000\n"), "{out}");
    let mut json = binds.to_vec();
    json.push("--json");
    let (code, out, err) = check("i", &json);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["dumps"]["1"], serde_json::json!([3.5, -3.5, 1.0, 2000.0]));
}

/// Invocations storing to one f16 race; a half no invocation writes is unwritten output, even
/// though the other half of its word is written.
#[test]
fn f16_halves_race_and_stay_unwritten_apart() {
    let binds = ["--bind", "0=f16:iota:4", "--bind", "1=f16:uninit:4"];
    let (code, out, err) = check("0u", &binds);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("storage-race"), "{out}");
    assert!(out.contains("bytes 0..2 of word 0"), "{out}");
    assert!(
        out.contains("1 of them written in one f16 half only"),
        "{out}"
    );
}

/// An odd count of f16 (a buffer is whole words) and an f16 `.npy` of an odd count exit 2.
#[test]
fn an_odd_f16_count_is_an_input_error() {
    let (code, out, err) = check("i", &["--bind", "0=f16:[1,2,3]", "--bind", "1=f16:zeros:4"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("3 f16 elements"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
