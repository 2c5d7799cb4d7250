//! Benchmark cases of the selection at `n` elements, as CUB's `DeviceSelect::If` and
//! `DevicePartition::If` yardsticks measure them: random u32, those below 2^31 selected (half),
//! by a predicate, the count written on the device; verified against
//! `wgsimd::reference::select`.

use rand::{Rng, SeedableRng};

use wgsimd::dtype::Dtype;
use wgsimd::select::{Select, SelectConfig};
use wgsimd::{Context, Count, Result};

use crate::case::{first_difference, size_label, Case, Work};

const BELOW_HALF: &str = "fn keep(x: u32) -> bool { return x < 0x80000000u; }";

/// Benchmark cases at `n` elements (see the module docs).
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let input = ctx.upload("input", &data)?;
    let mut cases = Vec::new();
    for partition in [false, true] {
        let (yes, no) = wgsimd::reference::select::partition(&data, |i| data[i] < 0x8000_0000);
        let mut want = yes.clone();
        if partition {
            want.extend(no);
        }
        let k = yes.len() as u32;
        let mut config = SelectConfig::predicate(Dtype::U32, BELOW_HALF, n);
        if partition {
            config = config.partition();
        }
        let s = Select::new(ctx, config)?;
        let output = ctx.uninit("output", 4 * n)?;
        let selected = ctx.zeroed("selected", 16)?;
        let (i, o, c) = (input.clone(), output.clone(), selected.clone());
        let passes = s.passes();
        cases.push(Case {
            algorithm: if partition { "partition" } else { "select" }.into(),
            variant: "u32 predicate (50%)".into(),
            size: n,
            size_label: size_label(n),
            work: Work::Keys {
                keys: n as f64,
                bytes: 4.0 * n as f64 + 4.0 * want.len() as f64,
            },
            passes,
            setup: None,
            record: Box::new(move |enc, stamps| {
                s.record_timed(
                    enc,
                    &i,
                    None,
                    &o,
                    c.slice(0, 4),
                    Count::Host(n as u32),
                    stamps,
                )
            }),
            outputs: vec![output.clone()],
            verify: Box::new(move |ctx| {
                let got: Vec<u32> = ctx.read(&output).map_err(|e| e.to_string())?;
                let count: Vec<u32> = ctx.read(&selected).map_err(|e| e.to_string())?;
                if count[0] != k {
                    return Err(format!("selected count {}, not {k}", count[0]));
                }
                first_difference("select", &got[..want.len()], &want)
            }),
            extra: None,
        });
    }
    Ok(cases)
}
