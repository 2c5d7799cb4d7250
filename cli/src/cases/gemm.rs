//! GEMM benchmark cases for `wgsimd bench`: f32, f16 (portable, and cooperative matrices when
//! offered; the default f16 path also with f16 output, and the register-tiled kernel's where
//! the default is another) and f16 × int4, on seeded uniform
//! [−1, 1) data. Work is 2·M·N·K flops.
//!
//! Verification scales with the size: every output word is checked not poison and every entry
//! finite, and the relative Frobenius error is measured on a seeded sample of entries (all of
//! them up to 2^16 entries) against f64 dot products of the same inputs.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use std::rc::Rc;

use crate::case::{Case, Work};
use wgsimd::error::{Error, Result};
use wgsimd::gemm::{Format, Gemm, GemmOptions, Int4Weights, OutFormat, PathChoice};
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16};
use wgsimd::{Buffer, BufferRef, Caps, Context};

/// Sampled entries when C is larger than this.
const FULL_CHECK: usize = 1 << 16;
const SAMPLES: usize = 4096;

/// Seeded uniform values in [−1, 1).
pub fn random_f32(len: usize, seed: u64) -> Vec<f32> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| r.random::<f32>() * 2.0 - 1.0).collect()
}

/// Relative Frobenius error of `c` against f64 products of `a` (M×K) and `b` (K×N) on a seeded
/// sample of entries (all when small); infinity for any non-finite entry anywhere in `c`.
pub fn sampled_error(
    c: &[f32],
    a: &[f32],
    b: &[f32],
    m: usize,
    n: usize,
    k: usize,
    seed: u64,
) -> f64 {
    if c.len() != m * n || c.iter().any(|v| !v.is_finite()) {
        return f64::INFINITY;
    }
    let picks: Vec<(usize, usize)> = if m * n <= FULL_CHECK {
        (0..m * n).map(|i| (i / n, i % n)).collect()
    } else {
        let mut r = ChaCha8Rng::seed_from_u64(seed ^ 0x5EED);
        (0..SAMPLES)
            .map(|_| (r.random_range(0..m), r.random_range(0..n)))
            .collect()
    };
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for (i, j) in picks {
        let want = wgsimd::reference::gemm::entry(a, b, n, k, i, j);
        let got = c[i * n + j] as f64;
        num += (got - want) * (got - want);
        den += want * want;
    }
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}

/// Checks C (f32 or f16, as `g` leaves it in `c`) against f64 products of `a` and `b`
/// (K = `k`).
fn verifier(
    g: &Gemm,
    c: Buffer,
    [m, n, k]: [usize; 3],
    a: Arc<Vec<f32>>,
    b: Arc<Vec<f32>>,
    tol: f64,
    seed: u64,
) -> crate::case::Verify {
    let out_format = g.layout().out;
    Box::new(move |ctx| {
        // an unwritten entry: its word still holds the poison (f16 C: two entries to a word,
        // the last word checked only when both are C's; f32 C cannot hold -6.3e18 here, nor
        // an f16 pair -427.25, -1.733)
        let words: Vec<u32> = ctx.read(&c).map_err(|e| e.to_string())?;
        let per_word = match out_format {
            OutFormat::F32 => 1,
            OutFormat::F16 => 2,
        };
        if words.len() * per_word < m * n {
            return Err("output missing".into());
        }
        if let Some(i) = words
            .iter()
            .take(m * n / per_word)
            .position(|&w| w == wgsimd::plan::POISON_WORD)
        {
            return Err(format!("word {i} of C was never written (poison)"));
        }
        let got: std::borrow::Cow<[f32]> = match out_format {
            OutFormat::F32 => bytemuck::cast_slice::<u32, f32>(&words)[..m * n].into(),
            OutFormat::F16 => f16_to_f32(&bytemuck::cast_slice::<u32, u16>(&words)[..m * n]).into(),
        };
        let e = sampled_error(&got, &a, &b, m, n, k, seed);
        if e <= tol {
            Ok(())
        } else {
            Err(format!("relative Frobenius error {e:.3e} > {tol:.1e}"))
        }
    })
}

/// Rows of `data` (`rows` × `cols`) padded to `stride` elements with zeros, as bytes.
fn rows_padded<T: bytemuck::Pod + Default>(
    data: &[T],
    rows: usize,
    cols: usize,
    stride: usize,
) -> Vec<u8> {
    let mut out = vec![T::default(); rows * stride];
    for r in 0..rows {
        out[r * stride..r * stride + cols].copy_from_slice(&data[r * cols..(r + 1) * cols]);
    }
    bytemuck::cast_slice(&out).to_vec()
}

/// A case of `g` on operands `inputs` (as bound), checked with `verify`.
fn case(
    ctx: &Context,
    g: Gemm,
    inputs: Vec<Vec<u8>>,
    variant: String,
    shape: [usize; 3],
    refs: (Arc<Vec<f32>>, Arc<Vec<f32>>),
    (tol, seed): (f64, u64),
) -> Result<Case> {
    let [m, n, k] = shape;
    let bufs = inputs
        .iter()
        .map(|bytes| ctx.upload("operand", bytes))
        .collect::<Result<Vec<_>>>()?;
    let c = ctx.uninit("c", g.layout().c_bytes)?;
    let verify = verifier(&g, c.clone(), shape, refs.0, refs.1, tol, seed);
    let g = Rc::new(g);
    let (gg, cc) = (g.clone(), c.clone());
    Ok(Case {
        algorithm: "gemm".into(),
        variant,
        size: m.max(n).max(k) as u64,
        size_label: format!("{m}x{n}x{k}"),
        work: Work::Flops(2.0 * m as f64 * n as f64 * k as f64),
        passes: g.passes(),
        setup: None,
        record: Box::new(move |enc, stamps| {
            let refs: Vec<BufferRef> = bufs.iter().map(BufferRef::from).collect();
            gg.record_timed(enc, &refs, &cc, stamps)
        }),
        outputs: vec![c],
        verify,
        extra: None,
    })
}

/// Cases of shape M×N×K (e.g. skinny M = 1..64 with N = K = 4096).
pub fn bench_cases_shape(ctx: &Context, m: u64, n: u64, k: u64, seed: u64) -> Result<Vec<Case>> {
    let caps = ctx.caps();
    for (what, elems) in [
        ("A", m.saturating_mul(k)),
        ("B", k.saturating_mul(n)),
        ("C", m.saturating_mul(n)),
    ] {
        if elems.saturating_mul(4) > caps.max_storage_binding {
            return Err(wgsimd::Error::TooLarge(format!(
                "gemm bench {m}x{n}x{k}: {what} exceeds the device's largest binding"
            )));
        }
    }
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let shape = [m, n, k];
    // f32 accumulation error grows like sqrt(K)·eps
    let tol32 = 1e-5 * ((k as f64) / 1024.0).sqrt().max(1.0);
    // f16 (int4) inputs, C f32: the reference takes the same f16 values, so only the
    // accumulation errs; twice the f32 bound for tensor cores' additions. C in f16: 2^-11 of
    // each entry.
    let tol16_in = 2.0 * tol32;
    let tol16_out = 1e-3;
    let mut cases = Vec::new();
    let a32 = Arc::new(random_f32(m * k, seed));
    let b32 = Arc::new(random_f32(k * n, seed.wrapping_add(1)));
    // the operands as bound: rows padded to whole loads
    let packed = |fmt: Format, g: &Gemm, a: &[f32], b: &[f32]| -> Vec<Vec<u8>> {
        let l = g.layout();
        match fmt {
            Format::F16 => vec![
                rows_padded(&f32_to_f16(a), m, k, l.a_row),
                rows_padded(&f32_to_f16(b), k, n, l.b_row),
            ],
            _ => vec![rows_padded(a, m, k, l.a_row), rows_padded(b, k, n, l.b_row)],
        }
    };
    // the register-tiled kernel, and for skinny shapes the few-rows kernel (the default path
    // takes it up to `GEMV_MAX_M` rows)
    let few = m <= 64;
    let gemv = few.then_some((PathChoice::Gemv, "gemv"));
    for (path, kind) in [(PathChoice::Tiled, "tiled")].into_iter().chain(gemv) {
        let opts = GemmOptions {
            path,
            ..Default::default()
        };
        let Some(g) = unless_too_large(Gemm::new(ctx, Format::F32, m, n, k, opts))? else {
            continue;
        };
        let inputs = packed(Format::F32, &g, &a32, &b32);
        cases.push(case(
            ctx,
            g,
            inputs,
            format!("f32 {kind}"),
            shape,
            (a32.clone(), b32.clone()),
            (tol32, seed),
        )?);
    }
    let a16f = Arc::new(f16_to_f32(&f32_to_f16(&a32)));
    let b16f = Arc::new(f16_to_f32(&f32_to_f16(&b32)));
    drop(a32);
    drop(b32);
    let mut paths = vec![(PathChoice::Tiled, "f16 tiled".to_string())];
    if let Ok(kind) = wgsimd::gemm::coop::usable(caps) {
        let name = kind.name().trim_start_matches("gemm/");
        paths.push((PathChoice::Coop, format!("f16 {name}")));
    }
    if few {
        paths.push((PathChoice::Gemv, "f16 gemv".to_string()));
    }
    let refs16 = (a16f.clone(), b16f.clone());
    for (path, variant) in paths {
        let opts = GemmOptions {
            path,
            ..Default::default()
        };
        let Some(g) = unless_too_large(Gemm::new(ctx, Format::F16, m, n, k, opts))? else {
            continue;
        };
        let inputs = packed(Format::F16, &g, &a16f, &b16f);
        cases.push(case(
            ctx,
            g,
            inputs,
            variant,
            shape,
            refs16.clone(),
            (tol16_in, seed),
        )?);
    }
    // f16 output on the default path (rounded by the split-K sum, the product kernel itself or,
    // with N odd, the rounding pass)
    let f16_out = GemmOptions {
        out: OutFormat::F16,
        ..Default::default()
    };
    let mut default_tiled = false;
    if let Some(g) = unless_too_large(Gemm::new(ctx, Format::F16, m, n, k, f16_out))? {
        let kind = format!("{:?}", g.path()).to_lowercase();
        default_tiled = g.path() == wgsimd::gemm::Path::Tiled;
        let inputs = packed(Format::F16, &g, &a16f, &b16f);
        cases.push(case(
            ctx,
            g,
            inputs,
            format!("f16 {kind} f16 out"),
            shape,
            refs16.clone(),
            (tol16_out, seed),
        )?);
    }
    // where the default is another kernel (cooperative matrices, the few-rows kernel), the
    // register-tiled kernel's f16 C too: what devices without cooperative matrices run
    if !default_tiled {
        let tiled = GemmOptions {
            path: PathChoice::Tiled,
            ..f16_out
        };
        if let Some(g) = unless_too_large(Gemm::new(ctx, Format::F16, m, n, k, tiled))? {
            let inputs = packed(Format::F16, &g, &a16f, &b16f);
            cases.push(case(
                ctx,
                g,
                inputs,
                "f16 tiled f16 out".into(),
                shape,
                refs16.clone(),
                (tol16_out, seed),
            )?);
        }
    }
    // int4 weights: B quantized, the reference multiplies by the dequantized matrix
    let w = Int4Weights::quantize(&b16f, k, n)?;
    let wd = Arc::new(w.dequantize()?);
    // (cooperative matrices stage each weight rounded to f16: their reference multiplies by
    // those, within the f16 bound, as a conversion may round either way)
    let wd16 = Arc::new(f16_to_f32(&f32_to_f16(&wd)));
    let a16 = f32_to_f16(&a16f);
    let coop = wgsimd::gemm::coop::usable(caps)
        .ok()
        .map(|k| (PathChoice::Coop, k.name().trim_start_matches("gemm/")));
    for (path, kind) in [(PathChoice::Tiled, "tiled")]
        .into_iter()
        .chain(gemv)
        .chain(coop)
    {
        let opts = GemmOptions {
            path,
            ..Default::default()
        };
        let (weights, tol) = if path == PathChoice::Coop {
            (wd16.clone(), tol16_out)
        } else {
            (wd.clone(), tol16_in)
        };
        let Some(g) = unless_too_large(Gemm::new_int4(ctx, m, k, n, false, opts))? else {
            continue;
        };
        let l = g.layout();
        let inputs = vec![
            rows_padded(&a16, m, k, l.a_row),
            bytemuck::cast_slice::<u32, u8>(&w.packed).to_vec(),
            bytemuck::cast_slice::<u16, u8>(&w.scales).to_vec(),
        ];
        let inputs = g.pad_operands(inputs);
        cases.push(case(
            ctx,
            g,
            inputs,
            format!("int4 {kind}"),
            shape,
            (a16f.clone(), weights),
            (tol, seed),
        )?);
    }
    if cases.is_empty() {
        return Err(Error::TooLarge(format!(
            "no GEMM kernel fits {m}x{n}x{k} on this device"
        )));
    }
    Ok(cases)
}

/// A GEMM, or `None` where this path does not fit the device (`TooLarge`, `Limit`: the bench leaves that
/// variant out and keeps the shape's others); other errors stay errors.
fn unless_too_large(r: Result<Gemm>) -> Result<Option<Gemm>> {
    match r {
        Ok(p) => Ok(Some(p)),
        Err(Error::TooLarge(_) | Error::Limit { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The GEMM shapes (M, N, K) `wgsimd bench` should run on `caps`: square 1024–8192 and skinny
/// M = 1, 16, 64 with N = K = 4096 on a real GPU; small squares and one skinny shape on CPU
/// adapters (lavapipe: about 1 GFLOP/s) and the simulator. `quick` keeps one of each kind.
pub fn bench_shapes(caps: &Caps, simulated: bool, quick: bool) -> Vec<(u64, u64, u64)> {
    let slow = caps.is_cpu() || simulated;
    let (squares, skinny, nk): (&[u64], &[u64], u64) = match (slow, quick) {
        (true, true) => (&[64], &[1], 256),
        (true, false) => (&[128, 256], &[1, 16], 512),
        (false, true) => (&[1024], &[1], 4096),
        (false, false) => (&[1024, 2048, 4096, 8192], &[1, 16, 64], 4096),
    };
    let fits = |m: u64, n: u64, k: u64| {
        [m * k, k * n, m * n]
            .iter()
            .all(|&e| e * 4 <= caps.max_storage_binding)
    };
    squares
        .iter()
        .map(|&s| (s, s, s))
        .chain(skinny.iter().map(|&m| (m, nk, nk)))
        .filter(|&(m, n, k)| fits(m, n, k))
        .collect()
}
