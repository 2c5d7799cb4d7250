//! Benchmark cases of the sort, each verified bit-exactly against the CPU reference:
//!
//! - u32 keys and u32 pairs for each strategy the adapter offers (reduce-then-scan, OneSweep
//!   with subgroups);
//! - i32 and f32 keys and pairs for the strategy [`SortPolicy::choose`] picks at this size only
//!   (the key type changes only the first and last pass's mapping, so one strategy shows its
//!   cost, and the H100 sweep stays short);
//! - u32 keys sorted on bits 0..16 only (two digit passes), as CUB's `SortKeys(…, 0, 16)`.
//!
//! Inputs are seeded: u32 and i32 uniformly random bits; f32 random bits (every sign, exponent
//! and subnormal; NaN patterns folded to finite numbers) with each of [`F32_SPECIALS`] (±0,
//! ±inf, ±NaN with payloads, subnormals, extremes) put at seeded positions, `n / 2^16` copies
//! each (at least one). Values are the indices 0..n, so the stable order is unique: a result
//! equal to it is ordered, a permutation, values follow their keys, and equal keys keep their
//! input order.
//!
//! Each case is a [`Sorter`] recorded on the case's buffers: the sort is in place, so an
//! untimed setup copies the pristine keys (and values) into them before each run.
//!
//! Memory (2^28 keys is 1 GiB per array): each key type's input is one `Arc` shared by its keys
//! and pairs cases, and each key type's reference (sorted key bits + the stable order's
//! indices) is computed once, lazily, by the first of its cases verified, with the crate's CPU
//! radix sort on the keys' sortable images.

use std::sync::{Arc, OnceLock};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use std::rc::Rc;

use crate::case::{first_difference, Case, CaseMaker, Work};
use wgsimd::dtype::Element;
use wgsimd::error::Result;
use wgsimd::reference::sort::{radix_sort_u32, sortable};
use wgsimd::sort::{SortConfig, SortKey, SortPolicy, Sorter, Strategy};
use wgsimd::{BufferRef, Context, Count};

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

/// The stable ascending sort of `keys` on bits `0..end_bit` of their sortable images, as
/// (sorted key bits, input index of each): the crate's CPU radix sort of the images carrying
/// their indices, mapped back through the indices (2^24 f32 keys in 0.65 s on a shared 2-core
/// machine; it allocates up to 6 words per key).
pub fn reference_order<T: SortKey + Element>(keys: &[T], end_bit: u32) -> (Vec<u32>, Vec<u32>) {
    let mask = u32::MAX.checked_shr(32 - end_bit.min(32)).unwrap_or(0);
    let image: Vec<u32> = keys
        .iter()
        .map(|&k| sortable(bytemuck::cast(k), T::DTYPE) & mask)
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

/// One key type's input, the key bits its cases sort on (`0..end_bit`), and its lazily
/// computed reference, shared by its cases.
struct Input<T> {
    keys: Arc<Vec<T>>,
    end_bit: u32,
    reference: Arc<OnceLock<(Vec<u32>, Vec<u32>)>>,
}

impl<T> Input<T> {
    fn new(keys: Vec<T>) -> Self {
        Input {
            keys: Arc::new(keys),
            end_bit: 32,
            reference: Arc::new(OnceLock::new()),
        }
    }

    /// The same keys, sorted on bits `0..end_bit` (a reference of their own).
    fn low_bits(&self, end_bit: u32) -> Self {
        Input {
            keys: self.keys.clone(),
            end_bit,
            reference: Arc::new(OnceLock::new()),
        }
    }
}

/// How a case gives the sort its count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CountFrom {
    /// `Count::Host`.
    Host,
    /// `Count::Gpu`: a word of a buffer holding n, as a culling pass would leave it.
    Gpu,
}

/// [`case`], built when called.
fn maker<T: SortKey + Element>(
    ctx: &Context,
    input: &Input<T>,
    values: &Arc<Vec<u32>>,
    (pairs, strategy, count): (bool, Strategy, CountFrom),
) -> CaseMaker {
    let (ctx, values) = (ctx.clone(), values.clone());
    let input = Input {
        keys: input.keys.clone(),
        end_bit: input.end_bit,
        reference: input.reference.clone(),
    };
    Box::new(move || case(&ctx, &input, &values, (pairs, strategy, count)))
}

/// A keys (`pairs` false) or pairs case of `input` sorted with `strategy`, its count from the
/// host or a GPU word.
fn case<T: SortKey + Element>(
    ctx: &Context,
    input: &Input<T>,
    values: &Arc<Vec<u32>>,
    (pairs, strategy, count): (bool, Strategy, CountFrom),
) -> Result<Case> {
    let n = input.keys.len() as u64;
    let end_bit = input.end_bit;
    let mut config = SortConfig::keys(T::DTYPE, n)
        .strategy(strategy)
        .bits(0, end_bit);
    if pairs {
        config = config.with_values();
    }
    let sorter = Rc::new(Sorter::new(ctx, config)?);
    let bytes = n * 4;
    // the pristine input and the buffers sorted in place
    let src_keys = ctx.upload("keys", &input.keys[..])?;
    let keys = ctx.uninit("sorted keys", bytes)?;
    let vals = if pairs {
        Some((
            ctx.upload("values", &values[..])?,
            ctx.uninit("sorted values", bytes)?,
        ))
    } else {
        None
    };
    let (sk, k, v) = (src_keys.clone(), keys.clone(), vals.clone());
    let setup: crate::case::Setup = Box::new(move |mut enc: wgsimd::EncoderRef| {
        enc.copy(&(&sk).into(), &(&k).into(), bytes)?;
        if let Some((src, dst)) = &v {
            enc.copy(&src.into(), &dst.into(), bytes)?;
        }
        Ok(())
    });
    let gpu_count = match count {
        CountFrom::Host => None,
        CountFrom::Gpu => Some(ctx.upload("count", &[n as u32])?),
    };
    let (s, k, v) = (sorter.clone(), keys.clone(), vals.clone());
    let record: crate::case::Record = Box::new(move |enc, stamps| {
        let count = match &gpu_count {
            None => Count::Host(n as u32),
            Some(c) => Count::Gpu(BufferRef::from(c)),
        };
        s.record_timed(
            enc,
            &k,
            v.as_ref().map(|(_, d)| BufferRef::from(d)),
            count,
            stamps,
        )
    });
    let src = input.keys.clone();
    let reference = input.reference.clone();
    let verify: crate::case::Verify = Box::new(move |ctx: &Context| {
        let (rk, rv) = reference.get_or_init(|| reference_order(&src, end_bit));
        // keys by bits: -0 and +0, NaN payloads and signs must all land where total_cmp puts them
        let got: Vec<u32> = ctx.read(&keys).map_err(|e| e.to_string())?;
        first_difference("keys", &got, rk)?;
        if let Some((_, dst)) = &vals {
            let got: Vec<u32> = ctx.read(dst).map_err(|e| e.to_string())?;
            first_difference("values", &got, rv)?;
        }
        Ok(())
    });
    Ok(Case {
        algorithm: "sort".into(),
        variant: format!(
            "{} {}{} {}{}",
            if pairs { "pairs" } else { "keys" },
            T::DTYPE,
            if end_bit < 32 {
                format!(" bits 0..{end_bit}")
            } else {
                String::new()
            },
            sorter.strategy(),
            if count == CountFrom::Gpu {
                " (GPU count)"
            } else {
                ""
            }
        ),
        size: n,
        size_label: size_label(n),
        work: Work::Keys {
            keys: n as f64,
            bytes: n as f64 * if pairs { 16.0 } else { 8.0 },
        },
        passes: sorter.passes(),
        setup: Some(setup),
        record,
        outputs: Vec::new(),
        verify,
        extra: None,
    })
}

/// Sort cases for `n` keys from `seed`, each built only when called: u32 keys and pairs for each
/// strategy, then i32 and f32 keys and pairs for the strategy the policy chooses, then u32 keys
/// and pairs by that strategy with the count read from a GPU word, then u32 keys on bits 0..16
/// by that strategy (the order the bench's `--case` indexes). The inputs (and each key type's reference order, once computed) are
/// shared, the plans with their uploads are not.
pub fn bench_case_makers(ctx: &Context, n: u64, seed: u64) -> Result<Vec<CaseMaker>> {
    let caps = ctx.caps();
    // past the adapter's limits every case would refuse: say so before making 16n bytes of input
    wgsimd::sort::check_size(caps, n, 4)?;
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
                cases.push(maker(
                    ctx,
                    &u32s,
                    &values,
                    (pairs, strategy, CountFrom::Host),
                ));
            }
        }
    }
    let chosen = |pairs| SortPolicy::default().choose(caps, n, pairs);
    let i32s = Input::new(i32_keys(n as usize, seed));
    for pairs in [false, true] {
        cases.push(maker(
            ctx,
            &i32s,
            &values,
            (pairs, chosen(pairs), CountFrom::Host),
        ));
    }
    let f32s = Input::new(f32_keys(n as usize, seed));
    for pairs in [false, true] {
        cases.push(maker(
            ctx,
            &f32s,
            &values,
            (pairs, chosen(pairs), CountFrom::Host),
        ));
    }
    for pairs in [false, true] {
        cases.push(maker(
            ctx,
            &u32s,
            &values,
            (pairs, chosen(pairs), CountFrom::Gpu),
        ));
    }
    cases.push(maker(
        ctx,
        &u32s.low_bits(16),
        &values,
        (false, chosen(false), CountFrom::Host),
    ));
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgsimd::reference::sort::{sort_pairs, Order};

    #[test]
    fn reference_order_is_the_stable_total_cmp_order() {
        for n in [0, 1, 5, 16, 17, 5000] {
            let f = f32_keys(n, 9);
            let (bits, order) = reference_order(&f, 32);
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
            let (bits, order) = reference_order(&i, 32);
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by_key(|&a| (i[a], a));
            assert_eq!(order, idx.iter().map(|&a| a as u32).collect::<Vec<_>>());
            assert_eq!(bits, idx.iter().map(|&a| i[a] as u32).collect::<Vec<_>>());
            // bits 0..16 only: ties beyond them keep their input order
            let u: Vec<u32> = i.iter().map(|&k| k as u32).collect();
            let (bits, order) = reference_order(&u, 16);
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by_key(|&a| (u[a] & 0xffff, a));
            assert_eq!(order, idx.iter().map(|&a| a as u32).collect::<Vec<_>>());
            assert_eq!(bits, idx.iter().map(|&a| u[a]).collect::<Vec<_>>());
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
