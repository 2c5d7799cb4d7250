//! Sort tuning sweep (development, not a test): OneSweep's look-back order against
//! reduce-then-scan, u32 keys at 2^24 and 2^28 (or
//! `EXP_SIZES=20,24`), each output compared with `sort_unstable`, with the per-pass breakdown.
use rand::{Rng, SeedableRng};
use wgsimd::sort::{self, SortOptions, SortPolicy, Strategy};
use wgsimd::{Executor, GpuExecutor};

fn main() {
    let g = GpuExecutor::new().unwrap();
    let caps = g.caps().clone();
    let exps: Vec<u32> = std::env::var("EXP_SIZES")
        .unwrap_or_else(|_| "24,28".into())
        .split(',')
        .map(|e| e.trim().parse().unwrap())
        .collect();
    for e in exps {
        let n = 1usize << e;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(e as u64);
        let keys: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        let base = SortPolicy::default();
        let variants: Vec<(&str, Strategy, SortPolicy)> = vec![
            ("reduce-then-scan", Strategy::ReduceThenScan, base),
            // not a sort: every scatter writes its tile's staged keys to the tile's own
            // range, so the difference to the line above is the cost of scattered writes
            (
                "diag: reduce-then-scan, coalesced writes",
                Strategy::ReduceThenScan,
                base,
            ),
            ("onesweep", Strategy::OneSweep, base),
            (
                "onesweep late look-back",
                Strategy::OneSweep,
                SortPolicy {
                    onesweep_early_lookback: false,
                    ..base
                },
            ),
        ];
        for (name, strategy, policy) in variants {
            let opts = SortOptions {
                strategy: Some(strategy),
                ..Default::default()
            };
            let mut p = sort::plan(&caps, &keys, None, &opts, &policy).unwrap();
            if name.starts_with("diag") {
                coalesce_scatter_writes(&mut p.plan);
            }
            let (out, t) = g.time(&p.plan, 3, 10).unwrap();
            let ok = p.keys::<u32>(&out) == want;
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

/// Diagnostic: the scatter passes write each staged key to its own tile's range (coalesced)
/// instead of its digit's destination. The output is no longer sorted.
fn coalesce_scatter_writes(plan: &mut wgsimd::plan::Plan) {
    use std::sync::Arc;
    for pass in plan.passes.iter_mut().filter(|p| p.label.starts_with("scatter")) {
        let src = pass
            .kernel
            .source
            .replace("keys_out[dst[j]] = ", "keys_out[start + i] = ");
        assert_ne!(src, pass.kernel.source, "the scatter's store moved");
        let k = wgsimd::kernel::Kernel::from_source("scatter diag", pass.kernel.flavor, src);
        pass.kernel = Arc::new(k.unwrap());
    }
}
