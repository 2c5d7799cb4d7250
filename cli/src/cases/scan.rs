//! Benchmark cases of the scan: [`Scanner`]s at `n` elements, exclusive and inclusive u32 with
//! the count on the host, and exclusive with the count read from a GPU word, verified against
//! `wgsimd::reference::scan`; and the inclusive maximum by the built-in operator
//! ([`wgsimd::fold`]), against a running maximum.

use std::rc::Rc;

use rand::{Rng, SeedableRng};

use wgsimd::dtype::Dtype;
use wgsimd::fold::Operator;
use wgsimd::scan::Scanner;
use wgsimd::{BufferRef, Context, Count, Result};

use crate::case::{first_difference, size_label, Case, Work};

/// Benchmark cases at `n` elements (see the module docs).
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let want_ex = Rc::new(wgsimd::reference::scan::scan_u32(&data, false));
    let want_in = Rc::new(wgsimd::reference::scan::scan_u32(&data, true));
    let input = ctx.upload("input", &data)?;
    drop(data);
    let exclusive = Rc::new(Scanner::new(ctx, false, n)?);
    let inclusive = Rc::new(Scanner::new(ctx, true, n)?);
    let mut cases = Vec::new();
    for (s, want, gpu) in [
        (&exclusive, &want_ex, false),
        (&inclusive, &want_in, false),
        (&exclusive, &want_ex, true),
    ] {
        let output = ctx.uninit("output", n * 4)?;
        let gpu_count = match gpu {
            true => Some(ctx.upload("count", &[n as u32])?),
            false => None,
        };
        let (ss, i, o, want) = (s.clone(), input.clone(), output.clone(), want.clone());
        let kind = if Rc::ptr_eq(s, &inclusive) {
            "inclusive"
        } else {
            "exclusive"
        };
        cases.push(Case {
            algorithm: "scan".into(),
            variant: format!("{kind} u32{}", if gpu { " (GPU count)" } else { "" }),
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
    // the inclusive maximum by the built-in operator (wgsimd::fold), as CUB's
    // DeviceScan::InclusiveScan with a max functor
    let by_max = Scanner::with_operator(ctx, &Operator::max(Dtype::U32)?, true, n)?;
    let data: Vec<u32> = ctx.read(&input)?;
    let want: Vec<u32> = data
        .iter()
        .scan(0u32, |m, &x| {
            *m = (*m).max(x);
            Some(*m)
        })
        .collect();
    drop(data);
    let output = ctx.uninit("output", n * 4)?;
    let (i, o) = (input.clone(), output.clone());
    cases.push(Case {
        algorithm: "scan".into(),
        variant: "inclusive u32 max (operator)".into(),
        size: n,
        size_label: size_label(n),
        work: Work::Bytes(8.0 * n as f64),
        passes: by_max.passes(),
        setup: None,
        record: Box::new(move |enc, stamps| {
            by_max.record_timed(enc, &i, &o, Count::Host(n as u32), stamps)
        }),
        outputs: vec![output.clone()],
        verify: Box::new(move |ctx| {
            let got: Vec<u32> = ctx.read(&output).map_err(|e| e.to_string())?;
            first_difference("scan", &got, &want)
        }),
        extra: None,
    });
    Ok(cases)
}
