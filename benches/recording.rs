//! The host cost of recording: a sort (keys and values), a reduction, a scan and a GEMM
//! recorded into an encoder on buffers recorded with before (so the bind groups are cached),
//! with a host count that repeats, a host count that is new at every recording (what an
//! application whose count changes every frame pays), and a GPU count. This is what an
//! application pays on the CPU per frame; the GPU time is `wgsimd bench`'s. On the GPU when
//! there is one, and on the simulator.
//!
//! Each encoder ends after [`FRAME`] recordings, as a frame does (dropped unsubmitted, which
//! releases the copies of the control blocks its recordings hold as a finished submission
//! would), so recordings with new counts find free copies as they would in an application.

use criterion::{criterion_group, criterion_main, Criterion};
use wgsimd::dtype::Dtype;
use wgsimd::gemm::{Format, Gemm, GemmOptions};
use wgsimd::reduce::{ReduceOp, Reducer};
use wgsimd::scan::Scanner;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Context, Count, Encoder};

/// Recordings per encoder before it is submitted.
const FRAME: u32 = 64;

/// Records with `record` into encoders of [`FRAME`] recordings (only the recordings timed),
/// the i-th with the count `count(i)`.
fn frames(
    ctx: &Context,
    b: &mut criterion::Bencher,
    count: impl Fn(u32) -> u32,
    record: impl Fn(&mut Encoder, u32),
) {
    let mut i = 0u32;
    b.iter_custom(|iters| {
        let mut spent = std::time::Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let mut enc = ctx.encoder();
            let batch = left.min(FRAME as u64);
            let start = std::time::Instant::now();
            for _ in 0..batch {
                record(&mut enc, count(i));
                i = i.wrapping_add(1);
            }
            spent += start.elapsed();
            left -= batch;
            // the work itself is not wanted: the encoder is dropped unsubmitted, which releases
            // the copies its recordings hold as a finished submission does, and an empty
            // submission flushes the queue writes of their heads
            drop(enc);
            ctx.submit(ctx.encoder()).unwrap();
        }
        spent
    });
}

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
    let gemm = Gemm::new(ctx, Format::F32, 256, 256, 256, GemmOptions::default()).unwrap();
    let l = gemm.layout();
    let a = ctx.zeroed("a", l.a_bytes).unwrap();
    let bm = ctx.zeroed("b", l.b_bytes).unwrap();
    let cm = ctx.zeroed("c", l.c_bytes).unwrap();
    let mut g = c.benchmark_group(name);
    // a new host count every recording, below the maximum; the same one; a GPU word
    type Counts = Box<dyn Fn(u32) -> u32>;
    let kinds: [(&str, Counts, bool); 3] = [
        (
            "new host count",
            Box::new(move |i| n - 1 - i % (n / 2)),
            false,
        ),
        ("repeated host count", Box::new(move |_| n), false),
        ("GPU count", Box::new(|_| 0), true),
    ];
    for (what, counts, gpu) in &kinds {
        let count_of = |k: u32| {
            if *gpu {
                Count::Gpu(BufferRef::from(&count))
            } else {
                Count::Host(k)
            }
        };
        g.bench_function(format!("record sort pairs, {what}"), |b| {
            frames(ctx, b, counts, |enc, k| {
                sorter
                    .record(enc, &keys, Some(BufferRef::from(&values)), count_of(k))
                    .unwrap()
            })
        });
        g.bench_function(format!("record reduce, {what}"), |b| {
            frames(ctx, b, counts, |enc, k| {
                reducer
                    .record(enc, &keys, out.slice(0, 8), count_of(k))
                    .unwrap()
            })
        });
        g.bench_function(format!("record scan, {what}"), |b| {
            frames(ctx, b, counts, |enc, k| {
                scanner.record(enc, &keys, &out, count_of(k)).unwrap()
            })
        });
    }
    g.bench_function("record gemm 256^3 f32", |b| {
        frames(
            ctx,
            b,
            |_| 0,
            |enc, _| {
                gemm.record(enc, &[BufferRef::from(&a), BufferRef::from(&bm)], &cm)
                    .unwrap()
            },
        )
    });
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
