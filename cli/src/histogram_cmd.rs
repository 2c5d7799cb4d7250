//! `wgsimd histogram IN.npy --bins N --range LO HI -o COUNTS.npy`: the counts of the samples in
//! `N` even bins over `[LO, HI)` as a uint32 array of `N` (bin i holds the samples x with
//! LO + i·w ≤ x < LO + (i+1)·w, w = (HI − LO)/N; samples outside and NaN are not counted).

use std::path::PathBuf;
use std::process::ExitCode;

use wgsimd::histogram::histogram;
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd histogram`.
#[derive(clap::Args, Debug)]
pub struct HistogramArgs {
    /// Samples .npy (uint8, uint32, int32 or float32; any shape, every element counted).
    pub input: PathBuf,
    /// Number of bins.
    #[arg(long)]
    pub bins: u32,
    /// The range: LO HI (LO < HI, both finite).
    #[arg(long, num_args = 2, value_names = ["LO", "HI"], allow_negative_numbers = true)]
    pub range: Vec<f64>,
    /// Output .npy of the counts (uint32).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(ctx: &Context, args: &HistogramArgs) -> anyhow::Result<ExitCode> {
    let (lo, hi) = (args.range[0], args.range[1]);
    // (checked before the input is read: a bad range is the caller's, whatever the file)
    if args.bins == 0 {
        anyhow::bail!("--bins must be at least 1");
    }
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        anyhow::bail!("--range needs finite LO < HI, got {lo} {hi}");
    }
    let input = npy::read_any_order(&args.input)?;
    let (b, path) = (args.bins, &args.input);
    let counts = match &input.data {
        Array::U8(v) => histogram(ctx, v, b, lo, hi)?,
        Array::U32(v) => histogram(ctx, v, b, lo, hi)?,
        Array::I32(v) => histogram(ctx, v, b, lo, hi)?,
        Array::F32(v) => histogram(ctx, v, b, lo, hi)?,
        other => anyhow::bail!(
            "{}: unsupported dtype {} for histogram (supported: uint8, uint32, int32, float32)",
            path.display(),
            other.dtype()
        ),
    };
    npy::write(&args.output, &[b as u64], &Array::U32(counts))?;
    Ok(ExitCode::SUCCESS)
}
