//! Reduction tuning sweep (development, not a test): `ReducePolicy::max_workgroups` for sum u32
//! and sum f32 at 2^28 (or `EXP_N`), each result checked against the CPU, with the per-pass
//! breakdown. Run on the device: `reduce_sweep`.
use rand::{Rng, SeedableRng};
use wgsimd::reduce::{self, ReduceOp, ReducePolicy, Scalar};
use wgsimd::{Executor, GpuExecutor};

fn main() {
    let g = GpuExecutor::new().unwrap();
    let caps = g.caps().clone();
    let n: usize = std::env::var("EXP_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1 << 28);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let u: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let f: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let want_u: u64 = u.iter().map(|&x| x as u64).sum();
    let want_f: f64 = f.iter().map(|&x| x as f64).sum();
    let abs_f: f64 = f.iter().map(|&x| x.abs() as f64).sum();
    for wg in [528u32, 1056, 1584, 2112, 3168, 4096] {
        let policy = ReducePolicy { max_workgroups: wg };
        for dt in ["u32", "f32"] {
            let p = match dt {
                "u32" => reduce::plan(&caps, &u, ReduceOp::Sum, policy),
                _ => reduce::plan(&caps, &f, ReduceOp::Sum, policy),
            }
            .unwrap();
            let (out, t) = g.time(&p.plan, 3, 20).unwrap();
            let ok = match p.decode(&out).unwrap() {
                Scalar::U64(v) => v == want_u,
                Scalar::F32(v) => ((v as f64) - want_f).abs() <= 1e-6 * abs_f,
                _ => false,
            };
            let passes: Vec<String> = t
                .pass_labels
                .iter()
                .zip(t.pass_median_ns())
                .map(|(l, ns)| format!("{l} {:.1} us", ns / 1e3))
                .collect();
            println!(
                "sum {dt} wg {wg}: median {:.1} GB/s best {:.1} GB/s [{}] ok={ok}",
                4.0 * n as f64 / t.median_ns(),
                4.0 * n as f64 / t.min_ns(),
                passes.join(", ")
            );
        }
    }
}
