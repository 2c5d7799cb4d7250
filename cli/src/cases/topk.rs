//! Benchmark cases of top-k, as torch.topk's yardsticks measure them (`torch_prims.py`): the
//! 16 and the 1024 largest of `n` uniform f32 in [0, 1), and at 2^22 also the rows of
//! normal-ish f32 torch times (the 50 largest of 1 and of 64 rows of 128256: LLM sampling; 40 of
//! 256 rows of 32000, 16 of 4096 rows of 1024: retrieval); verified against a CPU selection by (value in the
//! sort's total order, lower index).

use rand::{Rng, SeedableRng};

use wgsimd::dtype::Dtype;
use wgsimd::reference::topk::topk_indices;
use wgsimd::topk::{TopK, TopKConfig};
use wgsimd::{Context, Result};

use crate::case::{first_difference, size_label, Case, Work};

fn case(ctx: &Context, data: Vec<f32>, rows: usize, k: u32, variant: String) -> Result<Case> {
    let n = data.len();
    let cols = n / rows;
    let want: Vec<u32> = (0..rows)
        .flat_map(|r| topk_indices(&data[r * cols..(r + 1) * cols], k as usize, false))
        .collect();
    let t = TopK::new(ctx, TopKConfig::largest(Dtype::F32, k, cols as u32))?;
    let input = ctx.upload("input", &data)?;
    let out = 4 * (rows * k as usize) as u64;
    let (values, indices) = (ctx.uninit("values", out)?, ctx.uninit("indices", out)?);
    let (i, v, x) = (input.clone(), values.clone(), indices.clone());
    let label = if rows == 1 {
        size_label(n as u64)
    } else {
        format!("{rows}x{cols}")
    };
    Ok(Case {
        algorithm: "topk".into(),
        variant,
        size: n as u64,
        size_label: label,
        work: Work::Keys {
            keys: n as f64,
            bytes: 4.0 * n as f64,
        },
        passes: Vec::new(),
        setup: None,
        record: Box::new(move |enc, _stamps| t.record(enc, &i, &v, &x, rows as u32)),
        outputs: vec![values.clone(), indices.clone()],
        verify: Box::new(move |ctx| {
            let got: Vec<u32> = ctx.read(&indices).map_err(|e| e.to_string())?;
            first_difference("indices", &got, &want)?;
            let vals: Vec<f32> = ctx.read(&values).map_err(|e| e.to_string())?;
            let want_v: Vec<u32> = want
                .iter()
                .enumerate()
                .map(|(j, &c)| data[(j / k as usize) * cols + c as usize].to_bits())
                .collect();
            let got_v: Vec<u32> = vals.iter().map(|x| x.to_bits()).collect();
            first_difference("values", &got_v, &want_v)
        }),
        extra: None,
    })
}

/// Benchmark cases at `n` elements (see the module docs).
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<f32> = (0..n).map(|_| rng.random_range(0.0f32..1.0)).collect();
    let mut cases = vec![case(
        ctx,
        data.clone(),
        1,
        16.min(n as u32).max(1),
        "f32 k=16".into(),
    )?];
    if n >= 1 << 20 {
        cases.push(case(ctx, data, 1, 1024, "f32 k=1024".into())?);
    }
    if n == 1 << 22 {
        // torch_prims.py's rows: sampling from 128256 logits, scores of retrieval
        for (rows, cols, k) in [
            (1, 128_256, 50),
            (64, 128_256, 50),
            (256, 32_000, 40),
            (4096, 1024, 16),
        ] {
            let logits: Vec<f32> = (0..rows * cols)
                .map(|_| (0..4).map(|_| rng.random_range(-1.0f32..1.0)).sum())
                .collect();
            let variant = if rows == 64 {
                "rows f32 k=50".to_string()
            } else {
                format!("rows {rows}x{cols} f32 k={k}")
            };
            cases.push(case(ctx, logits, rows, k, variant)?);
        }
    }
    Ok(cases)
}
