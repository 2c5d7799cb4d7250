//! Helpers of the CLI tests: running the binary, writing .npy inputs, reading .npy outputs, and
//! finding out (through the binary) whether a GPU adapter exists.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `wgsimd` binary as a command, for tests that need pipes or environment variables.
pub fn command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wgsimd"))
}

/// Runs the `wgsimd` binary with `args`.
pub fn wgsimd(args: &[&str]) -> Output {
    command().args(args).output().expect("run wgsimd")
}

/// `p` as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The last line of stdout: where `reduce` prints its result.
pub fn last_line(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

/// Asserts `o` succeeded, showing its stderr if not.
pub fn assert_success(o: &Output) {
    assert!(
        o.status.success(),
        "{:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Asserts `o` failed without a panic, with a `wgsimd: error:` line mentioning `needle`.
pub fn assert_clean_error(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "expected failure, stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("wgsimd: error:"))
        .unwrap_or_else(|| panic!("no error line in {err:?}"));
    assert!(line.contains(needle), "{line:?} should mention {needle:?}");
}

/// Whether the binary finds a GPU adapter (`wgsimd info --backend gpu`, asked once per test
/// binary). Without one a test that needs it calls this, sees `false` and returns, after
/// "skipped: no GPU adapter" on stderr; under `WGSIMD_REQUIRE_GPU=1` it fails instead. Any other
/// failure of `info` fails the test.
pub fn gpu() -> bool {
    static FOUND: OnceLock<Result<(), String>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let o = wgsimd(&["info", "--backend", "gpu"]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if o.status.success() {
            Ok(())
        } else if err.contains("no GPU adapter found") {
            Err(err)
        } else {
            panic!("wgsimd info --backend gpu failed: {err}")
        }
    });
    match found {
        Ok(()) => true,
        Err(e) if std::env::var("WGSIMD_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("WGSIMD_REQUIRE_GPU=1 but the binary found no GPU adapter: {e}")
        }
        Err(_) => {
            eprintln!("skipped: no GPU adapter");
            false
        }
    }
}

/// The backends a test runs on: the simulator, and the GPU where one exists (see [`gpu`]).
pub fn backends() -> Vec<&'static str> {
    let mut v = vec!["sim"];
    if gpu() {
        v.push("gpu");
    }
    v
}

/// Writes `data` with `shape` as a .npy file `name` in `dir`.
pub fn write_npy_shaped<T: npyz::AutoSerialize + Copy>(
    dir: &Path,
    name: &str,
    shape: &[u64],
    data: &[T],
) -> PathBuf {
    use npyz::WriterBuilder;
    let path = dir.join(name);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut w = npyz::WriteOptions::<T>::new()
        .default_dtype()
        .shape(shape)
        .writer(&mut f)
        .begin_nd()
        .unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
    path
}

/// Writes `data` as a 1-D .npy file `name` in `dir`.
pub fn write_npy<T: npyz::AutoSerialize + Copy>(dir: &Path, name: &str, data: &[T]) -> PathBuf {
    write_npy_shaped(dir, name, &[data.len() as u64], data)
}

/// A .npy (version 1.0) with a header written by hand: `dict` is the header's Python dict (e.g.
/// `{'descr': '<u4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }`), `data`
/// the bytes after it. For headers numpy itself would not write.
pub fn write_raw_npy(dir: &Path, name: &str, dict: &str, data: &[u8]) -> PathBuf {
    let mut header = dict.to_string();
    // magic (6) + version (2) + length (2) + header + newline, padded to 64 bytes
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The little-endian bytes of `words`, as the data of a `<u4` .npy.
pub fn u32_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The shape and elements of the .npy at `path`, read as `T` (which fails unless the file's
/// dtype is `T`'s).
pub fn read_npy<T: npyz::Deserialize>(path: &Path) -> (Vec<u64>, Vec<T>) {
    let bytes = std::fs::read(path).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec().unwrap())
}
