//! `wgsimd histogram`: the counts as a uint32 .npy of the bins, every sample type, on the
//! simulator and the GPU; bad input a one-line error, a non-zero exit code and no output file.

use crate::common::{self, assert_clean_error, assert_success, s};

/// Bytes, integers and floats (NaN, −0, the top edge) into bins; a 2-D input counts every
/// element.
#[test]
fn counts_every_sample_type() {
    let dir = tempfile::tempdir().unwrap();
    let u8s = common::write_npy(dir.path(), "b.npy", &[0u8, 63, 64, 200, 255, 255]);
    let u32s = common::write_npy(dir.path(), "u.npy", &[0u32, 9, 10, 5_000_000_000u64 as u32]);
    let i32s = common::write_npy_shaped(dir.path(), "i.npy", &[2, 2], &[-3i32, -1, 0, 2]);
    let f32s = common::write_npy(
        dir.path(),
        "f.npy",
        &[0.5f32, -0.0, 0.999_999_94, 1.0, f32::NAN],
    );
    let out = dir.path().join("counts.npy");
    for backend in common::backends() {
        let run = |input: &std::path::Path, bins: &str, lo: &str, hi: &str| {
            let o = common::wgsimd(&[
                "histogram",
                s(input),
                "--bins",
                bins,
                "--range",
                lo,
                hi,
                "-o",
                s(&out),
                "--backend",
                backend,
            ]);
            assert_success(&o);
            let (shape, counts) = common::read_npy::<u32>(&out);
            assert_eq!(shape, [bins.parse::<u64>().unwrap()]);
            counts
        };
        assert_eq!(run(&u8s, "4", "0", "256"), [2, 1, 0, 3], "{backend}");
        assert_eq!(run(&u32s, "2", "0", "20"), [2, 1], "{backend}");
        assert_eq!(run(&i32s, "2", "-2", "2"), [1, 1], "{backend}");
        assert_eq!(run(&f32s, "2", "0", "1"), [1, 2], "{backend}");
    }
}

/// No bins, an empty or reversed range, a missing file, a dtype it does not take: one line,
/// non-zero, and no output file.
#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = common::write_npy(dir.path(), "f.npy", &[1.0f32, 2.0]);
    let f64s = common::write_npy(dir.path(), "d.npy", &[1.0f64]);
    let out = dir.path().join("counts.npy");
    let run = |input: &std::path::Path, bins: &str, lo: &str, hi: &str| {
        common::wgsimd(&[
            "histogram",
            s(input),
            "--bins",
            bins,
            "--range",
            lo,
            hi,
            "-o",
            s(&out),
            "--backend",
            "sim",
        ])
    };
    assert_clean_error(&run(&f, "0", "0", "1"), "bins");
    assert_clean_error(&run(&f, "4", "1", "1"), "range");
    assert_clean_error(&run(&f, "4", "2", "-1"), "range");
    assert_clean_error(&run(&f64s, "4", "0", "1"), "unsupported dtype");
    assert_clean_error(
        &run(&dir.path().join("none.npy"), "4", "0", "1"),
        "cannot open",
    );
    assert!(!out.exists(), "an output file after an error");
}
