//! Timing a wgsimd recording as an application would run it: the method of `wgsimd bench`
//! (the CLI) and of the lab's sweeps, in one place.
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
//! - **Verified on poisoned outputs.** After timing, the outputs are filled with poison
//!   ([`poison`]) and the job runs once more ([`run_once`]; the three steps are
//!   [`time_verified`]): that run is the one verified, so a word the timed runs stopped writing
//!   shows.
//! - **A recording that names no passes** (it records several plans, which take per-pass
//!   timestamps only, or none) is timed whole by two timestamps the encoder writes around it,
//!   where the device writes timestamps inside encoders: the host clock over batches counted
//!   the untimed setup (e.g. a sort's restored input) and the submissions too.
//! - Without timestamp queries, and on the simulator, the host clock times batches of runs
//!   (each repeat a batch of about 10 ms, a sample per repeat).

use std::time::Instant;

use wgsimd::gpu::{GpuContext, Timestamps};
use wgsimd::plan::POISON_WORD;
use wgsimd::{Buffer, BufferRef, Context, Encoder, EncoderRef, Report};

/// Records one timed run, with timestamps where given.
pub type Record<'a> = Box<dyn Fn(EncoderRef, Option<Timestamps>) -> wgsimd::Result<()> + 'a>;
/// Records what a run needs before it and is not timed (e.g. restoring the input a sort
/// consumes).
pub type Setup<'a> = Box<dyn Fn(EncoderRef) -> wgsimd::Result<()> + 'a>;

/// What is timed: a recording and its untimed setup.
pub struct Job<'a> {
    /// Labels of the recorded passes (two timestamps each); none: timed whole by timestamps
    /// the encoder writes around the recording, or where the device cannot, by the host clock
    /// over batches of runs in one submission.
    pub passes: Vec<String>,
    /// Untimed preparation before each run.
    pub setup: Option<Setup<'a>>,
    /// The timed recording.
    pub record: Record<'a>,
}

/// How times were measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeSource {
    /// GPU timestamp queries: around each pass, or around a recording that names no passes.
    Timestamps,
    /// Host wall clock around submit-and-wait (includes submission overhead).
    Host,
}

/// Timings of repeated runs of one case.
#[derive(Clone, Debug)]
pub struct Timing {
    /// How the times were taken.
    pub source: TimeSource,
    /// Labels of the recorded passes.
    pub pass_labels: Vec<String>,
    /// For each repeat, nanoseconds per pass (empty with host timing and for a recording that
    /// names no passes).
    pub pass_ns: Vec<Vec<f64>>,
    /// For each repeat, nanoseconds of the whole run.
    pub total_ns: Vec<f64>,
}

impl Timing {
    /// Median of the totals.
    pub fn median_ns(&self) -> f64 {
        median(&self.total_ns)
    }
    /// Minimum of the totals.
    pub fn min_ns(&self) -> f64 {
        self.total_ns.iter().copied().fold(f64::INFINITY, f64::min)
    }
    /// Median per pass.
    pub fn pass_median_ns(&self) -> Vec<f64> {
        (0..self.pass_labels.len())
            .map(|i| {
                median(
                    &self
                        .pass_ns
                        .iter()
                        .filter_map(|r| r.get(i).copied())
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    }
}

/// Median of a sample (NaN for an empty one).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        0.5 * (s[m - 1] + s[m])
    }
}

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
/// from `r * per_run`: after the setup (where the encoder can), then the recording's own, or
/// for a job that names no passes, one after the recording.
fn record_runs(
    job: &Job,
    enc: &mut Encoder,
    runs: usize,
    stamps: Option<(&wgpu::QuerySet, u32, bool, bool)>,
) -> wgsimd::Result<()> {
    for r in 0..runs {
        if let Some(setup) = &job.setup {
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
        if job.passes.is_empty() {
            (job.record)(EncoderRef::from(&mut *enc), None)?;
            if let (Some(ts), Encoder::Gpu(e)) = (ts, &mut *enc) {
                e.write_timestamp(ts.set, ts.first);
            }
        } else {
            (job.record)(EncoderRef::from(&mut *enc), ts)?;
        }
    }
    Ok(())
}

/// Whether the device writes timestamps inside encoders (between passes).
fn inside_encoders(g: &GpuContext) -> bool {
    g.device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
}

/// Submits `runs` runs (one encoder) and waits.
fn batch(ctx: &Context, job: &Job, runs: usize) -> wgsimd::Result<()> {
    let mut enc = ctx.encoder();
    record_runs(job, &mut enc, runs, None)?;
    ctx.submit(enc)?;
    Ok(())
}

/// Times `job` on `ctx` (see the module docs): at least `warmup` untimed runs, then `repeats`
/// timed ones. The caller then poisons the outputs and verifies a [`run_once`].
///
/// A reduction, timed and then verified (on the simulator, by the host clock):
/// ```
/// use wgsimd::{dtype::Dtype, reduce::{ReduceOp, Reducer, Scalar}, Context, Count};
/// use wgsimd_timing::{poison, run_once, time, Job, TimeSource};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let sum = Reducer::new(&ctx, ReduceOp::Sum, Dtype::U32, 1 << 12)?;
/// let input = ctx.upload("input", &vec![3u32; 1000])?;
/// let result = ctx.zeroed("result", sum.result_bytes())?;
/// let job = Job {
///     passes: sum.passes(),
///     setup: None,
///     record: Box::new(|enc, stamps| {
///         sum.record_timed(enc, &input, &result, Count::Host(1000), stamps)
///     }),
/// };
/// let t = time(&ctx, &job, 1, 3)?;
/// assert_eq!((t.source, t.total_ns.len()), (TimeSource::Host, 3));
/// poison(&ctx, &result)?;
/// run_once(&ctx, &job)?.clean("the verified run")?;
/// assert_eq!(sum.decode(&ctx.read::<u32>(&result)?)?, Scalar::U64(3000));
/// # Ok(()) }
/// ```
pub fn time(ctx: &Context, job: &Job, warmup: usize, repeats: usize) -> wgsimd::Result<Timing> {
    // (a case that names no passes records none that take timestamps: timed by the
    // encoder's timestamps around it, or by the host clock over batches of runs)
    let gpu = ctx.gpu().filter(|g| {
        g.caps.timestamps && !ctx.is_simulator() && (!job.passes.is_empty() || inside_encoders(g))
    });
    let mut per_run_s = {
        let t = Instant::now();
        batch(ctx, job, 1)?;
        t.elapsed().as_secs_f64().max(1e-6)
    };
    let repeats = repeats.max(1);
    let timing = if ctx.is_simulator() {
        let mut total_ns = Vec::with_capacity(repeats);
        for _ in 0..repeats {
            let t = Instant::now();
            batch(ctx, job, 1)?;
            total_ns.push(t.elapsed().as_secs_f64() * 1e9);
        }
        Timing {
            source: TimeSource::Host,
            pass_labels: job.passes.clone(),
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
            batch(ctx, job, k)?;
            per_run_s = (t.elapsed().as_secs_f64() / k as f64).max(1e-6);
            history.push((start.elapsed().as_secs_f64(), per_run_s));
            done += k;
        }
        match gpu {
            Some(g) => stamped(g, ctx, job, repeats)?,
            None => {
                let k = runs_in(0.01, per_run_s);
                let mut total_ns = Vec::with_capacity(repeats);
                for _ in 0..repeats {
                    let t = Instant::now();
                    batch(ctx, job, k)?;
                    total_ns.push(t.elapsed().as_secs_f64() * 1e9 / k as f64);
                }
                Timing {
                    source: TimeSource::Host,
                    pass_labels: job.passes.clone(),
                    pass_ns: Vec::new(),
                    total_ns,
                }
            }
        }
    };
    Ok(timing)
}

/// Per-pass and whole-run timestamps of `repeats` runs each, queued back to back.
fn stamped(g: &GpuContext, ctx: &Context, job: &Job, repeats: usize) -> wgsimd::Result<Timing> {
    let passes = job.passes.len() as u32;
    // (a job without passes is timed from a timestamp the encoder writes before it: `time`
    // takes it here only where the device writes them)
    let after_setup = (job.setup.is_some() || passes == 0) && inside_encoders(g);
    let extra = u32::from(after_setup);
    // wgpu caps a query set at 4096 queries
    let per_pass = 2 * passes + extra;
    // (without passes: the encoder's two, before and after the recording)
    let per_whole = if passes == 0 { 2 } else { 2 + extra };
    let repeats = repeats.clamp(1, (4096 / per_pass.max(per_whole)) as usize);
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
            job,
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
    let ticks = if passes == 0 {
        Vec::new()
    } else {
        read(per_pass, false)?
    };
    let whole = read(per_whole, true)?;
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
    for run in whole.chunks(per_whole as usize) {
        let (setup_end, s) = if after_setup && passes > 0 {
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
        pass_labels: job.passes.clone(),
        pass_ns,
        total_ns,
    })
}

/// Times `job` ([`time`]), then fills `outputs` with poison and records one more run
/// ([`run_once`]): the timings and that run's report, for the caller to verify the outputs.
pub fn time_verified(
    ctx: &Context,
    job: &Job,
    outputs: &[Buffer],
    warmup: usize,
    repeats: usize,
) -> wgsimd::Result<(Timing, Report)> {
    let timing = time(ctx, job, warmup, repeats)?;
    for out in outputs {
        poison(ctx, out)?;
    }
    Ok((timing, run_once(ctx, job)?))
}

/// Records and submits one run of `job` (the one the caller verifies), returning its report
/// (the simulator's findings).
pub fn run_once(ctx: &Context, job: &Job) -> wgsimd::Result<Report> {
    let mut enc = ctx.encoder();
    record_runs(job, &mut enc, 1, None)?;
    ctx.submit(enc)
}

/// Fills `buf` with [`POISON_WORD`] through the queue (before the next submission).
pub fn poison(ctx: &Context, buf: &Buffer) -> wgsimd::Result<()> {
    let words = (buf.size() / 4) as usize;
    let bytes = bytemuck::cast_slice::<u32, u8>(&vec![POISON_WORD; words]).to_vec();
    ctx.write_buffer(&BufferRef::from(buf), &bytes)
}
