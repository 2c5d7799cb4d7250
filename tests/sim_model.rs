//! The simulator's execution model: poison from inactive lanes, lane layouts, schedulers, the
//! step budget, and the `--backend sim` path.

use std::sync::Arc;

use wgsimd::backend::{self, Backend, SimSettings};
use wgsimd::finding::FindingKind;
use wgsimd::kernel::{Flavor, Kernel};
use wgsimd::plan::{BufferInit, Plan, Workgroups, POISON_WORD};
use wgsimd::sim::{Scheduler, SimConfig, SimExecutor};
use wgsimd::Executor;

fn kernel(src: &str) -> Arc<Kernel> {
    Arc::new(Kernel::from_source("test.wgsl", Flavor::Subgroup, src.to_string()).unwrap())
}

fn one_pass(k: &Arc<Kernel>, words: u64, wg: u32) -> (Plan, wgsimd::plan::BufferId) {
    let mut plan = Plan::new("t");
    let out = plan.buffer("out", words * 4, BufferInit::Zeroed);
    plan.read_back(out);
    plan.pass("p", k, "main", &[], &[out], Workgroups::Direct([wg, 1, 1]));
    (plan, out)
}

/// A shuffle from a lane that is inactive returns poison, never the lane's real value.
#[test]
fn shuffle_from_inactive_lane_is_poison() {
    let k = kernel(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(32)
         fn main(@builtin(local_invocation_index) lid: u32) {
             let v = 1000u + lid;
             if lid % 2u == 0u {
                 out[lid] = subgroupShuffleXor(v, 1u); // partner lane (odd) is inactive
             } else {
                 out[lid] = subgroupShuffleXor(v, 2u); // partner lane (odd) is active
             }
         }",
    );
    let (plan, out) = one_pass(&k, 32, 1);
    let sim = SimExecutor::new(SimConfig {
        subgroup_size: 8,
        ..Default::default()
    })
    .unwrap();
    let r = sim.run(&plan).unwrap();
    let v: Vec<u32> = r.get(out);
    for lane in 0..32u32 {
        if lane % 2 == 0 {
            assert_ne!(
                v[lane as usize],
                1000 + (lane ^ 1),
                "lane {lane} got the real value"
            );
        } else {
            assert_eq!(v[lane as usize], 1000 + (lane ^ 2));
        }
    }
    assert!(r
        .findings
        .iter()
        .all(|f| f.kind == FindingKind::NonUniformSubgroupOp));
    assert_eq!(r.findings.len(), 2);
}

/// Lane layouts: linear by default; shuffled, local indices and lanes no longer line up, but
/// every subgroup still holds `S` distinct invocations.
#[test]
fn shuffled_lanes_permute_the_layout() {
    let k = kernel(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(64)
         fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32,
                 @builtin(subgroup_id) sg: u32, @builtin(subgroup_size) s: u32) {
             out[lid] = sg * s + lane;
         }",
    );
    let (plan, out) = one_pass(&k, 64, 1);
    let linear = SimExecutor::new(SimConfig {
        subgroup_size: 16,
        ..Default::default()
    })
    .unwrap();
    let v: Vec<u32> = linear.run(&plan).unwrap().get(out);
    assert_eq!(v, (0..64).collect::<Vec<u32>>());
    let shuffled = SimExecutor::new(SimConfig {
        subgroup_size: 16,
        shuffle_lanes: Some(3),
        ..Default::default()
    })
    .unwrap();
    let mut v: Vec<u32> = shuffled.run(&plan).unwrap().get(out);
    assert_ne!(v, (0..64).collect::<Vec<u32>>());
    v.sort();
    assert_eq!(v, (0..64).collect::<Vec<u32>>());
}

/// A partial last subgroup: 40 invocations at subgroup size 32 are subgroups of 32 and 8.
#[test]
fn partial_last_subgroup() {
    let k = kernel(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(40)
         fn main(@builtin(local_invocation_index) lid: u32, @builtin(num_subgroups) n: u32) {
             out[lid] = subgroupAdd(1u) + 100u * n;
         }",
    );
    let (plan, out) = one_pass(&k, 40, 1);
    let sim = SimExecutor::new(SimConfig {
        subgroup_size: 32,
        ..Default::default()
    })
    .unwrap();
    let r = sim.run(&plan).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let v: Vec<u32> = r.get(out);
    assert!(
        v[..32].iter().all(|&x| x == 232) && v[32..].iter().all(|&x| x == 208),
        "{v:?}"
    );
}

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

fn wait_plan() -> Plan {
    let k = kernel(WAIT_ON_FIRST);
    let mut plan = Plan::new("t");
    let out = plan.buffer("out", 32, BufferInit::Zeroed);
    let flag = plan.buffer("flag", 4, BufferInit::Zeroed);
    plan.pass(
        "p",
        &k,
        "main",
        &[],
        &[out, flag],
        Workgroups::Direct([2, 1, 1]),
    );
    plan
}

fn kinds(sched: Scheduler) -> Vec<FindingKind> {
    let sim = SimExecutor::new(SimConfig {
        scheduler: sched,
        max_steps: 10_000,
        ..Default::default()
    })
    .unwrap();
    sim.run(&wait_plan())
        .unwrap()
        .findings
        .iter()
        .map(|f| f.kind)
        .collect()
}

/// Workgroup 1 waits for workgroup 0: fine in order, a hang when 0 is starved or runs later.
#[test]
fn schedulers_expose_forward_progress_assumptions() {
    assert_eq!(kinds(Scheduler::InOrder), vec![]);
    assert_eq!(
        kinds(Scheduler::Unfair { starved: vec![0] }),
        vec![FindingKind::StepLimit]
    );
    let shuffled: Vec<Vec<FindingKind>> = (0..8).map(|s| kinds(Scheduler::Shuffled(s))).collect();
    assert!(shuffled.iter().any(|k| k.is_empty()));
    assert!(shuffled.iter().any(|k| k == &vec![FindingKind::StepLimit]));
}

/// `--backend sim` opens the simulator; a step limit there is an error, not a partial result.
#[test]
fn backend_sim_runs_algorithms_and_fails_on_hangs() {
    let sim = backend::open(
        Backend::Sim,
        &SimSettings {
            subgroup_size: 16,
            shuffle_lanes: Some(5),
        },
    )
    .unwrap();
    assert_eq!(sim.caps().backend, "sim");
    assert_eq!((sim.caps().subgroup_min, sim.caps().subgroup_max), (16, 16));
    let x: Vec<u32> = (0..10_000).collect();
    let s = wgsimd::scan::scan(&*sim, &x, true).unwrap();
    assert_eq!(s, wgsimd::reference::scan::scan_u32(&x, true));
    assert!(backend::open(
        Backend::Sim,
        &SimSettings {
            subgroup_size: 12,
            shuffle_lanes: None
        }
    )
    .is_err());
}

/// `Plan::invalidate`: a buffer written in full, invalidated, then rewritten by a pass that
/// misses its odd words and read by a third pass. The missed words read as `POISON_WORD` (as
/// after the GPU's fill) and are findings: an `uninitialized-read` in the reading pass and an
/// `unwritten-output` for the read-back buffer, each naming the invalidating pass. Rewritten in
/// full, the same plan has no finding (looks bad, is fine); not invalidated, the missed words
/// keep the first pass's values and nothing can tell (what invalidation is for).
#[test]
fn invalidated_buffer_must_be_written_again() {
    let write = kernel(
        "override EVERY: u32 = 1u;
         @group(0) @binding(0) var<storage, read_write> data: array<u32>;
         @compute @workgroup_size(64)
         fn main(@builtin(local_invocation_index) lid: u32) {
             if lid % EVERY == 0u {
                 data[lid] = lid + 7u;
             }
         }",
    );
    let double = kernel(
        "@group(0) @binding(0) var<storage, read> data: array<u32>;
         @group(0) @binding(1) var<storage, read_write> twice: array<u32>;
         @compute @workgroup_size(64)
         fn main(@builtin(local_invocation_index) lid: u32) {
             twice[lid] = data[lid] * 2u;
         }",
    );
    let sim = SimExecutor::new(SimConfig::default()).unwrap();
    for (invalidate, every) in [(true, 1.0), (true, 2.0), (false, 2.0)] {
        let mut plan = Plan::new("t");
        let data = plan.buffer("data", 256, BufferInit::Zeroed);
        let twice = plan.buffer("twice", 256, BufferInit::Zeroed);
        plan.read_back(data);
        plan.read_back(twice);
        let one = Workgroups::Direct([1, 1, 1]);
        plan.pass("first", &write, "main", &[], &[data], one);
        if invalidate {
            plan.invalidate("forget data", data).unwrap();
        }
        plan.pass("again", &write, "main", &[("EVERY", every)], &[data], one);
        plan.pass("double", &double, "main", &[], &[data, twice], one);
        let r = sim.run(&plan).unwrap();
        let what = format!("invalidate {invalidate}, every {every}");
        let got: Vec<u32> = r.get(data);
        for (i, &w) in got.iter().enumerate() {
            let missed = invalidate && i % every as usize != 0;
            let want = if missed { POISON_WORD } else { i as u32 + 7 };
            assert_eq!(w, want, "{what}: word {i}");
        }
        let mut kinds: Vec<FindingKind> = r.findings.iter().map(|f| f.kind).collect();
        kinds.sort_by_key(|k| k.to_string());
        if invalidate && every == 2.0 {
            assert_eq!(
                kinds,
                vec![FindingKind::UninitializedRead, FindingKind::UnwrittenOutput],
                "{what}"
            );
            assert!(
                r.findings
                    .iter()
                    .all(|f| f.to_string().contains("`forget data` invalidated")),
                "{what}: {:?}",
                r.findings
            );
        } else {
            assert_eq!(kinds, vec![], "{what}: {:?}", r.findings);
        }
    }
    // an invalidation must bind the whole buffer it invalidates
    let mut plan = Plan::new("t");
    let data = plan.buffer("data", 256, BufferInit::Zeroed);
    let other = plan.buffer("other", 256, BufferInit::Zeroed);
    plan.invalidate("forget", data).unwrap().bindings[0].buffer = other;
    assert!(plan
        .validate()
        .unwrap_err()
        .to_string()
        .contains("does not bind all of it"));
}
