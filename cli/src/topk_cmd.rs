//! `wgsimd topk IN.npy -k K -o VALUES.npy --indices-out INDICES.npy [--smallest]`: the k largest
//! (or smallest) of a 1-D array, or of each row of a 2-D one, largest first, ties by the lower
//! index, with their indices (uint32, counted from the row's start).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use wgsimd::topk::topk;
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd topk`.
#[derive(clap::Args, Debug)]
pub struct TopkArgs {
    /// Input .npy (uint32, int32 or float32; 1-D, or 2-D for each row, C order).
    pub input: PathBuf,
    /// How many to keep (of each row): 1 to the row length.
    #[arg(short)]
    pub k: u32,
    /// Output .npy of the values (the input's dtype; k, or rows x k).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Output .npy of their indices (uint32; k, or rows x k).
    #[arg(long)]
    pub indices_out: PathBuf,
    /// The smallest instead of the largest.
    #[arg(long)]
    pub smallest: bool,
}

/// Runs the command.
pub fn run(ctx: &Context, args: &TopkArgs) -> anyhow::Result<ExitCode> {
    let input = npy::read(&args.input)?;
    let (rows, cols) = match input.shape[..] {
        [n] => (None, n),
        [r, c] => (Some(r), c),
        _ => bail!(
            "{}: a 1-D or 2-D array, not shape {:?}",
            args.input.display(),
            input.shape
        ),
    };
    if args.k == 0 || args.k as u64 > cols {
        bail!("-k {}: k must be 1 to the row length, {cols}", args.k);
    }
    let (k, s) = (args.k, args.smallest);
    let (values, indices) = match &input.data {
        Array::U32(v) => {
            let (a, i) = topk(ctx, v, cols as usize, k, s)?;
            (Array::U32(a), i)
        }
        Array::I32(v) => {
            let (a, i) = topk(ctx, v, cols as usize, k, s)?;
            (Array::I32(a), i)
        }
        Array::F32(v) => {
            let (a, i) = topk(ctx, v, cols as usize, k, s)?;
            (Array::F32(a), i)
        }
        other => bail!(
            "{}: unsupported dtype {} for topk (supported: uint32, int32, float32)",
            args.input.display(),
            other.dtype()
        ),
    };
    let shape = match rows {
        None => vec![k as u64],
        Some(r) => vec![r, k as u64],
    };
    npy::write(&args.output, &shape, &values)?;
    npy::write(&args.indices_out, &shape, &Array::U32(indices))?;
    Ok(ExitCode::SUCCESS)
}
