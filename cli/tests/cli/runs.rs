//! `wgsimd unique` and `wgsimd reduce --by-key`: each run's value (and length), each run's key
//! and reduction, on the simulator and the GPU; bad input a one-line error, a non-zero exit code
//! and no output file.

use crate::common::{self, assert_clean_error, assert_success, s};

#[test]
fn unique_and_reduce_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let keys = common::write_npy(dir.path(), "k.npy", &[3u32, 3, 1, 1, 1, 3, 0]);
    let f = common::write_npy(dir.path(), "f.npy", &[0.0f32, -0.0, -0.0, 2.5]);
    let vals = common::write_npy(
        dir.path(),
        "v.npy",
        &[1.5f32, 2.0, -1.0, f32::NAN, 4.0, 9.0, 0.5],
    );
    let (out, counts, kout) = (
        dir.path().join("out.npy"),
        dir.path().join("counts.npy"),
        dir.path().join("kout.npy"),
    );
    for backend in common::backends() {
        let ok = |a: &[&str]| {
            let mut a = a.to_vec();
            a.extend(["--backend", backend]);
            assert_success(&common::wgsimd(&a));
        };
        ok(&[
            "unique",
            s(&keys),
            "-o",
            s(&out),
            "--counts-out",
            s(&counts),
        ]);
        assert_eq!(common::read_npy::<u32>(&out).1, [3, 1, 3, 0], "{backend}");
        assert_eq!(
            common::read_npy::<u32>(&counts).1,
            [2, 3, 1, 1],
            "{backend}"
        );
        ok(&["unique", s(&f), "-o", s(&out)]);
        let bits: Vec<u32> = common::read_npy::<f32>(&out)
            .1
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(bits, [0, 0x8000_0000, 2.5f32.to_bits()], "{backend}");
        for (op, want) in [
            ("sum", [3.5f32, f32::NAN, 9.0, 0.5]),
            ("max", [2.0, f32::NAN, 9.0, 0.5]),
        ] {
            ok(&[
                "reduce",
                s(&vals),
                "--op",
                op,
                "--by-key",
                s(&keys),
                "-o",
                s(&out),
                "--keys-out",
                s(&kout),
            ]);
            let got = common::read_npy::<f32>(&out).1;
            assert_eq!(got.len(), 4, "{backend} {op}");
            for (g, w) in got.iter().zip(want) {
                assert!(
                    g == &w || (g.is_nan() && w.is_nan()),
                    "{backend} {op}: {got:?}"
                );
            }
            assert_eq!(common::read_npy::<u32>(&kout).1, [3, 1, 3, 0], "{backend}");
        }
    }
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let x = common::write_npy(dir.path(), "x.npy", &[1u32, 2, 3]);
    let short = common::write_npy(dir.path(), "s.npy", &[1u32, 2]);
    let bytes = common::write_npy(dir.path(), "b.npy", &[1u8, 2, 3]);
    let out = dir.path().join("out.npy");
    let sim = |a: &[&str]| {
        let mut a = a.to_vec();
        a.extend(["--backend", "sim"]);
        common::wgsimd(&a)
    };
    assert_clean_error(
        &sim(&[
            "reduce",
            s(&x),
            "--op",
            "sum",
            "--by-key",
            s(&short),
            "-o",
            s(&out),
        ]),
        "one key per value",
    );
    assert_clean_error(
        &sim(&[
            "reduce",
            s(&x),
            "--op",
            "mean",
            "--by-key",
            s(&x),
            "-o",
            s(&out),
        ]),
        "unknown reduce op",
    );
    assert_clean_error(
        &sim(&[
            "reduce",
            s(&x),
            "--op",
            "sum",
            "--by-key",
            s(&bytes),
            "-o",
            s(&out),
        ]),
        "unsupported dtype uint8 for keys",
    );
    assert_clean_error(
        &sim(&["unique", s(&bytes), "-o", s(&out)]),
        "unsupported dtype uint8 for unique",
    );
    assert_clean_error(
        &sim(&["unique", s(&dir.path().join("none.npy")), "-o", s(&out)]),
        "cannot open",
    );
    let o = sim(&["reduce", s(&x), "--op", "sum", "--by-key", s(&x)]);
    assert!(!o.status.success(), "--by-key without -o");
    assert!(!out.exists(), "an output file after an error");
}
