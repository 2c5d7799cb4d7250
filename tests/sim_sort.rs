//! The radix sort on the simulator: every strategy at subgroup sizes 4..=128, with shuffled
//! lanes and workgroup order, and the workgroup-memory flavour; sorted, a permutation (pairs
//! carry their index), and zero findings, at small sizes.

mod common;

use wgsimd::reference::sort::{check_keys, Order};
use wgsimd::sim::{Scheduler, SimConfig, SimExecutor};
use wgsimd::sort::{self, SortOptions, SortPolicy, Strategy};
use wgsimd::Executor;

fn sims() -> Vec<(String, SimExecutor)> {
    let mut v: Vec<(String, SimExecutor)> = [4u32, 8, 16, 32, 64, 128]
        .iter()
        .map(|&s| {
            let cfg = SimConfig {
                subgroup_size: s,
                ..Default::default()
            };
            (format!("sg{s}"), SimExecutor::new(cfg).unwrap())
        })
        .collect();
    let cfg = SimConfig {
        subgroup_size: 16,
        shuffle_lanes: Some(4),
        scheduler: Scheduler::Shuffled(4),
        ..Default::default()
    };
    v.push(("sg16 shuffled".into(), SimExecutor::new(cfg).unwrap()));
    let cfg = SimConfig {
        subgroups: false,
        ..Default::default()
    };
    v.push(("emulated".into(), SimExecutor::new(cfg).unwrap()));
    v
}

/// The default policy without OneSweep's small stage (4096-key tiles up to 2^20 keys alone and
/// 2^22 pairs), so that small sizes take its 8192-key tiles.
fn large_tiles() -> SortPolicy {
    SortPolicy {
        onesweep_small_keys_max: 0,
        onesweep_small_pairs_max: 0,
        ..Default::default()
    }
}

/// Every strategy at every subgroup size with the default policy (OneSweep's small stage:
/// two tiles of 4096 keys, the second partial).
#[test]
fn sort_on_sim() {
    let mut failures = Vec::new();
    for (name, sim) in sims() {
        for n in [1usize, 5003] {
            let keys = common::random_u32(n, n as u64 + 1);
            let vals = common::values(n);
            for strategy in [
                Strategy::ReduceThenScan,
                Strategy::OneSweep,
                Strategy::Hybrid,
            ] {
                if strategy == Strategy::OneSweep && !sim.caps().subgroups {
                    continue;
                }
                let opts = SortOptions {
                    strategy: Some(strategy),
                    ..Default::default()
                };
                let p = sort::plan(
                    sim.caps(),
                    &keys,
                    Some(&vals),
                    &opts,
                    &SortPolicy::default(),
                )
                .unwrap();
                let out = sim.run(&p.plan).unwrap();
                let what = format!("{name} n={n} {strategy}");
                for f in &out.findings {
                    failures.push(format!("{what}: {f}"));
                }
                let k: Vec<u32> = p.keys(&out);
                let v = p.values(&out);
                let mut want: Vec<(u32, u32)> =
                    keys.iter().copied().zip(vals.iter().copied()).collect();
                want.sort_by_key(|&(k, _)| k); // stable
                let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
                if got != want {
                    failures.push(format!("{what}: wrong result"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Sorts `keys` alone on `sim` by `opts` under the default policy; findings and a wrong order go
/// to `failures`, labelled `what`.
fn keys_alone<T: sort::SortKey>(
    sim: &SimExecutor,
    what: String,
    keys: &[T],
    opts: &SortOptions,
    failures: &mut Vec<String>,
) {
    let p = sort::plan(sim.caps(), keys, None, opts, &SortPolicy::default()).unwrap();
    let out = sim.run(&p.plan).unwrap();
    failures.extend(out.findings.iter().map(|f| format!("{what}: {f}")));
    let order = Order {
        descending: opts.descending,
        ..Default::default()
    };
    if let Err(e) = check_keys(keys, &p.keys::<T>(&out), order) {
        failures.push(format!("{what}: {e}"));
    }
}

/// Keys alone, every strategy at every subgroup size (the hybrid at two) with the default
/// policy: the keys-alone plans rank partial tiles with the full-tile ranking (`FULL_TILES`),
/// and OneSweep takes its small stage (4096-key tiles) here, so neither is covered by the pairs
/// above. u32 ascending over 3100 keys (two tiles of reduce-then-scan and the hybrid, the second
/// partial; one partial tile of OneSweep's small stage), and f32 of random bits (NaNs,
/// infinities, subnormals, both zeros) descending at exactly one tile of the same stage.
#[test]
fn keys_alone_every_strategy_at_every_subgroup_size() {
    let mut failures = Vec::new();
    for (name, sim) in sims() {
        for strategy in [
            Strategy::ReduceThenScan,
            Strategy::OneSweep,
            Strategy::Hybrid,
        ] {
            if strategy == Strategy::OneSweep && !sim.caps().subgroups {
                continue;
            }
            // the hybrid costs the simulator seconds per sort whatever the size (its bucket
            // passes), and its LSD passes are reduce-then-scan's scatter: two sizes suffice
            if strategy == Strategy::Hybrid && !["sg16 shuffled", "sg128"].contains(&name.as_str())
            {
                continue;
            }
            let n = 3100;
            let u: Vec<u32> = common::random_u32(n, 11);
            let opts = SortOptions {
                strategy: Some(strategy),
                ..Default::default()
            };
            let what = format!("{name} {strategy} u32 n={n}");
            keys_alone(&sim, what, &u, &opts, &mut failures);
            // one whole tile of that stage
            let p = SortPolicy::default();
            let tile = sort::tile_keys_for(strategy, false, n as u64, &p).unwrap() as usize;
            let f: Vec<f32> = common::random_u32(tile, 12)
                .into_iter()
                .map(f32::from_bits)
                .collect();
            let opts = SortOptions {
                descending: true,
                ..opts
            };
            let what = format!("{name} {strategy} f32 n={tile} descending");
            keys_alone(&sim, what, &f, &opts, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The ranking's phase count comes from the smallest subgroup size the plan was built for
/// (override `SG_MIN`): planned for subgroups of 4 (four phases) but run at 8 and 32 (two and
/// one needed), the spare phases must change nothing; planned for the size it runs at, the
/// count is exact; an adapter reporting no minimum (1) gets the most phases. Subgroups of 4
/// share counter rows and need every phase.
#[test]
fn ranking_phases_cover_any_subgroup_size_from_the_planned_minimum() {
    let n = 7001;
    let keys = common::random_u32(n, 77);
    let vals = common::values(n);
    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(vals.iter().copied()).collect();
    want.sort_by_key(|&(k, _)| k);
    for (planned, actual) in [(4u32, 8u32), (4, 32), (8, 8), (4, 4), (1, 4)] {
        let sim = SimExecutor::new(SimConfig {
            subgroup_size: actual,
            ..Default::default()
        })
        .unwrap();
        let mut caps = sim.caps().clone();
        caps.subgroup_min = planned;
        for strategy in [Strategy::ReduceThenScan, Strategy::OneSweep] {
            let opts = SortOptions {
                strategy: Some(strategy),
                ..Default::default()
            };
            let p = sort::plan(&caps, &keys, Some(&vals), &opts, &SortPolicy::default()).unwrap();
            let out = sim.run(&p.plan).unwrap();
            let what = format!("planned for {planned}, run at {actual}, {strategy}");
            assert!(out.findings.is_empty(), "{what}: {:?}", out.findings);
            let got: Vec<(u32, u32)> = p.keys(&out).into_iter().zip(p.values(&out)).collect();
            assert!(got == want, "{what}: wrong result");
        }
    }
}

/// Both rankings in every pass kind: ballots (`SortPolicy` with both `*_match_ranking` off) and
/// match masks (both on; override `RANK_MATCH`) at every subgroup size, with shuffled lanes:
/// subgroups under 32 lanes share mask words, over 32 span several. Full tiles (no bounds
/// checks), a partial tile, all-equal keys (every lane one peer group) and keys that differ
/// only in the lowest bit; zero findings. (The default policy mixes them: `sort_on_sim`.)
/// OneSweep with its 8192-key tiles (its small stage, which the default policy takes at these
/// sizes, is in `sort_on_sim`).
#[test]
fn ranking_by_ballots_and_by_match_masks_at_every_subgroup_size() {
    let mut failures = Vec::new();
    for matching in [false, true] {
        let policy = SortPolicy {
            onesweep_match_ranking: matching,
            scatter_match_ranking: matching,
            ..large_tiles()
        };
        for (name, sim) in sims() {
            for strategy in [Strategy::ReduceThenScan, Strategy::OneSweep] {
                if strategy == Strategy::OneSweep && !sim.caps().subgroups {
                    continue;
                }
                let tile = sort::tile_keys(strategy, true).unwrap() as usize;
                let cases = [
                    (1usize, "random"),
                    (2 * tile + 5, "random"),
                    (tile, "equal"),
                    (tile, "low bit"),
                ];
                for (n, what_keys) in cases {
                    let keys: Vec<u32> = match what_keys {
                        "equal" => vec![0x0101_0101; n],
                        "low bit" => (0..n as u32).map(|i| (i * 7) & 1).collect(),
                        _ => common::random_u32(n, n as u64 + 3),
                    };
                    let vals = common::values(n);
                    let opts = SortOptions {
                        strategy: Some(strategy),
                        ..Default::default()
                    };
                    let p = sort::plan(sim.caps(), &keys, Some(&vals), &opts, &policy).unwrap();
                    let out = sim.run(&p.plan).unwrap();
                    let what = format!("match {matching} {name} n={n} {what_keys} {strategy}");
                    for f in &out.findings {
                        failures.push(format!("{what}: {f}"));
                    }
                    let mut want: Vec<(u32, u32)> =
                        keys.iter().copied().zip(vals.iter().copied()).collect();
                    want.sort_by_key(|&(k, _)| k);
                    let got: Vec<(u32, u32)> =
                        p.keys(&out).into_iter().zip(p.values(&out)).collect();
                    if got != want {
                        failures.push(format!("{what}: wrong result"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Keys alone through OneSweep, whose match ranking takes branch-free steps for subgroups of
/// 32 lanes or more (`rank_items_match_wide`: invocations without a key set and clear mask
/// bits too, as digit 0, above every lane with a key) and the general steps below: every
/// subgroup size, a full tile, partial tiles whose keys are mostly digit 0 in every pass (so
/// the keyless lanes join real peer groups), all-equal keys; sorted, and zero findings. The
/// keys' tile (8192) is staged in two rounds through 5632 keys of workgroup memory: partial
/// tiles of each size end in the first round (tile + 37) or the second (tile - 1,
/// tile + 6000). (The default policy would take OneSweep's small stage at these sizes.)
#[test]
fn keys_alone_by_match_masks_at_every_subgroup_size() {
    let mut failures = Vec::new();
    let tile = sort::tile_keys(Strategy::OneSweep, false).unwrap() as usize;
    for (name, sim) in sims() {
        if !sim.caps().subgroups {
            continue;
        }
        let cases = [
            (1usize, "random"),
            (tile, "random"),
            (2 * tile + 5, "few"),
            (tile + 37, "few"),
            (tile - 1, "equal"),
            (tile + 6000, "random"),
        ];
        for (n, what_keys) in cases {
            let keys: Vec<u32> = match what_keys {
                "equal" => vec![0x0101_0101; n],
                "few" => common::random_u32(n, n as u64 + 5)
                    .iter()
                    .map(|&k| k & 0x0100_0003)
                    .collect(),
                _ => common::random_u32(n, n as u64 + 3),
            };
            let opts = SortOptions {
                strategy: Some(Strategy::OneSweep),
                ..Default::default()
            };
            let p = sort::plan(sim.caps(), &keys, None, &opts, &large_tiles()).unwrap();
            let out = sim.run(&p.plan).unwrap();
            let what = format!("{name} n={n} {what_keys}");
            for f in &out.findings {
                failures.push(format!("{what}: {f}"));
            }
            let mut want = keys.clone();
            want.sort_unstable();
            if p.keys::<u32>(&out) != want {
                failures.push(format!("{what}: wrong result"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
