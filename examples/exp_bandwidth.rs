//! Measures the copy kernel under device/buffer configurations (development experiment).
use wgsimd::case::copy_case;
use wgsimd::{Executor, GpuExecutor};

fn main() {
    let g = GpuExecutor::new().unwrap();
    let n: u64 = 1 << 28;
    let c = copy_case(g.caps(), n).unwrap();
    let (out, t) = g.time(&c.plan, 3, 10).unwrap();
    let ok = (c.verify)(&out).is_ok();
    println!(
        "copy usage={:?} mindev={:?}: median {:.1} GB/s, best {:.1} GB/s, ok={ok}",
        std::env::var("WGSIMD_EXP_USAGE").ok(),
        std::env::var("WGSIMD_EXP_MINDEV").ok(),
        8.0 * n as f64 / t.median_ns(),
        8.0 * n as f64 / t.min_ns()
    );
    let c = &wgsimd::reduce::bench_cases(g.caps(), n, 1).unwrap()[0];
    let (_, t) = g.time(&c.plan, 3, 10).unwrap();
    println!(
        "reduce sum u32: median {:.1} GB/s best {:.1}",
        4.0 * n as f64 / t.median_ns(),
        4.0 * n as f64 / t.min_ns()
    );
}
