//! Few-rows GEMM sweep (development, not a test): `gemm/gemv` with its own K-split rule and
//! with forced split counts (`GemmOptions::split`), f32 / f16 / int4 B, each output compared
//! with the f64 reference, median milliseconds of whole runs.
//!
//! `cargo run --release --example gemv_sweep -- [MxNxK ...]` (default: M = 1, 2, 4, 8, 16 with
//! N = K = 4096, and 1×8192×8192).
use wgsimd::gemm::{self, GemmOptions, Int4Weights, Operand, PathChoice};
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, rel_frobenius, tiled};
use wgsimd::{Executor, GpuExecutor};

fn main() {
    let g = GpuExecutor::new().unwrap();
    let caps = g.caps().clone();
    let mut shapes: Vec<(usize, usize, usize)> = std::env::args()
        .skip(1)
        .map(|s| {
            let d: Vec<usize> = s.split('x').map(|x| x.parse().unwrap()).collect();
            (d[0], d[1], d[2])
        })
        .collect();
    if shapes.is_empty() {
        shapes = vec![
            (1, 4096, 4096),
            (2, 4096, 4096),
            (4, 4096, 4096),
            (8, 4096, 4096),
            (16, 4096, 4096),
            (1, 8192, 8192),
        ];
    }
    for (m, n, k) in shapes {
        let a = gemm::bench::random_f32(m * k, 1);
        let b = gemm::bench::random_f32(k * n, 2);
        let a16 = f32_to_f16(&a);
        let b16 = f32_to_f16(&b);
        let (a16f, b16f) = (f16_to_f32(&a16), f16_to_f32(&b16));
        let w = Int4Weights::quantize(&b16f, k, n).unwrap();
        let want32 = tiled(&a, &b, m, n, k);
        let want16 = tiled(&a16f, &b16f, m, n, k);
        let want4 = tiled(&a16f, &w.dequantize().unwrap(), m, n, k);
        for split in [None, Some(1), Some(2), Some(4), Some(8), Some(16), Some(32)] {
            let opts = GemmOptions {
                path: PathChoice::Gemv,
                split,
                ..Default::default()
            };
            let plans = [
                (
                    "f32",
                    gemm::plan(&caps, Operand::F32(&a), Operand::F32(&b), m, n, k, opts),
                    &want32,
                    1e-5,
                ),
                (
                    "f16",
                    gemm::plan(&caps, Operand::F16(&a16), Operand::F16(&b16), m, n, k, opts),
                    &want16,
                    2e-3,
                ),
                (
                    "int4",
                    gemm::plan_int4(&caps, &a16, &w, m, opts),
                    &want4,
                    2e-3,
                ),
            ];
            for (fmt, p, want, tol) in plans {
                let p = p.unwrap();
                let (out, t) = g.time(&p.plan, 3, 20).unwrap();
                let c = p.decode(&out).unwrap();
                let e = rel_frobenius(&c, want);
                let mut tot = t.total_ns.clone();
                tot.sort_by(f64::total_cmp);
                let ov: Vec<String> = p.plan.passes[0]
                    .overrides
                    .iter()
                    .filter(|o| ["CV", "CHUNK", "KSLICE"].contains(&o.0.as_str()))
                    .map(|o| format!("{}={}", o.0, o.1))
                    .collect();
                println!(
                    "{m}x{n}x{k} {fmt:<4} split {:<4} {:.4} ms passes {} [{}] {}",
                    split.map_or("auto".to_string(), |s| s.to_string()),
                    tot[tot.len() / 2] / 1e6,
                    p.plan.passes.len(),
                    ov.join(" "),
                    if e <= tol { "ok" } else { "WRONG" }
                );
            }
        }
    }
}
