//! Radix sort of u32, i32 and f32 keys, optionally with u32 values, on the GPU.
//!
//! Rules:
//! - **One order.** Keys are sorted by an order-preserving u32 image ("sortable" key): u32 as is,
//!   i32 with the sign bit flipped, f32 in [`f32::total_cmp`] order (−NaN < −inf < … < −0 < +0 <
//!   … < +inf < +NaN: negatives have all bits flipped, the rest the sign bit); descending sorts the
//!   complement. The first pass maps raw keys in and the last maps them back, in the kernels.
//! - **Stable**, ascending and descending alike: equal keys keep their input order, and values
//!   travel with their keys.
//! - **Bit range.** Only bits `[begin_bit, end_bit)` of the sortable key are sorted on, 8 per
//!   pass (the last pass may be narrower); `begin_bit == end_bit` returns the input unchanged.
//! - **Three strategies, one API** ([`Strategy`]); [`SortPolicy`] picks one per adapter and
//!   size unless [`SortOptions::strategy`] names one. All rank keys with the same warp-level
//!   multisplit (`wgsl/shared/sort_tile.wgsl`), correct at every subgroup size 4..128, with a
//!   workgroup-memory twin for adapters without subgroups.
//! - **The input is never written**: passes ping-pong between two scratch buffers, so a plan
//!   can be run (and timed) repeatedly on the same data.
//! - **Limits:** the keys (and values) must fit one storage binding and n < 2^30; larger input
//!   is [`Error::TooLarge`]. Bad input is a typed [`Error`], never a panic.

mod build;

pub use build::{tile_keys, tile_keys_for, workgroup_bytes, workgroup_bytes_for};

use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::device::Caps;
use crate::exec::{Executor, RunOutput};
use crate::plan::{BufferId, Plan};

/// How the passes find each tile's output positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Per digit: tile histograms, one scan of them, scatter. No workgroup ever waits on another,
    /// and no subgroups are needed: the choice without subgroups, on CPU adapters, and where
    /// OneSweep's workgroup memory does not fit ([`SortPolicy::choose`]). (OneSweep, the choice
    /// elsewhere, is as safe without forward-progress guarantees: its fallback never waits on
    /// a workgroup being scheduled.)
    ReduceThenScan,
    /// One global histogram pass, then one dispatch per digit with decoupled look-back and a
    /// decoupled fallback (a stalled tile counts its predecessor's keys itself). Subgroups only.
    OneSweep,
    /// One MSD scatter on the top digit, then LSD passes (reduce-then-scan) on tiles that never
    /// cross a top-digit bucket, so each pass scatters inside cache-sized buckets.
    Hybrid,
}

impl std::str::FromStr for Strategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "reduce-then-scan" | "rts" | "lsd" => Ok(Strategy::ReduceThenScan),
            "onesweep" => Ok(Strategy::OneSweep),
            "hybrid" | "msd-lsd" => Ok(Strategy::Hybrid),
            _ => Err(Error::InvalidInput(format!(
                "unknown sort strategy {s:?} (reduce-then-scan, onesweep, hybrid)"
            ))),
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Strategy::ReduceThenScan => "reduce-then-scan",
            Strategy::OneSweep => "onesweep",
            Strategy::Hybrid => "hybrid",
        })
    }
}

/// What to sort by and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortOptions {
    /// Largest key first (still stable).
    pub descending: bool,
    /// First bit of the sortable key sorted on.
    pub begin_bit: u32,
    /// One past the last bit sorted on (≤ 32).
    pub end_bit: u32,
    /// Force a strategy; `None` lets [`SortPolicy`] choose.
    pub strategy: Option<Strategy>,
}

impl Default for SortOptions {
    fn default() -> Self {
        SortOptions {
            descending: false,
            begin_bit: 0,
            end_bit: 32,
            strategy: None,
        }
    }
}

/// Tuning of the sort. The tiles and the 8-bit digit are fixed by the kernels
/// (`wgsl/shared/sort_tile.wgsl`, [`tile_keys`]): 256 invocations (each stage declares its own;
/// invocation d < 256 owns digit d in per-digit steps), and `KPT` keys per invocation set by
/// each strategy's ranking stage: 12 for reduce-then-scan and the hybrid (3072-key tiles, 13.3 KiB of workgroup memory;
/// on the H100 1 KiB more per workgroup costs the scatter a fifth), 32 for OneSweep (8192-key
/// tiles staged in two rounds through 23.3 KiB; docs/sort.md) and 16 for OneSweep's small sorts
/// (4096-key tiles, [`SortPolicy::onesweep_small`]). All fit lavapipe's 32 KiB; an adapter with less than
/// OneSweep needs gets reduce-then-scan from [`SortPolicy::choose`].
#[derive(Clone, Copy, Debug)]
pub struct SortPolicy {
    /// Keys alone (no values) below this many take OneSweep (with subgroups, not on a CPU
    /// adapter), reduce-then-scan from here up. `u64::MAX` (OneSweep at every size): H100
    /// (examples/sort_sweep.rs, 2026-11-23, tenth session, u32 keys, Gkeys/s) OneSweep with
    /// 5632-key tiles 30.7–30.9 at 2^28 (two runs) against reduce-then-scan's 30.0–30.3 alone
    /// in a process (four runs); with 5120-key tiles, at 2^25 / 2^26 / 2^27 / 2^28 in one
    /// process, OneSweep 27.1 / 28.4 / 29.0 / 29.4 against 25.5 / 28.1 / 28.4 / 28.5. (Ninth
    /// session, 3072-key tiles: OneSweep 23.4 / 25.0 / 26.0 / 26.4 at 2^24 / 2^25 / 2^26 /
    /// 2^27, reduce-then-scan 22.0 / 25.7 / 28.2 / 28.4, hence 2^25 then.)
    pub onesweep_keys_below: u64,
    /// Key-value pairs from this many up take OneSweep (with subgroups, not on a CPU adapter)
    /// unless the hybrid takes them first (`hybrid_pairs_min_keys`). 0: H100 (same run, u32
    /// pairs): OneSweep 7.40 / 17.08 / 19.46 / 19.86, reduce-then-scan 4.11 / 15.44 / 18.00 /
    /// 18.18, the hybrid 3.37 / 15.45 / 19.09 / 19.80.
    pub onesweep_pairs_min_keys: u64,
    /// Polls of a predecessor's status before the decoupled fallback counts its keys. 64: the
    /// fallback reads a whole tile (32 KiB of keys in the large stages, 16 in the small one),
    /// roughly the latency of 64 L2 polls (set when tiles were 22 KiB). On the H100 the
    /// fallback never ran at 2^24 or 2^28 keys (fourth session's look-back counters).
    pub spin: u32,
    /// Workgroups of OneSweep's global histogram pass: 1056 = 132 SMs × 8 resident workgroups
    /// of 256 on the H100 (the same wave reasoning as [`crate::reduce::ReducePolicy`]). 0 is
    /// taken as 1.
    pub histogram_workgroups: u32,
    /// OneSweep tiles take indices from an atomic ticket in order of start (true, the only
    /// sensible setting on a GPU); false ties them to workgroup indices, so the simulator's
    /// unfair scheduler can run a tile before its predecessors and exercise the fallback.
    pub onesweep_tickets: bool,
    /// OneSweep looks back before ranking its tile (true) or after (false, CUB's order: the
    /// ranking overlaps the predecessors' look-backs). false: H100 (examples/sort_sweep.rs,
    /// 2026-11-22, fifth session, u32 keys, 12 keys per invocation) 16.5 / 18.8 Gkeys/s at
    /// 2^24 / 2^28 against 15.6 / 17.8 for true. With 16 keys per invocation (fourth session)
    /// true had led, 15.0 / 17.1 against 14.8 / 16.9. (`spin` 0, 8, 64 or 512 made no
    /// difference.)
    pub onesweep_early_lookback: bool,
    /// Pairs from this many keys up take the MSD+LSD hybrid (not on CPU adapters). `u64::MAX`:
    /// never, since the sixth session's OneSweep is level with it or ahead at every size
    /// (see `onesweep_pairs_min_keys`). Before, from 2^26 (fourth session, H100, u32 pairs,
    /// Gkeys/s at 2^24 / 2^26 / 2^28: hybrid 15.5 / 19.0 / 19.7, reduce-then-scan 15.5 / 18.3
    /// / 18.5, OneSweep 14.9 / 16.6 / 17.1).
    pub hybrid_pairs_min_keys: u64,
    /// The reduce-then-scan and hybrid scatters of keys alone take loops without per-item
    /// bounds checks on full tiles (override `FULL_TILES`, `wgsl/shared/sort_tile.wgsl`; pairs
    /// keep the checks). true: H100 (examples/sort_sweep.rs, 2026-11-22, eighth session, u32
    /// keys at 2^28) four scatters 6.67–6.69 against 6.88–6.89 ms in two calls, 30.3 against
    /// 29.6–29.7 Gkeys/s; 2^24 level (22.0). A third call, which found that the sweep's plans
    /// differ by up to 1.5% by buffer placement alone, gave 0.2–1.2% at like positions
    /// (docs/sort.md, "Eighth session"). With pairs the hybrid got slower (18.2 against 18.8
    /// Gkeys/s at 2^28), hence keys only.
    pub scatter_full_tiles: bool,
    /// The same for OneSweep's passes. true since the tenth session's larger tiles: H100
    /// (examples/sort_sweep.rs, 2026-11-23, u32, against the same kernel with checks in the
    /// same call) keys 8.52 against 8.81 ms for the four passes at 2^28 (29.5 against 28.6
    /// Gkeys/s), 0.639 against 0.656 at 2^24; pairs 10.69 against 10.91 at 2^28, 0.811 against
    /// 0.822 at 2^24, 0.118 against 0.121 at 2^20. With 3072-key tiles it was slower (eighth
    /// session: keys 24.5–24.7 against 25.2–25.3 Gkeys/s at 2^28; pairs 20.3 against 21.0).
    pub onesweep_full_tiles: bool,
    /// OneSweep's passes rank by match masks in workgroup memory (override `RANK_MATCH`,
    /// `wgsl/shared/sort_tile.wgsl`: a set, a read and a clear per key) instead of one ballot
    /// per digit bit; only with real subgroups (the emulated flavour always ballots). true:
    /// H100 (examples/sort_sweep.rs, 2026-11-23, ninth session, u32, 2^28, two calls) keys
    /// 26.8 against 25.2 Gkeys/s (four passes 9.38–9.40 against 10.00 ms), pairs 21.2–21.7
    /// against 21.0–21.2 (12.02–11.75 against 12.16–12.03 ms); 2^24 keys 23.3 against 22.0,
    /// pairs 19.1 against 18.3. Fewer instructions (about 57 per item in the machine code against
    /// 74–80) and fewer registers (keys 60–63 against 64–70).
    pub onesweep_match_ranking: bool,
    /// The same for the reduce-then-scan and hybrid scatters. false: H100 (same calls) the
    /// four keys scatters took 7.18–7.39 ms against 6.68–6.69 (6.94 with `FULL_TILES` off).
    /// Each item's set, read, counter add and clear are a chain of workgroup-memory round
    /// trips that the ballots do not have.
    pub scatter_match_ranking: bool,
    /// OneSweep's pairs passes load the tile's values before the look-back (override
    /// `VALUES_EARLY`, `wgsl/shared/sort_tile.wgsl`), so their loads overlap its wait, instead
    /// of after the keys are written. true: H100 (examples/sort_sweep.rs, 2026-11-23, tenth
    /// session, u32 pairs, two calls, each against the same kernel and a `null` copy) four
    /// passes 0.119–0.121 against 0.124–0.128 ms at 2^20, 0.810–0.833 against 0.811–0.840 at
    /// 2^24, 10.70–11.16 against 10.74–11.25 at 2^28: 4% at 2^20, under 1% above. (The
    /// driver evidently hoisted most of the loads already: the pairs passes kept 101–102
    /// registers.) false since the fourteenth session, when the pairs stage took 28 keys per
    /// invocation: the values held through the ranking and the look-back took the pairs passes
    /// to 165-167 registers (one workgroup per SM), loaded late 127-128. H100 (same tool,
    /// 2026-11-25, u32 pairs, Gkeys/s at 2^24 / 2^28): 28 keys late 21.55 / 28.17 and 21.49 /
    /// 28.19 (two calls) against 22 keys early 21.62 / 26.34 and 21.68 / 26.41; 22 keys late
    /// 21.69 / 26.37 (level with early).
    pub onesweep_values_early: bool,
    /// OneSweep sorts of keys alone up to this many keys take the small stage
    /// (`wgsl/sort/onesweep_small.wgsl`: 4096-key tiles, 16 keys per invocation) instead of
    /// the 8192-key tiles, which at 2^20 keys fill under half of the H100's 264 workgroup
    /// slots. 2^20: H100 (examples/sort_sweep.rs, 2026-11-25, fifteenth session, u32 keys,
    /// Gkeys/s at 2^20 / 2^21 / 2^22 / 2^23) 16 keys per invocation 10.81 / 14.86 / 18.17 /
    /// 22.73 against 32's 10.53 / 15.73 / 19.89 / 25.31 (the stage has the other tiles
    /// measured). Sizes between 2^20 and 2^21 were not measured.
    pub onesweep_small_keys_max: u64,
    /// The same for pairs. 2^22: same call, u32 pairs, 9.04 / 10.85 / 14.04 / 17.56 against
    /// 8.36 / 10.70 / 13.66 / 17.93. Sizes between 2^22 and 2^23 were not measured.
    pub onesweep_small_pairs_max: u64,
    /// Verification, not tuning (tests turn it on): before each digit pass that writes a
    /// scratch buffer an earlier pass already wrote (the third pass on), invalidate that buffer
    /// ([`Plan::invalidate`](crate::plan::Plan::invalidate)), keys and values: a GPU refills
    /// it with [`POISON_WORD`](crate::plan::POISON_WORD), the simulator reports any word read
    /// or read back before the pass wrote it. Without it a key or value such a pass failed to
    /// write would still hold the copy left two passes before, which is the right one wherever
    /// the passes between were identity permutations (all-equal keys, keys varying only in
    /// their low byte), so the output would not show it. Costs a fill of each scratch buffer
    /// per pass on a GPU.
    pub poison_between_passes: bool,
}

impl Default for SortPolicy {
    fn default() -> Self {
        SortPolicy {
            onesweep_keys_below: u64::MAX,
            onesweep_pairs_min_keys: 0,
            spin: 64,
            histogram_workgroups: 1056,
            onesweep_tickets: true,
            onesweep_early_lookback: false,
            hybrid_pairs_min_keys: u64::MAX,
            scatter_full_tiles: true,
            onesweep_full_tiles: true,
            onesweep_match_ranking: true,
            scatter_match_ranking: false,
            onesweep_values_early: false,
            onesweep_small_keys_max: 1 << 20,
            onesweep_small_pairs_max: 1 << 22,
            poison_between_passes: false,
        }
    }
}

impl SortPolicy {
    /// The strategy for `n` keys on an adapter with `caps`, by the first rule that applies:
    ///
    /// - CPU adapters (lavapipe) and the simulator → reduce-then-scan: it never waits, and on
    ///   lavapipe OneSweep was not reliably faster (docs/sort.md: 350 vs 175 ms at 2^20 keys,
    ///   448 vs 512 ms at 2^22, on 2 shared CPUs).
    /// - Key-value pairs from `hybrid_pairs_min_keys` up (never, by default) → the hybrid (its
    ///   LSD passes work bucket by bucket, which the values' second scatter profits from; it
    ///   runs with or without subgroups).
    /// - No subgroups → reduce-then-scan (OneSweep's look-back wants real subgroups and fast
    ///   atomics; the emulated ranking is slow enough that its extra pass does not matter).
    /// - OneSweep for pairs from `onesweep_pairs_min_keys` up (always, by default)
    ///   and for keys below `onesweep_keys_below` (always, by default): it moves 8 bytes per
    ///   key per pass where reduce-then-scan moves 12 and needs 6 dispatches (a clear, the
    ///   global histogram, a pass per digit) where reduce-then-scan needs 20, which since the tenth session's larger tiles outweighs its
    ///   look-back at every size on the H100 (see the fields). Its waits end in the decoupled fallback, so it needs no forward-progress
    ///   guarantee between workgroups.
    /// - Otherwise reduce-then-scan (also where OneSweep's tile does not fit the adapter's
    ///   workgroup memory).
    pub fn choose(&self, caps: &Caps, n: u64, pairs: bool) -> Strategy {
        let onesweep = if pairs {
            n >= self.onesweep_pairs_min_keys
        } else {
            n < self.onesweep_keys_below
        } && fits(caps, Strategy::OneSweep, pairs, n, self);
        if caps.is_cpu() {
            Strategy::ReduceThenScan
        } else if pairs && n >= self.hybrid_pairs_min_keys {
            Strategy::Hybrid
        } else if caps.subgroups && onesweep {
            Strategy::OneSweep
        } else {
            Strategy::ReduceThenScan
        }
    }

    /// Whether a OneSweep sort of `n` keys (pairs or keys alone) takes the small stage's
    /// tiles (`onesweep_small_keys_max`, `onesweep_small_pairs_max`).
    pub fn onesweep_small(&self, n: u64, pairs: bool) -> bool {
        n <= if pairs {
            self.onesweep_small_pairs_max
        } else {
            self.onesweep_small_keys_max
        }
    }
}

/// Whether the ranking stage of a sort of `n` keys (alone or pairs) by `strategy` under
/// `policy` fits the adapter's workgroup memory (OneSweep's small sorts take a smaller tile).
pub fn fits(caps: &Caps, strategy: Strategy, pairs: bool, n: u64, policy: &SortPolicy) -> bool {
    workgroup_bytes_for(strategy, pairs, n, policy, caps.flavor())
        .is_ok_and(|b| b <= caps.max_workgroup_storage as u64)
}

/// Whether a sort of `n` keys fits the adapter: fewer than 2^30 (the 30-bit counts), and the
/// inputs, padded to whole 16 bytes (`build::padded_bytes`) and bound whole, within one storage
/// binding and one buffer (Vulkan adapters report 2^31 - 4 bytes, where 2^29 - 1 keys fit
/// unpadded but not padded). `Error::TooLarge` otherwise.
pub fn check_size(caps: &Caps, n: u64) -> Result<()> {
    let padded = n.saturating_mul(4).div_ceil(16).saturating_mul(16);
    if n >= 1 << 30 || padded > caps.max_storage_binding {
        return Err(Error::TooLarge(format!(
            "{n} keys: the sort handles fewer than 2^30 keys whose {padded} bytes (padded to \
             16) fit one storage binding ({} bytes on this adapter)",
            caps.max_storage_binding
        )));
    }
    if padded > caps.max_buffer {
        return Err(Error::TooLarge(format!(
            "{n} keys: {padded} bytes (padded to 16) exceed the adapter's largest buffer, {} bytes",
            caps.max_buffer
        )));
    }
    Ok(())
}

/// A key type the sort accepts: u32, i32, f32.
pub trait SortKey: Element {}
impl SortKey for u32 {}
impl SortKey for i32 {}
impl SortKey for f32 {}

/// A built sort: run `plan`, then [`SortPlan::keys`] / [`SortPlan::values`].
pub struct SortPlan {
    /// The passes.
    pub plan: Plan,
    /// The strategy it uses.
    pub strategy: Strategy,
    keys_out: Option<BufferId>,
    vals_out: Option<BufferId>,
    n: usize,
}

impl SortPlan {
    /// The sorted keys.
    pub fn keys<T: SortKey>(&self, out: &RunOutput) -> Vec<T> {
        match self.keys_out {
            Some(id) => {
                let mut v: Vec<T> = out.get(id);
                v.truncate(self.n);
                v
            }
            None => Vec::new(),
        }
    }

    /// The values, in the keys' sorted order (empty for a keys-only plan).
    pub fn values(&self, out: &RunOutput) -> Vec<u32> {
        match self.vals_out {
            Some(id) => {
                let mut v: Vec<u32> = out.get(id);
                v.truncate(self.n);
                v
            }
            None => Vec::new(),
        }
    }
}

/// The sort's kernel key type code (`KEY_TYPE` in the WGSL).
fn key_type(d: Dtype) -> Result<u32> {
    match d {
        Dtype::U32 => Ok(0),
        Dtype::I32 => Ok(1),
        Dtype::F32 => Ok(2),
        other => Err(Error::UnsupportedDtype {
            dtype: other.to_string(),
            op: "sort",
            supported: "u32, i32, f32",
        }),
    }
}

/// Builds the plan sorting `keys` (and `values`, if given) with `opts` and `policy`.
pub fn plan<T: SortKey>(
    caps: &Caps,
    keys: &[T],
    values: Option<&[u32]>,
    opts: &SortOptions,
    policy: &SortPolicy,
) -> Result<SortPlan> {
    let kt = key_type(T::DTYPE)?;
    if let Some(v) = values {
        if v.len() != keys.len() {
            return Err(Error::InvalidInput(format!(
                "{} values for {} keys: sort_pairs needs one value per key",
                v.len(),
                keys.len()
            )));
        }
    }
    if opts.begin_bit > opts.end_bit || opts.end_bit > 32 {
        return Err(Error::InvalidInput(format!(
            "bit range {}..{} is not within 0..32",
            opts.begin_bit, opts.end_bit
        )));
    }
    let n = keys.len() as u64;
    check_size(caps, n)?;
    let strategy = opts
        .strategy
        .unwrap_or_else(|| policy.choose(caps, n, values.is_some()));
    if strategy == Strategy::OneSweep && !caps.subgroups {
        return Err(Error::InvalidInput(
            "the onesweep strategy needs subgroups, which this adapter lacks".into(),
        ));
    }
    let pairs = values.is_some();
    if !fits(caps, strategy, pairs, n, policy) {
        return Err(Error::InvalidInput(format!(
            "the {strategy} sort needs {} bytes of workgroup memory; this adapter has {}",
            workgroup_bytes_for(strategy, pairs, n, policy, caps.flavor())?,
            caps.max_workgroup_storage
        )));
    }
    build::build(caps, keys, values, kt, opts, policy, strategy)
}

/// Sorts `keys` on `exec` (stable; see [`SortOptions`]).
pub fn sort_keys<T: SortKey>(
    exec: &dyn Executor,
    keys: &[T],
    opts: &SortOptions,
) -> Result<Vec<T>> {
    let p = plan(exec.caps(), keys, None, opts, &SortPolicy::default())?;
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let out = exec.run(&p.plan)?;
    Ok(p.keys(&out))
}

/// Sorts `keys` and carries `values` along (stable: equal keys keep their input order).
pub fn sort_pairs<T: SortKey>(
    exec: &dyn Executor,
    keys: &[T],
    values: &[u32],
    opts: &SortOptions,
) -> Result<(Vec<T>, Vec<u32>)> {
    let p = plan(
        exec.caps(),
        keys,
        Some(values),
        opts,
        &SortPolicy::default(),
    )?;
    if keys.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let out = exec.run(&p.plan)?;
    Ok((p.keys(&out), p.values(&out)))
}
