//! Tuning sweep of the primitives whose tables had no measurement (a lab tool, not a test):
//! the histogram's `HistogramPolicy` (most workgroups × vec4s per invocation) over u8 samples
//! in 256 bins and f32 samples in 1024 bins, the CUB yardsticks' cases, and the chunked
//! selection's tiles (`SelectPolicy::tiles`, `--tiles`) over a selection and a partition of
//! u32 elements by byte flags (half kept). Each variant is recorded with timestamps (the CLI's
//! timing method, `wgsimd_timing`), then run once more into a poisoned output and compared
//! with `wgsimd::reference` before its figure is printed. And the 64-bit sort's
//! `SortPolicy::elementwise_items` (`--wide-items`), u64 keys alone, timed by the host clock
//! (the sort records several plans) over runs that each restore the keys by a copy first, the
//! last run's keys compared with a CPU sort. And the `ChunkPolicy` (the histogram's
//! `--workgroups` and `--items`) of reduce-by-key (`--only runs`, the CUB yardstick's input) and
//! of the fold (`--only fold`: the inclusive max-scan and the max-reduction of u32; the scan
//! also chained, by `--tiles`). And the segmented sort's local path bounds (`--only segments`:
//! `SortPolicy::segment_tiny_max`, `segment_rank_max`, `segment_local_max` over u32 pairs in
//! segments of random lengths 1..2 up to 1..16384; `--tiny-only` the lengths up to 32). And
//! top-k's `TopKPolicy` (`--only topk`) over the bench's one-row and many-row shapes
//! (`--topk-grid`: the wide select's workgroups × chunk).
//!
//! `cargo run --release -p wgsimd-lab --bin prims_sweep -- [--sizes 24,28]
//! [--workgroups 264,528,1024,2112,4096] [--items 4,8,16] [--tiles 4096,8192,12288,16384]
//! [--wide-items 1,2,4,8,16]
//! [--only histogram|select|wide|runs|fold|segments|topk] [--repeats N]` (sizes are exponents). `LAB_SIM=h100` runs on the simulator (host-timed;
//! `--sizes 14`).

use wgsimd::dtype::Dtype;
use wgsimd::histogram::{Histogram, HistogramPolicy};
use wgsimd::scan::{OperatorPolicy, ScanPolicy};
use wgsimd::select::{Select, SelectConfig, SelectPolicy};
use wgsimd::{Buffer, Context, Count};
use wgsimd_lab::timing::{self, Job};

/// Times `job`, verifies `out` with `check` and prints the line (`items` per second from `n`).
fn report(
    ctx: &Context,
    label: &str,
    job: &Job,
    out: &Buffer,
    n: usize,
    repeats: usize,
    check: &dyn Fn(&Context) -> Result<(), String>,
) {
    let t = match timing::time_then_verified_run(ctx, job, out, repeats, label) {
        Ok(t) => t,
        Err(e) => return println!("{label}: FAIL {e}"),
    };
    if let Err(e) = check(ctx) {
        return println!("{label}: FAIL {e}");
    }
    println!(
        "{label}: median {:.1} Gitems/s best {:.1} ({:.4} ms, {:?}) [{}] ok",
        n as f64 / t.median_ns(),
        n as f64 / t.min_ns(),
        t.median_ns() / 1e6,
        t.source,
        timing::passes_text(&t)
    );
}

fn histograms(ctx: &Context, e: f64, grid: &[(u32, u32)], repeats: usize) {
    let n = wgsimd_lab::pow2(e) as usize;
    let words = wgsimd_lab::random_u32(n, 11);
    let bytes: Vec<u8> = words.iter().map(|w| *w as u8).collect();
    let floats = wgsimd_lab::random_f32(n, 12);
    let cases: [(Dtype, u32, f64, f64); 2] =
        [(Dtype::U8, 256, 0.0, 256.0), (Dtype::F32, 1024, -1.0, 1.0)];
    for (dtype, bins, lo, hi) in cases {
        let (input, want) = match dtype {
            Dtype::U8 => (
                ctx.upload("u8 samples", &bytes),
                wgsimd::reference::histogram::even(bytes.iter().map(|&b| b as f64), bins, lo, hi),
            ),
            _ => (
                ctx.upload("f32 samples", &floats),
                wgsimd::reference::histogram::even(floats.iter().map(|&f| f as f64), bins, lo, hi),
            ),
        };
        let input = input.expect("the samples");
        for &(workgroups, vecs) in grid {
            let label = format!("histogram {dtype} {bins} bins 2^{e} wg {workgroups} vecs {vecs}");
            let policy = HistogramPolicy {
                max_workgroups: workgroups,
                vecs_per_invocation: vecs,
                ..Default::default()
            };
            let h = match Histogram::with_policy(ctx, dtype, bins, lo, hi, n as u64, policy) {
                Ok(h) => h,
                Err(e) => {
                    println!("{label}: skipped: {e}");
                    continue;
                }
            };
            let counts = ctx.uninit("counts", h.counts_bytes()).expect("counts");
            let job = Job {
                passes: h.passes(),
                setup: None,
                record: Box::new(|enc, stamps| {
                    h.record_timed(enc, &input, &counts, Count::Host(n as u32), stamps)
                }),
            };
            let check = |ctx: &Context| {
                let got = ctx.read::<u32>(&counts).map_err(|e| e.to_string())?;
                (got == want)
                    .then_some(())
                    .ok_or("not the reference's counts".to_string())
            };
            report(ctx, &label, &job, &counts, n, repeats, &check);
        }
    }
}

fn selections(ctx: &Context, e: f64, tiles: &[u32], repeats: usize) {
    let n = wgsimd_lab::pow2(e) as usize;
    let data = wgsimd_lab::random_u32(n, 13);
    let flags: Vec<u8> = wgsimd_lab::random_u32(n, 14)
        .iter()
        .map(|w| (w & 1) as u8)
        .collect();
    let input = ctx.upload("elements", &data).expect("the elements");
    let flag_buf = ctx.upload("flags", &flags).expect("the flags");
    // by the flags, or (CUB's yardstick case) by a predicate that keeps those below 2^31
    let predicate = "fn keep(x: u32) -> bool { return x < 0x80000000u; }";
    for (partition, by_flags) in [(false, true), (true, true), (false, false), (true, false)] {
        let (yes, no) = wgsimd::reference::select::partition(&data, |i| {
            if by_flags {
                flags[i] != 0
            } else {
                data[i] < 0x8000_0000
            }
        });
        for &tile in tiles {
            let what = if partition { "partition" } else { "select" };
            let by = if by_flags { "u8 flags" } else { "a predicate" };
            let label = format!("{what} u32 by {by} 2^{e} tile {tile}");
            let policy = SelectPolicy {
                tiles: ScanPolicy {
                    tile,
                    small_tile: tile,
                    ..ScanPolicy::for_caps(ctx.caps())
                },
                ..SelectPolicy::for_caps(ctx.caps())
            };
            let mut config = if by_flags {
                SelectConfig::flags(Dtype::U32, Dtype::U8, n as u64)
            } else {
                SelectConfig::predicate(Dtype::U32, predicate, n as u64)
            };
            if partition {
                config = config.partition();
            }
            let s = match Select::with_policy(ctx, config, policy) {
                Ok(s) => s,
                Err(e) => {
                    println!("{label}: skipped: {e}");
                    continue;
                }
            };
            let out = ctx.uninit("output", 4 * n as u64).expect("output");
            let selected = ctx.uninit("selected", 4).expect("selected");
            let job = Job {
                passes: s.passes(),
                setup: None,
                record: Box::new(|enc, stamps| {
                    let flags = by_flags.then(|| (&flag_buf).into());
                    let c = Count::Host(n as u32);
                    s.record_timed(enc, &input, flags, &out, &selected, c, stamps)
                }),
            };
            let check = |ctx: &Context| {
                let got = ctx.read::<u32>(&out).map_err(|e| e.to_string())?;
                let k = ctx.read::<u32>(&selected).map_err(|e| e.to_string())?[0] as usize;
                let others = !partition || got[k..n] == no[..];
                (k == yes.len() && got[..k] == yes[..] && others)
                    .then_some(())
                    .ok_or("not the reference's selection".to_string())
            };
            report(ctx, &label, &job, &out, n, repeats, &check);
        }
    }
}

fn wide(ctx: &Context, e: f64, items: &[u32], repeats: usize) {
    use wgsimd::sort::{SortConfig, SortPolicy, Sorter};
    let n = wgsimd_lab::pow2(e) as usize;
    let words = wgsimd_lab::random_u32(2 * n, 15);
    let mut want: Vec<u64> = bytemuck::cast_slice(&words).to_vec();
    want.sort_unstable();
    let src = ctx.upload("u64 keys", &words).expect("the keys");
    let keys = ctx.uninit("sorted keys", 8 * n as u64).expect("keys");
    for &it in items {
        let label = format!("sort u64 keys 2^{e} elementwise items {it}");
        let policy = SortPolicy {
            elementwise_items: it,
            ..SortPolicy::default()
        };
        let config = SortConfig::keys(Dtype::U64, n as u64).policy(policy);
        let sorter = match Sorter::new(ctx, config) {
            Ok(s) => s,
            Err(e) => {
                println!("{label}: skipped: {e}");
                continue;
            }
        };
        let run = || -> wgsimd::Result<f64> {
            let mut enc = ctx.encoder();
            wgsimd::EncoderRef::from(&mut enc).copy(
                &(&src).into(),
                &(&keys).into(),
                8 * n as u64,
            )?;
            sorter.record(&mut enc, &keys, None, Count::Host(n as u32))?;
            let t = std::time::Instant::now();
            ctx.submit(enc)?.clean("the sort")?;
            Ok(t.elapsed().as_secs_f64() * 1e9)
        };
        let mut ns = Vec::new();
        for i in 0..repeats + 3 {
            match run() {
                Ok(t) if i >= 3 => ns.push(t),
                Ok(_) => {}
                Err(e) => {
                    println!("{label}: FAIL {e}");
                    break;
                }
            }
        }
        if ns.is_empty() {
            continue;
        }
        let got: Vec<u64> = match ctx.read::<u64>(&keys) {
            Ok(g) => g,
            Err(e) => {
                println!("{label}: FAIL read back: {e}");
                continue;
            }
        };
        if got != want {
            println!("{label}: FAIL (not the reference's order)");
            continue;
        }
        let med = timing::median(&ns);
        println!(
            "{label}: median {:.2} Gkeys/s ({:.4} ms, host clock with the restoring copy) ok",
            n as f64 / med,
            med / 1e6
        );
    }
}

/// Reduce-by-key's `ChunkPolicy` (most workgroups × items): u32 keys in runs of 8 (the
/// yardstick's input), u32 values summed, checked against the runs folded on the CPU.
fn runs_by_key(ctx: &Context, e: f64, grid: &[(u32, u32)], repeats: usize) {
    use wgsimd::fold::ChunkPolicy;
    use wgsimd::reduce::ReduceOp;
    use wgsimd::runs::{Runs, RunsConfig};
    let n = wgsimd_lab::pow2(e) as usize;
    let keys: Vec<u32> = (0..n as u32).map(|i| i / 8).collect();
    let values = wgsimd_lab::random_u32(n, 16);
    let (mut want_keys, mut want_sums) = (Vec::new(), Vec::<u32>::new());
    for (k, v) in keys.iter().zip(&values) {
        if want_keys.last() == Some(k) {
            let s = want_sums.last_mut().expect("a run");
            *s = s.wrapping_add(*v);
        } else {
            want_keys.push(*k);
            want_sums.push(*v);
        }
    }
    let key_buf = ctx.upload("keys", &keys).expect("keys");
    let value_buf = ctx.upload("values", &values).expect("values");
    let keys_out = ctx.uninit("keys_out", 4 * n as u64).expect("keys_out");
    let sums = ctx.uninit("sums", 4 * n as u64).expect("sums");
    let count = ctx.uninit("runs", 4).expect("runs");
    for &(max_workgroups, items) in grid {
        let label =
            format!("reduce-by-key u32 sum 2^{e} workgroups {max_workgroups} items {items}");
        // (one bound at every count: the sweep's)
        let policy = ChunkPolicy::flat(max_workgroups, items);
        let config = RunsConfig::reduce(Dtype::U32, ReduceOp::Sum, Dtype::U32, n as u64);
        let r = match Runs::with_policy(ctx, config, policy) {
            Ok(r) => r,
            Err(e) => {
                println!("{label}: skipped: {e}");
                continue;
            }
        };
        let job = Job {
            passes: r.passes(),
            setup: None,
            record: Box::new(|enc, stamps| {
                let c = Count::Host(n as u32);
                let v = Some((&value_buf).into());
                let a = Some((&sums).into());
                r.record_timed(enc, &key_buf, v, &keys_out, a, &count, c, stamps)
            }),
        };
        let check = |ctx: &Context| {
            let k = ctx.read::<u32>(&count).map_err(|e| e.to_string())?[0] as usize;
            let got_keys = ctx.read::<u32>(&keys_out).map_err(|e| e.to_string())?;
            let got_sums = ctx.read::<u32>(&sums).map_err(|e| e.to_string())?;
            (k == want_keys.len()
                && got_keys[..k] == want_keys[..]
                && got_sums[..k] == want_sums[..])
                .then_some(())
                .ok_or("not the reference's runs".to_string())
        };
        report(ctx, &label, &job, &sums, n, repeats, &check);
    }
}

/// The fold's `ChunkPolicy` (most workgroups × items): the inclusive max-scan and the
/// max-reduction of random u32 by the built-in operator (the CUB yardsticks' cases), checked
/// against the CPU's.
fn folds(ctx: &Context, e: f64, grid: &[(u32, u32)], tiles: &[u32], repeats: usize) {
    use wgsimd::fold::{ChunkPolicy, Operator};
    use wgsimd::reduce::Reducer;
    use wgsimd::scan::Scanner;
    let n = wgsimd_lab::pow2(e) as usize;
    let data = wgsimd_lab::random_u32(n, 17);
    let scanned: Vec<u32> = data
        .iter()
        .scan(0u32, |m, &x| {
            *m = (*m).max(x);
            Some(*m)
        })
        .collect();
    let max = Operator::max(Dtype::U32).expect("max");
    let input = ctx.upload("input", &data).expect("input");
    let out = ctx.uninit("output", 4 * n as u64).expect("output");
    let scan = |label: String, policy: OperatorPolicy| match Scanner::with_operator_policy(
        ctx, &max, true, n as u64, policy,
    ) {
        Ok(s) => {
            let job = Job {
                passes: s.passes(),
                setup: None,
                record: Box::new(|enc, stamps| {
                    s.record_timed(enc, &input, &out, Count::Host(n as u32), stamps)
                }),
            };
            let check = |ctx: &Context| {
                let got = ctx.read::<u32>(&out).map_err(|e| e.to_string())?;
                (got[..n] == scanned[..])
                    .then_some(())
                    .ok_or("not the reference's scan".to_string())
            };
            report(ctx, &label, &job, &out, n, repeats, &check);
        }
        Err(e) => println!("{label}: skipped: {e}"),
    };
    // the chained path by its tiles
    for &tile in tiles {
        let policy = ScanPolicy {
            tile,
            small_tile: tile,
            ..ScanPolicy::for_caps(ctx.caps())
        };
        let label = format!("inclusive max-scan u32 2^{e} chained tile {tile}");
        scan(label, OperatorPolicy::Chained(policy));
    }
    for &(max_workgroups, items) in grid {
        // (one bound at every count: the sweep's)
        let policy = ChunkPolicy::flat(max_workgroups, items);
        let tag = format!("2^{e} workgroups {max_workgroups} items {items}");
        scan(
            format!("inclusive max-scan u32 {tag} two passes"),
            OperatorPolicy::TwoPass(policy),
        );
        let label = format!("max-reduce u32 {tag}");
        match Reducer::with_operator_policy(ctx, &max, n as u64, policy) {
            Ok(r) => {
                let job = Job {
                    passes: r.passes(),
                    setup: None,
                    record: Box::new(|enc, stamps| {
                        r.record_timed(enc, &input, &out, Count::Host(n as u32), stamps)
                    }),
                };
                let check = |ctx: &Context| {
                    let got = ctx.read::<u32>(&out).map_err(|e| e.to_string())?;
                    (got[0] == scanned[n - 1])
                        .then_some(())
                        .ok_or("not the reference's maximum".to_string())
                };
                report(ctx, &label, &job, &out, n, repeats, &check);
            }
            Err(e) => println!("{label}: skipped: {e}"),
        }
    }
}

/// Offsets of `n` keys in segments of lengths drawn uniformly from `lens` (seeded).
fn segment_offsets(n: usize, lens: (u32, u32), seed: u64) -> Vec<u32> {
    let r = wgsimd_lab::random_u32(n, seed);
    let mut o = vec![0u32];
    let mut i = 0;
    while (*o.last().expect("an offset") as usize) < n {
        let l = lens.0 + r[i % n] % (lens.1 - lens.0 + 1);
        i += 1;
        o.push((*o.last().expect("an offset") as usize + l as usize).min(n) as u32);
    }
    o
}

/// The segmented sort's local path bounds (`SortPolicy::segment_tiny_max`, `segment_rank_max`,
/// `segment_local_max`) over u32 pairs in segments of random lengths in a few ranges, each
/// variant timed whole (encoder timestamps around the recording, after an untimed restoring
/// copy) and its keys and values compared with each segment's stable sort.
fn segments(ctx: &Context, e: f64, repeats: usize) {
    use wgsimd::sort::{SortConfig, SortPolicy, Sorter};
    let n = wgsimd_lab::pow2(e) as usize;
    let keys = wgsimd_lab::random_u32(n, 21);
    let values: Vec<u32> = (0..n as u32).collect();
    let src = (
        ctx.upload("keys", &keys).expect("keys"),
        ctx.upload("values", &values).expect("values"),
    );
    let out = (
        ctx.uninit("sorted keys", 4 * n as u64).expect("keys"),
        ctx.uninit("sorted values", 4 * n as u64).expect("values"),
    );
    let d = SortPolicy::default();
    let tiny = |t: u32| SortPolicy {
        segment_tiny_max: t,
        ..d
    };
    let rank = |r: u32| SortPolicy {
        segment_rank_max: r,
        ..d
    };
    let local = |l: u64| SortPolicy {
        segment_local_max: l,
        ..d
    };
    let tinies =
        |ts: &[u32]| -> Variants { ts.iter().map(|&t| (format!("tiny {t}"), tiny(t))).collect() };
    let locals = || -> Variants {
        [0, 3072, 8192, u64::MAX]
            .map(|l| {
                (
                    format!(
                        "local {}",
                        if l == u64::MAX {
                            "max".into()
                        } else {
                            l.to_string()
                        }
                    ),
                    local(l),
                )
            })
            .to_vec()
    };
    type Variants = Vec<(String, SortPolicy)>;
    let shapes: Vec<((u32, u32), Variants)> = vec![
        ((1, 2), tinies(&[0, 4, 8, 16])),
        ((1, 4), tinies(&[0, 4, 8, 16])),
        ((1, 8), tinies(&[0, 4, 8, 16])),
        ((1, 16), tinies(&[0, 4, 8, 16])),
        ((1, 32), tinies(&[0, 8, 16, 32])),
        (
            (1, 256),
            tinies(&[0, 8, 16, 32])
                .into_iter()
                .chain([0, 64, 128].map(|r| (format!("rank {r}"), rank(r))))
                .collect(),
        ),
        ((257, 3072), locals()),
        ((1, 16384), locals()),
    ];
    let only_tiny = wgsimd_lab::has_flag(&wgsimd_lab::args(), "--tiny-only");
    for (lens, variants) in shapes {
        if only_tiny && lens.1 > 32 {
            continue;
        }
        let offsets = segment_offsets(n, lens, 22);
        let want: Vec<(u32, u32)> = wgsimd::reference::sort::segmented_order(&keys, &offsets)
            .into_iter()
            .map(|i| (keys[i as usize], i))
            .collect();
        let ob = ctx.upload("offsets", &offsets).expect("offsets");
        let segs = offsets.len() as u32 - 1;
        for (name, policy) in variants {
            let label = format!(
                "segmented pairs u32 2^{e} lengths {}..{} {name}",
                lens.0, lens.1
            );
            let config = SortConfig::keys(Dtype::U32, n as u64)
                .with_values()
                .segmented(segs)
                .policy(policy);
            let sorter = match Sorter::new(ctx, config) {
                Ok(s) => s,
                Err(e) => {
                    println!("{label}: skipped: {e}");
                    continue;
                }
            };
            let job = Job {
                passes: Vec::new(),
                setup: Some(Box::new(|mut enc: wgsimd::EncoderRef| {
                    enc.copy(&(&src.0).into(), &(&out.0).into(), 4 * n as u64)?;
                    enc.copy(&(&src.1).into(), &(&out.1).into(), 4 * n as u64)
                })),
                record: Box::new(|enc, _| {
                    let c = (Count::Host(segs), Count::Host(n as u32));
                    let v = Some((&out.1).into());
                    sorter.record_segmented(enc, &out.0, v, &ob, c.0, c.1)
                }),
            };
            let check = |ctx: &Context| {
                let k = ctx.read::<u32>(&out.0).map_err(|e| e.to_string())?;
                let v = ctx.read::<u32>(&out.1).map_err(|e| e.to_string())?;
                let same = k
                    .iter()
                    .zip(&v)
                    .map(|(&a, &b)| (a, b))
                    .eq(want.iter().copied());
                same.then_some(())
                    .ok_or("not each segment's stable sort".to_string())
            };
            report(ctx, &label, &job, &out.0, n, repeats, &check);
        }
    }
}

/// Top-k's `TopKPolicy` (`wide_cols`, `wide_workgroups`, `chunk`) over the bench's shapes: the
/// 16 and 1024 largest of 2^e uniform f32 (one row), and at the first size the rows torch's
/// yardsticks time (50 of 64 × 128256, 40 of 256 × 32000, 16 of 4096 × 1024); each variant
/// timed whole and its indices compared with a CPU selection (value in the sort's order, then
/// the lower index).
fn topks(ctx: &Context, e: f64, first: bool, repeats: usize) {
    use wgsimd::reference::topk::topk_indices;
    use wgsimd::topk::{TopK, TopKConfig, TopKPolicy};
    let n = wgsimd_lab::pow2(e) as usize;
    let mut shapes: Vec<(usize, usize, u32)> = vec![(1, n, 16), (1, n, 1024)];
    if first {
        shapes.extend([(64, 128256, 50), (256, 32000, 40), (4096, 1024, 16)]);
    }
    let d = TopKPolicy::default();
    let mut variants: Vec<(String, TopKPolicy)> = vec![("default".into(), d)];
    let grid = wgsimd_lab::has_flag(&wgsimd_lab::args(), "--topk-grid");
    if grid {
        for w in [768, 1024, 1536, 2048] {
            for c in [2048, 4096] {
                let p = TopKPolicy {
                    wide_workgroups: w,
                    chunk: c,
                    ..d
                };
                variants.push((format!("wide_workgroups {w} chunk {c}"), p));
            }
        }
    } else {
        for w in [4096, 8192, 32768, u32::MAX] {
            variants.push((format!("wide_cols {w}"), TopKPolicy { wide_cols: w, ..d }));
        }
        for w in [512, 1024, 4096, 8192] {
            let p = TopKPolicy {
                wide_workgroups: w,
                ..d
            };
            variants.push((format!("wide_workgroups {w}"), p));
        }
        for c in [1024, 4096] {
            variants.push((format!("chunk {c}"), TopKPolicy { chunk: c, ..d }));
        }
    }
    for (rows, cols, k) in shapes {
        let data = wgsimd_lab::random_f32(rows * cols, 31);
        let want: Vec<u32> = (0..rows)
            .flat_map(|r| topk_indices(&data[r * cols..(r + 1) * cols], k as usize, false))
            .collect();
        let input = ctx.upload("input", &data).expect("input");
        let out = 4 * (rows * k as usize) as u64;
        let values = ctx.uninit("values", out).expect("values");
        let indices = ctx.uninit("indices", out).expect("indices");
        for (name, policy) in &variants {
            let label = format!("topk {rows}x{cols} k {k} {name}");
            let config = TopKConfig::largest(Dtype::F32, k, cols as u32);
            let t = match TopK::with_policy(ctx, config, *policy) {
                Ok(t) => t,
                Err(e) => {
                    println!("{label}: skipped: {e}");
                    continue;
                }
            };
            let job = Job {
                passes: Vec::new(),
                setup: None,
                record: Box::new(|enc, _| t.record(enc, &input, &values, &indices, rows as u32)),
            };
            let check = |ctx: &Context| {
                let got = ctx.read::<u32>(&indices).map_err(|e| e.to_string())?;
                (got == want)
                    .then_some(())
                    .ok_or("not the reference's indices".to_string())
            };
            report(ctx, &label, &job, &indices, rows * cols, repeats, &check);
        }
    }
}

fn main() {
    let args = wgsimd_lab::args();
    let sizes: Vec<f64> = wgsimd_lab::list_flag(&args, "--sizes", &[24.0, 28.0]);
    let workgroups: Vec<u32> =
        wgsimd_lab::list_flag(&args, "--workgroups", &[264, 528, 1024, 2112, 4096]);
    let items: Vec<u32> = wgsimd_lab::list_flag(&args, "--items", &[4, 8, 16]);
    let wide_items: Vec<u32> = wgsimd_lab::list_flag(&args, "--wide-items", &[1, 2, 4, 8, 16]);
    let tiles: Vec<u32> = wgsimd_lab::list_flag(&args, "--tiles", &[4096, 8192, 12288, 16384]);
    let only = wgsimd_lab::flag_value(&args, "--only");
    let repeats: usize = wgsimd_lab::flag_value(&args, "--repeats")
        .map(|r| r.parse().expect("--repeats N"))
        .unwrap_or(20);
    let grid: Vec<(u32, u32)> = workgroups
        .iter()
        .flat_map(|&w| items.iter().map(move |&i| (w, i)))
        .collect();
    let ctx = wgsimd_lab::open().expect("a device");
    println!("# {}", wgsimd_lab::describe(&ctx));
    let runs = |what: &str| only.as_deref().is_none_or(|o| o == what);
    for (i, &e) in sizes.iter().enumerate() {
        if runs("topk") {
            topks(&ctx, e, i == 0, repeats);
        }
        if runs("histogram") {
            histograms(&ctx, e, &grid, repeats);
        }
        if runs("select") {
            selections(&ctx, e, &tiles, repeats);
        }
        if runs("wide") {
            wide(&ctx, e, &wide_items, repeats);
        }
        if runs("runs") {
            runs_by_key(&ctx, e, &grid, repeats);
        }
        if runs("fold") {
            folds(&ctx, e, &grid, &tiles, repeats);
        }
        if runs("segments") {
            segments(&ctx, e, repeats);
        }
    }
}
