//! `wgsimd reduce IN.npy --op sum|min|max`: the result is the last line of stdout.

use std::path::PathBuf;
use std::process::ExitCode;

use wgsimd::reduce::{reduce, ReduceOp};
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd reduce`.
#[derive(clap::Args, Debug)]
pub struct ReduceArgs {
    /// Input .npy (uint32, int32 or float32; any shape, reduced over all elements).
    pub input: PathBuf,
    /// sum, min or max.
    #[arg(long)]
    pub op: String,
}

/// Runs the command.
pub fn run(ctx: &Context, args: &ReduceArgs) -> anyhow::Result<ExitCode> {
    let op: ReduceOp = args.op.parse()?;
    // any shape, any order: every element counts once
    let input = npy::read_any_order(&args.input)?;
    let value = match &input.data {
        Array::U32(v) => reduce(ctx, v, op)?,
        Array::I32(v) => reduce(ctx, v, op)?,
        Array::F32(v) => reduce(ctx, v, op)?,
        other @ (Array::F16(_) | Array::U8(_)) => anyhow::bail!(
            "{}: unsupported dtype {} for reduce (supported: uint32, int32, float32)",
            args.input.display(),
            other.dtype()
        ),
    };
    println!("{value}");
    Ok(ExitCode::SUCCESS)
}
