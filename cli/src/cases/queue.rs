//! Benchmark cases of the work queue: one submission draining a task tree, with and without the
//! latency clock (so the clock's own cost shows as the difference in tasks/s between the two
//! rows), and the queue's latency on an otherwise idle device by the device's clock. The plan's
//! state buffers are the case's: an untimed setup restores them from pristine copies before
//! each run, and verification checks that the run counted exactly its own rounds.

use std::rc::Rc;

use crate::case::{size_label, Case, Work};
use crate::timing::median;
use wgsimd::context::Prepared;
use wgsimd::gpu::clock::ClockProbe;
use wgsimd::gpu::GpuContext;
use wgsimd::queue::latency::active_ns;
use wgsimd::queue::{
    build, check, ClockLatency, Latency, QueueLayout, QueuePlan, QueuePolicy, QueueProblem,
    QueueState, Spread,
};
use wgsimd::{Buffer, BufferRef, Context, Encoder, EncoderRef, Result};

/// A run of a restored plan counted exactly its own rounds (a run on a drained, unrestored queue
/// would find every task done and count twice as many).
pub fn check_restored(state: &QueueState, rounds: u32) -> std::result::Result<(), String> {
    match state.ctl[state.layout.ctl_round] {
        r if r == rounds => Ok(()),
        r => Err(format!(
            "{r} rounds since the state was set, want {rounds}: not restored before the run"
        )),
    }
}

/// One submission's plan on the case's own state buffers, restorable.
struct Runner {
    qp: QueuePlan,
    prepared: Prepared,
    pristine: Vec<Buffer>,
    live: Vec<Buffer>,
}

impl Runner {
    fn new(ctx: &Context, problem: &QueueProblem, policy: &QueuePolicy) -> Result<Runner> {
        let layout = QueueLayout::of(ctx.caps().flavor())?;
        let initial =
            QueueState::initial(&layout, problem.n_tasks, policy.capacity, policy.latency);
        let qp = build(ctx.caps(), problem, policy, None)?;
        let prepared = ctx.prepare(qp.plan.clone())?;
        // pristine and live state buffers, in the plan's order
        let mut pristine: Vec<Buffer> = Vec::new();
        let mut live: Vec<Buffer> = Vec::new();
        for (id, w) in qp.state_args().into_iter().zip(qp.state_words(&initial)?) {
            let label = &qp.plan.buffers[id.0].label;
            pristine.push(ctx.upload(&format!("pristine {label}"), &w)?);
            live.push(ctx.zeroed(label, w.len() as u64 * 4)?);
        }
        Ok(Runner {
            qp,
            prepared,
            pristine,
            live,
        })
    }

    /// The untimed setup: the state as it was before the first run.
    fn restore(&self, mut enc: EncoderRef) -> Result<()> {
        for (src, dst) in self.pristine.iter().zip(&self.live) {
            enc.copy(&src.into(), &dst.into(), src.size())?;
        }
        Ok(())
    }

    fn record(&self, enc: EncoderRef, stamps: Option<wgsimd::Timestamps>) -> Result<()> {
        let args: Vec<_> = self
            .qp
            .state_args()
            .into_iter()
            .zip(self.live.iter().map(BufferRef::from))
            .collect();
        self.prepared.record(enc, &args, stamps)
    }

    fn read(&self, ctx: &Context) -> std::result::Result<QueueState, String> {
        let words = self
            .live
            .iter()
            .map(|b| ctx.read::<u32>(b))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| e.to_string())?;
        self.qp.state_from(words).map_err(|e| e.to_string())
    }

    /// An encoder holding one untimed run from the restored state.
    fn recorded(&self, ctx: &Context) -> std::result::Result<Encoder, String> {
        let mut enc = ctx.encoder();
        self.restore((&mut enc).into()).map_err(|e| e.to_string())?;
        self.record((&mut enc).into(), None)
            .map_err(|e| e.to_string())?;
        Ok(enc)
    }

    /// One untimed run from the restored state.
    fn run(&self, ctx: &Context) -> std::result::Result<QueueState, String> {
        ctx.submit(self.recorded(ctx)?).map_err(|e| e.to_string())?;
        self.read(ctx)
    }

    /// [`Runner::run`] on a wgpu device, the restore submitted and finished first, with the
    /// device's timestamp time line read from the host just before the run's `queue.submit` (its
    /// command buffer finished): the host's enqueue; and how long the `queue.submit` call took on
    /// the host, ns.
    fn run_from_submit(
        &self,
        ctx: &Context,
        gpu: &GpuContext,
    ) -> std::result::Result<(QueueState, u64, f64), String> {
        let mut restore = ctx.encoder();
        self.restore((&mut restore).into())
            .map_err(|e| e.to_string())?;
        ctx.submit(restore).map_err(|e| e.to_string())?;
        let mut run = ctx.encoder();
        self.record((&mut run).into(), None)
            .map_err(|e| e.to_string())?;
        let Encoder::Gpu(enc) = run else {
            return Err("not a wgpu device".into());
        };
        let (submitted, call_ns) = gpu.submit_timed(enc).map_err(|e| e.to_string())?;
        Ok((self.read(ctx)?, submitted, call_ns))
    }
}

/// What a case reports beyond tasks/s.
#[derive(Clone, Copy)]
enum Figures {
    None,
    /// The host's enqueue to the first task's start, over [`SAMPLES`] runs ([`host_figures`]).
    Host,
    /// Percentiles of the logical clock.
    Ticks,
    /// Percentiles by the device's clock at `units_per_ns`: through the ring, or of spilled
    /// children, over `runs` runs.
    Clock {
        probe: ClockProbe,
        spilled: bool,
        runs: usize,
    },
}

/// A case of one submission of `problem` under `policy`.
fn case(
    ctx: &Context,
    problem: QueueProblem,
    policy: QueuePolicy,
    variant: String,
    figures: Figures,
) -> Result<Case> {
    let runner = Rc::new(Runner::new(ctx, &problem, &policy)?);
    let rounds = policy.rounds;
    let n_tasks = problem.n_tasks;
    let r = runner.clone();
    let setup: crate::case::Setup = Box::new(move |enc| r.restore(enc));
    let r = runner.clone();
    let record: crate::case::Record = Box::new(move |enc, stamps| r.record(enc, stamps));
    let r = runner.clone();
    let extra: Option<crate::case::Extra> = match figures {
        Figures::None => None,
        Figures::Host => Some(Box::new(move |ctx, _| host_figures(&r, ctx))),
        Figures::Ticks => Some(Box::new(move |ctx, timing| {
            let Ok(state) = r.read(ctx) else {
                return Vec::new();
            };
            let Ok(l) = Latency::from_state(&state) else {
                return Vec::new();
            };
            // the rounds that ticked, by GPU timestamps per pass; else the whole run
            let run_ns = active_ns(&state, rounds, &timing.pass_median_ns())
                .unwrap_or_else(|| timing.median_ns());
            let l = l.with_run_ns(run_ns);
            vec![
                ("p50 latency ticks".into(), l.p50_ticks as f64),
                ("p99 latency ticks".into(), l.p99_ticks as f64),
                ("p50 latency ns".into(), l.p50_ns.unwrap_or(f64::NAN)),
                ("p99 latency ns".into(), l.p99_ns.unwrap_or(f64::NAN)),
            ]
        })),
        Figures::Clock {
            probe,
            spilled,
            runs,
        } => {
            let problem = problem.clone();
            Some(Box::new(move |ctx, _| {
                let mut samples = Vec::new();
                for _ in 0..runs {
                    // only a complete run's clock words are all written
                    let Ok(state) = r.run(ctx) else {
                        return Vec::new();
                    };
                    let (Ok(()), Ok((ring, spill))) =
                        (check(&problem, &state), ClockLatency::samples(&state))
                    else {
                        return Vec::new();
                    };
                    samples.extend(if spilled { spill } else { ring });
                }
                let mut f = spread_ns(Spread::of(samples), probe.units_per_ns);
                f.push(("clock units per ns".into(), probe.units_per_ns));
                f.push((
                    "clock on the timestamps' time line".into(),
                    f64::from(u8::from(probe.same_timeline)),
                ));
                // where the clock stood against the timestamps (ns, at one unit a ns)
                f.push((
                    "clock minus timestamp at the probe's start, ns".into(),
                    probe.clock[0] as f64 - probe.timestamps_ns[0] as f64,
                ));
                f
            }))
        }
    };
    let r = runner.clone();
    let latency = policy.latency && !policy.device_clock;
    Ok(Case {
        algorithm: "queue".into(),
        variant,
        size: n_tasks as u64,
        size_label: size_label(n_tasks as u64),
        work: Work::Tasks(n_tasks as f64),
        passes: runner
            .prepared
            .plan()
            .passes
            .iter()
            .map(|p| p.label.clone())
            .collect(),
        setup: Some(setup),
        record,
        outputs: Vec::new(),
        verify: Box::new(move |ctx| {
            let state = r.read(ctx)?;
            check(&problem, &state)?;
            check_restored(&state, rounds)?;
            if latency {
                Latency::from_state(&state).map(|_| ())?;
            }
            Ok(())
        }),
        extra,
    })
}

/// Samples, p50, p99 and max of `s` (in clock units) in ns.
fn spread_ns(s: Spread, units_per_ns: f64) -> Vec<(String, f64)> {
    vec![
        ("latency samples".into(), s.samples as f64),
        ("p50 latency ns".into(), s.p50 as f64 / units_per_ns),
        ("p99 latency ns".into(), s.p99 as f64 / units_per_ns),
        ("max latency ns".into(), s.max as f64 / units_per_ns),
    ]
}

/// Benchmark cases: a task tree (fanout 4, 64 words per task) drained in one submission, plain
/// and with the latency clock (enqueue-to-start p50/p99 in ticks, and ns by the run's average
/// tick rate, as extra figures); at 2^20 also the latency cases ([`latency_cases`]). `n`
/// elements become `n / 64` tasks; sizes past 2^20 tasks give no case.
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    if n / 64 > 1 << 20 {
        return Ok(Vec::new());
    }
    let caps = ctx.caps();
    let n_tasks = (n / 64).max(1) as u32;
    let mut cases = Vec::new();
    for latency in [false, true] {
        let policy = QueuePolicy {
            // a spill frontier advances about one tree level per round; fanout 4 over ≤ 2^20
            // tasks is ≤ 10 levels
            rounds: 16,
            latency,
            ..QueuePolicy::for_caps(caps)
        };
        let variant = format!(
            "task tree fanout 4, 64 words/task, {} wg{}",
            policy.workgroups,
            if latency { ", clock" } else { "" }
        );
        let problem = QueueProblem::random(n_tasks, 64, 4, seed);
        let figures = if latency {
            Figures::Ticks
        } else {
            Figures::None
        };
        cases.push(case(ctx, problem, policy, variant, figures)?);
    }
    if n == 1 << 20 {
        cases.extend(latency_cases(ctx, seed)?);
    }
    Ok(cases)
}

/// Hand-offs each latency case measures.
const SAMPLES: u32 = 1024;

/// The queue's enqueue-to-start latency on an otherwise idle device, by the device's clock
/// (none where the context has no clock: `Context::open_gpu_with_clock`, and the timestamp
/// queries its units are measured against), 1024 samples each:
/// - **from a running task**: a chain (each task pushes one child, 4 words each), so one task is
///   in flight and the rest of the persistent kernel polls an empty ring;
/// - **child launch**: the same chain with every child spilled (`QueuePolicy::spill_all`): a
///   hop is the persistent pass ending and the child dispatch's first instruction; 129 tasks a
///   run (a round per hop), 8 runs;
/// - **from the host**: a queue of one task, submitted 1024 times (each after a submission of its
///   own that restored the state): the device's timestamp time line read from the host just
///   before `queue.submit` (the command buffer finished), to the task's first instruction on the
///   device's clock (only where the two are one time line: `ClockProbe::same_timeline`); beside
///   it the same for a bare pass of one invocation that reads the clock (the floor under any
///   kernel's), alternated with the queue's runs.
pub fn latency_cases(ctx: &Context, seed: u64) -> Result<Vec<Case>> {
    let Some(gpu) = ctx.gpu().filter(|g| g.has_clock() && g.caps.timestamps) else {
        return Ok(Vec::new());
    };
    let probe = gpu.probe_clock()?;
    let base = QueuePolicy {
        latency: true,
        device_clock: true,
        ..QueuePolicy::for_caps(ctx.caps())
    };
    let wg = base.workgroups;
    let chain = |n: u32| QueueProblem::random(n, 4, 1, seed);
    let mut cases = vec![
        case(
            ctx,
            chain(SAMPLES + 1),
            // one round on a big GPU; a CPU adapter's loop budget ends each round after a few dozen
            QueuePolicy { rounds: 64, ..base },
            format!("latency from a task, chain, {wg} wg, device clock"),
            Figures::Clock {
                probe,
                spilled: false,
                runs: 1,
            },
        )?,
        case(
            ctx,
            chain(129),
            QueuePolicy {
                rounds: 130,
                spill_all: true,
                ..base
            },
            format!("latency of a child launch, chain, {wg} wg, device clock"),
            Figures::Clock {
                probe,
                spilled: true,
                runs: (SAMPLES / 128) as usize,
            },
        )?,
    ];
    if probe.same_timeline {
        cases.push(case(
            ctx,
            QueueProblem::random(1, 4, 1, 1),
            QueuePolicy { rounds: 1, ..base },
            format!("latency from the host, one task, {wg} wg, device clock"),
            Figures::Host,
        )?);
    }
    Ok(cases)
}

/// The host's enqueue (see [`latency_cases`]): a one-task queue submitted [`SAMPLES`] times,
/// each from the restored state; after each, the floor: a bare pass of one invocation that reads
/// the clock, submitted alone (`GpuContext::bare_submit`), from the host's moment to its first
/// instruction.
fn host_figures(runner: &Runner, ctx: &Context) -> Vec<(String, f64)> {
    let Some(gpu) = ctx.gpu() else {
        return Vec::new();
    };
    // the host's moment on the clock (one time line in ns) to a start, low words; None if the
    // start is not after it
    let after = |host: u64, start: u32| {
        let d = start.wrapping_sub(host as u32);
        (d < 1 << 31).then_some(d)
    };
    let (mut samples, mut bare, mut calls, mut bare_calls) = (vec![], vec![], vec![], vec![]);
    for _ in 0..SAMPLES {
        let Ok((state, host_ns, call_ns)) = runner.run_from_submit(ctx, gpu) else {
            return Vec::new();
        };
        let Ok(c) = ClockLatency::from_state(&state) else {
            return Vec::new();
        };
        let Ok((host, start, call)) = gpu.bare_submit() else {
            return Vec::new();
        };
        let (Some(d), Some(b)) = (after(host_ns, c.root_start), after(host, start as u32)) else {
            return Vec::new();
        };
        samples.push(d);
        calls.push(call_ns);
        bare.push(b);
        bare_calls.push(call);
    }
    let floor = Spread::of(bare);
    let mut f = spread_ns(Spread::of(samples), 1.0);
    f.push(("queue.submit call p50 ns".into(), median(&calls)));
    f.push(("bare pass p50 ns".into(), floor.p50 as f64));
    f.push(("bare pass p99 ns".into(), floor.p99 as f64));
    f.push((
        "bare pass's queue.submit call p50 ns".into(),
        median(&bare_calls),
    ));
    f
}
