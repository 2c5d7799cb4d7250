//! `wgsimd topk`: the k largest and smallest of an array and of each row of a matrix, with their
//! indices, on the simulator and the GPU; bad input (k = 0, k past the row, a 3-D array) a
//! one-line error, a non-zero exit code and no output file.

use crate::common::{self, assert_clean_error, assert_success, s};

#[test]
fn top_k_of_arrays_and_rows() {
    let dir = tempfile::tempdir().unwrap();
    let a = common::write_npy(dir.path(), "a.npy", &[0.5f32, f32::NAN, 2.0, -1.0, 2.0]);
    let m = common::write_npy_shaped(dir.path(), "m.npy", &[2, 3], &[4i32, 9, 4, -2, -8, 0]);
    let (v, i) = (dir.path().join("v.npy"), dir.path().join("i.npy"));
    for backend in common::backends() {
        let run = |input: &std::path::Path, k: &str, extra: &[&str]| {
            let mut args = vec![
                "topk",
                s(input),
                "-k",
                k,
                "-o",
                s(&v),
                "--indices-out",
                s(&i),
            ];
            args.extend_from_slice(extra);
            args.extend(["--backend", backend]);
            assert_success(&common::wgsimd(&args));
        };
        run(&a, "3", &[]);
        let got = common::read_npy::<f32>(&v).1;
        assert!(
            got[0].is_nan() && got[1..] == [2.0, 2.0],
            "{backend}: {got:?}"
        );
        assert_eq!(common::read_npy::<u32>(&i).1, [1, 2, 4], "{backend}");
        run(&m, "2", &["--smallest"]);
        let (shape, got) = common::read_npy::<i32>(&v);
        assert_eq!((shape, got), (vec![2, 2], vec![4, 4, -8, -2]), "{backend}");
        assert_eq!(common::read_npy::<u32>(&i).1, [0, 2, 1, 0], "{backend}");
    }
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = common::write_npy(dir.path(), "a.npy", &[1u32, 2, 3]);
    let cube = common::write_npy_shaped(dir.path(), "c.npy", &[1, 1, 3], &[1u32, 2, 3]);
    let (v, i) = (dir.path().join("v.npy"), dir.path().join("i.npy"));
    let run = |input: &std::path::Path, k: &str| {
        common::wgsimd(&[
            "topk",
            s(input),
            "-k",
            k,
            "-o",
            s(&v),
            "--indices-out",
            s(&i),
            "--backend",
            "sim",
        ])
    };
    assert_clean_error(&run(&a, "0"), "k must be 1 to the row length");
    assert_clean_error(&run(&a, "4"), "k must be 1 to the row length");
    assert_clean_error(&run(&cube, "1"), "a 1-D or 2-D array");
    assert!(!v.exists() && !i.exists(), "an output file after an error");
}
