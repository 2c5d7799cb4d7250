//! `.npy` input and output for the CLI (through the npyz crate).
//!
//! Reading accepts little- or big-endian u32, i32, f32 and f16, in C order or in Fortran order
//! (rearranged to C order as numpy presents it; [`read_any_order`] leaves the data as stored
//! for commands that take a bag of elements). The header is checked here before npyz sees it,
//! as numpy checks it: exactly the keys `descr`, `fortran_order` and `shape`, the shape a tuple
//! of Python integer literals (hex, underscores and a Python 2 `L` included), plus an element
//! count that can be counted and a header of at most 1 MiB. Anything else is a one-line error
//! naming what was found, never a panic. The file is read front to back once, so a pipe works.
//!
//! Writing is atomic: the array goes to a temporary file beside the target (beside a symlink's
//! target, which need not exist yet), renamed over it only when complete, so a failed command
//! leaves no output; [`stage`] and [`commit_all`] let a command write every output before it
//! renames any (and take the renames back if one fails), and [`output_target`] tells whether
//! two output paths are one file. The file gets the permissions the umask gives a new file, or
//! those of the file it replaces. A target that exists and is not a regular file (`/dev/null`,
//! a FIFO) is written in place, at commit, before any rename.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use npyz::WriterBuilder;

/// Array contents by dtype (f16 as raw bits).
#[derive(Clone, Debug, PartialEq)]
#[allow(dead_code)]
pub enum Array {
    /// u8.
    U8(Vec<u8>),
    /// u32.
    U32(Vec<u32>),
    /// i32.
    I32(Vec<i32>),
    /// f32.
    F32(Vec<f32>),
    /// f16 bit patterns.
    F16(Vec<u16>),
    /// u64 (sort keys).
    U64(Vec<u64>),
    /// i64 (sort keys).
    I64(Vec<i64>),
    /// f64 (sort keys).
    F64(Vec<f64>),
}

impl Array {
    /// numpy's name of the dtype.
    pub fn dtype(&self) -> &'static str {
        match self {
            Array::U8(_) => "uint8",
            Array::U32(_) => "uint32",
            Array::I32(_) => "int32",
            Array::F32(_) => "float32",
            Array::F16(_) => "float16",
            Array::U64(_) => "uint64",
            Array::I64(_) => "int64",
            Array::F64(_) => "float64",
        }
    }
    /// Element count.
    pub fn len(&self) -> usize {
        match self {
            Array::U8(v) => v.len(),
            Array::U32(v) => v.len(),
            Array::I32(v) => v.len(),
            Array::F32(v) => v.len(),
            Array::F16(v) => v.len(),
            Array::U64(v) => v.len(),
            Array::I64(v) => v.len(),
            Array::F64(v) => v.len(),
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

/// The most data bytes a .npy file may declare: 4 GiB, more than any device's buffer
/// binding holds. A header declaring more is refused before any data is read.
pub const MAX_DATA_BYTES: u64 = 1 << 32;

/// Reads `path` (C order), at most [`MAX_DATA_BYTES`] of data.
pub fn read(path: &Path) -> Result<Npy> {
    read_in(path, false, MAX_DATA_BYTES)
}

/// Reads `path` (C order), refusing one whose header declares more than `max_bytes` of data
/// before reading it.
pub fn read_limited(path: &Path, max_bytes: u64) -> Result<Npy> {
    read_in(path, false, max_bytes)
}

/// Reads `path` in either order (for commands that treat the array as a bag of elements: the
/// data then comes in Fortran order, the shape as declared).
pub fn read_any_order(path: &Path) -> Result<Npy> {
    read_in(path, true, MAX_DATA_BYTES)
}

fn read_in(path: &Path, any_order: bool, max_bytes: u64) -> Result<Npy> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    // (a device or a pipe has no length to check)
    let file_len = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let mut reader = BufReader::new(file);
    // the header is read and checked here, then handed to npyz rewritten in a form it reads:
    // npyz multiplies the dimensions unchecked (a debug build panics, a release build wraps),
    // and it refuses some headers numpy reads. The file is read once, front to back, so a pipe
    // works as an input.
    let header = checked_header(&mut reader, path)?;
    let npy = npyz::NpyFile::new(std::io::Cursor::new(header).chain(reader))
        .with_context(|| format!("{} is not a .npy file", path.display()))?;
    let shape = npy.shape().to_vec();
    // the data's size from the header, checked before any of it is read: a header may claim
    // 2^40 elements over a pipe, or more than its file holds
    let count = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .unwrap_or(u64::MAX);
    let item = npy.dtype().num_bytes().map_or(u64::MAX, |b| b as u64);
    let bytes = count.saturating_mul(item);
    if bytes > max_bytes {
        bail!(
            "{}: its header declares {count} elements of {item} bytes ({bytes} bytes); at most \
             {max_bytes} bytes are read",
            path.display()
        );
    }
    if let Some(len) = file_len.filter(|&l| l < bytes) {
        bail!(
            "{}: its header declares {bytes} bytes of data; the file has {len} bytes in all",
            path.display()
        );
    }
    // Fortran-order data is rearranged to C order, as numpy presents it, unless the command
    // takes the elements in any order
    let transpose = npy.order() == npyz::Order::Fortran && shape.len() > 1 && !any_order;
    let descr = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        // (npyz reads subarray dtypes only inside records)
        other => format!("structured {}", other.descr()),
    };
    let kind = descr.trim_start_matches(['<', '>', '|', '=']).to_string();
    let ctx = || format!("reading the data of {}", path.display());
    let data = match kind.as_str() {
        // numpy's bool: a byte each, 0 or 1
        "b1" => {
            let bools: Vec<bool> = npy.into_vec().with_context(ctx)?;
            Array::U8(arrange(
                bools.into_iter().map(u8::from).collect(),
                &shape,
                transpose,
            ))
        }
        "u1" => Array::U8(arrange(
            npy.into_vec().with_context(ctx)?,
            &shape,
            transpose,
        )),
        "u4" => Array::U32(arrange(
            npy.into_vec().with_context(ctx)?,
            &shape,
            transpose,
        )),
        "i4" => Array::I32(arrange(
            npy.into_vec().with_context(ctx)?,
            &shape,
            transpose,
        )),
        "f4" => Array::F32(arrange(
            npy.into_vec().with_context(ctx)?,
            &shape,
            transpose,
        )),
        "u8" => Array::U64(arrange(
            npy.into_vec().with_context(ctx)?,
            &shape,
            transpose,
        )),
        "i8" => Array::I64(arrange(
            npy.into_vec().with_context(ctx)?,
            &shape,
            transpose,
        )),
        "f8" => Array::F64(arrange(
            npy.into_vec().with_context(ctx)?,
            &shape,
            transpose,
        )),
        "f2" => {
            let halves: Vec<half::f16> = npy.into_vec().with_context(ctx)?;
            let bits = halves.into_iter().map(|h| h.to_bits()).collect();
            Array::F16(arrange(bits, &shape, transpose))
        }
        _ => bail!(
            "{}: unsupported dtype {descr} (supported: bool, uint8, uint32, int32, float32, \
             float16, uint64, int64, float64)",
            path.display()
        ),
    };
    Ok(Npy { shape, data })
}

/// `data` in C order: as it is, or (`fortran`) rearranged from Fortran order, where the first
/// index varies fastest.
fn arrange<T: Copy>(data: Vec<T>, shape: &[u64], fortran: bool) -> Vec<T> {
    if !fortran || data.len() < 2 {
        return data;
    }
    // C-order element i: its index digits (last fastest), then its Fortran offset
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let mut fstride = vec![1usize; dims.len()];
    for a in 1..dims.len() {
        fstride[a] = fstride[a - 1] * dims[a - 1];
    }
    (0..data.len())
        .map(|i| {
            let (mut rest, mut at) = (i, 0);
            for a in (0..dims.len()).rev() {
                at += (rest % dims[a]) * fstride[a];
                rest /= dims[a];
            }
            data[at]
        })
        .collect()
}

/// Headers larger than this are refused (numpy's `np.load` refuses those over 10000 bytes
/// unless told otherwise).
const MAX_HEADER: usize = 1 << 20;

/// Reads a .npy file's preamble and header from `r` (leaving it at the data), checks the header
/// as numpy does (a dict of exactly `descr`, `fortran_order` and `shape`, the shape a tuple of
/// integers, here also one whose element count can be counted), and returns an equivalent
/// preamble and header that npyz reads: the shape in decimal (numpy also reads Python's hex,
/// octal, binary and underscores, and a Python 2 `L` in version 1 and 2 headers), and `|` or
/// `=` byte orders (numpy's "not applicable" and "native") as `<` (every platform we build for
/// is little-endian).
fn checked_header(r: &mut impl Read, path: &Path) -> Result<Vec<u8>> {
    let bad = |why: String| anyhow::anyhow!("{} is not a .npy file: {why}", path.display());
    // a file that ends early is no .npy file; any other read error is itself the message
    let read_err = |e: std::io::Error, short: &str| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            bad(short.into())
        } else {
            anyhow::Error::new(e).context(format!("cannot read {}", path.display()))
        }
    };
    let mut pre = [0u8; 8];
    r.read_exact(&mut pre)
        .map_err(|e| read_err(e, "shorter than a .npy preamble"))?;
    if &pre[..6] != b"\x93NUMPY" {
        return Err(bad("it does not start with \\x93NUMPY".into()));
    }
    let major = pre[6];
    if !(1..=3).contains(&major) || pre[7] != 0 {
        return Err(bad(format!(
            "format version {major}.{} is not one of 1.0, 2.0, 3.0",
            pre[7]
        )));
    }
    // version 1: a u16 header length; 2 and 3: a u32
    let len = if major == 1 {
        let mut b = [0u8; 2];
        r.read_exact(&mut b)
            .map_err(|e| read_err(e, "truncated preamble"))?;
        u16::from_le_bytes(b) as usize
    } else {
        let mut b = [0u8; 4];
        r.read_exact(&mut b)
            .map_err(|e| read_err(e, "truncated preamble"))?;
        u32::from_le_bytes(b) as usize
    };
    if len > MAX_HEADER {
        bail!(
            "{}: the .npy header is {len} bytes; at most {MAX_HEADER} are read",
            path.display()
        );
    }
    let mut raw = vec![0u8; len];
    r.read_exact(&mut raw)
        .map_err(|e| read_err(e, &format!("the file ends inside its {len}-byte header")))?;
    // versions 1 and 2 are latin-1, 3 is UTF-8
    let dict = if major == 3 {
        String::from_utf8(raw).map_err(|_| bad("a version 3 header that is not UTF-8".into()))?
    } else {
        raw.iter().map(|&b| b as char).collect()
    };
    let entries =
        dict_entries(&dict).ok_or_else(|| bad("the header is not a Python dict".into()))?;
    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    if sorted != ["descr", "fortran_order", "shape"] {
        bail!(
            "{}: header has keys {keys:?}; a .npy header has exactly 'descr', 'fortran_order' and 'shape'",
            path.display()
        );
    }
    let value = |key: &str| {
        let &(_, at) = entries
            .iter()
            .find(|(k, _)| k == key)
            .expect("checked keys");
        dict_value(&dict, at)
    };
    let shape_text = value("shape");
    let shape = py_shape(shape_text, major < 3).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: the header's shape {shape_text} is not a tuple of non-negative integers",
            path.display()
        )
    })?;
    countable(path, &shape)?;
    // a quoted type string with `|` or `=` as its byte order: `<`, except on one-byte types
    // (`'|u1'`: npyz reads `|` there)
    let mut descr = value("descr").to_string();
    let b = descr.as_bytes();
    let quoted = matches!(b.first(), Some(b'\'' | b'"'));
    let either_order = matches!(b.get(1), Some(b'|' | b'='));
    let one_byte = b.len() == 5 && b[3] == b'1' && b[4] == b[0];
    if quoted && either_order && !one_byte {
        descr.replace_range(1..2, "<");
    }
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let tuple = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let text = format!(
        "{{'descr': {descr}, 'fortran_order': {}, 'shape': {tuple}, }}\n",
        value("fortran_order")
    );
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[if major == 3 { 3 } else { 2 }, 0]);
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    Ok(out)
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

/// The entries of a header's dict literal, `{'key': value, ...}` with an optional trailing
/// comma and nothing but whitespace after it: each key (a quoted string; backslash escapes
/// allowed, numpy writes `\'` in a field name with both quotes) with the byte offset of its
/// value in `dict`. `None` where the text is not such a dict (numpy's `literal_eval` refuses
/// stray text too).
fn dict_entries(dict: &str) -> Option<Vec<(String, usize)>> {
    let bytes = dict.as_bytes();
    let skip_ws = |mut i: usize| {
        while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut entries = Vec::new();
    loop {
        i = skip_ws(i);
        match *bytes.get(i)? {
            b'}' => break,
            b'\'' | b'"' => {
                let end = string_end(bytes, i)?;
                let key = dict[i + 1..end].to_string();
                i = skip_ws(end + 1);
                if bytes.get(i) != Some(&b':') {
                    return None;
                }
                let at = i + 1;
                let value = dict_value(dict, at);
                if value.is_empty() {
                    return None;
                }
                let start = skip_ws(at);
                i = skip_ws(start + value.len());
                entries.push((key, at));
                match *bytes.get(i)? {
                    b',' => i += 1,
                    b'}' => break,
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    // past the closing brace: the padding and the newline only
    (skip_ws(i + 1) == bytes.len()).then_some(entries)
}

/// The index of the closing quote of the string literal that opens at `open`, past backslash
/// escapes.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let q = bytes[open];
    let mut i = open + 1;
    while *bytes.get(i)? != q {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    Some(i)
}

/// The text of the dict value that starts at `at`: up to the next comma or closing brace
/// outside brackets and strings, trimmed.
fn dict_value(dict: &str, at: usize) -> &str {
    let bytes = dict.as_bytes();
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth > 0 => depth -= 1,
            b',' | b'}' if depth == 0 => break,
            b'\'' | b'"' => match string_end(bytes, i) {
                Some(end) => i = end,
                None => break,
            },
            _ => {}
        }
        i += 1;
    }
    dict[at..i.min(bytes.len())].trim()
}

/// A Python tuple of non-negative integer literals (decimal, `0x`, `0o`, `0b`, underscores; a
/// trailing `L` where `py2`), as numpy's `ast.literal_eval` reads a shape.
fn py_shape(text: &str, py2: bool) -> Option<Vec<u64>> {
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    let mut items: Vec<&str> = inner.split(',').map(str::trim).collect();
    // a trailing comma ("(3,)") leaves an empty last item; "()" is 0-d; "(3)" is the int 3,
    // not a tuple (numpy refuses it)
    if items.last() == Some(&"") {
        items.pop();
    } else if items.len() == 1 {
        return None;
    }
    items.iter().map(|d| py_int(d, py2)).collect()
}

/// A non-negative Python integer literal (a unary `+` allowed; decimal without leading zeros,
/// as Python 3 has it; numpy drops an `L` after a number in version 1 and 2 headers, `py2`).
fn py_int(text: &str, py2: bool) -> Option<u64> {
    let text = text.strip_prefix('+').map_or(text, str::trim_start);
    let t = if py2 {
        text.strip_suffix('L').unwrap_or(text)
    } else {
        text
    };
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let (digits, radix) = match lower.get(..2) {
        Some("0x") => (&lower[2..], 16),
        Some("0o") => (&lower[2..], 8),
        Some("0b") => (&lower[2..], 2),
        _ => (lower.as_str(), 10),
    };
    let digits = digits.strip_prefix('_').unwrap_or(digits).replace('_', "");
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    if radix == 10 && digits.starts_with('0') && digits.bytes().any(|b| b != b'0') {
        return None;
    }
    u64::from_str_radix(&digits, radix).ok()
}

/// Writes `data` with `shape` to `path` atomically.
pub fn write(path: &Path, shape: &[u64], data: &Array) -> Result<()> {
    stage(path, shape, data)?.commit()
}

/// An output written in full but not yet in place (a device or FIFO: opened, written at
/// commit from the caller's data, which it borrows).
pub struct Staged<'a> {
    /// A regular file's contents, in a temporary file beside it.
    tmp: Option<tempfile::NamedTempFile>,
    /// A device or FIFO, opened, and what to write to it (it cannot be replaced whole, so it
    /// is written only at commit).
    stream: Option<(File, Vec<u64>, &'a Array)>,
    target: PathBuf,
}

impl Staged<'_> {
    /// Renames the output over its target, or writes a device or FIFO.
    pub fn commit(self) -> Result<()> {
        if let Some(tmp) = self.tmp {
            tmp.persist(&self.target)
                .with_context(|| format!("cannot write {}", self.target.display()))?;
        }
        if let Some((file, shape, data)) = self.stream {
            put(&file, &shape, data)
                .with_context(|| format!("cannot write {}", self.target.display()))?;
        }
        Ok(())
    }
}

/// What a failed [`commit_all`] does with a regular file it already put in place.
enum Undo {
    /// There was no file: remove the new one.
    Remove,
    /// There was one, kept under a temporary hard link (or, where none can be made, a copy):
    /// put it back.
    Restore(tempfile::TempPath),
    /// There was one and neither a link nor a copy could be made: leave the new file rather
    /// than lose both.
    Leave,
}

impl Undo {
    /// Before `target` is replaced: a hard link to the file there, if any.
    fn before(target: &Path) -> Undo {
        if !fs::metadata(target).is_ok_and(|m| m.is_file()) {
            return Undo::Remove;
        }
        let dir = dir_of(target);
        let link = tempfile::Builder::new()
            .prefix(".wgsimd-old")
            .tempfile_in(dir)
            .map(|t| t.into_temp_path());
        let Ok(link) = link else {
            return Undo::Leave;
        };
        // (a file system without hard links, or a file another user owns: a copy instead)
        let kept = fs::remove_file(&link).is_ok()
            && (fs::hard_link(target, &link).is_ok() || fs::copy(target, &link).is_ok());
        if kept {
            Undo::Restore(link)
        } else {
            Undo::Leave
        }
    }

    fn undo(self, target: &Path) {
        match self {
            Undo::Remove => {
                let _ = fs::remove_file(target);
            }
            // (the link's TempPath then finds nothing to delete; where the rename back fails,
            // the link is kept, the old file's only name left, and named)
            Undo::Restore(link) => {
                if let Err(e) = fs::rename(&link, target) {
                    if let Ok(kept) = link.keep() {
                        eprintln!(
                            "wgsimd: could not put back {} ({e}); the old file is at {}",
                            target.display(),
                            kept.display()
                        );
                    }
                }
            }
            Undo::Leave => {}
        }
    }
}

/// Commits several outputs, all or none where it can. Devices and FIFOs first: they cannot be
/// taken back, and a write that fails there (a closed pipe, a full device) then leaves every
/// regular file as it was. Then the regular files, each a rename; if one fails, those already
/// renamed are undone: a new file removed, a replaced one put back from a hard link taken
/// before (the links go when every output is in place).
pub fn commit_all(outputs: Vec<Staged>) -> Result<()> {
    let (streams, files): (Vec<Staged>, Vec<Staged>) =
        outputs.into_iter().partition(|s| s.stream.is_some());
    for out in streams {
        out.commit()?;
    }
    let mut placed: Vec<(PathBuf, Undo)> = Vec::new();
    for out in files {
        let target = out.target.clone();
        let undo = Undo::before(&target);
        if let Err(e) = out.commit() {
            for (t, u) in placed.into_iter().rev() {
                u.undo(&t);
            }
            return Err(e);
        }
        placed.push((target, undo));
    }
    Ok(())
}

/// Stages several outputs (`stage`), regular files first: a device or FIFO is opened only once
/// every file is written (opening a FIFO waits for its reader).
pub fn stage_all<'a>(outputs: &[(&Path, &[u64], &'a Array)]) -> Result<Vec<Staged<'a>>> {
    let (streams, files): (Vec<_>, Vec<_>) = outputs.iter().partition(|o| is_stream(o.0));
    files
        .into_iter()
        .chain(streams)
        .map(|&(path, shape, data)| stage(path, shape, data))
        .collect()
}

/// Whether `path` is an existing device or FIFO (neither a regular file nor a directory): it
/// is written in place, since renaming over it would replace it.
fn is_stream(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The directory `path` is in (`.` for a bare file name).
fn dir_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `data` with `shape` to a temporary file beside `path` (a target that is not a regular
/// file, a device or FIFO, is opened now and written at commit); [`Staged::commit`] or
/// [`commit_all`] puts it in place.
pub fn stage<'a>(path: &Path, shape: &[u64], data: &'a Array) -> Result<Staged<'a>> {
    let count: u64 = shape.iter().product();
    if count != data.len() as u64 {
        bail!(
            "internal: shape {shape:?} does not match {} elements",
            data.len()
        );
    }
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        bail!("cannot write {}: it is a directory", path.display());
    }
    if is_stream(path) {
        // a device or FIFO: renaming over it would replace it
        let file = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        return Ok(Staged {
            tmp: None,
            stream: Some((file, shape.to_vec(), data)),
            target: path.into(),
        });
    }
    // through a symlink to its target (one that does not exist yet too), so the link stays
    let target = output_target(path)?;
    let dir = dir_of(&target);
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
        stream: None,
        target,
    })
}

/// The file that writing `path` creates or replaces: symlinks followed (a dangling one to the
/// file it names), in its directory's canonical form, so that two spellings of one new file
/// (`out.npy`, `./out.npy`, `dir/../out.npy`) give the same path.
pub fn output_target(path: &Path) -> Result<PathBuf> {
    // "out.npy/" and "dir/." name a directory, though Path::file_name reads "out.npy" and "."
    // dropped; writing them as files would write somewhere else
    let raw = path.as_os_str().to_string_lossy();
    if raw.ends_with(std::path::is_separator) || raw == "." || raw.ends_with("/.") {
        bail!("cannot write {}: not a file name", path.display());
    }
    let mut p = path.to_path_buf();
    let mut hops = 0;
    while fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
        hops += 1;
        if hops > 40 {
            bail!(
                "cannot write {}: too many levels of symbolic links",
                path.display()
            );
        }
        let link = fs::read_link(&p).with_context(|| format!("cannot resolve {}", p.display()))?;
        p = match p.parent() {
            Some(dir) => dir.join(link),
            None => link,
        };
    }
    let name = p
        .file_name()
        .with_context(|| format!("cannot write {}: not a file name", path.display()))?;
    let dir = dir_of(&p);
    let dir =
        fs::canonicalize(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    Ok(dir.join(name))
}

/// The .npy bytes of `data` with `shape` into `file`.
fn put(out: impl Write, shape: &[u64], data: &Array) -> Result<()> {
    let mut w = BufWriter::new(out);
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
        Array::U8(v) => put!(u8, v.iter().copied()),
        Array::U32(v) => put!(u32, v.iter().copied()),
        Array::I32(v) => put!(i32, v.iter().copied()),
        Array::F32(v) => put!(f32, v.iter().copied()),
        Array::F16(v) => put!(half::f16, v.iter().map(|&b| half::f16::from_bits(b))),
        Array::U64(v) => put!(u64, v.iter().copied()),
        Array::I64(v) => put!(i64, v.iter().copied()),
        Array::F64(v) => put!(f64, v.iter().copied()),
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The second of two outputs fails to go in place (its temporary file is gone): the first,
    /// already renamed into place, is taken back: removed where it was new, the old file put
    /// back where it replaced one. Looks bad but is fine: both succeed when nothing interferes,
    /// and no temporary link is left behind.
    #[test]
    fn commit_all_takes_back_the_outputs_it_placed() {
        let dir = tempfile::tempdir().unwrap();
        let (a, sub) = (dir.path().join("a.npy"), dir.path().join("sub"));
        let b = sub.join("b.npy");
        let data = Array::U32(vec![1, 2, 3]);
        let failing = || {
            fs::create_dir(&sub).unwrap();
            let staged = vec![
                stage(&a, &[3], &data).unwrap(),
                stage(&b, &[3], &data).unwrap(),
            ];
            fs::remove_dir_all(&sub).unwrap();
            commit_all(staged)
        };
        assert!(failing().is_err());
        assert!(!a.exists(), "the new first output was left in place");
        fs::write(&a, b"old").unwrap();
        assert!(failing().is_err());
        assert_eq!(
            fs::read(&a).unwrap(),
            b"old",
            "the replaced file was not put back"
        );
        fs::create_dir(&sub).unwrap();
        let staged = vec![
            stage(&a, &[3], &data).unwrap(),
            stage(&b, &[3], &data).unwrap(),
        ];
        commit_all(staged).unwrap();
        assert!(b.exists() && fs::read(&a).unwrap() != b"old");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    /// A header declaring more data than the cap is refused from the header, and one declaring
    /// more than its regular file holds from the file's length, before any data is read.
    #[test]
    fn sizes_are_checked_from_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let file = |n: u64, data: usize| {
            let dict = format!("{{'descr': '<u4', 'fortran_order': False, 'shape': ({n},), }}");
            let pad = (64 - (10 + dict.len() + 1) % 64) % 64;
            let text = format!("{dict}{}\n", " ".repeat(pad));
            let mut b = b"\x93NUMPY\x01\x00".to_vec();
            b.extend((text.len() as u16).to_le_bytes());
            b.extend(text.as_bytes());
            b.extend(vec![0u8; data]);
            let p = dir.path().join(format!("{n}.npy"));
            fs::write(&p, b).unwrap();
            p
        };
        let e = format!("{:#}", read(&file((1 << 31) + 1, 0)).unwrap_err());
        assert!(e.contains("declares 2147483649 elements of 4 bytes"), "{e}");
        let e = format!("{:#}", read_limited(&file(1000, 4000), 3999).unwrap_err());
        assert!(e.contains("at most 3999 bytes"), "{e}");
        let e = format!("{:#}", read(&file(1001, 40)).unwrap_err());
        assert!(e.contains("declares 4004 bytes of data"), "{e}");
        assert_eq!(read(&file(1000, 4000)).unwrap().data.len(), 1000);
    }
}
