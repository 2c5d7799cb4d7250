//! `wgsimd gemm A.npy B.npy -o C.npy [--out-dtype float16]`: C = A·B with A (M,K) and B (K,N),
//! both float32 or both float16; C is float32 (M,N), or float16 rounded to nearest even from the
//! f32 result. Shape or dtype mismatches are one-line errors and leave no
//! output file (the write is atomic and happens only after the product is computed).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use wgsimd::gemm::{self, GemmOptions, Operand, OutFormat};
use wgsimd::Context;

use crate::npy::{self, Array};

/// Arguments of `wgsimd gemm`.
#[derive(clap::Args, Debug)]
pub struct GemmArgs {
    /// Left operand, a 2-D .npy (M, K), float32 or float16.
    pub a: PathBuf,
    /// Right operand, a 2-D .npy (K, N), the same dtype as A.
    pub b: PathBuf,
    /// Output .npy (M, N), in --out-dtype.
    #[arg(short, long)]
    pub output: PathBuf,
    /// C's dtype: float32 as accumulated, or float16 rounded to nearest even from it.
    #[arg(long, value_enum, default_value = "float32")]
    pub out_dtype: OutDtype,
}

/// The output dtypes of `wgsimd gemm`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutDtype {
    /// numpy float32.
    Float32,
    /// numpy float16.
    Float16,
}

fn matrix_shape(path: &std::path::Path, shape: &[u64]) -> anyhow::Result<(usize, usize)> {
    match shape {
        [r, c] => Ok((*r as usize, *c as usize)),
        _ => bail!(
            "{}: expected a 2-D array, found shape {shape:?}",
            path.display()
        ),
    }
}

/// Runs the command.
pub fn run(ctx: &Context, args: &GemmArgs) -> anyhow::Result<ExitCode> {
    let a = npy::read(&args.a)?;
    let b = npy::read(&args.b)?;
    let (m, k) = matrix_shape(&args.a, &a.shape)?;
    let (k2, n) = matrix_shape(&args.b, &b.shape)?;
    if k != k2 {
        bail!(
            "shape mismatch: A is ({m}, {k}) and B is ({k2}, {n}); A's columns must equal B's rows"
        );
    }
    if m == 0 || n == 0 || k == 0 {
        bail!("gemm needs non-empty matrices (A ({m}, {k}), B ({k2}, {n}))");
    }
    let (x, y) = match (&a.data, &b.data) {
        (Array::F32(x), Array::F32(y)) => (Operand::F32(x), Operand::F32(y)),
        (Array::F16(x), Array::F16(y)) => (Operand::F16(x), Operand::F16(y)),
        (x, y) if x.dtype() != y.dtype() => bail!(
            "dtype mismatch: A is {} and B is {}; both must be float32 or both float16",
            x.dtype(),
            y.dtype()
        ),
        (x, _) => bail!(
            "unsupported dtype {} for gemm (supported: float32, float16)",
            x.dtype()
        ),
    };
    let opts = GemmOptions {
        out: match args.out_dtype {
            OutDtype::Float32 => OutFormat::F32,
            OutDtype::Float16 => OutFormat::F16,
        },
        ..Default::default()
    };
    let c = match gemm::execute(ctx, x, y, m, n, k, opts)?.0 {
        gemm::GemmOutput::F32(c) => Array::F32(c),
        gemm::GemmOutput::F16(c) => Array::F16(c),
    };
    npy::write(&args.output, &[m as u64, n as u64], &c)?;
    Ok(ExitCode::SUCCESS)
}
