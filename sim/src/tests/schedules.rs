//! The explored schedules (`sim::schedule`): subgroups that advance independently between
//! barriers, workgroups suspended after taking a ticket, and the two findings they make
//! visible, `schedule-divergence` and `forward-progress`, each with its looks-bad-but-fine twin.

use super::{line_of, only};
use crate::check::{check, CheckReport, CheckRequest};
use crate::finding::{Finding, FindingKind};
use crate::{Schedule, SimConfig};

const HASTY: &str =
    include_str!("../../../tests/sim_corpus/schedule_missing_barrier_atomics_bug.wgsl");
const PATIENT: &str =
    include_str!("../../../tests/sim_corpus/schedule_missing_barrier_atomics_fixed.wgsl");
const NO_FALLBACK: &str =
    include_str!("../../../tests/sim_corpus/ticketed_lookback_without_fallback_bug.wgsl");
const FALLBACK: &str =
    include_str!("../../../tests/sim_corpus/ticketed_lookback_with_fallback_fine.wgsl");

/// Runs `main` of `source` at subgroup size `s` under `schedules` (the default exploration
/// where `None`).
fn run(
    source: &str,
    s: u32,
    schedules: Option<Vec<Schedule>>,
    workgroups: u32,
    binds: &[&str],
) -> CheckReport {
    let mut config = SimConfig {
        subgroup_size: s,
        ..Default::default()
    };
    if let Some(v) = schedules {
        config.schedules = v;
    }
    check(&CheckRequest {
        name: "test.wgsl".into(),
        source: source.into(),
        entry: "main".into(),
        workgroups: [workgroups, 1, 1],
        binds: binds.iter().map(|b| b.parse().unwrap()).collect(),
        overrides: vec![],
        immediates: None,
        config,
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

fn kinds(f: &[Finding]) -> Vec<FindingKind> {
    f.iter().map(|f| f.kind).collect()
}

const COUNT: &[&str] = &["0=u32:zeros:1"];

/// wgpu's `hasty_main`: the count read without a barrier is 64 in lockstep and less where
/// invocation 0's subgroup runs ahead. Atomics keep it race-free, so only the outputs of two
/// schedules tell: the finding names the word, both schedules and the store that wrote it.
/// One subgroup (64 lanes) runs in lockstep under every schedule, as on a GPU: clean.
#[test]
fn a_missing_barrier_between_atomics_is_a_schedule_divergence() {
    for s in [4, 8, 32] {
        let r = run(HASTY, s, None, 1, COUNT);
        let f = only(&r.findings, FindingKind::ScheduleDivergence);
        assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
        // the kept result is the lockstep schedule's
        assert_eq!(r.buffers[&0].1, [64], "at {s}");
        assert!(
            f.message
                .starts_with("word 0 of `binding 0` is 64 (0x40) under lockstep"),
            "{f}"
        );
        let other = Schedule::DEFAULT[1..]
            .iter()
            .find(|o| f.message.contains(&format!(" under {o} ")))
            .unwrap_or_else(|| panic!("no second schedule named: {f}"));
        assert_ne!(*other, Schedule::Lockstep);
        assert_eq!(
            f.loc.as_ref().unwrap().line,
            line_of(HASTY, "output[0] = "),
            "{f}"
        );
        assert_eq!(f.parties.len(), 2, "{f}");
    }
    assert!(run(HASTY, 64, None, 1, COUNT).findings.is_empty());
    // one schedule chosen: nothing to compare
    let lockstep = Some(vec![Schedule::Lockstep]);
    assert!(run(HASTY, 4, lockstep, 1, COUNT).findings.is_empty());
}

/// `patient_main`, the same count behind a barrier: clean under every schedule explored, and
/// under more.
#[test]
fn the_same_count_behind_a_barrier_is_clean() {
    for s in [4, 8, 32, 64] {
        let r = run(PATIENT, s, None, 1, COUNT);
        assert!(r.findings.is_empty(), "at {s}: {:#?}", r.findings);
        assert_eq!(r.buffers[&0].1, [64]);
    }
    let r = run(PATIENT, 4, Some(Schedule::first(12)), 1, COUNT);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
}

/// Every schedule is seeded: run alone twice it computes the same words, and the schedules
/// explored interleave differently (hasty's count takes several values among them).
#[test]
fn schedules_are_reproducible() {
    let mut counts = std::collections::BTreeSet::new();
    for sched in Schedule::first(9) {
        let once = |_| run(HASTY, 4, Some(vec![sched]), 1, COUNT).buffers[&0].1[0];
        let (a, b) = (once(0), once(1));
        assert_eq!(a, b, "{sched}");
        counts.insert(a);
    }
    assert!(counts.len() >= 3, "{counts:?}");
    assert!(counts.contains(&64), "{counts:?}");
}

const LOOKBACK: &[&str] = &["0=u32:iota:256", "1=u32:uninit:8", "2=u32:zeros:9"];

/// The exclusive prefix sums of the tile sums of `iota:256` in tiles of 32.
fn tile_prefixes() -> Vec<u32> {
    let sums: Vec<u32> = (0..8u32).map(|t| (t * 32..t * 32 + 32).sum()).collect();
    sums.iter()
        .scan(0, |acc, &x| {
            let p = *acc;
            *acc += x;
            Some(p)
        })
        .collect()
}

/// A ticketed look-back without a fallback: the preemptive schedules suspend the first
/// ticket's taker, its successor spins on a prefix nobody can publish, and the finding names
/// the loop, the waiting workgroup and the one it waits on (with where it took its ticket).
/// In lockstep workgroups run to completion, so nothing waits: the schedules find it.
#[test]
fn a_ticketed_look_back_without_fallback_is_a_forward_progress_finding() {
    for s in [4, 8, 32, 64] {
        let r = run(NO_FALLBACK, s, None, 8, LOOKBACK);
        assert_eq!(
            kinds(&r.findings),
            [FindingKind::ForwardProgress],
            "at {s}: {:#?}",
            r.findings
        );
        let f = &r.findings[0];
        assert_eq!(f.loc.as_ref().unwrap().line, line_of(NO_FALLBACK, "loop {"));
        assert!(
            f.message
                .starts_with("workgroup (1,0,0) spins in this loop ("),
            "{f}"
        );
        assert!(f.message.contains("waiting on workgroup (0,0,0)"), "{f}");
        let ticket = line_of(NO_FALLBACK, "tile = atomicAdd");
        assert!(
            f.message
                .contains(&format!("taking a ticket at test.wgsl:{ticket}:")),
            "{f}"
        );
        assert_eq!(f.parties.len(), 2);
        assert_eq!(f.parties[0].workgroup, [1, 0, 0]);
        assert_eq!(f.parties[1].workgroup, [0, 0, 0]);
        assert_eq!(f.parties[1].loc.as_ref().unwrap().line, ticket);
        // the suspended workgroup resumed: the results are right
        assert_eq!(r.buffers[&1].1, tile_prefixes(), "at {s}");
    }
    let lockstep = Some(vec![Schedule::Lockstep]);
    assert!(run(NO_FALLBACK, 8, lockstep, 8, LOOKBACK)
        .findings
        .is_empty());
}

/// The same look-back with a decoupled fallback is clean at every size, and the fallback does
/// run: under round-robin alone (whose first ticket's taker is suspended) the successor gives
/// up polling and sums its predecessor's inputs itself, with the right prefixes.
#[test]
fn a_decoupled_fallback_is_clean_and_exercised() {
    for s in [4, 8, 32, 64] {
        let r = run(FALLBACK, s, None, 8, LOOKBACK);
        assert!(r.findings.is_empty(), "at {s}: {:#?}", r.findings);
        assert_eq!(r.buffers[&1].1, tile_prefixes(), "at {s}");
    }
    // the fine kernel, counting its fallbacks in binding 3
    let counted = FALLBACK
        .replace(
            "const FLAG",
            "@group(0) @binding(3) var<storage, read_write> fallbacks: atomic<u32>;\nconst FLAG",
        )
        .replace(
            "// the fallback: tile p - 1's sum from its inputs",
            "atomicAdd(&fallbacks, 1u);",
        );
    assert_ne!(counted, FALLBACK);
    let binds = [LOOKBACK, &["3=u32:zeros:1"]].concat();
    for (sched, fell_back) in [(Schedule::Lockstep, false), (Schedule::RoundRobin, true)] {
        for s in [4, 32] {
            let r = run(&counted, s, Some(vec![sched]), 8, &binds);
            assert!(r.findings.is_empty(), "{sched} at {s}: {:#?}", r.findings);
            assert_eq!(r.buffers[&1].1, tile_prefixes(), "{sched} at {s}");
            assert_eq!(r.buffers[&3].1[0] > 0, fell_back, "{sched} at {s}");
        }
    }
}

/// `hasty_main` with one output word per workgroup, over many workgroups.
const HASTY_WIDE: &str = r#"
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> count: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    atomicAdd(&count, 1u);
    if lid == 0u {
        output[wid.x] = atomicLoad(&count);
    }
}
"#;

/// A dispatch of more workgroups than `SimConfig::threaded_workgroups`: the missing barrier
/// still shows in the threaded ones under the default exploration, and only because they are
/// threaded (none threaded: every workgroup's subgroups in lockstep, clean); the same count
/// behind a barrier is clean with all of them threaded.
#[test]
fn a_missing_barrier_shows_in_the_threaded_workgroups_of_a_large_dispatch() {
    let wide = |source: &str, threaded: Option<u32>| {
        let config = SimConfig {
            subgroup_size: 8,
            threaded_workgroups: threaded,
            ..Default::default()
        };
        check(&CheckRequest {
            name: "test.wgsl".into(),
            source: source.into(),
            entry: "main".into(),
            workgroups: [64, 1, 1],
            binds: vec!["0=u32:zeros:64".parse().unwrap()],
            overrides: vec![],
            immediates: None,
            config,
        })
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let default = SimConfig::default().threaded_workgroups;
    assert!(default.is_some_and(|t| t < 64), "{default:?}");
    let r = wide(HASTY_WIDE, default);
    assert_eq!(
        kinds(&r.findings),
        [FindingKind::ScheduleDivergence],
        "{:#?}",
        r.findings
    );
    assert!(wide(HASTY_WIDE, Some(0)).findings.is_empty());
    let patient = HASTY_WIDE.replace(
        "atomicAdd(&count, 1u);",
        "atomicAdd(&count, 1u);\n    workgroupBarrier();",
    );
    let r = wide(&patient, None);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(r.buffers[&0].1, vec![64; 64]);
}

/// The schedules' runs give the same findings and contents on one thread as on several
/// (`SimConfig::threads`): each run is seeded and shares nothing with the others.
#[test]
fn schedules_on_one_thread_or_several_agree() {
    let on = |threads: usize, source: &str| {
        let config = SimConfig {
            subgroup_size: 4,
            threads,
            schedules: Schedule::first(6),
            ..Default::default()
        };
        let r = check(&CheckRequest {
            name: "test.wgsl".into(),
            source: source.into(),
            entry: "main".into(),
            workgroups: [1, 1, 1],
            binds: vec!["0=u32:zeros:1".parse().unwrap()],
            overrides: vec![],
            immediates: None,
            config,
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let messages: Vec<String> = r.findings.iter().map(|f| f.to_string()).collect();
        (messages, r.buffers[&0].1.clone())
    };
    let one = on(1, HASTY);
    assert_eq!(one.0.len(), 1, "{:?}", one.0);
    assert_eq!(on(3, HASTY), one);
    assert_eq!(on(0, HASTY), one);
    assert_eq!(on(3, PATIENT), (vec![], vec![64]));
}
