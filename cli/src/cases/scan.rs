//! Benchmark cases of the scan: [`Scanner`]s at `n` elements, exclusive and inclusive u32,
//! verified against `wgsimd::reference::scan`.

use std::rc::Rc;

use rand::{Rng, SeedableRng};

use wgsimd::scan::Scanner;
use wgsimd::{Context, Count, Result};

use crate::case::{first_difference, size_label, Case, Work};

/// Benchmark cases at `n` elements (see the module docs).
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let want_ex = Rc::new(wgsimd::reference::scan::scan_u32(&data, false));
    let want_in = Rc::new(wgsimd::reference::scan::scan_u32(&data, true));
    let input = ctx.upload("input", &data)?;
    drop(data);
    let mut cases = Vec::new();
    for inclusive in [false, true] {
        let s = Rc::new(Scanner::new(ctx, inclusive, n)?);
        let variant = if inclusive {
            "inclusive u32"
        } else {
            "exclusive u32"
        };
        let output = ctx.uninit("output", n * 4)?;
        let (ss, i, o) = (s.clone(), input.clone(), output.clone());
        let want = if inclusive {
            want_in.clone()
        } else {
            want_ex.clone()
        };
        cases.push(Case {
            algorithm: "scan".into(),
            variant: variant.into(),
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
        });
    }
    Ok(cases)
}
