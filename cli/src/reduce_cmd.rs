//! `wgsimd reduce IN.npy --op sum|min|max`: the result is the last line of stdout. With
//! `--by-key KEYS.npy -o OUT.npy [--keys-out KEYS_OUT.npy]`: the reduction of each run of equal
//! consecutive keys' values, in order, and the runs' keys.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use wgsimd::reduce::{reduce, ReduceOp};
use wgsimd::runs::reduce_by_key;
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd reduce`.
#[derive(clap::Args, Debug)]
pub struct ReduceArgs {
    /// Input .npy (uint32, int32 or float32; any shape, reduced over all elements; with
    /// --by-key taken in C order).
    pub input: PathBuf,
    /// sum, min or max.
    #[arg(long)]
    pub op: String,
    /// Keys .npy (uint32, int32 or float32), one per value: reduce each run of equal
    /// consecutive keys (equal as words).
    #[arg(long, requires = "output")]
    pub by_key: Option<PathBuf>,
    /// With --by-key: output .npy of each run's reduction (the values' dtype).
    #[arg(short, long, requires = "by_key")]
    pub output: Option<PathBuf>,
    /// With --by-key: output .npy of each run's key.
    #[arg(long, requires = "by_key")]
    pub keys_out: Option<PathBuf>,
}

/// The runs' keys and reductions of `values` by `keys`.
fn by_key(
    ctx: &Context,
    keys: &Array,
    values: &Array,
    op: ReduceOp,
) -> anyhow::Result<(Array, Array)> {
    macro_rules! keyed {
        ($k:expr, $kw:path) => {{
            match values {
                Array::U32(v) => {
                    let (k, r) = reduce_by_key(ctx, $k, v, op)?;
                    ($kw(k), Array::U32(r))
                }
                Array::I32(v) => {
                    let (k, r) = reduce_by_key(ctx, $k, v, op)?;
                    ($kw(k), Array::I32(r))
                }
                Array::F32(v) => {
                    let (k, r) = reduce_by_key(ctx, $k, v, op)?;
                    ($kw(k), Array::F32(r))
                }
                other => bail!(
                    "unsupported dtype {} for reduce (supported: uint32, int32, float32)",
                    other.dtype()
                ),
            }
        }};
    }
    Ok(match keys {
        Array::U32(k) => keyed!(k, Array::U32),
        Array::I32(k) => keyed!(k, Array::I32),
        Array::F32(k) => keyed!(k, Array::F32),
        other => bail!(
            "unsupported dtype {} for keys (supported: uint32, int32, float32)",
            other.dtype()
        ),
    })
}

/// Runs the command.
pub fn run(ctx: &Context, args: &ReduceArgs) -> anyhow::Result<ExitCode> {
    let op: ReduceOp = args.op.parse()?;
    if let (Some(keys_path), Some(out)) = (&args.by_key, &args.output) {
        let values = npy::read(&args.input)?;
        let keys = npy::read(keys_path)?;
        if keys.data.len() != values.data.len() {
            bail!(
                "{} keys for {} values: one key per value",
                keys.data.len(),
                values.data.len()
            );
        }
        let (k, r) = by_key(ctx, &keys.data, &values.data, op)?;
        npy::write(out, &[r.len() as u64], &r)?;
        if let Some(path) = &args.keys_out {
            npy::write(path, &[k.len() as u64], &k)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // any shape, any order: every element counts once
    let input = npy::read_any_order(&args.input)?;
    let value = match &input.data {
        Array::U32(v) => reduce(ctx, v, op)?,
        Array::I32(v) => reduce(ctx, v, op)?,
        Array::F32(v) => reduce(ctx, v, op)?,
        other => bail!(
            "{}: unsupported dtype {} for reduce (supported: uint32, int32, float32)",
            args.input.display(),
            other.dtype()
        ),
    };
    println!("{value}");
    Ok(ExitCode::SUCCESS)
}
