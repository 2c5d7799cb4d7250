//! The simulator's execution model on whole plans: poison from inactive lanes, lane layouts,
//! a partial last subgroup, schedulers and the step budget, the subgroup sizes a simulator
//! accepts, and invalidated buffers.

use wgsimd::finding::{Finding, FindingKind};
use wgsimd::plan::{BufferInit, Fills, Plan, Workgroups, POISON_WORD};
use wgsimd::sim::{Scheduler, SimConfig, Simulator};
use wgsimd::{Caps, Context};

use std::sync::Arc;

use wgsimd::kernel::Kernel;

use super::{kernel, kinds};

/// Runs `main` of `src` in `wg` workgroups, binding `out` to a zeroed read-back buffer of
/// `words`, on a simulator of `config`: the words of `out` and the findings.
fn one_pass(src: &str, words: u64, wg: u32, config: SimConfig) -> (Vec<u32>, Vec<Finding>) {
    let k = kernel(src);
    let mut plan = Plan::new("t");
    let out = plan.buffer("out", words * 4, BufferInit::Zeroed);
    plan.read_back(out);
    plan.pass_named(
        "p",
        &k,
        "main",
        &[],
        &[("out", out)],
        Workgroups::Direct([wg, 1, 1]),
    )
    .unwrap();
    let (mut read, report) = Simulator::new(config).unwrap().run_plan(&plan).unwrap();
    (read.remove(&out).unwrap(), report.findings)
}

fn at(subgroup_size: u32, shuffle_lanes: Option<u64>) -> SimConfig {
    SimConfig {
        subgroup_size,
        shuffle_lanes,
        ..Default::default()
    }
}

/// A shuffle from a lane that is inactive returns poison, never the lane's real value, and is
/// a finding; the same shuffle from an active lane is not.
#[test]
fn shuffle_from_inactive_lane_is_poison() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(32)
         fn main(@builtin(local_invocation_index) lid: u32) {
             let v = 1000u + lid;
             if lid % 2u == 0u {
                 out[lid] = subgroupShuffleXor(v, 1u); // partner lane (odd) is inactive
             } else {
                 out[lid] = subgroupShuffleXor(v, 2u); // partner lane (odd) is active
             }
         }";
    let (v, findings) = one_pass(src, 32, 1, at(8, None));
    for lane in 0..32u32 {
        if lane % 2 == 0 {
            assert_ne!(v[lane as usize], 1000 + (lane ^ 1), "lane {lane}");
        } else {
            assert_eq!(v[lane as usize], 1000 + (lane ^ 2), "lane {lane}");
        }
    }
    // one finding per branch: both run with half the subgroup
    assert_eq!(
        kinds(&findings),
        [FindingKind::NonUniformSubgroupOp; 2],
        "{findings:#?}"
    );
}

/// Lane layouts: linear by default; shuffled, local indices and lanes no longer line up, but
/// every subgroup still holds `S` distinct invocations.
#[test]
fn shuffled_lanes_permute_the_layout() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(64)
         fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32,
                 @builtin(subgroup_id) sg: u32, @builtin(subgroup_size) s: u32) {
             out[lid] = sg * s + lane;
         }";
    let all: Vec<u32> = (0..64).collect();
    let (linear, findings) = one_pass(src, 64, 1, at(16, None));
    assert!(findings.is_empty(), "{findings:#?}");
    assert_eq!(linear, all);
    let (mut shuffled, findings) = one_pass(src, 64, 1, at(16, Some(3)));
    assert!(findings.is_empty(), "{findings:#?}");
    assert_ne!(shuffled, all);
    shuffled.sort();
    assert_eq!(shuffled, all);
}

/// A partial last subgroup: 40 invocations at subgroup size 32 are subgroups of 32 and 8.
#[test]
fn partial_last_subgroup() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(40)
         fn main(@builtin(local_invocation_index) lid: u32, @builtin(num_subgroups) n: u32) {
             out[lid] = subgroupAdd(1u) + 100u * n;
         }";
    let (v, findings) = one_pass(src, 40, 1, at(32, None));
    assert!(findings.is_empty(), "{findings:#?}");
    assert!(
        v[..32].iter().all(|&x| x == 232) && v[32..].iter().all(|&x| x == 208),
        "{v:?}"
    );
}

/// Workgroup 1 spins until workgroup 0 sets a flag.
const WAIT_ON_FIRST: &str = "
    @group(0) @binding(0) var<storage, read_write> out: array<u32>;
    @group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
    @compute @workgroup_size(4)
    fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
        if wid.x == 1u {
            while atomicLoad(&flag) == 0u { }
        } else {
            atomicStore(&flag, 1u);
        }
        out[wid.x * 4u + lid] = 1u;
    }";

fn run_wait(scheduler: Scheduler, fail: bool) -> wgsimd::Result<Vec<Finding>> {
    let k = kernel(WAIT_ON_FIRST);
    let mut plan = Plan::new("t");
    let out = plan.buffer("out", 32, BufferInit::Zeroed);
    let flag = plan.buffer("flag", 4, BufferInit::Zeroed);
    let bind = [("out", out), ("flag", flag)];
    plan.pass_named("p", &k, "main", &[], &bind, Workgroups::Direct([2, 1, 1]))
        .unwrap();
    let sim = Simulator::new(SimConfig {
        scheduler,
        max_steps: 10_000,
        fail_on_step_limit: fail,
        ..Default::default()
    })?;
    Ok(sim.run_plan(&plan)?.1.findings)
}

/// Waiting on workgroup 0 is fine in order, a hang when 0 is starved or runs later; with
/// `fail_on_step_limit` the hang is an error, not a partial result.
#[test]
fn schedulers_expose_forward_progress_assumptions() {
    let found = |s: Scheduler| kinds(&run_wait(s, false).unwrap());
    assert_eq!(found(Scheduler::InOrder), []);
    let starved = || Scheduler::Unfair { starved: vec![0] };
    assert_eq!(found(starved()), [FindingKind::StepLimit]);
    let shuffled: Vec<Vec<FindingKind>> = (0..8).map(|s| found(Scheduler::Shuffled(s))).collect();
    assert!(shuffled.iter().any(|k| k.is_empty()), "{shuffled:?}");
    assert!(shuffled.iter().any(|k| k == &[FindingKind::StepLimit]));
    assert!(run_wait(Scheduler::InOrder, true).is_ok());
    let e = run_wait(starved(), true).unwrap_err();
    assert!(matches!(e, wgsimd::Error::Sim(_)), "{e:?}");
}

/// A simulator context reports the subgroup size it runs as the device's only one, and
/// refuses sizes that are not a power of two in 4..=128.
#[test]
fn a_simulator_runs_one_subgroup_size() {
    for sg in [4, 16, 128] {
        let ctx = Context::simulator(SimConfig {
            subgroup_size: sg,
            ..SimConfig::for_profile(Caps::lavapipe())
        })
        .unwrap();
        let caps = ctx.caps();
        assert_eq!((caps.subgroup_min, caps.subgroup_max), (sg, sg));
    }
    for sg in [2, 12, 256] {
        assert!(Context::simulator(at(sg, None)).is_err(), "{sg}");
    }
}

/// The invalidation tests' writer: `data[lid] = lid + 7` for the invocations `lid` of one
/// workgroup of 64 with `lid % EVERY == 0` and `lid < LIMIT` (overrides).
fn rewriter() -> Arc<Kernel> {
    kernel(
        "override EVERY: u32 = 1u;
         override LIMIT: u32 = 64u;
         @group(0) @binding(0) var<storage, read_write> data: array<u32>;
         @compute @workgroup_size(64)
         fn main(@builtin(local_invocation_index) lid: u32) {
             if lid % EVERY == 0u && lid < LIMIT {
                 data[lid] = lid + 7u;
             }
         }",
    )
}

/// The invalidation tests' reader: `twice[lid] = data[lid] * 2` over 64 words.
fn doubler() -> Arc<Kernel> {
    kernel(
        "@group(0) @binding(0) var<storage, read> data: array<u32>;
         @group(0) @binding(1) var<storage, read_write> twice: array<u32>;
         @compute @workgroup_size(64)
         fn main(@builtin(local_invocation_index) lid: u32) {
             twice[lid] = data[lid] * 2u;
         }",
    )
}

/// `Plan::invalidate`: a buffer written in full, invalidated, then rewritten by a pass that
/// misses its odd words and read by a third pass. The missed words read as `POISON_WORD` (as
/// after the GPU's fill) and are findings: an `uninitialized-read` in the reading pass and an
/// `unwritten-output` for the read-back buffer, each naming the invalidating pass. Rewritten in
/// full, the same plan has no finding (looks bad, is fine); not invalidated, the missed words
/// keep the first pass's values and nothing can tell (what invalidation is for).
#[test]
fn invalidated_buffer_must_be_written_again() {
    let (write, double) = (rewriter(), doubler());
    let sim = Simulator::new(SimConfig::default()).unwrap();
    let one = Workgroups::Direct([1, 1, 1]);
    for (invalidate, every) in [(true, 1.0), (true, 2.0), (false, 2.0)] {
        let mut plan = Plan::new("t");
        // (poisoned and read back: an output, whose unwritten words are findings)
        let data = plan.buffer("data", 256, BufferInit::Poison);
        let twice = plan.buffer("twice", 256, BufferInit::Zeroed);
        plan.read_back(data);
        plan.read_back(twice);
        let bind = [("data", data)];
        plan.pass_named("first", &write, "main", &[], &bind, one)
            .unwrap();
        if invalidate {
            plan.invalidate("forget data", data).unwrap();
        }
        let again = [("EVERY", every)];
        plan.pass_named("again", &write, "main", &again, &bind, one)
            .unwrap();
        let bind2 = [("data", data), ("twice", twice)];
        plan.pass_named("double", &double, "main", &[], &bind2, one)
            .unwrap();
        let (read, report) = sim.run_plan(&plan).unwrap();
        let findings = report.findings;
        let what = format!("invalidate {invalidate}, every {every}");
        for (i, &w) in read[&data].iter().enumerate() {
            let missed = invalidate && i % every as usize != 0;
            let want = if missed { POISON_WORD } else { i as u32 + 7 };
            assert_eq!(w, want, "{what}: word {i}");
        }
        if invalidate && every == 2.0 {
            assert_eq!(
                kinds(&findings),
                [FindingKind::UninitializedRead, FindingKind::UnwrittenOutput],
                "{what}"
            );
            assert!(
                findings
                    .iter()
                    .all(|f| f.to_string().contains("`forget data` invalidated")),
                "{what}: {findings:#?}"
            );
        } else {
            assert!(findings.is_empty(), "{what}: {findings:#?}");
        }
    }
    // an invalidation must bind the whole buffer it invalidates
    let mut plan = Plan::new("t");
    let data = plan.buffer("data", 256, BufferInit::Zeroed);
    plan.validate().unwrap();
    plan.invalidate("forget", data).unwrap();
    plan.validate().unwrap();
    plan.passes[0].range_named("dst", 0, 128).unwrap();
    let e = plan.validate().unwrap_err().to_string();
    assert!(e.contains("does not bind all of it"), "{e}");
}

/// `Fills::invalidate_first`: only the first `count × PER` words (the count read from the
/// params block when the pass runs) are invalidated. A buffer not tracked before (written by
/// the host), a pass rewriting exactly those words and a reader of all of it: no finding, and
/// the words past them keep their values (looks bad, is fine: nothing rewrote them); one word
/// fewer rewritten is an `uninitialized-read` of that word, which reads `POISON_WORD`.
#[test]
fn counted_invalidation_covers_its_count() {
    let (write, double) = (rewriter(), doubler());
    let sim = Simulator::new(SimConfig::default()).unwrap();
    let one = Workgroups::Direct([1, 1, 1]);
    // 10 elements of 2 words: words 0..20
    for (rewritten, finding) in [(20.0, false), (19.0, true)] {
        let mut plan = Plan::new("t");
        let data = plan.buffer(
            "data",
            256,
            BufferInit::Bytes(bytemuck::cast_slice(&[1u32; 64]).to_vec()),
        );
        let twice = plan.buffer("twice", 256, BufferInit::Zeroed);
        let params = plan.buffer(
            "params",
            16,
            BufferInit::Bytes(bytemuck::cast_slice(&[10u32, 0, 0, 0]).to_vec()),
        );
        plan.read_back(data);
        plan.read_back(twice);
        plan.invalidate_first("forget the first", data, 2, params, 0, one)
            .unwrap();
        let bind = [("data", data)];
        plan.pass_named("again", &write, "main", &[("LIMIT", rewritten)], &bind, one)
            .unwrap();
        let bind2 = [("data", data), ("twice", twice)];
        plan.pass_named("double", &double, "main", &[], &bind2, one)
            .unwrap();
        let (read, report) = sim.run_plan(&plan).unwrap();
        let what = format!("{rewritten} words rewritten");
        for (i, &w) in read[&data].iter().enumerate() {
            let want = match i {
                _ if i < rewritten as usize => i as u32 + 7,
                _ if i < 20 => POISON_WORD,
                _ => 1,
            };
            assert_eq!(w, want, "{what}: word {i}");
        }
        if finding {
            assert_eq!(
                kinds(&report.findings),
                [FindingKind::UninitializedRead],
                "{what}"
            );
            let f = report.findings[0].to_string();
            assert!(
                f.contains("word 19 ") && f.contains("`forget the first`"),
                "{what}: {f}"
            );
        } else {
            assert!(report.findings.is_empty(), "{what}: {:#?}", report.findings);
        }
    }
}

/// Submissions from several threads on one simulator: each recording's queue writes (its
/// control block's head) are applied by whichever submission comes next, so two submissions
/// may share a buffer; they wait for each other instead of finding its words taken (this
/// raced: "`control` (0 bytes)", or an index out of range, in about one run of three).
#[test]
fn submissions_from_threads_share_buffers_safely() {
    let ctx = Context::simulator(SimConfig::default()).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let ctx = &ctx;
            s.spawn(move || {
                for i in 0..12u32 {
                    let data: Vec<u32> = (0..300 + 37 * i + t).collect();
                    let want: Vec<u32> = data
                        .iter()
                        .scan(0u32, |acc, &x| {
                            let v = *acc;
                            *acc = acc.wrapping_add(x);
                            Some(v)
                        })
                        .collect();
                    assert_eq!(wgsimd::scan::scan(ctx, &data, false).unwrap(), want);
                    let (k, _) = wgsimd::sort::sort_keys(ctx, &data, &Default::default())
                        .map(|k| (k, ()))
                        .unwrap();
                    assert_eq!(k, data);
                }
            });
        }
    });
}

/// A submission the memory budget refuses leaves the queue writes it took for the next one
/// (they were dropped with it: another recording's count, written through the queue, was
/// lost); and a submission takes the queue writes and locks their buffers as one step, so
/// another thread's submission cannot run on a buffer before the write it needs.
#[test]
fn a_refused_submission_keeps_the_queue_writes_it_took() {
    let config = SimConfig {
        memory_budget: 1 << 20,
        ..SimConfig::default()
    };
    let ctx = Context::simulator(config).unwrap();
    let x = ctx.zeroed("x", 16).unwrap();
    ctx.write_buffer(
        &wgsimd::BufferRef::from(&x),
        bytemuck::cast_slice(&[7u32; 4]),
    )
    .unwrap();
    let (big, copy) = (
        ctx.zeroed("big", 2 << 20).unwrap(),
        ctx.zeroed("copy", 2 << 20).unwrap(),
    );
    let mut enc = ctx.encoder();
    wgsimd::EncoderRef::from(&mut enc)
        .copy(&(&big).into(), &(&copy).into(), 2 << 20)
        .unwrap();
    match ctx.submit(enc) {
        Err(wgsimd::Error::TooLarge(m)) => assert!(m.contains("memory budget"), "{m}"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    ctx.submit(ctx.encoder()).unwrap();
    assert_eq!(ctx.read::<u32>(&x).unwrap(), [7; 4]);
}
