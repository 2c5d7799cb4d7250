//! `wgsimd gemm A.npy B.npy -o C.npy`: f32 and f16 inputs give f32 (M,N) matching an f64
//! reference, and with `--out-dtype float16` a float16 (M,N) that is the f32 result rounded;
//! shape and dtype mismatches and a bad `--out-dtype` are one-line errors that leave no output
//! file.

use crate::common::{self, assert_success, read_npy, s};

/// Relative Frobenius error bound of f32 accumulation at these sizes.
const TOL_F32: f64 = 1e-5;
/// f16 inputs with C in f32: the reference multiplies the very f16 values, so only the f32
/// accumulation errs; twice the f32 bound for tensor cores, whose f32 additions need not round
/// to nearest. A C rounded to f16 (2.8e-4 typical) fails it.
const TOL_F16_IN: f64 = 2e-5;

/// `len` values in [-1, 1) from `seed`, scattered by a multiplicative hash.
fn values(len: usize, seed: u64) -> Vec<f32> {
    (0..len as u64)
        .map(|i| {
            let h =
                (i ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD1B5_4A32_D192_ED03);
            (h >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// C = A·B in f64, row-major.
fn product(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
        }
    }
    c
}

/// ‖got − want‖ / ‖want‖.
fn rel_frobenius(got: &[f32], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let err: f64 = got
        .iter()
        .zip(want)
        .map(|(&g, &w)| (g as f64 - w).powi(2))
        .sum();
    let norm: f64 = want.iter().map(|w| w * w).sum();
    (err / norm).sqrt()
}

/// f32 and f16 inputs, f32 and f16 outputs, at a shape with partial tiles on every edge: on the
/// simulator and on the GPU.
#[test]
fn gemm_f32_and_f16() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, k, n) = (37, 19, 45);
    let a = values(m * k, 1);
    let b = values(k * n, 2);
    let want = product(&a, &b, m, n, k);
    let pa = common::write_npy_shaped(d, "a.npy", &[m as u64, k as u64], &a);
    let pb = common::write_npy_shaped(d, "b.npy", &[k as u64, n as u64], &b);
    let a16: Vec<half::f16> = a.iter().map(|&x| half::f16::from_f32(x)).collect();
    let b16: Vec<half::f16> = b.iter().map(|&x| half::f16::from_f32(x)).collect();
    let widen = |x: &[half::f16]| x.iter().map(|x| x.to_f32()).collect::<Vec<_>>();
    let want16 = product(&widen(&a16), &widen(&b16), m, n, k);
    let pa16 = common::write_npy_shaped(d, "a16.npy", &[m as u64, k as u64], &a16);
    let pb16 = common::write_npy_shaped(d, "b16.npy", &[k as u64, n as u64], &b16);
    let pc = d.join("c.npy");
    let ph = d.join("h.npy");
    for backend in common::backends() {
        let o = common::wgsimd(&["gemm", s(&pa), s(&pb), "-o", s(&pc), "--backend", backend]);
        assert_success(&o);
        let (shape, c) = read_npy::<f32>(&pc);
        assert_eq!(shape, vec![m as u64, n as u64], "{backend}");
        let e = rel_frobenius(&c, &want);
        assert!(e <= TOL_F32, "{backend} f32: {e}");

        let o = common::wgsimd(&[
            "gemm",
            s(&pa16),
            s(&pb16),
            "-o",
            s(&pc),
            "--backend",
            backend,
        ]);
        assert_success(&o);
        let (shape, c) = read_npy::<f32>(&pc);
        assert_eq!(shape, vec![m as u64, n as u64], "{backend}");
        let e = rel_frobenius(&c, &want16);
        assert!(e <= TOL_F16_IN, "{backend} f16: {e}");

        // float16 output: the float32 output rounded, bit for bit (M·N = 1665, odd)
        let o = common::wgsimd(&[
            "gemm",
            s(&pa16),
            s(&pb16),
            "-o",
            s(&ph),
            "--out-dtype",
            "float16",
            "--backend",
            backend,
        ]);
        assert_success(&o);
        let (shape, h) = read_npy::<half::f16>(&ph);
        assert_eq!(shape, vec![m as u64, n as u64], "{backend}");
        let h: Vec<u16> = h.iter().map(|x| x.to_bits()).collect();
        let rounded: Vec<u16> = c
            .iter()
            .map(|&x| half::f16::from_f32(x).to_bits())
            .collect();
        assert_eq!(h, rounded, "{backend}");
    }
}

/// Every check fires before the product, so it runs on the simulator.
#[test]
fn gemm_mismatches_fail_without_output() {
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
    let out = d.join("c.npy");
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
        let o = common::wgsimd(&["gemm", s(aa), s(bb), "-o", s(&out), "--backend", "sim"]);
        common::assert_clean_error(&o, needle);
        assert!(!out.exists(), "{needle}: no output file may be left");
    }
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
    // a clap usage error, naming the dtypes there are
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("float16"));
    assert!(!out.exists(), "a bad --out-dtype leaves no output file");
}

/// Fortran-order operands (numpy writes `fortran_order: True` for `np.save(f, w.T)`) are the
/// matrices numpy reads back: their data rearranged to C order.
#[test]
fn gemm_reads_fortran_order_as_numpy_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, k, n) = (3usize, 4usize, 5usize);
    let a: Vec<f32> = (0..m * k).map(|i| i as f32 - 5.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 7) as f32 * 0.5).collect();
    let want = product(&a, &b, m, n, k);
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
    assert_success(&o);
    let (shape, c) = read_npy::<f32>(&pc);
    assert_eq!(shape, vec![m as u64, n as u64]);
    // small integers and halves: every product and sum is exact in f32
    let want: Vec<f32> = want.iter().map(|&x| x as f32).collect();
    assert_eq!(c, want);
}

/// Shapes whose element counts overflow (a header claiming 2^32 × 2^32 with no data, which
/// npyz's unchecked product wraps to 0) are one-line errors, not panics.
#[test]
fn gemm_refuses_overflowing_shapes() {
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
