//! The host cost of recording: one sort (keys and values), one reduction and one scan recorded
//! into an encoder on buffers recorded with before (so the bind groups are cached), with a host
//! count and with a GPU count. This is what an application pays on the CPU per frame; the GPU
//! time is `wgsimd bench`'s. On the GPU when there is one, and on the simulator.

use criterion::{criterion_group, criterion_main, Criterion};
use wgsimd::dtype::Dtype;
use wgsimd::reduce::{ReduceOp, Reducer};
use wgsimd::scan::Scanner;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Context, Count};

fn bench_context(c: &mut Criterion, name: &str, ctx: &Context) {
    let n = 1u32 << 20;
    let bytes = n as u64 * 4;
    let keys = ctx.zeroed("keys", bytes).unwrap();
    let values = ctx.zeroed("values", bytes).unwrap();
    let out = ctx.zeroed("out", bytes).unwrap();
    let count = ctx.zeroed("count", 4).unwrap();
    let sorter = Sorter::new(ctx, SortConfig::keys(Dtype::U32, n as u64).with_values()).unwrap();
    let reducer = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, n as u64).unwrap();
    let scanner = Scanner::new(ctx, false, n as u64).unwrap();
    let mut g = c.benchmark_group(name);
    let counts = [
        ("host count", Count::Host(n)),
        ("GPU count", Count::Gpu(BufferRef::from(&count))),
    ];
    for (what, count) in counts {
        g.bench_function(format!("record sort pairs, {what}"), |b| {
            b.iter(|| {
                let mut enc = ctx.encoder();
                sorter
                    .record(
                        &mut enc,
                        &keys,
                        Some(BufferRef::from(&values)),
                        count.clone(),
                    )
                    .unwrap();
                enc
            })
        });
        g.bench_function(format!("record reduce, {what}"), |b| {
            b.iter(|| {
                let mut enc = ctx.encoder();
                reducer
                    .record(&mut enc, &keys, out.slice(0, 8), count.clone())
                    .unwrap();
                enc
            })
        });
        g.bench_function(format!("record scan, {what}"), |b| {
            b.iter(|| {
                let mut enc = ctx.encoder();
                scanner
                    .record(&mut enc, &keys, &out, count.clone())
                    .unwrap();
                enc
            })
        });
    }
    g.bench_function("an empty encoder", |b| b.iter(|| ctx.encoder()));
    g.finish();
}

fn benches(c: &mut Criterion) {
    if let Ok(gpu) = Context::open_gpu() {
        let name = format!("gpu ({})", gpu.caps().name);
        bench_context(c, &name, &gpu);
    }
    let sim = Context::simulator(Default::default()).unwrap();
    bench_context(c, "simulator", &sim);
}

criterion_group!(recording, benches);
criterion_main!(recording);
