use std::sync::Arc;

use wgsimd::reduce::{plan, ReduceOp, ReducePlan, ReducePolicy, Scalar};
use wgsimd::Result;

/// Benchmark cases at `n` elements: sum u32, sum f32, min i32, max f32, each verified against
/// `src/reference/reduce.rs`.
pub fn bench_cases(caps: &wgsimd::Caps, n: u64, seed: u64) -> Result<Vec<crate::case::Case>> {
    use crate::case::{Case, Work};
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let n = n as usize;
    let u: Arc<Vec<u32>> = Arc::new((0..n).map(|_| rng.random()).collect());
    let f: Arc<Vec<f32>> = Arc::new((0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect());
    let i: Arc<Vec<i32>> = Arc::new(u.iter().map(|&x| x as i32).collect());
    let label = crate::case::size_label(n as u64);
    let mut cases = Vec::new();
    let mut push =
        |variant: &str,
         p: ReducePlan,
         data_len: u64,
         check: Box<dyn Fn(Scalar) -> std::result::Result<(), String> + Send + Sync>| {
            let mut decoder = p;
            let plan = std::mem::take(&mut decoder.plan);
            let n = data_len;
            cases.push(Case {
                algorithm: "reduce".into(),
                variant: variant.into(),
                size: n,
                size_label: label.clone(),
                plan,
                work: Work::Bytes(4.0 * n as f64),
                verify: Box::new(move |out| check(decoder.decode(out).map_err(|e| e.to_string())?)),
                extra: None,
            });
        };
    {
        let want = wgsimd::reference::reduce::sum_u64(&u);
        push(
            "sum u32",
            plan(caps, &u, ReduceOp::Sum, ReducePolicy::default())?,
            u.len() as u64,
            Box::new(move |got| {
                if got == Scalar::U64(want) {
                    Ok(())
                } else {
                    Err(format!("got {got}, want {want}"))
                }
            }),
        );
    }
    {
        let want = wgsimd::reference::reduce::SumF32::of(&f);
        push(
            "sum f32",
            plan(caps, &f, ReduceOp::Sum, ReducePolicy::default())?,
            f.len() as u64,
            Box::new(move |got| match got {
                Scalar::F32(g) => want.check(g),
                _ => Err(format!("got {got}, want an f32")),
            }),
        );
    }
    {
        let want = wgsimd::reference::reduce::minmax(&i, false);
        push(
            "min i32",
            plan(caps, &i, ReduceOp::Min, ReducePolicy::default())?,
            i.len() as u64,
            Box::new(move |got| {
                if Some(got) == want.map(Scalar::I32) {
                    Ok(())
                } else {
                    Err(format!("got {got}, want {want:?}"))
                }
            }),
        );
    }
    {
        let want = wgsimd::reference::reduce::minmax(&f, true);
        push(
            "max f32",
            plan(caps, &f, ReduceOp::Max, ReducePolicy::default())?,
            f.len() as u64,
            Box::new(move |got| {
                if Some(got) == want.map(Scalar::F32) {
                    Ok(())
                } else {
                    Err(format!("got {got}, want {want:?}"))
                }
            }),
        );
    }
    Ok(cases)
}
