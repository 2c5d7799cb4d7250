//! Radix sort of u32, i32, f32, u64, i64 and f64 keys, alone, with u32 values, or with an index
//! payload; whole, or within segments given by CSR offsets.
//!
//! Rules:
//! - **Recorded once, run for any count.** A [`Sorter`] is made for one configuration
//!   ([`SortConfig`]: key type, payload, direction, bit range, maximum count) with its scratch;
//!   [`Sorter::record`] sorts the caller's keys (and values) in place, the count given on the
//!   host or read from a GPU buffer ([`Count`](crate::Count)). Recording allocates nothing
//!   after the first use with the same buffers.
//! - **One order.** Keys are sorted by an order-preserving u32 image ("sortable" key): u32 as is,
//!   i32 with the sign bit flipped, f32 in [`f32::total_cmp`] order (−NaN < −inf < … < −0 < +0 <
//!   … < +inf < +NaN: negatives have all bits flipped, the rest the sign bit); descending sorts the
//!   complement. The first pass maps raw keys in and the last maps them back, in the kernels.
//! - **Stable**, ascending and descending alike: equal keys keep their input order, and values
//!   travel with their keys.
//! - **Bit range.** Only bits `[begin_bit, end_bit)` of the sortable key are sorted on, 8 per
//!   pass (the last pass may be narrower); `begin_bit == end_bit` returns the input unchanged.
//! - **Two strategies, one API** ([`Strategy`]); [`SortPolicy`] picks one per device and
//!   maximum count unless [`SortConfig::strategy`] names one. Both rank keys with the same
//!   warp-level multisplit (`wgsl/sort/lib/tile.wgsl`), correct at every subgroup size 4..128,
//!   with a workgroup-memory twin for devices without subgroups.
//! - **In place.** The digit passes ping-pong between the caller's buffers and scratch, ending
//!   in the caller's; a sort of one digit pass ends with a copy back.
//! - **Limits:** the keys (and values) must fit one storage binding ([`Error::Limit`] names the
//!   limit) and the maximum count is below 2^30 ([`Error::TooLarge`]). Bad input is a typed
//!   [`Error`], never a panic.

mod build;
mod fused;
mod passes;
mod segments;
mod sorter;
mod wide;
mod wide_segments;

pub use build::{tile_keys, tile_keys_for, workgroup_bytes, workgroup_bytes_for};
pub use sorter::{
    check_offsets, sort_indices, sort_keys, sort_keys_with, sort_pairs, sort_pairs_with,
    sort_segments, Sorter,
};

use crate::device::Caps;
use crate::dtype::Dtype;
use crate::error::{Error, Result};

/// How the passes find each tile's output positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Per digit: tile histograms, one scan of them, scatter. No workgroup ever waits on another,
    /// and no subgroups are needed: the choice without subgroups, on CPU devices, and where
    /// OneSweep's workgroup memory does not fit ([`SortPolicy::choose`]).
    ReduceThenScan,
    /// One global histogram pass, then one dispatch per digit with decoupled look-back and a
    /// decoupled fallback (a stalled tile counts its predecessor's keys itself), so it needs no
    /// forward-progress guarantee between workgroups. Subgroups only.
    OneSweep,
}

impl std::str::FromStr for Strategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "reduce-then-scan" | "rts" | "lsd" => Ok(Strategy::ReduceThenScan),
            "onesweep" => Ok(Strategy::OneSweep),
            _ => Err(Error::InvalidInput(format!(
                "unknown sort strategy {s:?} (reduce-then-scan, onesweep)"
            ))),
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Strategy::ReduceThenScan => "reduce-then-scan",
            Strategy::OneSweep => "onesweep",
        })
    }
}

/// What a [`Sorter`] carries along with the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Payload {
    /// Keys alone.
    None,
    /// A u32 value per key, in a buffer of the caller's, sorted with the keys.
    Values,
    /// Each key's input index, made by the sort into the caller's values buffer (an argsort).
    Index,
}

/// What to sort by and how: everything a [`Sorter`] is made for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SortConfig {
    /// The key type: u32, i32, f32, u64, i64 or f64 (floats in `total_cmp` order).
    pub key: Dtype,
    /// What travels with the keys.
    pub payload: Payload,
    /// Largest key first (still stable).
    pub descending: bool,
    /// First bit of the sortable key sorted on.
    pub begin_bit: u32,
    /// One past the last bit sorted on (≤ the key's width, 32 or 64).
    pub end_bit: u32,
    /// The most keys one recording sorts: scratch is made for this many.
    pub max_count: u64,
    /// Force a strategy; `None` lets [`SortPolicy::choose`] pick for `max_count`.
    pub strategy: Option<Strategy>,
    /// Tuning (and verification switches).
    pub policy: SortPolicy,
    /// A segmented sort of up to this many segments (any key type; [`Sorter::record_segmented`]);
    /// `None`: one array.
    pub max_segments: Option<u32>,
}

impl SortConfig {
    /// Ascending keys of type `key` alone, all their bits, up to `max_count` of them.
    pub fn keys(key: Dtype, max_count: u64) -> SortConfig {
        SortConfig {
            key,
            payload: Payload::None,
            descending: false,
            begin_bit: 0,
            end_bit: if key.is_wide() { 64 } else { 32 },
            max_count,
            strategy: None,
            policy: SortPolicy::default(),
            max_segments: None,
        }
    }

    /// Sorted within each of up to `max_segments` segments given by CSR offsets at every
    /// recording ([`Sorter::record_segmented`]).
    pub fn segmented(mut self, max_segments: u32) -> Self {
        self.max_segments = Some(max_segments);
        self
    }

    /// With u32 values sorted along.
    pub fn with_values(mut self) -> Self {
        self.payload = Payload::Values;
        self
    }

    /// With each key's input index as its value.
    pub fn with_index(mut self) -> Self {
        self.payload = Payload::Index;
        self
    }

    /// Largest key first.
    pub fn descending(mut self) -> Self {
        self.descending = true;
        self
    }

    /// Sorted on bits `[begin, end)` of the sortable key only.
    pub fn bits(mut self, begin: u32, end: u32) -> Self {
        self.begin_bit = begin;
        self.end_bit = end;
        self
    }

    /// By `strategy`.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// Under `policy`.
    pub fn policy(mut self, policy: SortPolicy) -> Self {
        self.policy = policy;
        self
    }
}

/// The host-slice functions' options: direction, bit range and strategy (by default
/// ascending, every bit of the key, the policy's strategy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SortOptions {
    /// Largest key first (still stable).
    pub descending: bool,
    /// First bit of the sortable key sorted on.
    pub begin_bit: u32,
    /// One past the last bit sorted on; `None`: the key's width (32 or 64).
    pub end_bit: Option<u32>,
    /// Force a strategy; `None` lets [`SortPolicy`] choose.
    pub strategy: Option<Strategy>,
}

/// Tuning of the sort. The tiles and the 8-bit digit are fixed by the ranking stages (each
/// declares its keys per invocation, `KPT`, and the host reads the tile from it: [`tile_keys`]):
/// 3072-key tiles for reduce-then-scan (13.3 KiB of workgroup memory), 8192-key tiles for
/// OneSweep (staged in two rounds through 23.3 KiB) and 4096-key tiles for OneSweep's small
/// sorts. All fit lavapipe's 32 KiB; a device with less than OneSweep needs gets
/// reduce-then-scan from [`SortPolicy::choose`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortPolicy {
    /// Polls of a predecessor's status before the decoupled fallback counts its keys. 64: the
    /// fallback reads a whole tile (32 KiB of keys), about 64 L2 polls; 0 to 512 measured the
    /// same, and no fallback ran at 2^24 or 2^28 keys (H100, 2026-11-22).
    pub spin: u32,
    /// Workgroups of OneSweep's global histogram pass, at most: 1056 = 132 SMs × 8 resident
    /// workgroups of 256 on the H100. Below it the grid gives each workgroup four of the
    /// pass's tiles, with at least a quarter of this many (`wgsl/sort/lib/control.wgsl`). The
    /// pass, with the zeroing of the run's state, takes 0.522 ms at 2^28 keys (H100,
    /// 2026-11-27). 0 is taken as 1.
    pub histogram_workgroups: u32,
    /// OneSweep sorts of keys alone up to this many keys take the small stage
    /// (`wgsl/sort/onesweep_small.wgsl`, 4096-key tiles) instead of the 8192-key tiles, which at
    /// 2^20 keys fill under half of the H100's 264 workgroup slots. 2^20: 15.42 against 14.88
    /// Gkeys/s at 2^20, the large tiles ahead from 2^21 (19.81 against 16.81; `sort_sweep`,
    /// H100, 2026-11-27).
    pub onesweep_small_keys_max: u64,
    /// The same for pairs. 2^22: 15.40 against 14.96 Gkeys/s at 2^22 (13.23 against 13.17 at
    /// 2^21), the large tiles ahead at 2^23 (19.02 against 18.44; H100, 2026-11-27).
    pub onesweep_small_pairs_max: u64,
    /// Keys per invocation of the 64-bit and segmented sorts' elementwise stages (the split
    /// into sortable words, the join back; `wgsl/sort/wide_split.wgsl`, ...), before their grid
    /// grows past one workgroup. 4: 2, 4, 8 and 16 sort 2^26 u64 keys within 1.3% of one
    /// another (10.04–10.17 Gkeys/s with the restoring copy, host clock; the lab's
    /// `prims_sweep`, H200, 2026-11-29).
    pub elementwise_items: u32,
    /// The longest segment a segmented sort sorts in one workgroup (its local path,
    /// `src/sort/segments.rs`: tiles of 3072, 6144, 8192 and 16384 keys): the largest tile within it that fits the device's
    /// workgroup memory is `L`, and a run with a segment longer than `L` takes the global path
    /// for all its keys; 0 turns the local path off. `u64::MAX`: u32 pairs in segments of
    /// random lengths 1..16384 take 0.920 ms at 2^24 uncapped, 1.581 capped at 3072 or 8192 (a
    /// longer segment sends the run to the global path) and 1.538 without the local path
    /// (H200, lab `prims_sweep --only segments`, 2026-11-30; docs/sort.md).
    pub segment_local_max: u64,
    /// Segments of a segmented sort's local path of up to this many keys (at most 32) are
    /// sorted by one invocation each (`wgsl/sort/segment_tiny.wgsl`: an insertion sort in
    /// private memory) instead of a workgroup each; 0: none. 16: u32 pairs in segments of 1..8
    /// keys take 1.01 ms at 2^24 against 5.16 with none and 4.79 with 4; of 1..16, 1.24 against
    /// 2.93 (8) and 3.01 (none); of 1..32, 1.90 against 1.71 (none) and 2.19 (32) (H200, lab
    /// `prims_sweep --only segments`, 2026-11-30).
    pub segment_tiny_max: u32,
    /// Longer segments of up to this many keys (at most 256) are sorted by a workgroup of 256
    /// invocations, a key each, by ranking each key against the segment's others
    /// (`wgsl/sort/segment_rank.wgsl`: m steps a key, no digit passes); 0: none. 256: u32 pairs
    /// in segments of 1..256 keys take 1.47 ms at 2^24 against 4.32 (128), 6.13 (64) and 7.53
    /// (none: the smallest tile for each) (H200, lab `prims_sweep --only segments`,
    /// 2026-11-30).
    pub segment_rank_max: u32,
    /// Verification, not tuning: OneSweep tiles take their index from an atomic ticket in order
    /// of start (true, the only sensible setting on a device); false ties them to workgroup
    /// indices, so the simulator's unfair scheduler can run a tile before its predecessors and
    /// exercise the decoupled fallback.
    pub onesweep_tickets: bool,
    /// Verification, not tuning (tests turn it on): before each digit pass that writes a
    /// scratch buffer an earlier pass already wrote (the third pass on), invalidate that buffer
    /// ([`Fills::invalidate`](crate::plan::Fills::invalidate)), keys and values: a device refills
    /// it with [`POISON_WORD`](crate::plan::POISON_WORD), the simulator reports any word read
    /// or read back before the pass wrote it. Without it a key or value such a pass failed to
    /// write would still hold the copy left two passes before, which is the right one wherever
    /// the passes between were identity permutations (all-equal keys, keys varying only in
    /// their low byte), so the output would not show it. Costs a fill of each scratch buffer
    /// per pass on a device.
    pub poison_between_passes: bool,
    /// OneSweep sorts of 64-bit keys (not segmented) fuse the split into sortable words and
    /// the join back into their first and last digit passes, and count both words' digits in
    /// one histogram pass (`sort/build.rs`, `docs/sort.md`); false composes them of 32-bit
    /// sorters between a split and a join, as reduce-then-scan and segmented sorts always are
    /// (`sort/wide.rs`).
    pub fused_wide: bool,
}

impl Default for SortPolicy {
    fn default() -> Self {
        SortPolicy {
            spin: 64,
            histogram_workgroups: 1056,
            onesweep_small_keys_max: 1 << 20,
            onesweep_small_pairs_max: 1 << 22,
            elementwise_items: 4,
            segment_local_max: u64::MAX,
            segment_tiny_max: 16,
            segment_rank_max: 256,
            onesweep_tickets: true,
            poison_between_passes: false,
            fused_wide: true,
        }
    }
}

impl SortPolicy {
    /// The strategy for `n` keys on a device with `caps`, by the first rule that applies:
    ///
    /// - CPU devices (lavapipe) → reduce-then-scan: OneSweep was not reliably
    ///   faster there (lavapipe on 2 CPUs: 350 against 175 ms at 2^20 keys, 448 against 512 at
    ///   2^22).
    /// - No subgroups → reduce-then-scan (OneSweep's look-back wants real subgroups and fast
    ///   atomics).
    /// - OneSweep's tile does not fit the workgroup memory → reduce-then-scan.
    /// - Otherwise OneSweep, at every size: it moves 8 bytes per key per pass where
    ///   reduce-then-scan moves 12, in 5 dispatches instead of 17 (H100, 2026-11-27: keys 43.35
    ///   against 30.64 Gkeys/s at 2^28, pairs 12.91 against 8.95 at 2^20).
    pub fn choose(&self, caps: &Caps, n: u64, pairs: bool) -> Strategy {
        if !caps.is_cpu() && caps.subgroups && fits(caps, Strategy::OneSweep, pairs, n, self) {
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

/// Whether a sort of `n` keys of `key_bytes` (4 or 8) fits the adapter: fewer than 2^30 (the
/// 30-bit counts; `Error::TooLarge` beyond), and the keys, padded to whole 16 bytes, within one
/// storage binding and one buffer (`Error::Limit` beyond; Vulkan adapters report 2^31 - 4
/// bytes, where 2^29 - 1 32-bit keys fit unpadded but not padded).
pub fn check_size(caps: &Caps, n: u64, key_bytes: u32) -> Result<()> {
    if n >= 1 << 30 {
        return Err(Error::TooLarge(format!(
            "{n} keys: the sort handles fewer than 2^30 keys (its counts are 30 bits)"
        )));
    }
    let padded = n
        .saturating_mul(key_bytes as u64)
        .div_ceil(16)
        .saturating_mul(16);
    for (limit, available) in [
        ("max_storage_buffer_binding_size", caps.max_storage_binding),
        ("max_buffer_size", caps.max_buffer),
    ] {
        if padded > available {
            return Err(Error::Limit {
                limit,
                needed: padded,
                available,
                needed_for: format!("a sort of {n} keys (padded to whole 16 bytes)"),
            });
        }
    }
    Ok(())
}

/// A key type the sort accepts: u32, i32, f32, u64, i64, f64.
pub trait SortKey: bytemuck::Pod + Send + Sync + 'static {
    /// Its dtype.
    const KEY: Dtype;
}

macro_rules! sort_keys {
    ($($t:ty => $d:ident),*) => {
        $(impl SortKey for $t {
            const KEY: Dtype = Dtype::$d;
        })*
    };
}
sort_keys!(u32 => U32, i32 => I32, f32 => F32, u64 => U64, i64 => I64, f64 => F64);

/// The kernels' key type code (`KEY_TYPE` in `wgsl/shared/order.wgsl`, which the sort and top-k
/// take, and `wgsl/sort/lib/wide.wgsl`).
pub(crate) fn key_type(d: Dtype) -> Result<u32> {
    match d {
        Dtype::U32 | Dtype::U64 => Ok(0),
        Dtype::I32 | Dtype::I64 => Ok(1),
        Dtype::F32 | Dtype::F64 => Ok(2),
        other => Err(Error::UnsupportedDtype {
            dtype: other.to_string(),
            op: "sort",
            supported: "u32, i32, f32, u64, i64, f64",
        }),
    }
}
