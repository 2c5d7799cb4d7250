//! Criterion benches of the library API at small sizes: one call of each algorithm end to end
//! (plan building, upload, dispatch, read-back), on the GPU when there is one and on the
//! simulator. For device throughput use `wgsimd bench`, which times passes with GPU timestamps.

use criterion::{criterion_group, criterion_main, Criterion};
use wgsimd::backend::{self, Backend, SimSettings};
use wgsimd::gemm::{self, GemmOptions, Operand};
use wgsimd::reduce::{reduce, ReduceOp};
use wgsimd::scan::scan;
use wgsimd::sort::{sort_keys, SortOptions};
use wgsimd::Executor;

fn data(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect()
}

fn bench_executor(c: &mut Criterion, name: &str, exec: &dyn Executor, n: usize) {
    let x = data(n);
    let f: Vec<f32> = x.iter().map(|&v| (v % 1000) as f32 * 1e-3).collect();
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.bench_function(format!("reduce sum u32 {n}"), |b| {
        b.iter(|| reduce(exec, &x, ReduceOp::Sum).unwrap())
    });
    g.bench_function(format!("reduce sum f32 {n}"), |b| {
        b.iter(|| reduce(exec, &f, ReduceOp::Sum).unwrap())
    });
    g.bench_function(format!("scan u32 {n}"), |b| {
        b.iter(|| scan(exec, &x, false).unwrap())
    });
    g.bench_function(format!("sort keys u32 {n}"), |b| {
        b.iter(|| sort_keys(exec, &x, &SortOptions::default()).unwrap())
    });
    let m = 64;
    let a: Vec<f32> = f[..m * m].to_vec();
    g.bench_function(format!("gemm f32 {m}^3"), |b| {
        b.iter(|| {
            let p = gemm::plan(
                exec.caps(),
                Operand::F32(&a),
                Operand::F32(&a),
                m,
                m,
                m,
                GemmOptions::default(),
            )
            .unwrap();
            exec.run(&p.plan).unwrap()
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    if let Ok(gpu) = backend::open(Backend::Gpu, &SimSettings::default()) {
        bench_executor(c, "gpu", &*gpu, 1 << 16);
    }
    let sim =
        backend::open(Backend::Sim, &SimSettings::default()).expect("the simulator always opens");
    bench_executor(c, "sim", &*sim, 1 << 12);
}

criterion_group!(kernels, benches);
criterion_main!(kernels);
