//! `wgsimd select IN.npy --flags FLAGS.npy -o OUT.npy [--partition]`: the elements whose flag is
//! nonzero, in order; with `--partition` every element, those first, each side in order, and
//! the selected count on the last line of stdout.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use wgsimd::select::{partition, select, Flag};
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd select`.
#[derive(clap::Args, Debug)]
pub struct SelectArgs {
    /// Elements .npy (uint32, int32 or float32; any shape, taken in C order).
    pub input: PathBuf,
    /// Flags .npy (bool, uint8 or uint32), one per element; nonzero selects.
    #[arg(long)]
    pub flags: PathBuf,
    /// Output .npy: the selected elements (with --partition, every element).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Write every element, the selected first; print the selected count.
    #[arg(long)]
    pub partition: bool,
}

/// The output and the selected count.
fn run_typed<F: Flag>(
    ctx: &Context,
    input: &Array,
    flags: &[F],
    whole: bool,
) -> anyhow::Result<(Array, usize)> {
    macro_rules! go {
        ($v:expr, $wrap:path) => {{
            if whole {
                let (out, k) = partition(ctx, $v, flags)?;
                ($wrap(out), k)
            } else {
                let out = select(ctx, $v, flags)?;
                let k = out.len();
                ($wrap(out), k)
            }
        }};
    }
    Ok(match input {
        Array::U32(v) => go!(v, Array::U32),
        Array::I32(v) => go!(v, Array::I32),
        Array::F32(v) => go!(v, Array::F32),
        other => bail!(
            "unsupported dtype {} for select (supported: uint32, int32, float32)",
            other.dtype()
        ),
    })
}

/// Runs the command.
pub fn run(ctx: &Context, args: &SelectArgs) -> anyhow::Result<ExitCode> {
    let input = npy::read(&args.input)?;
    let flags = npy::read(&args.flags)?;
    if flags.data.len() != input.data.len() {
        bail!(
            "{} flags for {} elements: one flag per element",
            flags.data.len(),
            input.data.len()
        );
    }
    let (out, k) = match &flags.data {
        Array::U8(f) => run_typed(ctx, &input.data, f, args.partition)?,
        Array::U32(f) => run_typed(ctx, &input.data, f, args.partition)?,
        other => bail!(
            "{}: unsupported dtype {} for flags (supported: bool, uint8, uint32)",
            args.flags.display(),
            other.dtype()
        ),
    };
    npy::write(&args.output, &[out.len() as u64], &out)?;
    if args.partition {
        println!("{k}");
    }
    Ok(ExitCode::SUCCESS)
}
