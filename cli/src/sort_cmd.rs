//! `wgsimd sort KEYS.npy -o OUT.npy [--values V.npy --values-out VO.npy] [--segments
//! OFFSETS.npy] [--descending] [--strategy reduce-then-scan|onesweep]`: a stable GPU radix sort of a 1-D uint32, int32,
//! float32, uint64, int64 or float64 array (floats in `total_cmp` order), optionally carrying
//! uint32 values, whole or within the segments of CSR offsets. Every
//! input is read and checked before anything runs, and outputs are written only after the sort
//! succeeded, both in full before either is renamed into place, so bad input (or an output that
//! cannot be written) leaves no output file.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, ensure};
use wgsimd::sort::{
    check_offsets, sort_keys, sort_pairs, sort_segments, SortKey, SortOptions, Strategy,
};
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd sort`.
#[derive(clap::Args, Debug)]
pub struct SortArgs {
    /// Keys: a 1-D .npy of uint32, int32, float32, uint64, int64 or float64.
    pub keys: PathBuf,
    /// Sorted keys (same dtype as the input).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// Values to carry along: a 1-D uint32 .npy as long as the keys.
    #[arg(long, requires = "values_out")]
    pub values: Option<PathBuf>,
    /// Where the values go, in the keys' sorted order.
    #[arg(long, requires = "values")]
    pub values_out: Option<PathBuf>,
    /// Largest first (still stable).
    #[arg(long)]
    pub descending: bool,
    /// reduce-then-scan or onesweep (default: chosen per adapter and size).
    #[arg(long)]
    pub strategy: Option<String>,
    /// Sort within segments: a 1-D uint32 .npy of S + 1 CSR offsets rising from 0 to the key
    /// count (segment j is keys `[offsets[j], offsets[j + 1])`).
    #[arg(long)]
    pub segments: Option<PathBuf>,
}

fn sorted<T: SortKey>(
    ctx: &Context,
    keys: &[T],
    values: Option<&[u32]>,
    segments: Option<&[u32]>,
    opts: &SortOptions,
) -> anyhow::Result<(Vec<T>, Option<Vec<u32>>)> {
    if let Some(offsets) = segments {
        let (k, v) = sort_segments(ctx, keys, values, offsets, opts)?;
        return Ok((k, values.map(|_| v)));
    }
    Ok(match values {
        Some(v) => {
            let (k, v) = sort_pairs(ctx, keys, v, opts)?;
            (k, Some(v))
        }
        None => (sort_keys(ctx, keys, opts)?, None),
    })
}

/// Runs the command.
pub fn run(ctx: &Context, args: &SortArgs) -> anyhow::Result<ExitCode> {
    let strategy = match &args.strategy {
        Some(s) => Some(s.parse::<Strategy>()?),
        None => None,
    };
    let opts = SortOptions {
        descending: args.descending,
        strategy,
        ..Default::default()
    };
    if let Some(vo) = &args.values_out {
        // compared as the files they would write: `out.npy` and `./out.npy` are one file
        // before either exists
        let same = vo == &args.output
            || npy::output_target(vo)
                .ok()
                .is_some_and(|v| npy::output_target(&args.output).ok() == Some(v));
        ensure!(
            !same,
            "-o and --values-out name the same file ({}): the values would overwrite the keys",
            vo.display()
        );
    }
    let keys = npy::read(&args.keys)?;
    ensure!(
        keys.shape.len() == 1,
        "{}: keys must be 1-D, found shape {:?}",
        args.keys.display(),
        keys.shape
    );
    let values = match &args.values {
        Some(path) => {
            let v = npy::read(path)?;
            let Array::U32(data) = v.data else {
                bail!(
                    "{}: unsupported dtype {} for sort values (supported: uint32)",
                    path.display(),
                    v.data.dtype()
                );
            };
            ensure!(
                v.shape.len() == 1 && data.len() == keys.data.len(),
                "{}: {} values of shape {:?} for {} keys: need a 1-D array with one value per key",
                path.display(),
                data.len(),
                v.shape,
                keys.data.len()
            );
            Some(data)
        }
        None => None,
    };
    let vals = values.as_deref();
    let segments = match &args.segments {
        Some(path) => {
            let o = npy::read(path)?;
            let Array::U32(data) = o.data else {
                bail!(
                    "{}: unsupported dtype {} for segment offsets (supported: uint32)",
                    path.display(),
                    o.data.dtype()
                );
            };
            ensure!(
                o.shape.len() == 1,
                "{}: segment offsets must be 1-D, found shape {:?}",
                path.display(),
                o.shape
            );
            check_offsets(&data, keys.data.len())
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            Some(data)
        }
        None => None,
    };
    let segs = segments.as_deref();
    let (out, out_values) = match &keys.data {
        Array::U32(k) => {
            let (k, v) = sorted(ctx, k, vals, segs, &opts)?;
            (Array::U32(k), v)
        }
        Array::I32(k) => {
            let (k, v) = sorted(ctx, k, vals, segs, &opts)?;
            (Array::I32(k), v)
        }
        Array::F32(k) => {
            let (k, v) = sorted(ctx, k, vals, segs, &opts)?;
            (Array::F32(k), v)
        }
        Array::U64(k) => {
            let (k, v) = sorted(ctx, k, vals, segs, &opts)?;
            (Array::U64(k), v)
        }
        Array::I64(k) => {
            let (k, v) = sorted(ctx, k, vals, segs, &opts)?;
            (Array::I64(k), v)
        }
        Array::F64(k) => {
            let (k, v) = sorted(ctx, k, vals, segs, &opts)?;
            (Array::F64(k), v)
        }
        other @ (Array::F16(_) | Array::U8(_)) => bail!(
            "{}: unsupported dtype {} for sort keys (supported: uint32, int32, float32, uint64, \
             int64, float64)",
            args.keys.display(),
            other.dtype()
        ),
    };
    let n = out.len() as u64;
    let out_values = out_values.map(Array::U32);
    let shape = [n];
    let mut outputs = vec![(args.output.as_path(), &shape[..], &out)];
    if let (Some(path), Some(v)) = (&args.values_out, &out_values) {
        outputs.push((path.as_path(), &shape[..], v));
    }
    // both in place or neither
    npy::commit_all(npy::stage_all(&outputs)?)?;
    Ok(ExitCode::SUCCESS)
}
