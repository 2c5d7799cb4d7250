//! `.npy` input and output for the CLI (through the npyz crate).
//!
//! Reading accepts little- or big-endian u32, i32, f32 and f16 in C order; anything else is a
//! one-line error naming what was found. Writing is atomic: the array goes to a temporary file
//! beside the target, renamed over it only when complete, so a failed command leaves no output.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

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

/// Reads `path`.
pub fn read(path: &Path) -> Result<Npy> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let npy = npyz::NpyFile::new(BufReader::new(file))
        .with_context(|| format!("{} is not a .npy file", path.display()))?;
    if npy.order() != npyz::Order::C && npy.shape().len() > 1 {
        bail!("{}: Fortran-order arrays are not supported", path.display());
    }
    let shape = npy.shape().to_vec();
    let dtype = npy.dtype();
    let descr = match &dtype {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => format!("{other:?}"),
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

/// Writes `data` with `shape` to `path` atomically.
pub fn write(path: &Path, shape: &[u64], data: &Array) -> Result<()> {
    let count: u64 = shape.iter().product();
    if count != data.len() as u64 {
        bail!(
            "internal: shape {shape:?} does not match {} elements",
            data.len()
        );
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    {
        let mut w = BufWriter::new(tmp.as_file());
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
    }
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
