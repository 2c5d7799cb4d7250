//! Benchmark cases of the 64-bit and segmented sorts, as `cub_prims.cu` measures CUB's: random
//! u64 keys alone and with u32 values (`SortKeys u64`, `SortPairs u64/u32`), and u32 pairs in
//! segments of 1024, of 65536 and of random lengths 1..8191 (`DeviceSegmentedSort`); u64 pairs
//! in segments of 1024 too, which CUB's yardsticks do not measure. Timed whole
//! (the cases name no passes; the composed sorts take per-pass timestamps only): by timestamps the
//! encoder writes around the recording where the device can, else by the host clock over
//! batches; each run restores its input first by a copy, outside the timestamps. Verified
//! against a CPU sort.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use wgsimd::dtype::Dtype;
use wgsimd::reference::sort::segmented_order;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Context, Count, Result};

use crate::case::{first_difference, size_label, Case, Work};

/// A stable LSD radix sort of u64 keys carrying their indices: the order (2^28 keys in a few
/// seconds, where a comparison sort takes tens).
fn order_u64(keys: &[u64]) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..keys.len() as u32).collect();
    let mut next = vec![0u32; keys.len()];
    for shift in (0..64).step_by(16) {
        let mut count = vec![0usize; (1 << 16) + 1];
        for &i in &idx {
            count[((keys[i as usize] >> shift) & 0xffff) as usize + 1] += 1;
        }
        for d in 0..1 << 16 {
            count[d + 1] += count[d];
        }
        for &i in &idx {
            let d = ((keys[i as usize] >> shift) & 0xffff) as usize;
            next[count[d]] = i;
            count[d] += 1;
        }
        std::mem::swap(&mut idx, &mut next);
    }
    idx
}

/// One case: `keys` (as words: two a key for 64-bit keys) and `values` sorted by `sorter`,
/// recorded by `record`; `want` the keys' words and values expected.
struct Spec {
    algorithm: &'static str,
    variant: String,
    n: u64,
    keys: Vec<u32>,
    values: Option<Vec<u32>>,
    offsets: Option<Vec<u32>>,
    want: (Vec<u32>, Vec<u32>),
}

fn case(ctx: &Context, sorter: Sorter, s: Spec) -> Result<Case> {
    let n = s.n;
    let key_bytes = 4 * s.keys.len() as u64;
    let src = ctx.upload("keys", &s.keys)?;
    let keys = ctx.uninit("sorted keys", key_bytes)?;
    let vals = match &s.values {
        Some(v) => Some((
            ctx.upload("values", v)?,
            ctx.uninit("sorted values", 4 * n)?,
        )),
        None => None,
    };
    let offsets = s
        .offsets
        .as_ref()
        .map(|o| ctx.upload("offsets", o))
        .transpose()?;
    let segments = s.offsets.as_ref().map_or(0, |o| o.len() as u32 - 1);
    let (sk, k, v) = (src.clone(), keys.clone(), vals.clone());
    let setup: crate::case::Setup = Box::new(move |mut enc: wgsimd::EncoderRef| {
        enc.copy(&(&sk).into(), &(&k).into(), key_bytes)?;
        if let Some((src, dst)) = &v {
            enc.copy(&src.into(), &dst.into(), 4 * n)?;
        }
        Ok(())
    });
    let (k, v) = (keys.clone(), vals.clone());
    let record: crate::case::Record = Box::new(move |enc, _stamps| {
        let values = v.as_ref().map(|(_, d)| BufferRef::from(d));
        match &offsets {
            Some(o) => sorter.record_segmented(
                enc,
                &k,
                values,
                o,
                Count::Host(segments),
                Count::Host(n as u32),
            ),
            None => sorter.record(enc, &k, values, Count::Host(n as u32)),
        }
    });
    let (want_k, want_v) = s.want;
    let verify: crate::case::Verify = Box::new(move |ctx: &Context| {
        let got: Vec<u32> = ctx.read(&keys).map_err(|e| e.to_string())?;
        first_difference("keys", &got, &want_k)?;
        if let Some((_, dst)) = &vals {
            let got: Vec<u32> = ctx.read(dst).map_err(|e| e.to_string())?;
            first_difference("values", &got, &want_v)?;
        }
        Ok(())
    });
    Ok(Case {
        algorithm: s.algorithm.into(),
        variant: s.variant,
        size: n,
        size_label: size_label(n),
        work: Work::Keys {
            keys: n as f64,
            bytes: 2.0 * (key_bytes + if s.values.is_some() { 4 * n } else { 0 }) as f64,
        },
        passes: Vec::new(),
        setup: Some(setup),
        record,
        outputs: Vec::new(),
        verify,
        extra: None,
    })
}

/// Cases at `n` keys (see the module docs).
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    wgsimd::sort::check_size(ctx.caps(), n, 4)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let values: Vec<u32> = (0..n as u32).collect();
    let mut cases = Vec::new();
    // (2^28 64-bit keys are 2 GiB, past Vulkan's largest binding: the segmented cases only)
    if wgsimd::sort::check_size(ctx.caps(), n, 8).is_ok() {
        let keys: Vec<u64> = (0..n).map(|_| rng.random()).collect();
        let order = order_u64(&keys);
        let words: Vec<u32> = bytemuck::cast_slice(&keys).to_vec();
        let want: Vec<u32> = order
            .iter()
            .flat_map(|&i| [words[2 * i as usize], words[2 * i as usize + 1]])
            .collect();
        // u64 pairs in segments of 1024 (no yardstick: CUB's segmented sort of u64 keys is not
        // in `cub_prims.cu`)
        let len = 1024u64;
        let offsets: Vec<u32> = (0..=n.div_ceil(len))
            .map(|j| (j * len).min(n) as u32)
            .collect();
        let seg_order = segmented_order(&keys, &offsets);
        drop(keys);
        let seg_want: Vec<u32> = seg_order
            .iter()
            .flat_map(|&i| [words[2 * i as usize], words[2 * i as usize + 1]])
            .collect();
        let config = SortConfig::keys(Dtype::U64, n)
            .with_values()
            .segmented(offsets.len() as u32 - 1);
        let sorter = Sorter::new(ctx, config)?;
        let spec = Spec {
            algorithm: "segmented sort",
            variant: format!("pairs u64 segments of {len} {}", sorter.strategy()),
            n,
            keys: words.clone(),
            values: Some(values.clone()),
            offsets: Some(offsets),
            want: (seg_want, seg_order),
        };
        cases.push(case(ctx, sorter, spec)?);
        for pairs in [false, true] {
            let mut config = SortConfig::keys(Dtype::U64, n);
            if pairs {
                config = config.with_values();
            }
            let sorter = Sorter::new(ctx, config)?;
            let variant = format!(
                "{} u64 {}",
                if pairs { "pairs" } else { "keys" },
                sorter.strategy()
            );
            let spec = Spec {
                algorithm: "sort",
                variant,
                n,
                keys: words.clone(),
                values: pairs.then(|| values.clone()),
                offsets: None,
                want: (want.clone(), if pairs { order.clone() } else { Vec::new() }),
            };
            cases.push(case(ctx, sorter, spec)?);
        }
    }
    let keys: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    for seg in [Some(1024u64), Some(65536), None] {
        let offsets: Vec<u32> = match seg {
            Some(len) => (0..=n.div_ceil(len))
                .map(|j| (j * len).min(n) as u32)
                .collect(),
            None => {
                let mut o = vec![0u32];
                while (*o.last().unwrap() as u64) < n {
                    let l = rng.random_range(1..=8191u64);
                    o.push((*o.last().unwrap() as u64 + l).min(n) as u32);
                }
                o
            }
        };
        let order = segmented_order(&keys, &offsets);
        let want = order.iter().map(|&i| keys[i as usize]).collect();
        let segments = offsets.len() as u32 - 1;
        let config = SortConfig::keys(Dtype::U32, n)
            .with_values()
            .segmented(segments);
        let sorter = Sorter::new(ctx, config)?;
        let variant = match seg {
            Some(len) => format!("pairs u32 segments of {len} {}", sorter.strategy()),
            None => format!("pairs u32 random segments 1..8191 {}", sorter.strategy()),
        };
        let spec = Spec {
            algorithm: "segmented sort",
            variant,
            n,
            keys: keys.clone(),
            values: Some(values.clone()),
            offsets: Some(offsets),
            want: (want, order),
        };
        cases.push(case(ctx, sorter, spec)?);
    }
    Ok(cases)
}
