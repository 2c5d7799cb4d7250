//! Benchmark cases of the sort: u32 keys and u32 pairs, per strategy the adapter offers, each
//! verified (ordered, a permutation, values following keys, stable). The input is never written
//! by a plan, so repeated timed runs sort the same data and no setup pass is needed.

use std::sync::{Arc, OnceLock};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{plan, SortOptions, SortPolicy, Strategy};
use crate::case::{Case, Work};
use crate::error::Result;
use crate::exec::Caps;
use crate::reference::sort::{first_difference, radix_sort_u32};

fn size_label(n: u64) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// Sort cases for `n` uniformly random u32 keys from `seed`: keys and pairs for each strategy.
pub fn bench_cases(caps: &Caps, n: u64, seed: u64) -> Result<Vec<Case>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let keys: Arc<Vec<u32>> = Arc::new((0..n).map(|_| rng.random()).collect());
    let values: Arc<Vec<u32>> = Arc::new((0..n as u32).collect());
    // computed once, by the first case verified, for all of them (a CPU radix sort: 2^28 keys
    // in seconds)
    let reference: Arc<OnceLock<(Vec<u32>, Vec<u32>)>> = Arc::new(OnceLock::new());
    let mut strategies = vec![Strategy::ReduceThenScan];
    if caps.subgroups {
        strategies.push(Strategy::OneSweep);
    }
    strategies.push(Strategy::Hybrid);
    let policy = SortPolicy::default();
    let mut cases = Vec::new();
    for &strategy in &strategies {
        for pairs in [false, true] {
            let opts = SortOptions {
                strategy: Some(strategy),
                ..Default::default()
            };
            let p = plan(caps, &keys, pairs.then_some(&values[..]), &opts, &policy)?;
            let keys_in = keys.clone();
            let vals_in = values.clone();
            let variant = format!("{} u32 {strategy}", if pairs { "pairs" } else { "keys" });
            let bytes_per_key = if pairs { 16.0 } else { 8.0 };
            let crate::sort::SortPlan {
                plan: built,
                strategy: s,
                keys_out,
                vals_out,
                n: len,
            } = p;
            let decoder = crate::sort::SortPlan {
                plan: crate::plan::Plan::new("decode"),
                strategy: s,
                keys_out,
                vals_out,
                n: len,
            };
            let reference = reference.clone();
            let verify = Box::new(move |out: &crate::exec::RunOutput| {
                // the stable sort of (key, index) is unique: equal to it means ordered, a
                // permutation, values following keys, and stable
                let (rk, rv) = reference.get_or_init(|| radix_sort_u32(&keys_in, &vals_in));
                first_difference("keys", &decoder.keys::<u32>(out), rk)?;
                if pairs {
                    first_difference("values", &decoder.values(out), rv)?;
                }
                Ok(())
            });
            cases.push(Case {
                algorithm: "sort".into(),
                variant,
                size: n,
                size_label: size_label(n),
                plan: built,
                work: Work::Keys {
                    keys: n as f64,
                    bytes: n as f64 * bytes_per_key,
                },
                verify,
                extra: None,
            });
        }
    }
    Ok(cases)
}
