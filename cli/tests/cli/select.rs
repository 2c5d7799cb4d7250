//! `wgsimd select`: the selected elements in order, or with `--partition` every element (the
//! selected first) and their count on the last stdout line; flags of bool, uint8 or uint32;
//! bad input a one-line error, a non-zero exit code and no output file.

use crate::common::{self, assert_clean_error, assert_success, last_line, s};

#[test]
fn selects_and_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let f32s = common::write_npy(dir.path(), "x.npy", &[1.5f32, -2.0, 3.0, f32::NAN, 0.0]);
    let bools = common::write_npy(dir.path(), "b.npy", &[true, false, true, true, false]);
    let u32f = common::write_npy(dir.path(), "u.npy", &[0u32, 7, 0, 0, 1]);
    let out = dir.path().join("out.npy");
    for backend in common::backends() {
        let run = |flags: &std::path::Path, extra: &[&str]| {
            let mut a = vec!["select", s(&f32s), "--flags", s(flags), "-o", s(&out)];
            a.extend_from_slice(extra);
            a.extend(["--backend", backend]);
            let o = common::wgsimd(&a);
            assert_success(&o);
            o
        };
        run(&bools, &[]);
        let got: Vec<u32> = common::read_npy::<f32>(&out)
            .1
            .iter()
            .map(|x| x.to_bits())
            .collect();
        let want: Vec<u32> = [1.5f32, 3.0, f32::NAN]
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(got, want, "{backend}");
        let o = run(&u32f, &["--partition"]);
        assert_eq!(last_line(&o), "2", "{backend}");
        let got = common::read_npy::<f32>(&out).1;
        assert_eq!(got[..2], [-2.0, 0.0], "{backend}");
        assert_eq!(
            (got[2], got[3], got[4].is_nan()),
            (1.5, 3.0, true),
            "{backend}"
        );
    }
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let x = common::write_npy(dir.path(), "x.npy", &[1u32, 2, 3]);
    let short = common::write_npy(dir.path(), "s.npy", &[1u8, 0]);
    let f32f = common::write_npy(dir.path(), "f.npy", &[1.0f32, 0.0, 1.0]);
    let out = dir.path().join("out.npy");
    let run = |flags: &std::path::Path| {
        common::wgsimd(&[
            "select",
            s(&x),
            "--flags",
            s(flags),
            "-o",
            s(&out),
            "--backend",
            "sim",
        ])
    };
    assert_clean_error(&run(&short), "one flag per element");
    assert_clean_error(&run(&f32f), "unsupported dtype float32 for flags");
    assert_clean_error(&run(&dir.path().join("none.npy")), "cannot open");
    assert!(!out.exists(), "an output file after an error");
}
