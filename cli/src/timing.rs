//! Timing a case's recording, as an application would run it.
//!
//! Rules (each learned on the H100; docs/benchmarks.md has the figures):
//! - **Runs queue back to back.** Runs are submitted without a host round trip between them: a
//!   read-back between runs lets the clocks drop (it halved measured bandwidth).
//! - **Warm up until settled.** Batches of about 20 ms of runs until at least the asked warm-up
//!   runs and 100 ms have passed and one run has not become faster by more than 1.5% over the
//!   last 250 ms (4 s at most): after a large transfer or seconds of host work the GPU came back
//!   to full speed only gradually (a fixed 100 ms measured one reduction at 1.5 and at 2.9 TB/s).
//!   The process's first case warms up for at least a second: with 100 ms the first row of a
//!   call, whichever case it was, ran 1.6–2.7× slower than its twin timed next (2^20 sorts and a
//!   reduction, H100, 2026-11-27).
//! - **Per-pass and whole-run timestamps, separately.** The per-pass breakdown comes from runs
//!   with timestamps around every pass; the totals from runs with two timestamps each (the
//!   per-pass ones and their barriers cost a tiny pass about 13 µs).
//! - **A pass starts where the one before ended.** Begin timestamps can run ahead of queued
//!   work (with runs back to back they doubled apparent kernel times), so a pass is timed from
//!   the end of the pass before it, and a run's first pass from the end of its untimed setup
//!   (a timestamp written after it) or of the run before.
//! - **Verified on poisoned outputs.** After timing, one more run on outputs filled with poison
//!   is the one verified, so a word the timed runs stopped writing shows.
//! - Without timestamp queries, and on the simulator, the host clock times batches of runs
//!   (each repeat a batch of about 10 ms, a sample per repeat).

use std::time::Instant;

use wgsimd::gpu::{GpuContext, Timestamps};
use wgsimd::{Context, Encoder, EncoderRef};

use crate::case::{poison, Case};
use crate::times::{TimeSource, Timing};

/// Least warm-up, seconds.
const WARMUP_MIN_S: f64 = 0.1;
/// Least warm-up of the process's first case, seconds.
const FIRST_WARMUP_MIN_S: f64 = 1.0;
/// Whether a case has been warmed up in this process.
static WARMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Longest warm-up, seconds.
const WARMUP_MAX_S: f64 = 4.0;
/// The warm-up ends when one run got no faster over this many seconds.
const SETTLE_S: f64 = 0.25;

/// Runs in a batch of about `secs` at `per_run_s` seconds a run (at least one, at most 1000).
fn runs_in(secs: f64, per_run_s: f64) -> usize {
    ((secs / per_run_s).ceil() as usize).clamp(1, 1000)
}

/// Records `runs` runs of `c` into `enc`; with `stamps`, run r writes `per_run` timestamps
/// from `r * per_run`: after the setup (where the encoder can), then the recording's own.
fn record_runs(
    c: &Case,
    enc: &mut Encoder,
    runs: usize,
    stamps: Option<(&wgpu::QuerySet, u32, bool, bool)>,
) -> wgsimd::Result<()> {
    for r in 0..runs {
        if let Some(setup) = &c.setup {
            setup(EncoderRef::from(&mut *enc))?;
        }
        let ts = stamps.map(|(set, per_run, whole, after_setup)| {
            let base = r as u32 * per_run;
            if let (true, Encoder::Gpu(e)) = (after_setup, &mut *enc) {
                e.write_timestamp(set, base);
            }
            Timestamps {
                set,
                first: base + u32::from(after_setup),
                whole,
            }
        });
        (c.record)(EncoderRef::from(&mut *enc), ts)?;
    }
    Ok(())
}

/// Submits `runs` runs (one encoder) and waits.
fn batch(ctx: &Context, c: &Case, runs: usize) -> wgsimd::Result<()> {
    let mut enc = ctx.encoder();
    record_runs(c, &mut enc, runs, None)?;
    ctx.submit(enc)?;
    Ok(())
}

/// Times `c` on `ctx` (see the module docs), then runs it once more on poisoned outputs for the
/// caller to verify. Returns the timings and the findings of that run (the simulator's).
pub fn time(
    ctx: &Context,
    c: &Case,
    warmup: usize,
    repeats: usize,
) -> wgsimd::Result<(Timing, Vec<wgsimd::finding::Finding>)> {
    // (a case that names no passes records none that take timestamps: timed by the host
    // clock over batches of runs in one submission)
    let gpu = ctx
        .gpu()
        .filter(|g| g.caps.timestamps && !ctx.is_simulator() && !c.passes.is_empty());
    let mut per_run_s = {
        let t = Instant::now();
        batch(ctx, c, 1)?;
        t.elapsed().as_secs_f64().max(1e-6)
    };
    let repeats = repeats.max(1);
    let timing = if ctx.is_simulator() {
        let mut total_ns = Vec::with_capacity(repeats);
        for _ in 0..repeats {
            let t = Instant::now();
            batch(ctx, c, 1)?;
            total_ns.push(t.elapsed().as_secs_f64() * 1e9);
        }
        Timing {
            source: TimeSource::Host,
            pass_labels: c.passes.clone(),
            pass_ns: Vec::new(),
            total_ns,
        }
    } else {
        // warm up
        let least = if WARMED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            WARMUP_MIN_S
        } else {
            FIRST_WARMUP_MIN_S
        };
        let start = Instant::now();
        let mut done = 0;
        let mut history: Vec<(f64, f64)> = Vec::new();
        loop {
            let elapsed = start.elapsed().as_secs_f64();
            // CPU devices' timings are too noisy (and their clocks need no ramp) to wait for
            let settled = ctx.caps().is_cpu()
                || history
                    .iter()
                    .rev()
                    .find(|(t, _)| *t <= elapsed - SETTLE_S)
                    .is_some_and(|&(_, then)| per_run_s >= then / 1.015);
            if (done >= warmup && elapsed >= least && settled) || elapsed >= WARMUP_MAX_S {
                break;
            }
            let k = runs_in(0.02, per_run_s);
            let t = Instant::now();
            batch(ctx, c, k)?;
            per_run_s = (t.elapsed().as_secs_f64() / k as f64).max(1e-6);
            history.push((start.elapsed().as_secs_f64(), per_run_s));
            done += k;
        }
        match gpu {
            Some(g) => stamped(g, ctx, c, repeats)?,
            None => {
                let k = runs_in(0.01, per_run_s);
                let mut total_ns = Vec::with_capacity(repeats);
                for _ in 0..repeats {
                    let t = Instant::now();
                    batch(ctx, c, k)?;
                    total_ns.push(t.elapsed().as_secs_f64() * 1e9 / k as f64);
                }
                Timing {
                    source: TimeSource::Host,
                    pass_labels: c.passes.clone(),
                    pass_ns: Vec::new(),
                    total_ns,
                }
            }
        }
    };
    // the verified run, on poisoned outputs
    for out in &c.outputs {
        poison(ctx, out)?;
    }
    let mut enc = ctx.encoder();
    record_runs(c, &mut enc, 1, None)?;
    let report = ctx.submit(enc)?;
    Ok((timing, report.findings))
}

/// Per-pass and whole-run timestamps of `repeats` runs each, queued back to back.
fn stamped(g: &GpuContext, ctx: &Context, c: &Case, repeats: usize) -> wgsimd::Result<Timing> {
    let passes = c.passes.len() as u32;
    let after_setup = c.setup.is_some()
        && g.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
    let extra = u32::from(after_setup);
    // wgpu caps a query set at 4096 queries
    let per_pass = 2 * passes + extra;
    let repeats = repeats.clamp(1, (4096 / per_pass.max(1)) as usize);
    let read = |per_run: u32, whole: bool| -> wgsimd::Result<Vec<u64>> {
        let count = per_run * repeats as u32;
        let set = g.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = g.create_buffer(
            "timestamps",
            8 * count as u64,
            wgpu::BufferUsages::QUERY_RESOLVE,
        )?;
        let mut enc = ctx.encoder();
        record_runs(
            c,
            &mut enc,
            repeats,
            Some((&set, per_run, whole, after_setup)),
        )?;
        if let wgsimd::Encoder::Gpu(e) = &mut enc {
            e.resolve_query_set(&set, 0..count, &resolve, 0);
        }
        ctx.submit(enc)?;
        let bytes = g.download(&resolve, 0, 8 * count as u64)?;
        resolve.destroy();
        set.destroy();
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    };
    let ticks = read(per_pass, false)?;
    let whole = read(2 + extra, true)?;
    let period = g.queue.get_timestamp_period() as f64;
    let mut pass_ns = Vec::with_capacity(repeats);
    let mut prev_end: Option<u64> = None;
    for run in ticks.chunks(per_pass as usize) {
        let (setup_end, stamps) = if after_setup {
            (Some(run[0]), &run[1..])
        } else {
            (None, run)
        };
        let mut per = Vec::with_capacity(passes as usize);
        for (i, s) in stamps.chunks(2).enumerate() {
            // inside a run, passes chain end to end; the first starts no earlier than the
            // setup or the run before ended
            let start = match (i, prev_end, setup_end) {
                (0, _, Some(e)) => s[0].max(e),
                (0, Some(e), None) => s[0].max(e),
                (0, None, None) => s[0],
                (_, Some(e), _) => e,
                (_, None, _) => s[0],
            };
            prev_end = Some(s[1]);
            per.push(s[1].saturating_sub(start) as f64 * period);
        }
        pass_ns.push(per);
    }
    let mut total_ns = Vec::with_capacity(repeats);
    let mut prev_end: Option<u64> = None;
    for run in whole.chunks((2 + extra) as usize) {
        let (setup_end, s) = if after_setup {
            (Some(run[0]), &run[1..])
        } else {
            (None, run)
        };
        let start = [Some(s[0]), setup_end, prev_end]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(s[0]);
        prev_end = Some(s[1]);
        total_ns.push(s[1].saturating_sub(start) as f64 * period);
    }
    Ok(Timing {
        source: TimeSource::Timestamps,
        pass_labels: c.passes.clone(),
        pass_ns,
        total_ns,
    })
}
