//! `wgsimd sort` as users meet it: sorted .npy out with the input's dtype (32- and 64-bit),
//! values carried stably, segments, bad input (dtype, length mismatch, shape) a one-line error with no output file, and
//! outputs written all or none.

use std::path::Path;

use crate::common::{self, assert_clean_error, assert_success, read_npy, s};

/// float32 keys in `total_cmp` order (-NaN first, -0 before +0, NaN last), and int32 keys with
/// uint32 values sorted descending with each strategy, the values following their keys and
/// equal keys keeping their input order: on the simulator and on the GPU.
#[test]
fn sort_writes_sorted_npy_of_the_input_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let floats = [1.5f32, f32::NAN, -0.0, 0.0, f32::NEG_INFINITY, -f32::NAN];
    let f = common::write_npy(d, "f.npy", &floats);
    let mut want = floats;
    want.sort_by(f32::total_cmp);
    let want_bits: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
    // 13 distinct keys over 3000 elements: long runs of equal keys, a partial last tile
    let keys: Vec<i32> = (0..3000).map(|i| (i * 7919 % 13) - 6).collect();
    let vals: Vec<u32> = (0..3000).collect();
    let k = common::write_npy(d, "k.npy", &keys);
    let v = common::write_npy(d, "v.npy", &vals);
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(keys[i]));
    let want_k: Vec<i32> = idx.iter().map(|&i| keys[i]).collect();
    let want_v: Vec<u32> = idx.iter().map(|&i| vals[i]).collect();
    for backend in common::backends() {
        let out = d.join("fo.npy");
        let o = common::wgsimd(&["sort", s(&f), "-o", s(&out), "--backend", backend]);
        assert_success(&o);
        // reading as f32 fails unless the output's dtype is float32
        let (shape, got): (_, Vec<f32>) = read_npy(&out);
        assert_eq!(shape, vec![floats.len() as u64], "{backend}");
        let bits: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, want_bits, "{backend}");
        for strategy in ["reduce-then-scan", "onesweep"] {
            let (ko, vo) = (d.join("ko.npy"), d.join("vo.npy"));
            let o = common::wgsimd(&[
                "sort",
                s(&k),
                "-o",
                s(&ko),
                "--values",
                s(&v),
                "--values-out",
                s(&vo),
                "--descending",
                "--strategy",
                strategy,
                "--backend",
                backend,
            ]);
            assert_success(&o);
            assert_eq!(read_npy::<i32>(&ko).1, want_k, "{backend} {strategy}");
            assert_eq!(read_npy::<u32>(&vo).1, want_v, "{backend} {strategy}");
        }
    }
}

/// 64-bit keys (float64 in `total_cmp` order, int64 with values, descending) and segmented
/// sorts of 32- and 64-bit keys with an empty segment, on the simulator and on the GPU.
#[test]
fn sort_takes_64_bit_keys_and_segments() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let floats = [
        1.5f64,
        f64::NAN,
        -0.0,
        0.0,
        f64::NEG_INFINITY,
        -f64::NAN,
        1e-310,
        -1.0,
    ];
    let f = common::write_npy(d, "f.npy", &floats);
    let mut want = floats;
    want.sort_by(f64::total_cmp);
    let want_bits: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
    let keys: Vec<i64> = (0..2000i64)
        .map(|i| ((i * 7919) % 13 - 6) << 33 | (i % 3))
        .collect();
    let vals: Vec<u32> = (0..2000).collect();
    let (k, v) = (
        common::write_npy(d, "k.npy", &keys),
        common::write_npy(d, "v.npy", &vals),
    );
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(keys[i]));
    let want_k: Vec<i64> = idx.iter().map(|&i| keys[i]).collect();
    let want_v: Vec<u32> = idx.iter().map(|&i| vals[i]).collect();
    // float64 keys in segments, one empty, with values: -0.0 before 0.0, NaN last
    let seg64 = [2.5f64, -0.0, 0.0, f64::NAN, 1.0, -3.0, 0.5];
    let (sk64, sv64) = (
        common::write_npy(d, "sk64.npy", &seg64),
        common::write_npy(d, "sv64.npy", &[0u32, 1, 2, 3, 4, 5, 6]),
    );
    let seg_keys = [5u32, 3, 9, 1, 7, 2, 8];
    let sk = common::write_npy(d, "sk.npy", &seg_keys);
    let so = common::write_npy(d, "so.npy", &[0u32, 3, 3, 7]);
    for backend in common::backends() {
        let out = d.join("fo.npy");
        assert_success(&common::wgsimd(&[
            "sort",
            s(&f),
            "-o",
            s(&out),
            "--backend",
            backend,
        ]));
        let got: Vec<u64> = read_npy::<f64>(&out)
            .1
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(got, want_bits, "{backend}");
        let (ko, vo) = (d.join("ko.npy"), d.join("vo.npy"));
        assert_success(&common::wgsimd(&[
            "sort",
            s(&k),
            "-o",
            s(&ko),
            "--values",
            s(&v),
            "--values-out",
            s(&vo),
            "--descending",
            "--backend",
            backend,
        ]));
        assert_eq!(read_npy::<i64>(&ko).1, want_k, "{backend}");
        assert_eq!(read_npy::<u32>(&vo).1, want_v, "{backend}");
        let so_out = d.join("so_out.npy");
        assert_success(&common::wgsimd(&[
            "sort",
            s(&sk),
            "-o",
            s(&so_out),
            "--segments",
            s(&so),
            "--backend",
            backend,
        ]));
        assert_eq!(
            read_npy::<u32>(&so_out).1,
            [3, 5, 9, 1, 2, 7, 8],
            "{backend}"
        );
        let svo = d.join("svo.npy");
        assert_success(&common::wgsimd(&[
            "sort",
            s(&sk64),
            "-o",
            s(&so_out),
            "--values",
            s(&sv64),
            "--values-out",
            s(&svo),
            "--segments",
            s(&so),
            "--backend",
            backend,
        ]));
        let got: Vec<u64> = read_npy::<f64>(&so_out)
            .1
            .iter()
            .map(|x| x.to_bits())
            .collect();
        let want: Vec<u64> = [-0.0f64, 0.0, 2.5, -3.0, 0.5, 1.0, f64::NAN]
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(got, want, "{backend}");
        assert_eq!(read_npy::<u32>(&svo).1, [1, 2, 0, 5, 6, 4, 3], "{backend}");
    }
}

/// Every input is checked before anything runs: a bad dtype, shape, strategy or value count is
/// a one-line error that writes nothing.
#[test]
fn sort_bad_input_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("out.npy");
    let vout = d.join("vout.npy");
    let sort = |args: &[&str]| {
        let mut all = vec!["sort"];
        all.extend(args);
        all.extend(["--backend", "sim"]);
        common::wgsimd(&all)
    };
    let bools = common::write_npy(d, "b.npy", &[true, false]);
    assert_clean_error(&sort(&[s(&bools), "-o", s(&out)]), "unsupported dtype");
    let k = common::write_npy(d, "k.npy", &[3u32, 1, 2]);
    // segment offsets: not from 0, not to n, decreasing, of another dtype; 64-bit keys
    for (name, offsets, msg) in [
        ("o1.npy", vec![1u32, 3], "from 0 to the key count 3"),
        ("o2.npy", vec![0, 2], "from 0 to the key count 3"),
        ("o3.npy", vec![0, 2, 1, 3], "must not decrease"),
    ] {
        let o = common::write_npy(d, name, &offsets);
        assert_clean_error(&sort(&[s(&k), "-o", s(&out), "--segments", s(&o)]), msg);
    }
    let io = common::write_npy(d, "io.npy", &[0i32, 3]);
    assert_clean_error(
        &sort(&[s(&k), "-o", s(&out), "--segments", s(&io)]),
        "unsupported dtype int32 for segment offsets",
    );
    let k64 = common::write_npy(d, "k64.npy", &[3u64, 1, 2]);
    let o = common::write_npy(d, "o.npy", &[0u32, 2]);
    assert_clean_error(
        &sort(&[s(&k64), "-o", s(&out), "--segments", s(&o)]),
        "from 0 to the key count 3",
    );
    let short = common::write_npy(d, "short.npy", &[1u32, 2]);
    assert_clean_error(
        &sort(&[
            s(&k),
            "-o",
            s(&out),
            "--values",
            s(&short),
            "--values-out",
            s(&vout),
        ]),
        "one value per key",
    );
    let fv = common::write_npy(d, "fv.npy", &[1.0f32, 2.0, 3.0]);
    assert_clean_error(
        &sort(&[
            s(&k),
            "-o",
            s(&out),
            "--values",
            s(&fv),
            "--values-out",
            s(&vout),
        ]),
        "unsupported dtype float32 for sort values",
    );
    assert_clean_error(
        &sort(&[s(&k), "-o", s(&out), "--strategy", "bogo"]),
        "unknown sort strategy",
    );
    // keys of another shape or of a dtype the sort has no order for
    let matrix = common::write_npy_shaped(d, "m.npy", &[2, 2], &[4u32, 3, 2, 1]);
    assert_clean_error(
        &sort(&[s(&matrix), "-o", s(&out)]),
        "keys must be 1-D, found shape [2, 2]",
    );
    let halves = common::write_npy(d, "h.npy", &[half::f16::from_f32(1.0), half::f16::ZERO]);
    assert_clean_error(
        &sort(&[s(&halves), "-o", s(&out)]),
        "unsupported dtype float16 for sort keys",
    );
    assert!(!out.exists() && !vout.exists());
    // --values without --values-out is a usage error (clap: exit 2), on one line that names
    // what is missing and the usage
    let o = sort(&[s(&k), "-o", s(&out), "--values", s(&k)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("wgsimd: error: ")
            && err.contains("--values-out")
            && err.contains("(usage: wgsimd sort"),
        "{err}"
    );
    assert!(!out.exists());
}

/// Outputs that cannot all be written leave none; two outputs on one path are refused; a
/// symlinked output is written through (the link stays); a replaced file keeps its
/// permissions.
#[test]
fn sort_outputs_are_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let k = common::write_npy(d, "k.npy", &[3u32, 1, 2]);
    let v = common::write_npy(d, "v.npy", &[10u32, 11, 12]);
    let out = d.join("out.npy");
    let sort = |out: &Path, vout: &Path| {
        common::wgsimd(&[
            "sort",
            s(&k),
            "-o",
            s(out),
            "--values",
            s(&v),
            "--values-out",
            s(vout),
            "--backend",
            "sim",
        ])
    };
    // the values' directory does not exist: the keys must not be written either
    assert_clean_error(&sort(&out, &d.join("nodir").join("vo.npy")), "nodir");
    assert!(!out.exists());
    // ... nor to a device or FIFO, which cannot be taken back once written: keys to the
    // test's stdout pipe write nothing there
    #[cfg(unix)]
    {
        let o = sort(Path::new("/dev/stdout"), &d.join("nodir").join("vo.npy"));
        assert_clean_error(&o, "nodir");
        assert!(
            o.stdout.is_empty(),
            "{} bytes of keys written",
            o.stdout.len()
        );
        let o = sort(Path::new("/dev/stdout"), &d.join("vo.npy"));
        assert_success(&o);
        let keys: Vec<u32> = npyz::NpyFile::new(&o.stdout[..])
            .unwrap()
            .into_vec()
            .unwrap();
        assert_eq!(keys, vec![1, 2, 3]);
        std::fs::remove_file(d.join("vo.npy")).unwrap();
        // a FIFO with no reader: opened only after the regular outputs are staged, so a values
        // output that cannot be staged fails the command before the FIFO's open would wait
        let fifo = d.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
        let mut child = common::command()
            .args(["sort", s(&k), "-o", s(&fifo), "--values", s(&v)])
            .args(["--values-out", s(&d.join("nodir").join("vo.npy"))])
            .args(["--backend", "sim"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed() > std::time::Duration::from_secs(60) {
                child.kill().unwrap();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert!(
            status.is_some_and(|s| !s.success()),
            "{status:?} (None: it waited on the FIFO)"
        );
        // a device that fails the write (ENOSPC): written before the regular files, so the
        // keys' existing file is left as it was (sorting a file in place is allowed)
        if Path::new("/dev/full").exists() {
            let kept = d.join("kept.npy");
            std::fs::copy(&k, &kept).unwrap();
            let before = std::fs::read(&kept).unwrap();
            let o = sort(&kept, Path::new("/dev/full"));
            assert!(!o.status.success());
            assert_eq!(std::fs::read(&kept).unwrap(), before);
        }
    }
    // one path for both outputs
    assert_clean_error(&sort(&out, &out), "same file");
    assert!(!out.exists());
    // ... however it is spelled, before it exists
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let mut others = vec![sub.join("..").join("out.npy")];
    #[cfg(unix)]
    {
        // through a symlink to the directory
        let alias = d.join("alias");
        std::os::unix::fs::symlink(d, &alias).unwrap();
        others.push(alias.join("out.npy"));
    }
    for other in others {
        assert_clean_error(&sort(&out, &other), "same file");
        assert!(!out.exists());
    }
    // a path that names a directory is no output file (Path::file_name would read "out.npy")
    assert_clean_error(
        &sort(Path::new(&format!("{}/", out.display())), &d.join("vo.npy")),
        "not a file name",
    );
    assert!(!out.exists());
    let o = sort(&out, &d.join("vo.npy"));
    assert_success(&o);
    assert_eq!(read_npy::<u32>(&d.join("vo.npy")).1, vec![11, 12, 10]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // a symlink to the output: written through, still a link
        let target = d.join("target.npy");
        std::fs::write(&target, b"old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.join("link.npy");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let o = common::wgsimd(&["sort", s(&k), "-o", s(&link), "--backend", "sim"]);
        assert_success(&o);
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(read_npy::<u32>(&target).1, vec![1, 2, 3]);
        // the replaced file's permissions, not the temporary file's 0600
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        // a symlink to a file not yet there: the file is created, the link stays
        let dangling = d.join("dangling.npy");
        std::os::unix::fs::symlink("new.npy", &dangling).unwrap();
        let o = common::wgsimd(&["sort", s(&k), "-o", s(&dangling), "--backend", "sim"]);
        assert_success(&o);
        assert!(std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(read_npy::<u32>(&d.join("new.npy")).1, vec![1, 2, 3]);
    }
}
