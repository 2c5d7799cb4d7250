//! Histograms with even bins: every sample type against the definition
//! (`reference::histogram::even`), with samples on and beside every edge, out of range, NaN,
//! ±0, ±inf and subnormals, through the recording API with host and GPU counts and through
//! the host-slice function; and what is refused.

use rand::Rng;
use wgsimd::dtype::Dtype;
use wgsimd::histogram::{histogram, Histogram, Sample};
use wgsimd::reference::histogram::{edges, even};
use wgsimd::{BufferRef, Count};

use crate::data;
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new("histogram::every_sample_type", On::Every, every_sample_type),
        Test::new("histogram::bad_input", On::Once, bad_input),
        Test::new(
            "histogram::the_check_can_fail",
            On::Once,
            the_check_can_fail,
        ),
    ]
}

/// A histogram configuration: bins, lo, hi.
type Bins = (u32, f64, f64);

/// `n` samples of `T` for `bins`: uniform over a range a fifth wider than [lo, hi) on each side,
/// every edge and its neighbours, and the type's awkward values.
fn samples<T: Sample>(
    n: usize,
    (b, lo, hi): Bins,
    seed: u64,
    of: impl Fn(f64, u32) -> T,
) -> Vec<T> {
    let mut r = data::rng(seed);
    let e = edges(b, lo, hi);
    let pad = (hi - lo) / 5.0;
    (0..n)
        .map(|i| match i % 4 {
            // an edge, or one of its neighbours
            0 => of(e[r.random_range(0..e.len())], r.random_range(0..3)),
            // awkward values
            1 => of(f64::NAN, r.random()),
            _ => of(r.random_range(lo - pad..hi + pad), 1),
        })
        .collect()
}

/// Runs `h` on `xs` by a host count and, for `gpu`, by a GPU count, into poisoned counts, and
/// checks both against the definition.
fn check<T: Sample>(t: &Target, h: &Histogram, xs: &[T], (b, lo, hi): Bins, what: &str) {
    let ctx = &t.ctx;
    let want = even(xs.iter().map(|&x| x.value()), b, lo, hi);
    let samples = ctx
        .upload("samples", if xs.is_empty() { &[] } else { xs })
        .unwrap();
    let count = ctx.upload("count", &[xs.len() as u32]).unwrap();
    for (how, c) in [
        ("host count", Count::Host(xs.len() as u32)),
        ("GPU count", Count::Gpu(BufferRef::from(&count))),
    ] {
        let counts = ctx.uninit("counts", h.counts_bytes()).unwrap();
        let mut enc = ctx.encoder();
        h.record(&mut enc, &samples, &counts, c).unwrap();
        util::submit(t, enc);
        let got = util::words(t, &counts);
        if let Some(i) = (0..want.len()).find(|&i| got.get(i) != Some(&want[i])) {
            panic!(
                "{what}, {} samples, {how}: bin {i} holds {:?}, not {} ({} bins)",
                xs.len(),
                got.get(i),
                want[i],
                want.len()
            );
        }
    }
}

fn every_sample_type(t: &Target) {
    let ctx = &t.ctx;
    let sizes = t.sizes(&[0, 1, 3, 5, 17, 257, 4097, 2_684_354], 4097);
    let max = *sizes.last().unwrap() as u64;
    // u8: every byte's bin by the table
    for bins in [(256, 0.0, 256.0), (7, 10.0, 200.5), (1, 0.0, 1.0)] {
        let h = Histogram::new(ctx, Dtype::U8, bins.0, bins.1, bins.2, max).unwrap();
        for &n in &sizes {
            let xs: Vec<u8> = samples(n, bins, n as u64, |v, k| match (v.is_nan(), k % 3) {
                (true, 0) => 0,
                (true, _) => 255,
                _ => (v + k as f64 - 1.0).clamp(0.0, 255.0) as u8,
            });
            check(t, &h, &xs, bins, &format!("u8 {bins:?}"));
        }
    }
    // u32 and i32: edges rounded up to the samples, the whole range of the type
    for bins in [(1024, 0.0, 4294967296.0), (3, 0.5, 2.5), (10, 1000.0, 1e6)] {
        let h = Histogram::new(ctx, Dtype::U32, bins.0, bins.1, bins.2, max).unwrap();
        for &n in &sizes {
            let xs: Vec<u32> = samples(n, bins, n as u64, |v, k| {
                if v.is_nan() {
                    [0, u32::MAX, 1, u32::MAX - 1][k as usize % 4]
                } else {
                    (v.floor() + k as f64 - 1.0).clamp(0.0, u32::MAX as f64) as u32
                }
            });
            check(t, &h, &xs, bins, &format!("u32 {bins:?}"));
        }
    }
    for bins in [(100, -2147483648.0, 2147483648.0), (13, -100.5, 100.25)] {
        let h = Histogram::new(ctx, Dtype::I32, bins.0, bins.1, bins.2, max).unwrap();
        for &n in &sizes {
            let xs: Vec<i32> = samples(n, bins, n as u64, |v, k| {
                if v.is_nan() {
                    [0, -1, i32::MIN, i32::MAX][k as usize % 4]
                } else {
                    (v.floor() + k as f64 - 1.0).clamp(i32::MIN as f64, i32::MAX as f64) as i32
                }
            });
            check(t, &h, &xs, bins, &format!("i32 {bins:?}"));
        }
    }
    // f32: every edge's neighbours, NaN, ±0, ±inf, subnormals
    let awkward = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        1e-45,
        -1e-45,
    ];
    for bins in [(1024, 0.0, 1.0), (7, -3.3, 1e-3)] {
        let h = Histogram::new(ctx, Dtype::F32, bins.0, bins.1, bins.2, max).unwrap();
        for &n in &sizes {
            let xs: Vec<f32> = samples(n, bins, n as u64, |v, k| {
                if v.is_nan() {
                    return awkward[k as usize % awkward.len()];
                }
                let f = v as f32;
                match k % 3 {
                    0 => f.next_down(),
                    2 => f.next_up(),
                    _ => f,
                }
            });
            check(t, &h, &xs, bins, &format!("f32 {bins:?}"));
        }
    }
    // the host-slice function
    let xs = [0.5f32, -0.0, 0.999_999_94, 1.0, f32::NAN];
    assert_eq!(histogram(ctx, &xs, 2, 0.0, 1.0).unwrap(), [1, 2]);
    assert_eq!(histogram::<u8>(ctx, &[], 3, 0.0, 1.0).unwrap(), [0, 0, 0]);
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    for (what, r) in [
        ("no bins", Histogram::new(ctx, Dtype::U32, 0, 0.0, 1.0, 10)),
        ("lo = hi", Histogram::new(ctx, Dtype::U32, 4, 1.0, 1.0, 10)),
        ("lo > hi", Histogram::new(ctx, Dtype::F32, 4, 2.0, 1.0, 10)),
        (
            "a NaN bound",
            Histogram::new(ctx, Dtype::F32, 4, f64::NAN, 1.0, 10),
        ),
        (
            "an infinite bound",
            Histogram::new(ctx, Dtype::F32, 4, 0.0, f64::INFINITY, 10),
        ),
        (
            "f16 samples",
            Histogram::new(ctx, Dtype::F16, 4, 0.0, 1.0, 10),
        ),
        (
            "more bins than workgroup memory holds",
            Histogram::new(ctx, Dtype::U32, 1 << 20, 0.0, 1.0, 10),
        ),
    ] {
        util::refused(what, r.map(|_| ()));
    }
    let h = Histogram::new(ctx, Dtype::U32, 8, 0.0, 8.0, 100).unwrap();
    let samples = ctx.upload("samples", &[1u32; 10]).unwrap();
    let counts = ctx.uninit("counts", 64).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "11 samples of 10",
        h.record(&mut enc, &samples, &counts, Count::Host(11)),
    );
    util::refused(
        "counts shorter than the bins",
        h.record(&mut enc, &samples, counts.slice(0, 16), Count::Host(10)),
    );
    util::refused(
        "a count above the maximum",
        h.record(&mut enc, &samples, &counts, Count::Host(101)),
    );
}

/// The definition the tests hold the GPU to tells bins apart at their edges.
fn the_check_can_fail(_: &Target) {
    let (b, lo, hi) = (3, 0.0, 3.0);
    assert_eq!(even([0.0, 1.0, 2.0, 2.999, 3.0], b, lo, hi), [1, 1, 2]);
    assert_ne!(even([1.0], b, lo, hi), even([0.999], b, lo, hi));
    assert_eq!(even([f64::NAN, -0.0, -1e-300], 1, 0.0, 1.0), [1]);
}
