//! `wgsimd gemm A.npy B.npy -o C.npy`: f32 and f16 inputs give f32 (M,N) matching the f64
//! reference, and with `--out-dtype float16` a float16 (M,N) that is the f32 result rounded;
//! shape and dtype mismatches and a bad `--out-dtype` are one-line errors that leave no output
//! file.

mod common;

use std::path::Path;

use wgsimd::reference::gemm::{rel_frobenius, tiled};

fn read_f32(path: &Path) -> (Vec<u64>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec::<f32>().unwrap())
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn gemm_cli_f32_and_f16() {
    if common::gpu().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (m, k, n) = (37, 19, 45);
    let a = wgsimd::gemm::bench::random_f32(m * k, 1);
    let b = wgsimd::gemm::bench::random_f32(k * n, 2);
    let want = tiled(&a, &b, m, n, k);
    let pa = common::write_npy_shaped(dir.path(), "a.npy", &[m as u64, k as u64], &a);
    let pb = common::write_npy_shaped(dir.path(), "b.npy", &[k as u64, n as u64], &b);
    let pc = dir.path().join("c.npy");
    let o = common::wgsimd(&["gemm", s(&pa), s(&pb), "-o", s(&pc), "--backend", "gpu"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (shape, c) = read_f32(&pc);
    assert_eq!(shape, vec![m as u64, n as u64]);
    assert!(rel_frobenius(&c, &want) <= common::TOL_F32);

    let a16: Vec<half::f16> = a.iter().map(|&x| half::f16::from_f32(x)).collect();
    let b16: Vec<half::f16> = b.iter().map(|&x| half::f16::from_f32(x)).collect();
    let want16 = tiled(
        &a16.iter().map(|x| x.to_f32()).collect::<Vec<_>>(),
        &b16.iter().map(|x| x.to_f32()).collect::<Vec<_>>(),
        m,
        n,
        k,
    );
    let pa16 = common::write_npy_shaped(dir.path(), "a16.npy", &[m as u64, k as u64], &a16);
    let pb16 = common::write_npy_shaped(dir.path(), "b16.npy", &[k as u64, n as u64], &b16);
    let pc16 = dir.path().join("c16.npy");
    let o = common::wgsimd(&[
        "gemm",
        s(&pa16),
        s(&pb16),
        "-o",
        s(&pc16),
        "--backend",
        "gpu",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (shape, c) = read_f32(&pc16);
    assert_eq!(shape, vec![m as u64, n as u64]);
    assert!(rel_frobenius(&c, &want16) <= common::TOL_F16_IN);

    // float16 output: the float32 output rounded, bit for bit (M·N = 1665, odd)
    let ph = dir.path().join("h.npy");
    let o = common::wgsimd(&[
        "gemm",
        s(&pa16),
        s(&pb16),
        "-o",
        s(&ph),
        "--out-dtype",
        "float16",
        "--backend",
        "gpu",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&ph).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    assert_eq!(npy.shape(), &[m as u64, n as u64]);
    let h: Vec<u16> = npy
        .into_vec::<half::f16>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    assert_eq!(h, wgsimd::reference::gemm::f32_to_f16(&c));
}

/// Every check fires before the product, so it runs on the simulator: no GPU needed.
#[test]
fn gemm_cli_mismatches_fail_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = common::write_npy_shaped(d, "a.npy", &[2, 3], &[1.0f32; 6]);
    let b = common::write_npy_shaped(d, "b.npy", &[4, 2], &[1.0f32; 8]);
    let b23 = common::write_npy_shaped(d, "b23.npy", &[3, 2], &[1.0f32; 6]);
    let b16 = common::write_npy_shaped(d, "b16.npy", &[3, 2], &[half::f16::ONE; 6]);
    let a16 = common::write_npy_shaped(d, "a16.npy", &[2, 3], &[half::f16::ONE; 6]);
    let v = common::write_npy_shaped(d, "v.npy", &[3], &[1.0f32; 3]);
    let u = common::write_npy_shaped(d, "u.npy", &[3, 2], &[1u32; 6]);
    let au = common::write_npy_shaped(d, "au.npy", &[2, 3], &[1u32; 6]);
    let a0 = common::write_npy_shaped(d, "a0.npy", &[0, 3], &[0.0f32; 0]);
    let a3d = common::write_npy_shaped(d, "a3d.npy", &[1, 2, 3], &[1.0f32; 6]);
    for (aa, bb, needle) in [
        (&a, &b, "shape mismatch"),
        (&a, &b16, "dtype mismatch"),
        (&a16, &b23, "dtype mismatch"),
        (&a, &v, "expected a 2-D array"),
        (&v, &b23, "expected a 2-D array"),
        (&a3d, &b23, "expected a 2-D array, found shape [1, 2, 3]"),
        (&a, &u, "dtype mismatch"),
        (&au, &u, "unsupported dtype uint32 for gemm"),
        (&a0, &b23, "non-empty"),
    ] {
        let out = d.join("c.npy");
        let o = common::wgsimd(&["gemm", s(aa), s(bb), "-o", s(&out), "--backend", "sim"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{needle}: expected failure");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains(needle), "{err:?} should mention {needle:?}");
        assert!(!out.exists(), "{needle}: no output file may be left");
    }
    let out = d.join("c.npy");
    let o = common::wgsimd(&[
        "gemm",
        s(&a),
        s(&b23),
        "-o",
        s(&out),
        "--out-dtype",
        "int8",
        "--backend",
        "sim",
    ]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("float16"));
    assert!(!out.exists(), "a bad --out-dtype leaves no output file");
}

/// Fortran-order operands (numpy writes `fortran_order: True` for `np.save(f, w.T)`) are the
/// matrices numpy reads back: their data rearranged to C order. On the simulator.
#[test]
fn gemm_cli_reads_fortran_order_as_numpy_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, k, n) = (3usize, 4usize, 5usize);
    let a: Vec<f32> = (0..m * k).map(|i| i as f32 - 5.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 7) as f32 * 0.5).collect();
    let want = tiled(&a, &b, m, n, k);
    // B stored column by column: element (r, c) at c·K + r
    let b_fortran: Vec<u8> = (0..n)
        .flat_map(|c| (0..k).map(move |r| (r, c)))
        .flat_map(|(r, c)| b[r * n + c].to_le_bytes())
        .collect();
    let pa = common::write_npy_shaped(d, "a.npy", &[m as u64, k as u64], &a);
    let pb = common::write_raw_npy(
        d,
        "bf.npy",
        &format!("{{'descr': '<f4', 'fortran_order': True, 'shape': ({k}, {n}), }}"),
        &b_fortran,
    );
    let pc = d.join("c.npy");
    let o = common::wgsimd(&["gemm", s(&pa), s(&pb), "-o", s(&pc), "--backend", "sim"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (shape, c) = read_f32(&pc);
    assert_eq!(shape, vec![m as u64, n as u64]);
    assert!(
        rel_frobenius(&c, &want) <= common::TOL_F32,
        "{c:?} against {want:?}"
    );
}

/// Shapes whose element counts overflow (a header claiming 2^32 × 2^32 with no data, which
/// npyz's unchecked product wraps to 0) are one-line errors, not panics. On the simulator.
#[test]
fn gemm_cli_refuses_overflowing_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (i, (a, b, dtype)) in [
        (
            "(4294967296, 4294967296)",
            "(4294967296, 4294967296)",
            "<f4",
        ),
        (
            "(9223372036854775808, 2)",
            "(2, 9223372036854775808)",
            "<f4",
        ),
        (
            "(4, 4611686018427387904)",
            "(4611686018427387904, 4)",
            "<f2",
        ),
        (
            "(16, 1152921504606846976)",
            "(1152921504606846976, 16)",
            "<f4",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let header = |shape: &str| {
            format!("{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}")
        };
        let pa = common::write_raw_npy(d, &format!("a{i}.npy"), &header(a), &[]);
        let pb = common::write_raw_npy(d, &format!("b{i}.npy"), &header(b), &[]);
        let out = d.join("c.npy");
        let o = common::wgsimd(&["gemm", s(&pa), s(&pb), "-o", s(&out), "--backend", "sim"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{a}: expected failure");
        assert!(!err.contains("panicked"), "{a}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{a}: {err}");
        assert!(!out.exists(), "{a}: no output file may be left");
    }
}
