//! Benchmark cases of the sort, each verified bit-exactly against the CPU reference:
//!
//! - u32 keys and u32 pairs for each strategy the adapter offers (reduce-then-scan, OneSweep
//!   with subgroups, the hybrid);
//! - i32 and f32 keys and pairs for the strategy [`SortPolicy::choose`] picks at this size only
//!   (the key type changes only the first and last pass's mapping, so one strategy shows its
//!   cost, and the H100 sweep stays short).
//!
//! Inputs are seeded: u32 and i32 uniformly random bits; f32 random bits (every sign, exponent
//! and subnormal; NaN patterns folded to finite numbers) with each of [`F32_SPECIALS`] (±0,
//! ±inf, ±NaN with payloads, subnormals, extremes) put at seeded positions, `n / 2^16` copies
//! each (at least one). Values are the indices 0..n, so the stable order is unique: a result
//! equal to it is ordered, a permutation, values follow their keys, and equal keys keep their
//! input order.
//!
//! Memory (2^28 keys is 1 GiB per array): each key type's input is one `Arc` shared by its keys
//! and pairs cases, the values one `Arc` shared by every pairs case, and each key type's
//! reference (sorted key bits + the stable order's indices) is computed once, lazily, by the
//! first of its cases verified, with the crate's CPU radix sort on the keys' sortable images.
//! The input is never written by a plan, so repeated timed runs sort the same data and no setup
//! pass is needed.

use std::sync::{Arc, OnceLock};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use wgsimd::sort::{plan, SortKey, SortOptions, SortPolicy, Strategy};
use crate::case::{Case, CaseMaker, Work};
use wgsimd::error::Result;
use wgsimd::exec::RunOutput;
use wgsimd::Caps;
use wgsimd::reference::sort::{first_difference, radix_sort_u32, sortable};

/// The f32 bit patterns every f32 input holds: ±0, ±inf, quiet and signalling NaNs of both
/// signs, the smallest and largest subnormals, the smallest normals, the extremes.
pub const F32_SPECIALS: [u32; 16] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // +NaN (quiet)
    0xffc0_0000, // -NaN (quiet)
    0x7f80_0001, // +NaN (signalling, payload 1)
    0xffff_ffff, // -NaN (largest payload)
    0x0000_0001, // smallest subnormal
    0x8000_0001, // its negative
    0x007f_ffff, // largest subnormal
    0x807f_ffff, // its negative
    0x0080_0000, // smallest normal
    0x8080_0000, // its negative
    0x7f7f_ffff, // f32::MAX
    0xff7f_ffff, // f32::MIN
];

/// `n` seeded f32 keys: random bits with NaN patterns made finite (exponent 0xff → 0xfe), then
/// `max(1, n / 2^16)` copies of each of [`F32_SPECIALS`] at seeded positions (for n < 16, the
/// first n of them).
pub fn f32_keys(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(2);
    let mut bits: Vec<u32> = (0..n)
        .map(|_| {
            let b: u32 = rng.random();
            if b & 0x7f80_0000 == 0x7f80_0000 {
                b & !0x0080_0000
            } else {
                b
            }
        })
        .collect();
    if n > 0 {
        // extra copies anywhere first, then one of each at its own sixteenth of the input (or
        // at the first positions, while n < 16), so none is overwritten
        for &special in F32_SPECIALS
            .iter()
            .cycle()
            .take(((n >> 16).max(1) - 1) * 16)
        {
            bits[rng.random_range(0..n)] = special;
        }
        for (i, &special) in F32_SPECIALS.iter().enumerate().take(n) {
            let stride = n / 16;
            let at = if stride == 0 {
                i
            } else {
                i * stride + rng.random_range(0..stride)
            };
            bits[at] = special;
        }
    }
    bits.into_iter().map(f32::from_bits).collect()
}

/// `n` seeded uniformly random i32 keys.
pub fn i32_keys(n: usize, seed: u64) -> Vec<i32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(1);
    (0..n).map(|_| rng.random()).collect()
}

/// The stable ascending sort of `keys` as (sorted key bits, input index of each): the crate's
/// CPU radix sort of the keys' sortable images carrying their indices, mapped back through the
/// indices (2^24 f32 keys in 0.65 s on a shared 2-core machine; it allocates up to 6 words per key).
pub fn reference_order<T: SortKey>(keys: &[T]) -> (Vec<u32>, Vec<u32>) {
    let image: Vec<u32> = keys
        .iter()
        .map(|&k| sortable(bytemuck::cast(k), T::DTYPE))
        .collect();
    let index: Vec<u32> = (0..keys.len() as u32).collect();
    let (_, order) = radix_sort_u32(&image, &index);
    drop(image);
    let sorted = order
        .iter()
        .map(|&i| bytemuck::cast::<T, u32>(keys[i as usize]))
        .collect();
    (sorted, order)
}

fn size_label(n: u64) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// One key type's input and its lazily computed reference, shared by its cases.
struct Input<T> {
    keys: Arc<Vec<T>>,
    reference: Arc<OnceLock<(Vec<u32>, Vec<u32>)>>,
}

impl<T> Input<T> {
    fn new(keys: Vec<T>) -> Self {
        Input {
            keys: Arc::new(keys),
            reference: Arc::new(OnceLock::new()),
        }
    }
}

/// [`case`], built when called.
fn maker<T: SortKey + 'static>(
    caps: &Caps,
    input: &Input<T>,
    values: &Arc<Vec<u32>>,
    pairs: bool,
    strategy: Strategy,
) -> CaseMaker {
    let (caps, values) = (caps.clone(), values.clone());
    let input = Input {
        keys: input.keys.clone(),
        reference: input.reference.clone(),
    };
    Box::new(move || case(&caps, &input, &values, pairs, strategy))
}

/// A keys (`pairs` false) or pairs case of `input` sorted with `strategy`.
fn case<T: SortKey>(
    caps: &Caps,
    input: &Input<T>,
    values: &Arc<Vec<u32>>,
    pairs: bool,
    strategy: Strategy,
) -> Result<Case> {
    let opts = SortOptions {
        strategy: Some(strategy),
        ..Default::default()
    };
    let n = input.keys.len() as u64;
    let mut decoder = plan(
        caps,
        &input.keys,
        pairs.then_some(&values[..]),
        &opts,
        &SortPolicy::default(),
    )?;
    // the plan moves into the case; the rest decodes outputs
    let built = std::mem::take(&mut decoder.plan);
    let strategy = decoder.strategy;
    let keys = input.keys.clone();
    let reference = input.reference.clone();
    let verify = Box::new(move |out: &RunOutput| {
        let (rk, rv) = reference.get_or_init(|| reference_order(&keys));
        // keys by bits: -0 and +0, NaN payloads and signs must all land where total_cmp puts them
        first_difference("keys", &decoder.keys::<u32>(out), rk)?;
        if pairs {
            first_difference("values", &decoder.values(out), rv)?;
        }
        Ok(())
    });
    Ok(Case {
        algorithm: "sort".into(),
        variant: format!(
            "{} {} {strategy}",
            if pairs { "pairs" } else { "keys" },
            T::DTYPE
        ),
        size: n,
        size_label: size_label(n),
        plan: built,
        work: Work::Keys {
            keys: n as f64,
            bytes: n as f64 * if pairs { 16.0 } else { 8.0 },
        },
        verify,
        extra: None,
    })
}

/// Sort cases for `n` keys from `seed`: u32 keys and pairs for each strategy, then i32 and f32
/// keys and pairs for the strategy the policy chooses (the order the bench's `--case` indexes).
pub fn bench_cases(caps: &Caps, n: u64, seed: u64) -> Result<Vec<Case>> {
    bench_case_makers(caps, n, seed)?
        .into_iter()
        .map(|make| make())
        .collect()
}

/// [`bench_cases`], each built only when called: the inputs (and each key type's reference
/// order, once computed) are shared, the plans with their uploads are not.
pub fn bench_case_makers(caps: &Caps, n: u64, seed: u64) -> Result<Vec<CaseMaker>> {
    // past the adapter's limits every case would refuse: say so before making 16n bytes of input
    wgsimd::sort::check_size(caps, n)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let u32s = Input::new((0..n).map(|_| rng.random::<u32>()).collect());
    let values: Arc<Vec<u32>> = Arc::new((0..n as u32).collect());
    let mut strategies = vec![Strategy::ReduceThenScan];
    if caps.subgroups {
        strategies.push(Strategy::OneSweep);
    }
    let mut cases = Vec::new();
    for &strategy in &strategies {
        for pairs in [false, true] {
            // (OneSweep's workgroup memory may not fit an adapter that has subgroups)
            if wgsimd::sort::fits(caps, strategy, pairs, n, &SortPolicy::default()) {
                cases.push(maker(caps, &u32s, &values, pairs, strategy));
            }
        }
    }
    let chosen = |pairs| SortPolicy::default().choose(caps, n, pairs);
    let i32s = Input::new(i32_keys(n as usize, seed));
    for pairs in [false, true] {
        cases.push(maker(caps, &i32s, &values, pairs, chosen(pairs)));
    }
    let f32s = Input::new(f32_keys(n as usize, seed));
    for pairs in [false, true] {
        cases.push(maker(caps, &f32s, &values, pairs, chosen(pairs)));
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use wgsimd::sort::*;
    use wgsimd::reference::sort::{sort_pairs, Order};

    #[test]
    fn reference_order_is_the_stable_total_cmp_order() {
        for n in [0, 1, 5, 16, 17, 5000] {
            let f = f32_keys(n, 9);
            let (bits, order) = reference_order(&f);
            // the plain reference sort, and f32::total_cmp with the index as tie-break
            let vals: Vec<u32> = (0..n as u32).collect();
            let (pk, pv) = sort_pairs(&f, &vals, Order::default());
            assert_eq!(order, pv);
            let pk: Vec<u32> = pk.iter().map(|k| k.to_bits()).collect();
            assert_eq!(bits, pk);
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by(|&a, &b| f[a].total_cmp(&f[b]).then(a.cmp(&b)));
            assert_eq!(order, idx.iter().map(|&i| i as u32).collect::<Vec<_>>());
            let i = i32_keys(n, 9);
            let (bits, order) = reference_order(&i);
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by_key(|&a| (i[a], a));
            assert_eq!(order, idx.iter().map(|&a| a as u32).collect::<Vec<_>>());
            assert_eq!(bits, idx.iter().map(|&a| i[a] as u32).collect::<Vec<_>>());
        }
    }

    #[test]
    fn f32_keys_hold_every_special() {
        for n in [16, 4097, 5000, 1 << 17] {
            let f = f32_keys(n, 3);
            for s in F32_SPECIALS {
                let c = f.iter().filter(|k| k.to_bits() == s).count();
                assert!(c >= 1, "{s:#010x} missing at n={n}");
            }
            assert!(f.iter().any(|k| *k < 0.0) && f.iter().any(|k| k.is_subnormal()));
            let bits = |v: &[f32]| v.iter().map(|k| k.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&f), bits(&f32_keys(n, 3)), "seeded");
        }
    }
}
