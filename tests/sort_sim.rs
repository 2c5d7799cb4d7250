//! The radix sort on the simulator: every strategy at subgroup sizes 4..=128, with shuffled
//! lanes and workgroup order, OneSweep with predecessors starved (the decoupled fallback must
//! make progress alone), and the workgroup-memory flavour: zero findings and outputs equal to
//! the reference, at small sizes (the simulator runs ~1e7 lane operations per second).

mod common;

use wgsimd::reference::sort::{check_keys, check_pairs, Order};
use wgsimd::sim::{Scheduler, SimConfig, SimExecutor};
use wgsimd::sort::{self, SortOptions, SortPolicy, Strategy};
use wgsimd::Executor;

fn sim(cfg: SimConfig) -> SimExecutor {
    SimExecutor::new(SimConfig {
        fail_on_step_limit: true,
        ..cfg
    })
    .unwrap()
}

fn check(sim: &SimExecutor, what: &str, n: usize, strategy: Strategy, descending: bool) {
    check_with(sim, what, n, strategy, descending, &SortPolicy::default());
}

fn check_with(
    sim: &SimExecutor,
    what: &str,
    n: usize,
    strategy: Strategy,
    descending: bool,
    policy: &SortPolicy,
) {
    let keys: Vec<u32> = common::random_u32(n, n as u64 + 17)
        .iter()
        .map(|&k| k % 5000)
        .collect();
    let vals = common::values(n);
    let opts = SortOptions {
        descending,
        // 12 bits: two digit passes, the second one narrower
        end_bit: 12,
        strategy: Some(strategy),
        ..Default::default()
    };
    let what = format!("{what} {strategy} n={n} desc={descending}");
    let p = sort::plan(sim.caps(), &keys, Some(&vals), &opts, policy).unwrap();
    let out = sim.run(&p.plan).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.findings.is_empty(),
        "{what}: findings:\n{}",
        out.findings
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let order = Order {
        descending,
        begin_bit: 0,
        end_bit: 12,
    };
    let (k, v): (Vec<u32>, Vec<u32>) = (p.keys(&out), p.values(&out));
    check_pairs(&keys, &vals, &k, &v, order).unwrap_or_else(|e| panic!("{what}: {e}"));
    check_keys(&keys, &k, order).unwrap_or_else(|e| panic!("{what}: {e}"));
}

#[test]
fn every_subgroup_size() {
    for s in [4u32, 8, 32, 128] {
        let e = sim(SimConfig {
            subgroup_size: s,
            ..Default::default()
        });
        for strategy in [Strategy::ReduceThenScan, Strategy::OneSweep] {
            check(&e, &format!("sg{s}"), 300, strategy, s == 8);
            eprintln!("sg{s} {strategy}: {:?}", e.stats());
        }
    }
}

#[test]
fn shuffled_lanes_and_order() {
    let e = sim(SimConfig {
        subgroup_size: 16,
        shuffle_lanes: Some(3),
        scheduler: Scheduler::Shuffled(4),
        ..Default::default()
    });
    check(&e, "sg16 shuffled", 4100, Strategy::OneSweep, false);
    check(&e, "sg16 shuffled", 700, Strategy::Hybrid, true);
}

/// Tiles tied to workgroups and workgroups 0 and 2 starved (they run last): tiles 1 and 3 find
/// their look-back blocked and must count their predecessors' keys themselves; a wait without
/// the fallback would never end (the step limit fails the run).
#[test]
fn onesweep_with_starved_workgroups() {
    let e = sim(SimConfig {
        subgroup_size: 32,
        scheduler: Scheduler::Unfair {
            starved: vec![0, 2],
        },
        ..Default::default()
    });
    for early in [false, true] {
        let policy = SortPolicy {
            onesweep_tickets: false,
            onesweep_early_lookback: early,
            ..Default::default()
        };
        check_with(
            &e,
            &format!("starved, early look-back {early}"),
            4 * wgsimd::sort::tile_keys_for(Strategy::OneSweep, true, 1, &policy).unwrap() as usize
                + 5,
            Strategy::OneSweep,
            false,
            &policy,
        );
    }
}

#[test]
fn workgroup_memory_flavour() {
    let e = sim(SimConfig {
        subgroups: false,
        ..Default::default()
    });
    check(&e, "emulated", 300, Strategy::ReduceThenScan, true);
}

/// `SortPolicy::poison_between_passes` on the simulator: the buffers a digit pass writes for
/// the second time are invalidated before it (`Plan::invalidate`), so a key that pass fails to
/// write is a finding even where the output could not show it. All-equal keys make every pass
/// the identity, and each strategy's third digit pass is made to skip the key that lands at
/// tile position 0: the plan as shipped sorts right and reports nothing, the invalidating plan
/// reports the fourth pass reading that word (`uninitialized-read`, word 0 of scratch buffer
/// `keys a`, beside what the poisoned key does next). Unedited, the invalidating plan reports
/// nothing.
#[test]
fn invalidated_scratch_shows_a_missed_write() {
    let e = sim(SimConfig::default());
    let n = 300;
    let keys = vec![0x0102_0304u32; n];
    let write = "    keys_out[dst] = select(k, from_sortable(k), MAP_OUT != 0u);";
    let skip = "    if dst != 0u { keys_out[dst] = select(k, from_sortable(k), MAP_OUT != 0u); }";
    for (strategy, third) in [
        (Strategy::ReduceThenScan, "scatter 2"),
        (Strategy::OneSweep, "onesweep 2"),
        // the hybrid's LSD passes count from 0 after its MSD pass
        (Strategy::Hybrid, "scatter 1"),
    ] {
        let opts = SortOptions {
            strategy: Some(strategy),
            ..Default::default()
        };
        for (invalidate, edit) in [(false, true), (true, true), (true, false)] {
            let what = format!("{strategy}, invalidate {invalidate}, edit {edit}");
            let policy = SortPolicy {
                poison_between_passes: invalidate,
                ..Default::default()
            };
            let mut p = sort::plan(e.caps(), &keys, None, &opts, &policy).unwrap();
            let invalidations = p
                .plan
                .passes
                .iter()
                .filter(|pass| pass.invalidates.is_some())
                .count();
            assert_eq!(invalidations, if invalidate { 2 } else { 0 }, "{what}");
            if edit {
                let pass = p
                    .plan
                    .passes
                    .iter_mut()
                    .find(|pass| pass.label == third)
                    .unwrap_or_else(|| panic!("{what}: no pass {third}"));
                common::edit_pass(pass, write, skip);
            }
            let out = e.run(&p.plan).unwrap_or_else(|err| panic!("{what}: {err}"));
            let kinds: Vec<_> = out.findings.iter().map(|f| f.kind).collect();
            if invalidate && edit {
                // (what the poisoned key does next may add findings: OneSweep scatters it out
                // of bounds and leaves a word of the output unwritten)
                assert!(
                    out.findings.iter().any(|f| f.kind
                        == wgsimd::finding::FindingKind::UninitializedRead
                        && f.to_string().contains(
                            "word 0 of buffer 1 `keys a` read after pass `invalidate keys a`"
                        )),
                    "{what}: {:?}",
                    out.findings
                );
            } else {
                assert_eq!(kinds, vec![], "{what}: {:?}", out.findings);
                check_keys(&keys, &p.keys::<u32>(&out), Order::default())
                    .unwrap_or_else(|err| panic!("{what}: {err}"));
            }
        }
    }
}

/// Odd settings a caller can build are handled, not panics or wrong sorts: a policy with no
/// global-histogram workgroups (taken as one), caps saying 0 workgroups per dimension (no
/// panic), a largest buffer below the storage binding (its own message), and the bench's cases
/// on an adapter with subgroups whose workgroup memory OneSweep does not fit (left out).
#[test]
fn odd_policies_and_caps() {
    let e = sim(SimConfig::default());
    let policy = SortPolicy {
        histogram_workgroups: 0,
        ..Default::default()
    };
    check_with(
        &e,
        "no histogram workgroups",
        3000,
        Strategy::OneSweep,
        false,
        &policy,
    );

    let keys: Vec<u32> = common::random_u32(3000, 9);
    let mut caps = e.caps().clone();
    caps.max_workgroups_per_dim = 0;
    for strategy in [
        Strategy::ReduceThenScan,
        Strategy::OneSweep,
        Strategy::Hybrid,
    ] {
        let opts = SortOptions {
            strategy: Some(strategy),
            ..Default::default()
        };
        let p = sort::plan(&caps, &keys, None, &opts, &SortPolicy::default());
        assert!(p.is_ok(), "{strategy}: {:?}", p.err());
    }

    let mut caps = e.caps().clone();
    caps.max_buffer = 4 * 1000;
    let r = sort::plan(
        &caps,
        &keys[..1001],
        None,
        &SortOptions::default(),
        &SortPolicy::default(),
    );
    match r {
        Err(wgsimd::Error::TooLarge(m)) => assert!(m.contains("largest buffer"), "{m}"),
        other => panic!("{:?}", other.err()),
    }

    let mut caps = e.caps().clone();
    assert!(caps.subgroups);
    caps.max_workgroup_storage = 16 << 10;
    let cases = sort::bench_cases(&caps, 1000, 1).unwrap();
    assert!(!cases.is_empty());
    assert!(
        cases.iter().all(|c| !c.variant.contains("onesweep")),
        "{:?}",
        cases.iter().map(|c| &c.variant).collect::<Vec<_>>()
    );
}
