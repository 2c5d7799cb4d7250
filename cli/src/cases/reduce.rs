//! Benchmark cases of the reduction: sum u32, sum f32, min i32, max f32 and max u32 by the
//! built-in operator ([`wgsimd::fold`]) at `n` elements,
//! each a [`Reducer`] recorded on the case's buffers and verified against
//! `wgsimd::reference::reduce`.

use std::rc::Rc;

use rand::{Rng, SeedableRng};

use wgsimd::dtype::Element;
use wgsimd::fold::Operator;
use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
use wgsimd::{BufferRef, Context, Count, Result};

use crate::case::{size_label, Case, Work};

type Check = Box<dyn Fn(Scalar) -> std::result::Result<(), String>>;

fn case<T: Element>(
    ctx: &Context,
    variant: &str,
    op: ReduceOp,
    data: &[T],
    check: Check,
) -> Result<Case> {
    let n = data.len() as u64;
    // "(operator)": the built-in operator's fold (wgsimd::fold) in place of the reduction
    let r = Rc::new(if variant.ends_with("(operator)") {
        let by = match op {
            ReduceOp::Sum => Operator::sum(T::DTYPE)?,
            ReduceOp::Min => Operator::min(T::DTYPE)?,
            ReduceOp::Max => Operator::max(T::DTYPE)?,
        };
        Reducer::with_operator(ctx, &by, n)?
    } else {
        Reducer::new(ctx, op, T::DTYPE, n)?
    });
    let input = ctx.upload("input", data)?;
    let out = ctx.uninit("result", r.result_bytes())?;
    // "(GPU count)": the count read from a word of a GPU buffer
    let gpu_count = match variant.ends_with("(GPU count)") {
        true => Some(ctx.upload("count", &[n as u32])?),
        false => None,
    };
    let (rr, i, o) = (r.clone(), input.clone(), out.clone());
    Ok(Case {
        algorithm: "reduce".into(),
        variant: variant.into(),
        size: n,
        size_label: size_label(n),
        work: Work::Bytes(4.0 * n as f64),
        passes: r.passes(),
        setup: None,
        record: Box::new(move |enc, stamps| {
            let count = match &gpu_count {
                None => Count::Host(n as u32),
                Some(c) => Count::Gpu(BufferRef::from(c)),
            };
            rr.record_timed(enc, &i, &o, count, stamps)
        }),
        outputs: vec![out.clone()],
        verify: Box::new(move |ctx| {
            let words: Vec<u32> = ctx.read(&out).map_err(|e| e.to_string())?;
            check(r.decode(&words).map_err(|e| e.to_string())?)
        }),
        extra: None,
    })
}

/// Benchmark cases at `n` elements: sum u32, sum f32, min i32, max f32, and sum u32 with the
/// count read from a GPU word.
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let n = n as usize;
    let u: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let f: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let i: Vec<i32> = u.iter().map(|&x| x as i32).collect();
    let sum_u = wgsimd::reference::reduce::sum_u64(&u);
    let sum_f = wgsimd::reference::reduce::SumF32::of(&f);
    let min_i = wgsimd::reference::reduce::minmax(&i, false);
    let max_f = wgsimd::reference::reduce::minmax(&f, true);
    let max_u = wgsimd::reference::reduce::minmax(&u, true);
    let check_sum_u: fn(u64) -> Check = |want| {
        Box::new(move |got| {
            if got == Scalar::U64(want) {
                Ok(())
            } else {
                Err(format!("got {got}, want {want}"))
            }
        })
    };
    Ok(vec![
        case(ctx, "sum u32", ReduceOp::Sum, &u, check_sum_u(sum_u))?,
        case(
            ctx,
            "sum f32",
            ReduceOp::Sum,
            &f,
            Box::new(move |got| match got {
                Scalar::F32(g) => sum_f.check(g),
                _ => Err(format!("got {got}, want an f32")),
            }),
        )?,
        case(
            ctx,
            "min i32",
            ReduceOp::Min,
            &i,
            Box::new(move |got| {
                if Some(got) == min_i.map(Scalar::I32) {
                    Ok(())
                } else {
                    Err(format!("got {got}, want {min_i:?}"))
                }
            }),
        )?,
        case(
            ctx,
            "max f32",
            ReduceOp::Max,
            &f,
            Box::new(move |got| match (got, max_f) {
                (Scalar::F32(g), Some(w)) if g.to_bits() == w.to_bits() => Ok(()),
                _ => Err(format!("got {got}, want {max_f:?}")),
            }),
        )?,
        case(
            ctx,
            "max u32 (operator)",
            ReduceOp::Max,
            &u,
            Box::new(move |got| {
                if Some(got) == max_u.map(Scalar::U32) {
                    Ok(())
                } else {
                    Err(format!("got {got}, want {max_u:?}"))
                }
            }),
        )?,
        case(
            ctx,
            "sum u32 (GPU count)",
            ReduceOp::Sum,
            &u,
            check_sum_u(sum_u),
        )?,
    ])
}
