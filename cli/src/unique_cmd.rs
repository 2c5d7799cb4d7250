//! `wgsimd unique IN.npy -o VALUES.npy [--counts-out COUNTS.npy]`: the first element of each run
//! of equal consecutive elements (equal as words), in order, and with `--counts-out` each run's
//! length (uint32).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use wgsimd::runs::{run_length_encode, unique};
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd unique`.
#[derive(clap::Args, Debug)]
pub struct UniqueArgs {
    /// Input .npy (uint32, int32 or float32; any shape, taken in C order).
    pub input: PathBuf,
    /// Output .npy: each run's value.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Output .npy of each run's length (uint32).
    #[arg(long)]
    pub counts_out: Option<PathBuf>,
}

/// Runs the command.
pub fn run(ctx: &Context, args: &UniqueArgs) -> anyhow::Result<ExitCode> {
    let input = npy::read(&args.input)?;
    macro_rules! go {
        ($v:expr, $wrap:path) => {{
            if args.counts_out.is_some() {
                let (k, c) = run_length_encode(ctx, $v)?;
                ($wrap(k), Some(c))
            } else {
                ($wrap(unique(ctx, $v)?), None)
            }
        }};
    }
    let (values, counts) = match &input.data {
        Array::U32(v) => go!(v, Array::U32),
        Array::I32(v) => go!(v, Array::I32),
        Array::F32(v) => go!(v, Array::F32),
        other => bail!(
            "{}: unsupported dtype {} for unique (supported: uint32, int32, float32)",
            args.input.display(),
            other.dtype()
        ),
    };
    npy::write(&args.output, &[values.len() as u64], &values)?;
    if let (Some(path), Some(c)) = (&args.counts_out, counts) {
        npy::write(path, &[c.len() as u64], &Array::U32(c))?;
    }
    Ok(ExitCode::SUCCESS)
}
