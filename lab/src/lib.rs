//! The wgsimd lab: tuning sweeps and driver statistics, outside the product (nothing in the
//! library, its tests or the CLI includes a file of this crate). See `lab/README.md`.
//!
//! What the binaries share: the device to run on ([`open`]), the CLI's timing method
//! ([`timing`]), seeded inputs, and the GEMM candidate kernels of `lab/wgsl/` ([`candidates`]).

pub mod candidates;
pub mod tiles;
pub mod timing;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgsimd::sim::SimConfig;
use wgsimd::{Caps, Context};

/// The device: the simulator with the profile named by `LAB_SIM` (`h100`, `apple-m`,
/// `lavapipe`; tiny sizes only, host-timed), else the GPU wgsimd opens (`WGSIMD_ADAPTER` picks
/// by name, `WGPU_BACKEND` the backends).
pub fn open() -> wgsimd::Result<Context> {
    match std::env::var("LAB_SIM") {
        Ok(profile) => Context::simulator(SimConfig::for_profile(Caps::profile(&profile)?)),
        Err(_) => Context::open_gpu(),
    }
}

/// One line describing the device.
pub fn describe(ctx: &Context) -> String {
    let c = ctx.caps();
    format!(
        "{}{} ({}, {}), subgroups {}..{}, workgroup memory {} B, timestamps {}, coop {:?}",
        if ctx.is_simulator() {
            "simulator of "
        } else {
            ""
        },
        c.name,
        c.backend,
        c.driver,
        c.subgroup_min,
        c.subgroup_max,
        c.max_workgroup_storage,
        c.timestamps && !ctx.is_simulator(),
        c.cooperative_matrix
            .iter()
            .map(|s| format!("{}x{}x{} {}->{}", s.m, s.n, s.k, s.ab, s.acc))
            .collect::<Vec<_>>(),
    )
}

/// The command-line arguments after the program name.
pub fn args() -> Vec<String> {
    std::env::args().skip(1).collect()
}

/// The value after `--name` in `args`, if given.
pub fn flag_value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// Whether `--name` is in `args`.
pub fn has_flag(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a == name)
}

/// A comma-separated list after `--name`, parsed, or `default`.
pub fn list_flag<T>(args: &[String], name: &str, default: &[T]) -> Vec<T>
where
    T: std::str::FromStr + Clone,
    T::Err: std::fmt::Debug,
{
    match flag_value(args, name) {
        Some(v) => v
            .split(',')
            .map(|s| {
                s.trim()
                    .parse()
                    .unwrap_or_else(|e| panic!("{name} {v}: {e:?}"))
            })
            .collect(),
        None => default.to_vec(),
    }
}

/// A product's shape written `MxNxK` (`16x14336x4096`), as `[m, n, k]`.
pub fn shape(s: &str) -> [usize; 3] {
    let d: Vec<usize> = s
        .split('x')
        .map(|x| {
            x.trim()
                .parse()
                .unwrap_or_else(|e| panic!("shape {s}: {e:?}"))
        })
        .collect();
    match d[..] {
        [m, n, k] => [m, n, k],
        _ => panic!("shape {s}: MxNxK"),
    }
}

/// `len` seeded f32 in [-1, 1).
pub fn random_f32(len: usize, seed: u64) -> Vec<f32> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| r.random::<f32>() * 2.0 - 1.0).collect()
}

/// `len` seeded uniformly random u32.
pub fn random_u32(len: usize, seed: u64) -> Vec<u32> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| r.random()).collect()
}

/// `data` (rows × cols) with each row padded with zeros to `cols_pad` elements, as bytes.
pub fn pad_rows<T: bytemuck::Pod + Default>(
    data: &[T],
    rows: usize,
    cols: usize,
    cols_pad: usize,
) -> Vec<u8> {
    let mut out = vec![T::default(); rows * cols_pad];
    for r in 0..rows {
        out[r * cols_pad..r * cols_pad + cols].copy_from_slice(&data[r * cols..(r + 1) * cols]);
    }
    bytemuck::cast_slice(&out).to_vec()
}

/// 2^e rounded, for size exponents (fractional ones give sizes between powers of two:
/// 20.585 is about 1.5 · 2^20).
pub fn pow2(e: f64) -> u64 {
    2f64.powf(e).round() as u64
}
