//! `.npy` input and output for the CLI (through the npyz crate).
//!
//! Reading accepts little- or big-endian u32, i32, f32 and f16 in C order (any order where the
//! command does not care: [`read_any_order`]); anything else, a shape whose element count
//! overflows, and a header whose keys are not exactly numpy's three (`descr`, `fortran_order`,
//! `shape`: numpy refuses others too), is a one-line error naming what was found. Writing is atomic: the array goes to a
//! temporary file beside the target (beside a symlink's target), renamed over it only when
//! complete, so a failed command leaves no output; [`stage`] and [`Staged::commit`] let a
//! command write every output before it renames any. The file gets the permissions the umask
//! gives a new file, or those of the file it replaces. A target that exists and is not a regular
//! file (`/dev/null`, a FIFO) is written in place.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use npyz::WriterBuilder;

/// Array contents by dtype (f16 as raw bits).
#[derive(Clone, Debug, PartialEq)]
#[allow(dead_code)]
pub enum Array {
    /// u32.
    U32(Vec<u32>),
    /// i32.
    I32(Vec<i32>),
    /// f32.
    F32(Vec<f32>),
    /// f16 bit patterns.
    F16(Vec<u16>),
}

impl Array {
    /// numpy's name of the dtype.
    pub fn dtype(&self) -> &'static str {
        match self {
            Array::U32(_) => "uint32",
            Array::I32(_) => "int32",
            Array::F32(_) => "float32",
            Array::F16(_) => "float16",
        }
    }
    /// Element count.
    pub fn len(&self) -> usize {
        match self {
            Array::U32(v) => v.len(),
            Array::I32(v) => v.len(),
            Array::F32(v) => v.len(),
            Array::F16(v) => v.len(),
        }
    }
}

/// A read `.npy` file.
#[derive(Clone, Debug)]
pub struct Npy {
    /// Shape (C order).
    pub shape: Vec<u64>,
    /// Data.
    pub data: Array,
}

/// Reads `path` (C order).
pub fn read(path: &Path) -> Result<Npy> {
    read_in(path, false)
}

/// Reads `path` in either order (for commands that treat the array as a bag of elements: the
/// data then comes in Fortran order, the shape as declared).
pub fn read_any_order(path: &Path) -> Result<Npy> {
    read_in(path, true)
}

fn read_in(path: &Path, any_order: bool) -> Result<Npy> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    // npyz multiplies the dimensions unchecked (shape and strides): a debug build panics, a
    // release build wraps, and a header could claim an enormous array with no data
    if let Some(dict) = header_dict(&mut file) {
        if let Some(entries) = dict_entries(&dict) {
            let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
            let mut sorted = keys.clone();
            sorted.sort();
            if sorted != ["descr", "fortran_order", "shape"] {
                bail!(
                    "{}: header has keys {keys:?}; a .npy header has exactly 'descr', 'fortran_order' and 'shape'",
                    path.display()
                );
            }
            if let Some(shape) = dict_shape(&dict, &entries) {
                countable(path, &shape)?;
            }
        }
    }
    std::io::Seek::rewind(&mut file).with_context(|| format!("cannot read {}", path.display()))?;
    let npy = npyz::NpyFile::new(BufReader::new(file))
        .with_context(|| format!("{} is not a .npy file", path.display()))?;
    if !any_order && npy.order() != npyz::Order::C && npy.shape().len() > 1 {
        bail!("{}: Fortran-order arrays are not supported", path.display());
    }
    let shape = npy.shape().to_vec();
    // the same for a header whose shape `header_shape` could not read (npyz's count wraps in
    // a release build)
    countable(path, &shape)?;
    let dtype = npy.dtype();
    let descr = match &dtype {
        npyz::DType::Plain(ts) => ts.to_string(),
        // (npyz reads subarray dtypes only inside records)
        other => format!("structured {}", other.descr()),
    };
    let kind = descr.trim_start_matches(['<', '>', '|', '=']).to_string();
    let ctx = || format!("reading the data of {}", path.display());
    let data = match kind.as_str() {
        "u4" => Array::U32(npy.into_vec::<u32>().with_context(ctx)?),
        "i4" => Array::I32(npy.into_vec::<i32>().with_context(ctx)?),
        "f4" => Array::F32(npy.into_vec::<f32>().with_context(ctx)?),
        "f2" => Array::F16(
            npy.into_vec::<half::f16>()
                .with_context(ctx)?
                .into_iter()
                .map(|h| h.to_bits())
                .collect(),
        ),
        _ => bail!(
            "{}: unsupported dtype {descr} (supported: uint32, int32, float32, float16)",
            path.display()
        ),
    };
    Ok(Npy { shape, data })
}

/// Refuses a shape whose element count (or a stride: the nonzero dimensions, times room for the
/// item size) overflows u64.
fn countable(path: &Path, shape: &[u64]) -> Result<()> {
    let mut nonzero = shape.iter().copied().filter(|&d| d != 0);
    if nonzero.try_fold(64u64, u64::checked_mul).is_none() {
        bail!(
            "{}: shape {shape:?} has more elements than can be counted",
            path.display()
        );
    }
    Ok(())
}

/// The header of a .npy file (its Python dict literal), where the file starts like one (`None`
/// otherwise: npyz then judges the file).
fn header_dict(file: &mut File) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 12];
    file.read_exact(&mut head).ok()?;
    if &head[..6] != b"\x93NUMPY" {
        return None;
    }
    // version 1: a u16 header length after the version; 2 and 3: a u32
    let (len, start) = match head[6] {
        1 => (u16::from_le_bytes([head[8], head[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize,
            12,
        ),
    };
    let mut text = vec![0u8; len.min(1 << 20)];
    std::io::Seek::seek(file, std::io::SeekFrom::Start(start as u64)).ok()?;
    file.read_exact(&mut text).ok()?;
    Some(String::from_utf8_lossy(&text).into_owned())
}

/// The entries of a header's dict: each key (a quoted string directly inside the braces that a
/// `:` follows) with the byte offset of its value in `dict`. Strings may hold backslash
/// escapes (numpy writes `\'` in a field name with both quotes); `None` where the text is not
/// a dict (npyz then judges it).
fn dict_entries(dict: &str) -> Option<Vec<(String, usize)>> {
    let open = dict.find('{')?;
    if !dict[..open].trim().is_empty() {
        return None;
    }
    let bytes = dict.as_bytes();
    let mut entries = Vec::new();
    let mut depth = 0usize;
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.checked_sub(1)?,
            b'}' if depth == 0 => return Some(entries),
            b'}' => depth -= 1,
            q @ (b'\'' | b'"') => {
                // a string literal: to its closing quote, past escaped characters
                let start = i + 1;
                i = start;
                while *bytes.get(i)? != q {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let rest = &dict[i + 1..];
                let after = rest.trim_start();
                if depth == 0 && after.starts_with(':') {
                    let value = i + 1 + (rest.len() - after.len()) + 1;
                    entries.push((dict[start..i].to_string(), value));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The `shape` tuple of a header's dict (the value of its `shape` key), where it reads as one.
fn dict_shape(dict: &str, entries: &[(String, usize)]) -> Option<Vec<u64>> {
    let &(_, at) = entries.iter().find(|(k, _)| k == "shape")?;
    let value = dict[at..].trim_start().strip_prefix('(')?;
    let close = value.find(')')?;
    value[..close]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse::<u64>().ok())
        .collect()
}

/// Writes `data` with `shape` to `path` atomically.
pub fn write(path: &Path, shape: &[u64], data: &Array) -> Result<()> {
    stage(path, shape, data)?.commit()
}

/// An output written in full but not yet in place.
pub struct Staged {
    tmp: Option<tempfile::NamedTempFile>,
    target: PathBuf,
}

impl Staged {
    /// Renames the output over its target (nothing to do where it was written in place).
    pub fn commit(self) -> Result<()> {
        if let Some(tmp) = self.tmp {
            tmp.persist(&self.target)
                .with_context(|| format!("cannot write {}", self.target.display()))?;
        }
        Ok(())
    }
}

/// Writes `data` with `shape` to a temporary file beside `path` (or, for a target that is not
/// a regular file, to the target itself); [`Staged::commit`] puts it in place.
pub fn stage(path: &Path, shape: &[u64], data: &Array) -> Result<Staged> {
    let count: u64 = shape.iter().product();
    if count != data.len() as u64 {
        bail!(
            "internal: shape {shape:?} does not match {} elements",
            data.len()
        );
    }
    let existing = fs::metadata(path).ok();
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        bail!("cannot write {}: it is a directory", path.display());
    }
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        // a device or FIFO: renaming over it would replace it
        let file = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        put(&file, shape, data).with_context(|| format!("cannot write {}", path.display()))?;
        return Ok(Staged {
            tmp: None,
            target: path.into(),
        });
    }
    // through a symlink to its target, so the link stays
    let target = match existing {
        Some(_) => {
            fs::canonicalize(path).with_context(|| format!("cannot resolve {}", path.display()))?
        }
        None => path.to_path_buf(),
    };
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        // what a new file gets (the umask applies), not the temporary file's 0600
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let tmp = builder
        .tempfile_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    if let Some(m) = fs::metadata(&target).ok().filter(|m| m.is_file()) {
        // replacing a file: keep its permissions
        fs::set_permissions(tmp.path(), m.permissions())
            .with_context(|| format!("cannot write {}", target.display()))?;
    }
    put(tmp.as_file(), shape, data)
        .with_context(|| format!("cannot write {}", target.display()))?;
    Ok(Staged {
        tmp: Some(tmp),
        target,
    })
}

/// The .npy bytes of `data` with `shape` into `file`.
fn put(file: &File, shape: &[u64], data: &Array) -> Result<()> {
    let mut w = BufWriter::new(file);
    macro_rules! put {
        ($t:ty, $iter:expr) => {{
            let mut writer = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(shape)
                .writer(&mut w)
                .begin_nd()?;
            writer.extend($iter)?;
            writer.finish()?;
        }};
    }
    match data {
        Array::U32(v) => put!(u32, v.iter().copied()),
        Array::I32(v) => put!(i32, v.iter().copied()),
        Array::F32(v) => put!(f32, v.iter().copied()),
        Array::F16(v) => put!(half::f16, v.iter().map(|&b| half::f16::from_bits(b))),
    }
    w.flush()?;
    Ok(())
}
