//! `wgsimd scan`: sums (u32 and i32 wrapping, f32), min and max, an operator from a WGSL file
//! (not commutative), inclusive and exclusive, on the simulator and the GPU; bad input a
//! one-line error, a non-zero exit code and no output file.

use crate::common::{self, assert_clean_error, assert_success, s};

#[test]
fn scans_by_every_operator() {
    let dir = tempfile::tempdir().unwrap();
    let u = common::write_npy(dir.path(), "u.npy", &[3u32, u32::MAX, 0, 5]);
    let i = common::write_npy(dir.path(), "i.npy", &[-3i32, 7, -9, 2]);
    let f = common::write_npy(dir.path(), "f.npy", &[0.5f32, -2.0, 4.0, 1.0]);
    let last = dir.path().join("last.wgsl");
    std::fs::write(
        &last,
        "fn op(a: T, b: T) -> T { return select(a, b, b != 0u); }\nconst IDENTITY: T = 0u;\n",
    )
    .unwrap();
    let out = dir.path().join("out.npy");
    for backend in common::backends() {
        let run = |input: &std::path::Path, extra: &[&str]| {
            let mut a = vec!["scan", s(input), "-o", s(&out)];
            a.extend_from_slice(extra);
            a.extend(["--backend", backend]);
            assert_success(&common::wgsimd(&a));
        };
        run(&u, &[]);
        assert_eq!(common::read_npy::<u32>(&out).1, [0, 3, 2, 2], "{backend}");
        run(&i, &["--inclusive"]);
        assert_eq!(
            common::read_npy::<i32>(&out).1,
            [-3, 4, -5, -3],
            "{backend}"
        );
        run(&i, &["--inclusive", "--op", "min"]);
        assert_eq!(
            common::read_npy::<i32>(&out).1,
            [-3, -3, -9, -9],
            "{backend}"
        );
        run(&f, &["--op", "max"]);
        assert_eq!(
            common::read_npy::<f32>(&out).1,
            [f32::NEG_INFINITY, 0.5, 0.5, 4.0],
            "{backend}"
        );
        run(&f, &["--inclusive"]);
        assert_eq!(
            common::read_npy::<f32>(&out).1,
            [0.5, -1.5, 2.5, 3.5],
            "{backend}"
        );
        run(&u, &["--op-wgsl", s(&last)]);
        assert_eq!(
            common::read_npy::<u32>(&out).1,
            [0, 3, u32::MAX, u32::MAX],
            "{backend}"
        );
    }
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = common::write_npy(dir.path(), "f.npy", &[1.0f32, 2.0]);
    let b = common::write_npy(dir.path(), "b.npy", &[1u8, 2]);
    let broken = dir.path().join("broken.wgsl");
    std::fs::write(&broken, "fn op(a: T, b: T) -> T { return a + }").unwrap();
    let no_identity = dir.path().join("nid.wgsl");
    std::fs::write(&no_identity, "fn op(a: T, b: T) -> T { return max(a, b); }").unwrap();
    let out = dir.path().join("out.npy");
    let sim = |extra: &[&str]| {
        let mut a = vec!["scan"];
        a.extend_from_slice(extra);
        a.extend(["-o", s(&out), "--backend", "sim"]);
        common::wgsimd(&a)
    };
    assert_clean_error(&sim(&[s(&f), "--op", "mean"]), "unknown scan op");
    assert_clean_error(&sim(&[s(&b)]), "unsupported dtype uint8 for scan");
    assert_clean_error(&sim(&[s(&f), "--op-wgsl", s(&broken)]), "operator");
    assert_clean_error(&sim(&[s(&f), "--op-wgsl", s(&no_identity)]), "IDENTITY");
    assert_clean_error(
        &sim(&[s(&f), "--op-wgsl", s(&dir.path().join("none.wgsl"))]),
        "cannot read",
    );
    assert!(!sim(&[s(&f), "--op", "max", "--op-wgsl", s(&broken)])
        .status
        .success());
    assert!(!out.exists(), "an output file after an error");
}
