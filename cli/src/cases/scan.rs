//! Benchmark cases of the scan: an exclusive u32 [`Scanner`] at `n` elements (the count on the
//! host, and read from a GPU word), verified against
//! `wgsimd::reference::scan`.

use std::rc::Rc;

use rand::{Rng, SeedableRng};

use wgsimd::scan::Scanner;
use wgsimd::{BufferRef, Context, Count, Result};

use crate::case::{first_difference, size_label, Case, Work};

/// Benchmark cases at `n` elements: exclusive u32 scan, with the count given on the host and
/// read from a GPU word.
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let want = Rc::new(wgsimd::reference::scan::scan_u32(&data, false));
    let s = Rc::new(Scanner::new(ctx, false, n)?);
    let input = ctx.upload("input", &data)?;
    let mut cases = Vec::new();
    for gpu in [false, true] {
        let output = ctx.uninit("output", n * 4)?;
        let gpu_count = match gpu {
            true => Some(ctx.upload("count", &[n as u32])?),
            false => None,
        };
        let (ss, i, o, want) = (s.clone(), input.clone(), output.clone(), want.clone());
        cases.push(Case {
            algorithm: "scan".into(),
            variant: format!("exclusive u32{}", if gpu { " (GPU count)" } else { "" }),
            size: n,
            size_label: size_label(n),
            work: Work::Bytes(8.0 * n as f64),
            passes: s.passes(),
            setup: None,
            record: Box::new(move |enc, stamps| {
                let count = match &gpu_count {
                    None => Count::Host(n as u32),
                    Some(c) => Count::Gpu(BufferRef::from(c)),
                };
                ss.record_timed(enc, &i, &o, count, stamps)
            }),
            outputs: vec![output.clone()],
            verify: Box::new(move |ctx| {
                let got: Vec<u32> = ctx.read(&output).map_err(|e| e.to_string())?;
                first_difference("scan", &got, &want)
            }),
            extra: None,
        });
    }
    Ok(cases)
}
