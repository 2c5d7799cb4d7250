//! Benchmark cases of the histogram at `n` samples, as CUB's `DeviceHistogram::HistogramEven`
//! yardsticks measure it: 256 bins over uniform bytes, 1024 bins over uniform f32 in [0, 1);
//! verified against `wgsimd::reference::histogram`.

use rand::{Rng, SeedableRng};

use wgsimd::dtype::Dtype;
use wgsimd::histogram::{Histogram, Sample};
use wgsimd::{Context, Count, Result};

use crate::case::{size_label, Case, Work};

/// One case: `data` into `bins` over [lo, hi).
fn case<T: Sample>(ctx: &Context, data: Vec<T>, (bins, lo, hi): (u32, f64, f64)) -> Result<Case> {
    let n = data.len() as u64;
    let want = wgsimd::reference::histogram::even(data.iter().map(|&x| x.value()), bins, lo, hi);
    let h = Histogram::new(ctx, T::DTYPE, bins, lo, hi, n)?;
    let samples = ctx.upload("samples", &data)?;
    let counts = ctx.uninit("counts", h.counts_bytes())?;
    let bytes = n as f64 * std::mem::size_of::<T>() as f64;
    let passes = h.passes();
    let (c, s) = (counts.clone(), samples.clone());
    Ok(Case {
        algorithm: "histogram".into(),
        variant: format!("{} {bins} bins", T::DTYPE),
        size: n,
        size_label: size_label(n),
        work: Work::Keys {
            keys: n as f64,
            bytes,
        },
        passes,
        setup: None,
        record: Box::new(move |enc, stamps| {
            h.record_timed(enc, &s, &c, Count::Host(n as u32), stamps)
        }),
        outputs: vec![counts.clone()],
        verify: Box::new(move |ctx| {
            let got: Vec<u32> = ctx.read(&counts).map_err(|e| e.to_string())?;
            match (0..want.len()).find(|&i| got.get(i) != Some(&want[i])) {
                None => Ok(()),
                Some(i) => Err(format!("bin {i}: {:?}, not {}", got.get(i), want[i])),
            }
        }),
        extra: None,
    })
}

/// Benchmark cases at `n` samples (see the module docs).
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
    let floats: Vec<f32> = (0..n).map(|_| rng.random::<f32>()).collect();
    debug_assert_eq!(<u8 as Sample>::DTYPE, Dtype::U8);
    Ok(vec![
        case(ctx, bytes, (256, 0.0, 256.0))?,
        case(ctx, floats, (1024, 0.0, 1.0))?,
    ])
}
