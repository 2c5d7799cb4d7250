//! Benchmark cases of runs at `n` keys, as CUB's `DeviceRunLengthEncode::Encode`,
//! `DeviceSelect::Unique` and `DeviceReduce::ReduceByKey` yardsticks measure them: u32 keys in
//! runs of 8 (a random key per run), u32 values summed, the run count written on the device;
//! verified against `wgsimd::reference::runs`.

use rand::{Rng, SeedableRng};

use wgsimd::dtype::Dtype;
use wgsimd::reduce::ReduceOp;
use wgsimd::runs::{Aggregate, Runs, RunsConfig};
use wgsimd::{BufferRef, Context, Count, Result};

use crate::case::{first_difference, size_label, Case, Work};

/// Benchmark cases at `n` keys (see the module docs).
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut keys: Vec<u32> = Vec::with_capacity(n as usize);
    while keys.len() < n as usize {
        let k: u32 = rng.random();
        let len = 8.min(n as usize - keys.len());
        keys.extend(std::iter::repeat_n(k, len));
    }
    let values: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
    let runs = wgsimd::reference::runs::runs(&keys);
    let want_keys: Vec<u32> = runs.iter().map(|r| keys[r.start]).collect();
    let key_buf = ctx.upload("keys", &keys)?;
    let value_buf = ctx.upload("values", &values)?;
    let mut cases = Vec::new();
    for (name, config) in [
        ("run-length encode", RunsConfig::lengths(Dtype::U32, n)),
        ("unique", RunsConfig::unique(Dtype::U32, n)),
        (
            "reduce-by-key",
            RunsConfig::reduce(Dtype::U32, ReduceOp::Sum, Dtype::U32, n),
        ),
    ] {
        let want_aggs: Vec<u32> = match config.aggregate {
            Aggregate::None => Vec::new(),
            Aggregate::Lengths => runs.iter().map(|r| r.len() as u32).collect(),
            Aggregate::Reduce(..) => runs
                .iter()
                .map(|r| {
                    values[r.clone()]
                        .iter()
                        .fold(0u32, |a, &v| a.wrapping_add(v))
                })
                .collect(),
        };
        let r = Runs::new(ctx, config)?;
        let keys_out = ctx.uninit("keys_out", 4 * n)?;
        let aggs = ctx.uninit("aggregates", 4 * n)?;
        let word = ctx.zeroed("runs", 16)?;
        let (k, v, ko, a, w) = (
            key_buf.clone(),
            value_buf.clone(),
            keys_out.clone(),
            aggs.clone(),
            word.clone(),
        );
        let reduce = matches!(config.aggregate, Aggregate::Reduce(..));
        let aggregated = config.aggregate != Aggregate::None;
        let passes = r.passes();
        let out_words = want_keys.len() as f64 * if aggregated { 2.0 } else { 1.0 };
        let in_words = n as f64 * if reduce { 2.0 } else { 1.0 };
        let (wk, wa) = (want_keys.clone(), want_aggs);
        cases.push(Case {
            algorithm: name.into(),
            variant: if reduce {
                "u32 sum (runs of 8)"
            } else {
                "u32 (runs of 8)"
            }
            .into(),
            size: n,
            size_label: size_label(n),
            work: Work::Keys {
                keys: n as f64,
                bytes: 4.0 * (in_words + out_words),
            },
            passes,
            setup: None,
            record: Box::new(move |enc, stamps| {
                r.record_timed(
                    enc,
                    &k,
                    reduce.then(|| BufferRef::from(&v)),
                    &ko,
                    aggregated.then(|| BufferRef::from(&a)),
                    w.slice(0, 4),
                    Count::Host(n as u32),
                    stamps,
                )
            }),
            outputs: if aggregated {
                vec![keys_out.clone(), aggs.clone()]
            } else {
                vec![keys_out.clone()]
            },
            verify: Box::new(move |ctx| {
                let count = ctx.read::<u32>(&word).map_err(|e| e.to_string())?[0] as usize;
                if count != wk.len() {
                    return Err(format!("run count {count}, not {}", wk.len()));
                }
                let got: Vec<u32> = ctx.read(&keys_out).map_err(|e| e.to_string())?;
                first_difference("keys", &got[..count], &wk)?;
                if aggregated {
                    let got: Vec<u32> = ctx.read(&aggs).map_err(|e| e.to_string())?;
                    first_difference("aggregates", &got[..count], &wa)?;
                }
                Ok(())
            }),
            extra: None,
        });
    }
    Ok(cases)
}
