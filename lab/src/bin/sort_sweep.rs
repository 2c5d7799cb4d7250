//! Sort tuning sweep (development, not a test): kernel experiments (source rewrites) and
//! reduce-then-scan, u32 keys at 2^24 and 2^28 (or `EXP_SIZES=20,24`: exponents, fractional
//! ones too, `20.585` for 1.5 · 2^20; `EXP_KEYS=equal` or `sorted` for adversarial keys; `EXP_PAIRS=1` for pairs; `EXP_VARIANTS="a;b"` for those
//! variants only), each output compared with `sort_unstable` (pairs: values checked too), with
//! the per-pass breakdown.
//!
//! Each variant builds its own plan and buffers, and on the H100 where they land moved the
//! reduce-then-scan scatter by up to 1.5% with identical code (eighth session): a name that
//! matches no edit (`exp: reduce-then-scan, null`) runs the plan unchanged, so put one beside
//! the variants and repeat them at several positions before trusting a difference that small.
use rand::{Rng, SeedableRng};
use wgsimd::sort::{self, SortOptions, SortPolicy, Strategy};
use wgsimd::{Executor, GpuExecutor};

fn main() {
    let g = GpuExecutor::new().unwrap();
    let caps = g.caps().clone();
    // exponents: 2^e keys, rounded (fractional ones for sizes between powers of two: 20.585 is
    // 1.5 · 2^20)
    let exps: Vec<f64> = std::env::var("EXP_SIZES")
        .unwrap_or_else(|_| "24,28".into())
        .split(',')
        .map(|e| e.trim().parse().unwrap())
        .collect();
    for e in exps {
        let n = 2f64.powf(e).round() as usize;
        // (whole exponents keep the seeds of earlier sessions' measurements)
        let seed = if e.fract() == 0.0 {
            e as u64
        } else {
            e.to_bits()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        // EXP_KEYS=equal / sorted: adversarial inputs instead of uniform random keys
        let keys: Vec<u32> = match std::env::var("EXP_KEYS").as_deref() {
            Ok("equal") => vec![0x5a5a_5a5a; n],
            Ok("sorted") => (0..n as u32).collect(),
            _ => (0..n).map(|_| rng.random()).collect(),
        };
        let mut want = keys.clone();
        want.sort_unstable();
        // EXP_PAIRS=1: sort (key, index) pairs (the check still compares the keys)
        let vals: Option<Vec<u32>> = std::env::var("EXP_PAIRS")
            .is_ok()
            .then(|| (0..n as u32).collect());
        let base = SortPolicy::default();
        let variants: Vec<(&str, Strategy, SortPolicy)> =
            vec![
            ("reduce-then-scan", Strategy::ReduceThenScan, base),
            (
                "exp: reduce-then-scan, plain staging",
                Strategy::ReduceThenScan,
                base,
            ),
            // right only where every subgroup has its own counter row (per_row = 1: the H100)
            (
                "exp: reduce-then-scan, one phase",
                Strategy::ReduceThenScan,
                base,
            ),
            // not a sort: every scatter writes its tile's staged keys to the tile's own
            // range, so the difference to the first line is the cost of scattered writes
            // barriers the scatter's one tile per workgroup does not need: tile_rank's first
            // (no previous tile's staging) and the digit scan's first (no previous scan)
            (
                "exp: reduce-then-scan, no first barrier",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "exp: reduce-then-scan, no first barrier, no scan barrier",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "exp: reduce-then-scan, branchless first lane",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "exp: reduce-then-scan, no first barrier, no scan barrier, branchless first lane",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            // not a sort: no ranking at all (keys staged in input order), so the difference
            // to "coalesced writes" is what the ranking costs
            (
                "diag: reduce-then-scan, no ranking, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            // not a sort: ranking parts left out, writes coalesced (compare with "coalesced
            // writes")
            (
                "diag: reduce-then-scan, no ballots, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, no digit scan, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, no digit scan, no row sums, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, no counter adds, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, no shuffles, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, no final add, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            // not a sort: the ranking skips its ballots (every key's peers are the whole
            // subgroup), so the difference to the first line is what the ballots cost
            (
                "diag: reduce-then-scan, no ballots",
                Strategy::ReduceThenScan,
                base,
            ),
            // workgroup memory the scatter never uses (2, 4, 8 KiB): how resident workgroups
            // bound it
            (
                "diag: reduce-then-scan, +1 words",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, +256 words",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, +2 KiB",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, +4 KiB",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "diag: reduce-then-scan, +8 KiB",
                Strategy::ReduceThenScan,
                base,
            ),
            // one ballot word (right where subgroups have at most 32 lanes, as on the H100):
            // the same time as four words on the H100 (fifth session), whose compiler drops the
            // words a 32-lane subgroup leaves zero
            (
                "exp: reduce-then-scan, one ballot word",
                Strategy::ReduceThenScan,
                base,
            ),
            // not a sort: tile t takes the digit offsets of tile t % 8 (cached), so the
            // difference to the first line is what reading each tile's 256 scattered offsets
            // costs
            (
                "diag: reduce-then-scan, cached offsets",
                Strategy::ReduceThenScan,
                base,
            ),
            // every lane adds to its digit's counter (non-leaders add 0): no divergent branch
            // between one item's ballots and the next's, so they may overlap the atomic
            (
                "exp: reduce-then-scan, branch-free counters",
                Strategy::ReduceThenScan,
                base,
            ),
            (
                "exp: reduce-then-scan, branch-free counters, one phase",
                Strategy::ReduceThenScan,
                base,
            ),
            // values in a read_write binding behind a storage barrier: the compiler may not
            // load them before the ranking (holding 12 more registers through it). Slower on
            // the H100 (fifth session: pairs scatter 14.8 against 12.9 ms at 2^28): the early
            // loads help
            (
                "exp: reduce-then-scan, values pinned",
                Strategy::ReduceThenScan,
                base,
            ),
            ("exp: hybrid, values pinned", Strategy::Hybrid, base),
            ("exp: onesweep, values pinned", Strategy::OneSweep, base),
            ("onesweep", Strategy::OneSweep, base),
            // the fallback sooner (fewer polls of a silent predecessor), and the look-back
            // before the ranking (the policy's default until the fifth session)
            (
                "exp: onesweep, spin 8",
                Strategy::OneSweep,
                SortPolicy { spin: 8, ..base },
            ),
            (
                "exp: onesweep, spin 0",
                Strategy::OneSweep,
                SortPolicy { spin: 0, ..base },
            ),
            (
                "exp: onesweep, look back before ranking",
                Strategy::OneSweep,
                SortPolicy {
                    onesweep_early_lookback: true,
                    ..base
                },
            ),
            // not sorts: writes coalesced as in "coalesced writes", with and without the
            // look-back, so the difference is the look-back's cost without the write
            // collisions of "no look-back" (every tile writing from its digits' starts)
            ("diag: onesweep, coalesced writes", Strategy::OneSweep, base),
            (
                "diag: onesweep, no look-back, coalesced writes",
                Strategy::OneSweep,
                base,
            ),
            ("exp: onesweep, branch-free counters", Strategy::OneSweep, base),
            ("hybrid", Strategy::Hybrid, base),
            (
                "exp: onesweep, no first barrier, no scan barrier, branchless first lane",
                Strategy::OneSweep,
                base,
            ),
            // look-back steps, fallbacks and polls per pass, in the state buffer
            ("diag: onesweep, counters", Strategy::OneSweep, base),
            // not a sort: no look-back (every digit's prefix is 0), so the difference to
            // onesweep is what the look-back costs
            ("diag: onesweep, no look-back", Strategy::OneSweep, base),
            // not a change of the sort: an unused workgroup array of 1 KiB ("+N KiB", "+N
            // words"), to find where resident workgroups drop (thirteenth session: from about
            // 24 KB per workgroup)
            ("diag: onesweep, +1 KiB", Strategy::OneSweep, base),
            ("exp: onesweep, window 32", Strategy::OneSweep, base),
            ("exp: onesweep, window 8", Strategy::OneSweep, base),
            ("exp: onesweep, window 16", Strategy::OneSweep, base),
            // status words read and written with plain loads and stores (not atomics): what
            // the look-back's atomic loads cost (racy reads, so a diagnostic, not a kernel)
            ("diag: onesweep, plain status", Strategy::OneSweep, base),
            ("diag: onesweep, plain status, window 32", Strategy::OneSweep, base),
            ("diag: onesweep, plain status, window 8", Strategy::OneSweep, base),
            ("diag: onesweep, plain status, counters", Strategy::OneSweep, base),
            // the rewrite machinery alone (the kernel's own window, a recompiled module)
            ("exp: onesweep, window 4", Strategy::OneSweep, base),
            ("exp: onesweep, window 2", Strategy::OneSweep, base),
            ("diag: onesweep, window 4, counters", Strategy::OneSweep, base),
        ];
        // EXP_VARIANTS="name;name": only those, in that order; a name not listed above runs
        // the strategy it names with its edits ("exp: onesweep, window 6, ...")
        let only = std::env::var("EXP_VARIANTS").ok();
        let variants: Vec<(String, Strategy, SortPolicy)> = match &only {
            None => variants
                .into_iter()
                .map(|(n, s, p)| (n.to_string(), s, p))
                .collect(),
            Some(o) => o
                .split(';')
                .map(|v| match variants.iter().find(|x| x.0 == v) {
                    Some(&(n, s, p)) => (n.to_string(), s, p),
                    None if v.contains("onesweep") => (v.to_string(), Strategy::OneSweep, base),
                    None if v.contains("hybrid") => (v.to_string(), Strategy::Hybrid, base),
                    None => (v.to_string(), Strategy::ReduceThenScan, base),
                })
                .collect(),
        };
        for (name, strategy, policy) in variants {
            let name = name.as_str();
            // "full tiles on" / "full tiles off": the policy's FULL_TILES for the strategy
            let full = |default: bool| {
                (default || name.contains("full tiles on")) && !name.contains("full tiles off")
            };
            // "small tiles off": OneSweep's 8192-key tiles at every size
            let small_off = name.contains("small tiles off");
            let policy = SortPolicy {
                onesweep_early_lookback: policy.onesweep_early_lookback
                    || name.contains("look back before ranking"),
                onesweep_tickets: policy.onesweep_tickets && !name.contains("no tickets"),
                scatter_full_tiles: full(policy.scatter_full_tiles),
                onesweep_full_tiles: full(policy.onesweep_full_tiles),
                // "match ranking on" / "match ranking off": SortPolicy's *_match_ranking
                onesweep_match_ranking: policy.onesweep_match_ranking
                    && !name.contains("match ranking off")
                    || name.contains("match ranking on"),
                scatter_match_ranking: policy.scatter_match_ranking
                    && !name.contains("match ranking off")
                    || name.contains("match ranking on"),
                // "values early on" / "values early off": SortPolicy::onesweep_values_early
                onesweep_values_early: policy.onesweep_values_early
                    && !name.contains("values early off")
                    || name.contains("values early on"),
                onesweep_small_keys_max: if small_off {
                    0
                } else {
                    policy.onesweep_small_keys_max
                },
                onesweep_small_pairs_max: if small_off {
                    0
                } else {
                    policy.onesweep_small_pairs_max
                },
                ..policy
            };
            let opts = SortOptions {
                strategy: Some(strategy),
                ..Default::default()
            };
            let mut p = sort::plan(&caps, &keys, vals.as_deref(), &opts, &policy).unwrap();
            for (part, edits) in EDITS {
                if name.contains(part) {
                    rewrite_tile_passes(&mut p.plan, edits);
                }
            }
            // "scalar histogram": OneSweep's global histogram loads u32s, not vec4s
            if name.contains("scalar histogram") {
                let vec4 = "const VEC4_LOADS: bool = true;";
                let scalar = "const VEC4_LOADS: bool = false;";
                rewrite_passes(&mut p.plan, &["global histogram"], &[(vec4, scalar)]);
            }
            // "window N": OneSweep's look-back reads N predecessors per step
            if let Some(w) = name.split("window ").nth(1) {
                let w: u32 = w.split(',').next().unwrap().trim().parse().unwrap();
                let line = "const LOOKBACK: u32 = 4u;";
                rewrite_tile_passes(
                    &mut p.plan,
                    &[(line, format!("const LOOKBACK: u32 = {w}u; "))],
                );
            }
            // "diag: reduce-then-scan, +N KiB" / "diag: onesweep, +N words": an unused
            // workgroup array in the strategy's ranking passes, touched before the line that
            // loads their tile (a line each kernel has once)
            let pad = [
                (
                    "diag: reduce-then-scan, +",
                    "    let desc = describe(tile);",
                ),
                (
                    "diag: onesweep, +",
                    "    let t = tile_load(inv, start, count);",
                ),
            ]
            .into_iter()
            .find_map(|(prefix, line)| Some((name.strip_prefix(prefix)?, line)));
            if let Some((pad, line)) = pad {
                let words = match pad.strip_suffix(" KiB") {
                    Some(kib) => kib.parse::<u32>().unwrap() * 256,
                    None => pad.trim_end_matches(" words").parse::<u32>().unwrap(),
                };
                rewrite_tile_passes(&mut p.plan, &pad_smem(words, line));
            }
            let counters = name.contains("onesweep") && name.ends_with(", counters");
            if counters {
                // on the plain-status variant the atomic words are the head of a struct
                let head = if name.contains("plain status") {
                    "&os_state.head["
                } else {
                    "&state["
                };
                let edits: Vec<(&str, String)> = ONESWEEP_COUNTERS
                    .iter()
                    .map(|(a, b)| (*a, b.replace("&state[", head)))
                    .collect();
                rewrite_tile_passes(&mut p.plan, &edits);
                for b in p.plan.buffers.iter_mut() {
                    if b.label == "onesweep state" {
                        b.readback = true;
                    }
                }
            }
            let (out, t) = g.time(&p.plan, 3, 10).unwrap();
            let out_keys = p.keys::<u32>(&out);
            let mut ok = out_keys == want;
            if vals.is_some() && ok {
                // values = input index: each follows its key, equal keys keep input order,
                // and every index appears once
                let v: Vec<u32> = p.values(&out);
                let mut seen = vec![false; n];
                ok = v.iter().enumerate().all(|(i, &x)| {
                    let x = x as usize;
                    let fresh = x < n && !std::mem::replace(&mut seen[x], true);
                    fresh
                        && keys[x] == out_keys[i]
                        && (i == 0 || out_keys[i - 1] != out_keys[i] || v[i - 1] < v[i])
                });
            }
            if counters {
                let id = p
                    .plan
                    .buffers
                    .iter()
                    .position(|b| b.label == "onesweep state")
                    .unwrap();
                let w: &[u32] = bytemuck::cast_slice(&out.buffers[&wgsimd::plan::BufferId(id)]);
                let tiles = n.div_ceil(
                    sort::tile_keys_for(Strategy::OneSweep, vals.is_some(), n as u64, &policy)
                        .unwrap() as usize,
                );
                for pass in 0..4 {
                    println!(
                        "  pass {pass}: digit 0's solo look-back steps per tile {:.3}, workgroup steps per tile {:.3}, fallbacks {}, stops at a silent predecessor {}",
                        w[1056 + pass] as f64 / tiles as f64,
                        w[1080 + pass] as f64 / tiles as f64,
                        w[1064 + pass],
                        w[1072 + pass]
                    );
                }
            }
            let mut agg: Vec<(String, f64)> = Vec::new();
            for (l, ns) in t.pass_labels.iter().zip(t.pass_median_ns()) {
                let k = l
                    .trim_end_matches(|c: char| c.is_ascii_digit())
                    .trim()
                    .to_string();
                match agg.iter_mut().find(|(a, _)| *a == k) {
                    Some(x) => x.1 += ns,
                    None => agg.push((k, ns)),
                }
            }
            let passes: Vec<String> = agg
                .iter()
                .map(|(l, ns)| format!("{l} {:.3} ms", ns / 1e6))
                .collect();
            println!(
                "2^{e} {name}: {:.2} Gkeys/s median ({:.3} ms) [{}] ok={ok}",
                n as f64 / t.median_ns(),
                t.median_ns() / 1e6,
                passes.join(", ")
            );
        }
    }
}

/// The source edits of the variants whose names contain the first string (those that take no
/// parameter; the workgroup-memory pad, the look-back window and the OneSweep counters are
/// applied in `main`).
const EDITS: &[(&str, &[(&str, &str)])] = &[
    ("plain staging", PLAIN_STAGING),
    ("plain status", PLAIN_STATUS),
    (
        "packed digits",
        &[
            ("    var dst: array<u32, KPT>;\n    for (var j = 0u; j < KPT; j++) {\n        let i = j * WG_SIZE + inv.lid;\n        if i < count {\n            let k = atomicLoad(&tile_mem[i]);\n            let d = digit_of(k);\n            dst[j] = atomicLoad(&digit_base[d]) + i;\n            keys_out[dst[j]] = select(k, from_sortable(k), MAP_OUT != 0u);\n        }\n    }", "    var digits: array<u32, (KPT + 3u) / 4u>;\n    for (var j = 0u; j < KPT; j++) {\n        let i = j * WG_SIZE + inv.lid;\n        if i < count {\n            let k = atomicLoad(&tile_mem[i]);\n            let d = digit_of(k);\n            digits[j / 4u] |= d << (8u * (j % 4u));\n            keys_out[atomicLoad(&digit_base[d]) + i] = select(k, from_sortable(k), MAP_OUT != 0u);\n        }\n    }"),
            ("                vals_out[dst[j]] = atomicLoad(&tile_mem[i]);", "                let d = (digits[j / 4u] >> (8u * (j % 4u))) & 0xffu;\n                vals_out[atomicLoad(&digit_base[d]) + i] = atomicLoad(&tile_mem[i]);"),
        ],
    ),
    ("one phase", ONE_PHASE),
    (
        "half status reads",
        &[("status + select(0u, pos - j, j <= pos) * RADIX + d]", "status + select(0u, pos - j, j <= pos) * RADIX + (d & ~1u)]")],
    ),
    (
        "quarter status reads",
        &[("status + select(0u, pos - j, j <= pos) * RADIX + d]", "status + select(0u, pos - j, j <= pos) * RADIX + (d & ~3u)]")],
    ),
    (
        "no solo walk",
        &[("const SOLO_WALK: u32 = 1u;", "const SOLO_WALK: u32 = 0u;")],
    ),
    (
        "no look-back",
        &[("var done = tile == 0u || !owner;", "var done = true;")],
    ),
    (
        "no counter adds",
        &[(
            "let old = atomicAdd(&tile_mem[counter_at(c.row, d)], popcount4(peers) << half);",
            "let old = popcount4(peers) << half;",
        )],
    ),
    (
        "no shuffles",
        &[(
            "return rs_shuffle(inv, base, peer_leader(inv, peers)) + below;",
            "return base + peer_leader(inv, peers) + below;",
        )],
    ),
    (
        "no final add",
        &[(
            "rank[j] += counter_get(rr.y, digit_of(t.keys[j]));",
            "rank[j] += digit_of(t.keys[j]);",
        )],
    ),
    (
        "no first barrier",
        &[(
            "    // barrier: nobody still reads tile_mem (a previous tile's staging)\n    workgroupBarrier();\n",
            "",
        )],
    ),
    (
        "no scan barrier",
        &[(
            "    // barrier: a previous call's readers of wg_slots must be done before we overwrite it\n    workgroupBarrier();\n    if inv.lane == 0u {\n        wg_slots[inv.sg_id] = sg_total;",
            "    if inv.lane == 0u {\n        wg_slots[inv.sg_id] = sg_total;",
        )],
    ),
    (
        "branchless first lane",
        &[(
            "    if m.x != 0u {\n        return firstTrailingBit(m.x);\n    }\n    if m.y != 0u {\n        return 32u + firstTrailingBit(m.y);\n    }\n    if m.z != 0u {\n        return 64u + firstTrailingBit(m.z);\n    }\n    return 96u + firstTrailingBit(m.w);",
            "    let f = firstTrailingBit(m) + vec4<u32>(0u, 32u, 64u, 96u);\n    return select(select(select(f.w, f.z, m.z != 0u), f.y, m.y != 0u), f.x, m.x != 0u);",
        )],
    ),
    ("one ballot word", ONE_BALLOT_WORD),
    // a ballot as an OR-reduction of each lane's bit (right where subgroups have at most 32
    // lanes, as on the H100): NVIDIA masks each `subgroupBallot` with the active lanes
    (
        "or ballot",
        &[(
            "    return subgroupBallot(p);",
            "    return vec4<u32>(subgroupOr(select(0u, 1u << (inv.lane & 31u), p)), 0u, 0u, 0u);",
        )],
    ),
    (
        "values pinned",
        &[
            (
                "var<storage, read> vals_in: array<u32>;",
                "var<storage, read_write> vals_in: array<u32>;",
            ),
            (
                "        // barrier: every key was read from tile_mem before values overwrite it\n        workgroupBarrier();",
                "        // barrier: every key was read from tile_mem before values overwrite it\n        workgroupBarrier();\n        storageBarrier();",
            ),
        ],
    ),
    ("branch-free counters", BRANCH_FREE_COUNTERS),
    (
        "cached offsets",
        &[(
            "offsets[desc.z + inv.lid * desc.w]",
            "offsets[desc.z % 8u + inv.lid * desc.w]",
        )],
    ),
    ("no ranking", NO_RANKING),
    ("coalesced writes", COALESCED_WRITES),
    ("no ballots", NO_BALLOTS),
    // the digit starts' scan over the tile (its subgroup scans and barriers)
    (
        "no digit scan",
        &[(
            "let sc = wg_scan_add_u32(inv, select(0u, lo + (total >> 16u), owner));",
            "let sc = vec2<u32>(lo, total);",
        ),
        (
            "atomicStore(&tile_mem[rank[j]], t.keys[j]);",
            "atomicStore(&tile_mem[rank[j] % TILE], t.keys[j]);",
        )],
    ),
    // the owners' walks over the counter rows (sum, then rewrite)
    (
        "no row sums",
        &[
            (
                "        for (var r = 0u; r < rows; r++) {\n            total += atomicLoad(&tile_mem[r * (RADIX / 2u) + p]);\n        }",
                "        total = atomicLoad(&tile_mem[p]);",
            ),
            (
                "        for (var r = 0u; r < rows; r++) {\n            let c = atomicLoad(&tile_mem[r * (RADIX / 2u) + p]);\n            atomicStore(&tile_mem[r * (RADIX / 2u) + p], run);\n            run += c;\n        }",
                "        atomicStore(&tile_mem[row * (RADIX / 2u) + p], run);",
            ),
        ],
    ),
];

/// Experiment: stage the ranked tile in a plain (non-atomic) workgroup array of its own instead
/// of the atomic `tile_mem` the rank counters need (16 KiB more workgroup memory: fits the
/// H100's 48, not lavapipe's 32). Keys only.
const PLAIN_STAGING: &[(&str, &str)] = &[
    (
        "var<workgroup> tile_mem: array<atomic<u32>, TILE>;",
        "var<workgroup> tile_mem: array<atomic<u32>, TILE>;\nvar<workgroup> stage_plain: array<u32, TILE>;",
    ),
    (
        "atomicStore(&tile_mem[rank[j]], t.keys[j]);",
        "stage_plain[rank[j]] = t.keys[j];",
    ),
    ("let k = atomicLoad(&tile_mem[i]);", "let k = stage_plain[i];"),
];

/// Diagnostic: OneSweep's status words as a plain (non-atomic) array behind the atomic head of
/// the state buffer (offsets and tile counters), so the look-back's window is read with plain
/// loads. Racy reads: a stale value is an older one of the same word, which the look-back
/// handles (walks on, or falls back), so the sort stays right on the H100; not a kernel.
const PLAIN_STATUS: &[(&str, &str)] = &[
    (
        "@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;",
        "struct OsState { head: array<atomic<u32>, 1088>, status: array<u32> }\n@group(0) @binding(5) var<storage, read_write> os_state: OsState;",
    ),
    ("&state[STATE_COUNTERS + PASS]", "&os_state.head[STATE_COUNTERS + PASS]"),
    ("&state[PASS * RADIX + r]", "&os_state.head[PASS * RADIX + r]"),
    ("&state[PASS * RADIX + e]", "&os_state.head[PASS * RADIX + e]"),
    (
        "let status = STATE_STATUS + PASS * params.tiles * RADIX;",
        "let status = PASS * params.tiles * RADIX;",
    ),
    (
        "atomicStore(&state[status + d], FLAG_INCLUSIVE | (global + total));",
        "os_state.status[status + d] = FLAG_INCLUSIVE | (global + total);",
    ),
    (
        "atomicStore(&state[status + tile * RADIX + d], FLAG_AGGREGATE | total);",
        "os_state.status[status + tile * RADIX + d] = FLAG_AGGREGATE | total;",
    ),
    (
        "st[j] = atomicLoad(&state[status + select(0u, pos - j, j <= pos) * RADIX + d]);",
        "st[j] = os_state.status[status + select(0u, pos - j, j <= pos) * RADIX + d];",
    ),
    (
        "var s = atomicLoad(&state[status + r.pos * RADIX + d]);",
        "var s = os_state.status[status + r.pos * RADIX + d];",
    ),
    (
        "s = atomicLoad(&state[status + r.pos * RADIX + d]);",
        "s = os_state.status[status + r.pos * RADIX + d];",
    ),
    (
        "atomicStore(&state[status + tile * RADIX + d], FLAG_INCLUSIVE | (acc + total));",
        "os_state.status[status + tile * RADIX + d] = FLAG_INCLUSIVE | (acc + total);",
    ),
];

/// Experiment: the ranking's phase loop with a constant bound of 1 (right only when every
/// subgroup has a counter row of its own, as on the H100: 8 subgroups, RANK_ROWS = 22 rows).
const ONE_PHASE: &[(&str, &str)] = &[(
    "for (var phase = 0u; phase < RANK_PHASES; phase++) {",
    "for (var phase = 0u; phase < 1u; phase++) {",
)];

/// Experiment: the counter update without a branch (every lane adds; only leaders add non-zero).
const BRANCH_FREE_COUNTERS: &[(&str, &str)] = &[(
    "    var base = 0u;
    if c.mine && valid && below == 0u {
        base = reserve_slots(c, d, peers);
    }",
    "    let half = counter_shift(d);
    let lead = c.mine && valid && below == 0u;
    let old = atomicAdd(&tile_mem[counter_at(c.row, d)], select(0u, popcount4(peers) << half, lead));
    let base = (old >> half) & 0xffffu;",
)];

/// Experiment: ballots, lane masks and peer masks in one word (subgroups of at most 32 lanes).
const ONE_BALLOT_WORD: &[(&str, &str)] = &[
    (
        "    return subgroupBallot(p);",
        "    return vec4<u32>(subgroupBallot(p).x, 0u, 0u, 0u);",
    ),
    (
        "let lt = vec4<u32>(lanes_below(lane, 0u), lanes_below(lane, 1u), lanes_below(lane, 2u), lanes_below(lane, 3u));",
        "let lt = vec4<u32>(lanes_below(lane, 0u), 0u, 0u, 0u);",
    ),
    (
        "let all_lanes = vec4<u32>(lanes_below(size, 0u), lanes_below(size, 1u), lanes_below(size, 2u), lanes_below(size, 3u));",
        "let all_lanes = vec4<u32>(lanes_below(size, 0u), 0u, 0u, 0u);",
    ),
];

/// Diagnostic (not a sort): each staged key goes to its own tile's range (coalesced) instead of
/// its digit's destination.
const COALESCED_WRITES: &[(&str, &str)] = &[
    (
        "fn write_key(i: u32) -> u32 {",
        "var<private> coalesced_start: u32;\nfn write_key(i: u32) -> u32 {",
    ),
    ("    keys_out[dst] = ", "    keys_out[coalesced_start + i] = "),
    (
        "    let full = FULL_TILES != 0u && count == TILE;\n    var dst: array<u32, KPT>;",
        "    coalesced_start = start;\n    let full = FULL_TILES != 0u && count == TILE;\n    var dst: array<u32, KPT>;",
    ),
];

/// Diagnostic (not a sort): the scatter's ranks are the keys' positions in the tile.
const NO_RANKING: &[(&str, &str)] = &[(
    "let rank = tile_rank(inv, t, desc.y);",
    "var rank: array<u32, KPT>;\n    for (var j = 0u; j < KPT; j++) { rank[j] = slot(inv, j); }",
)];

/// Diagnostic (not a sort): no ballots in the ranking.
const NO_BALLOTS: &[(&str, &str)] = &[(
    "for (var b = 0u; b < BITS; b++) {",
    "for (var b = 0u; b < 0u; b++) {",
)];

/// Diagnostic: `words` more workgroup memory in a ranking pass, touched before the kernel's
/// `line` only on a branch never taken (params.n is never all ones), so the compiler must keep
/// it.
fn pad_smem(words: u32, line: &'static str) -> Vec<(&'static str, String)> {
    vec![
        (
            "@compute @workgroup_size(WG_SIZE)",
            format!("var<workgroup> pad_mem: array<u32, {words}>;\n@compute @workgroup_size(WG_SIZE)"),
        ),
        (
            line,
            format!("    if params.n == 0xffffffffu {{ pad_mem[inv.lid] = inv.lid; keys_out[0] = pad_mem[(inv.lid + 1u) % {words}u]; }}\n{line}"),
        ),
    ]
}

/// Diagnostic: the OneSweep pass counts digit 0's solo look-back steps (state word 1056 + PASS;
/// one digit, as every digit adding to one word slowed the pass by half), the workgroup's steps (1080 + PASS; keys alone take them only when a walk stopped), the fallbacks (1064 + PASS) and the
/// digits' stops at a silent predecessor (1072 + PASS).
const ONESWEEP_COUNTERS: &[(&str, &str)] = &[
    (
        "    // keys alone: a digit whose walk is done publishes",
        "    atomicAdd(&state[1056u + PASS], select(0u, solo_steps, inv.lid == 0u));\n    // keys alone: a digit whose walk is done publishes",
    ),
    (
        "        if !published && tile != 0u && owner {",
        "        atomicAdd(&state[1080u + PASS], select(0u, step, inv.lid == 0u));\n        if !published && tile != 0u && owner {",
    ),
    (
        "    var silent = false;",
        "    var silent = false;\n    var solo_steps = 0u;",
    ),
    (
        "        silent = w.silent;",
        "        silent = w.silent;\n        solo_steps += 1u;",
    ),
    (
        "            let f = fb - 1u;",
        "            let f = fb - 1u;\n            if inv.lid == 0u { atomicAdd(&state[1064u + PASS], 1u); }",
    ),
    (
        "            if (s & FLAG_INCLUSIVE) != 0u {\n                r.acc += s & VALUE_MASK;\n                r.done = true;\n                r.silent = false;\n            } else if",
        "            atomicAdd(&state[1072u + PASS], 1u);\n            if (s & FLAG_INCLUSIVE) != 0u {\n                r.acc += s & VALUE_MASK;\n                r.done = true;\n                r.silent = false;\n            } else if",
    ),
];

/// Rewrites the kernels of the ranking passes (scatter, onesweep) with `edits`.
fn rewrite_tile_passes<A: AsRef<str>, B: AsRef<str>>(
    plan: &mut wgsimd::plan::Plan,
    edits: &[(A, B)],
) {
    rewrite_passes(plan, &["scatter", "onesweep "], edits);
}

/// Applies `edits` to the passes whose label starts with one of `labels`.
fn rewrite_passes<A: AsRef<str>, B: AsRef<str>>(
    plan: &mut wgsimd::plan::Plan,
    labels: &[&str],
    edits: &[(A, B)],
) {
    for pass in plan
        .passes
        .iter_mut()
        .filter(|p| labels.iter().any(|l| p.label.starts_with(l)))
    {
        let mut src = pass.kernel.source.clone();
        for (from, to) in edits {
            let (from, to) = (from.as_ref(), to.as_ref());
            assert!(src.contains(from), "{from:?} not in {}", pass.label);
            src = src.replace(from, to);
        }
        pass.kernel = std::sync::Arc::new(pass.kernel.edited(src).unwrap());
    }
}
