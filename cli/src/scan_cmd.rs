//! `wgsimd scan IN.npy -o OUT.npy [--inclusive] [--op sum|min|max | --op-wgsl OP.wgsl]`: the
//! prefix of every element (exclusive unless `--inclusive`) by a built-in operator or one in a
//! WGSL file (`fn op(a: T, b: T) -> T`, and `const IDENTITY: T` for an exclusive scan).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use wgsimd::dtype::{Dtype, Element};
use wgsimd::fold::Operator;
use wgsimd::scan::{scan, scan_by};
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd scan`.
#[derive(clap::Args, Debug)]
pub struct ScanArgs {
    /// Input .npy (uint32, int32 or float32; any shape, taken in C order).
    pub input: PathBuf,
    /// Output .npy (the input's dtype, one dimension).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Inclusive: element i's prefix includes element i.
    #[arg(long)]
    pub inclusive: bool,
    /// sum, min or max (default sum).
    #[arg(long, conflicts_with = "op_wgsl")]
    pub op: Option<String>,
    /// A WGSL file defining `fn op(a: T, b: T) -> T` (and `const IDENTITY: T` for an exclusive
    /// scan), T the input's type.
    #[arg(long)]
    pub op_wgsl: Option<PathBuf>,
}

fn operator(args: &ScanArgs, dtype: Dtype) -> anyhow::Result<Operator> {
    if let Some(path) = &args.op_wgsl {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        return Ok(Operator::wgsl(dtype, &text)?);
    }
    Ok(match args.op.as_deref().unwrap_or("sum") {
        "sum" => Operator::sum(dtype)?,
        "min" => Operator::min(dtype)?,
        "max" => Operator::max(dtype)?,
        other => bail!("unknown scan op {other:?} (sum, min, max, or --op-wgsl FILE)"),
    })
}

fn typed<T: Element>(ctx: &Context, args: &ScanArgs, data: &[T]) -> anyhow::Result<Vec<T>> {
    let op = operator(args, T::DTYPE)?;
    Ok(scan_by(ctx, data, &op, args.inclusive)?)
}

/// Runs the command.
pub fn run(ctx: &Context, args: &ScanArgs) -> anyhow::Result<ExitCode> {
    let input = npy::read(&args.input)?;
    // integer sums wrap: the u32 sum's chained scan serves both
    let words_sum = args.op_wgsl.is_none() && args.op.as_deref().is_none_or(|o| o == "sum");
    let out = match &input.data {
        Array::U32(v) if words_sum => Array::U32(scan(ctx, v, args.inclusive)?),
        Array::I32(v) if words_sum => {
            let words: Vec<u32> = bytemuck::cast_slice(v).to_vec();
            Array::I32(bytemuck::cast_vec(scan(ctx, &words, args.inclusive)?))
        }
        Array::U32(v) => Array::U32(typed(ctx, args, v)?),
        Array::I32(v) => Array::I32(typed(ctx, args, v)?),
        Array::F32(v) => Array::F32(typed(ctx, args, v)?),
        other => bail!(
            "{}: unsupported dtype {} for scan (supported: uint32, int32, float32)",
            args.input.display(),
            other.dtype()
        ),
    };
    npy::write(&args.output, &[out.len() as u64], &out)?;
    Ok(ExitCode::SUCCESS)
}
