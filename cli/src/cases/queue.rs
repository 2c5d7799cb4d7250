//! Benchmark cases of the work queue: one submission draining a task tree, with and without the
//! latency clock (so the clock's own cost shows as the difference in tasks/s between the two
//! rows). The plan's state buffers are the case's: an untimed setup restores them from pristine
//! copies before each run, and verification checks that the run counted exactly its own rounds.

use std::rc::Rc;

use crate::case::{size_label, Case, Work};
use wgsimd::queue::latency::active_ns;
use wgsimd::queue::{build, check, Latency, QueueLayout, QueuePolicy, QueueProblem, QueueState};
use wgsimd::{Buffer, BufferRef, Context, EncoderRef, Result};

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

/// Benchmark cases: a task tree (fanout 4, 64 words per task) drained in one submission, plain
/// and with the latency clock (enqueue-to-start p50/p99 in ticks, and ns by the run's average
/// tick rate, as extra figures). `n` elements become `n / 64` tasks; sizes past 2^20 tasks
/// give no case.
pub fn bench_cases(ctx: &Context, n: u64, seed: u64) -> Result<Vec<Case>> {
    if n / 64 > 1 << 20 {
        return Ok(Vec::new());
    }
    let caps = ctx.caps();
    let n_tasks = (n / 64).max(1) as u32;
    // a spill frontier advances about one tree level per round; fanout 4 over ≤ 2^20 tasks is
    // ≤ 10 levels
    let rounds = 16;
    let mut cases = Vec::new();
    for latency in [false, true] {
        let problem = QueueProblem::random(n_tasks, 64, 4, seed);
        let policy = QueuePolicy {
            rounds,
            latency,
            ..QueuePolicy::for_caps(caps)
        };
        let layout = QueueLayout::of(caps.flavor())?;
        let initial = QueueState::initial(&layout, n_tasks, policy.capacity, latency);
        let qp = Rc::new(build(caps, &problem, &policy, None)?);
        let prepared = Rc::new(ctx.prepare(qp.plan.clone())?);
        // pristine and live state buffers, in the plan's order
        let mut pristine: Vec<Buffer> = Vec::new();
        let mut live: Vec<Buffer> = Vec::new();
        for (id, w) in qp.state_args().into_iter().zip(qp.state_words(&initial)?) {
            let label = &qp.plan.buffers[id.0].label;
            pristine.push(ctx.upload(&format!("pristine {label}"), &w)?);
            live.push(ctx.zeroed(label, w.len() as u64 * 4)?);
        }
        let variant = format!(
            "task tree fanout 4, 64 words/task, {} wg{}",
            policy.workgroups,
            if latency { ", clock" } else { "" }
        );
        let (p, l) = (pristine.clone(), live.clone());
        let setup: crate::case::Setup = Box::new(move |mut enc: EncoderRef| {
            for (src, dst) in p.iter().zip(&l) {
                enc.copy(&src.into(), &dst.into(), src.size())?;
            }
            Ok(())
        });
        let (pr, q, l) = (prepared.clone(), qp.clone(), live.clone());
        let record: crate::case::Record = Box::new(move |enc, stamps| {
            let args: Vec<_> = q
                .state_args()
                .into_iter()
                .zip(l.iter().map(BufferRef::from))
                .collect();
            pr.record(enc, &args, stamps)
        });
        let read = {
            let (q, l) = (qp.clone(), live.clone());
            move |ctx: &Context| -> std::result::Result<QueueState, String> {
                let words = l
                    .iter()
                    .map(|b| ctx.read::<u32>(b))
                    .collect::<Result<Vec<_>>>()
                    .map_err(|e| e.to_string())?;
                q.state_from(words).map_err(|e| e.to_string())
            }
        };
        let read2 = read.clone();
        let extra: Option<crate::case::Extra> = latency.then(|| -> crate::case::Extra {
            Box::new(move |ctx, timing| {
                let Ok(state) = read2(ctx) else {
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
            })
        });
        cases.push(Case {
            algorithm: "queue".into(),
            variant,
            size: n_tasks as u64,
            size_label: size_label(n_tasks as u64),
            work: Work::Tasks(n_tasks as f64),
            passes: prepared
                .plan()
                .passes
                .iter()
                .map(|p| p.label.clone())
                .collect(),
            setup: Some(setup),
            record,
            outputs: Vec::new(),
            verify: Box::new(move |ctx| {
                let state = read(ctx)?;
                check(&problem, &state)?;
                check_restored(&state, rounds)?;
                if latency {
                    Latency::from_state(&state).map(|_| ())?;
                }
                Ok(())
            }),
            extra,
        });
    }
    Ok(cases)
}
