//! Benchmark case of the scan: an exclusive u32 [`Scanner`] at `n` elements, verified against
//! `wgsimd::reference::scan`.

use std::rc::Rc;

use rand::{Rng, SeedableRng};

use wgsimd::scan::Scanner;
use wgsimd::{Context, Count, Result};

use crate::case::{first_difference, size_label, Case, Work};

/// Benchmark case at `n` elements: exclusive u32 scan.
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let want = wgsimd::reference::scan::scan_u32(&data, false);
    let s = Rc::new(Scanner::new(ctx, false, n)?);
    let input = ctx.upload("input", &data)?;
    let output = ctx.uninit("output", n * 4)?;
    let (ss, i, o) = (s.clone(), input.clone(), output.clone());
    Ok(vec![Case {
        algorithm: "scan".into(),
        variant: "exclusive u32".into(),
        size: n,
        size_label: size_label(n),
        work: Work::Bytes(8.0 * n as f64),
        passes: s.passes(),
        setup: None,
        record: Box::new(move |enc, stamps| {
            ss.record_timed(enc, &i, &o, Count::Host(n as u32), stamps)
        }),
        outputs: vec![output.clone()],
        verify: Box::new(move |ctx| {
            let got: Vec<u32> = ctx.read(&output).map_err(|e| e.to_string())?;
            first_difference("scan", &got, &want)
        }),
        extra: None,
    }])
}
