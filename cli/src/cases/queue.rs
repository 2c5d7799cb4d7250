//! Benchmark cases of the work queue: one submission draining a task tree, timed by
//! `wgsimd bench`, with and without the latency clock (so the clock's own cost shows as the
//! difference in tasks/s between the two rows). The plans are repeatable: untimed setup passes
//! restore the initial state before each run (the GPU executor reuses the buffers of a prepared
//! plan across the timed runs, and a queue left drained would time nothing).

use crate::case::{size_label, Case, Work};
use wgsimd::error::Result;
use wgsimd::Caps;

use wgsimd::queue::latency::active_ns;
use wgsimd::queue::{build, check, Latency, Layout, QueuePolicy, QueueProblem, QueueState};

/// A run of a repeatable plan started from the restored state: it counted exactly its own rounds
/// (a run on a drained, unrestored queue would find every task done and count twice as many).
pub fn check_restored(state: &QueueState, rounds: u32) -> std::result::Result<(), String> {
    match state.ctl[state.layout.ctl_round] {
        r if r == rounds => Ok(()),
        r => Err(format!(
            "{r} rounds since the state was set, want {rounds}: not restored before the run"
        )),
    }
}

/// Benchmark cases: a task tree (fanout 4, 64 words per task) drained in one submission, plain
/// and with the latency clock. Throughput in tasks/s (`Work::Tasks`); the clock case
/// adds enqueue-to-start p50/p99 (ticks, and ns by the run's average tick rate: see
/// [`wgsimd::queue::latency`]) as extra figures. The timed run starts from the initial state, so a case
/// whose single submission does not finish fails verification rather than lying.
/// `n` elements become `n / 64` tasks; sizes past 2^20 tasks give no case (the bench's
/// sizes 2^26 and 2^28 would both be clamped to it).
pub fn bench_cases(caps: &Caps, n: u64, seed: u64) -> Result<Vec<Case>> {
    if n / 64 > 1 << 20 {
        return Ok(Vec::new());
    }
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
        let layout = Layout::of(caps.flavor())?;
        let state = QueueState::initial(&layout, n_tasks, policy.capacity, latency);
        let qp = build(caps, &problem, &policy, &state, true)?;
        let (decoder, decoder2) = (qp.decoder(), qp.decoder());
        let variant = format!(
            "task tree fanout 4, 64 words/task, {} wg{}",
            policy.workgroups,
            if latency { ", clock" } else { "" }
        );
        let extra: Option<crate::case::Extra> = latency.then(|| -> crate::case::Extra {
            Box::new(move |out, timing| {
                let Ok(state) = decoder2.decode(out) else {
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
            plan: qp.plan,
            work: Work::Tasks(n_tasks as f64),
            verify: Box::new(move |out| {
                let state = decoder.decode(out).map_err(|e| e.to_string())?;
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
