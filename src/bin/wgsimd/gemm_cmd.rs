//! `wgsimd gemm A.npy B.npy -o C.npy`: C = A·B with A (M,K) and B (K,N), both float32 or both
//! float16; C is float32 (M,N). Shape or dtype mismatches are one-line errors and leave no
//! output file (the write is atomic and happens only after the product is computed).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use wgsimd::gemm::{self, Operand};
use wgsimd::Executor;

use crate::npy::{self, Array};

/// Arguments of `wgsimd gemm`.
#[derive(clap::Args, Debug)]
pub struct GemmArgs {
    /// Left operand, a 2-D .npy (M, K), float32 or float16.
    pub a: PathBuf,
    /// Right operand, a 2-D .npy (K, N), the same dtype as A.
    pub b: PathBuf,
    /// Output .npy, float32 (M, N).
    #[arg(short, long)]
    pub output: PathBuf,
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
pub fn run(exec: &dyn Executor, args: &GemmArgs) -> anyhow::Result<ExitCode> {
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
    let c = match (&a.data, &b.data) {
        (Array::F32(x), Array::F32(y)) => {
            gemm::gemm(exec, Operand::F32(x), Operand::F32(y), m, n, k)?
        }
        (Array::F16(x), Array::F16(y)) => {
            gemm::gemm(exec, Operand::F16(x), Operand::F16(y), m, n, k)?
        }
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
    npy::write(&args.output, &[m as u64, n as u64], &Array::F32(c))?;
    Ok(ExitCode::SUCCESS)
}
