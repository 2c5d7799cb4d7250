//! A segmented sort's local path: each segment of at most `L` keys sorted where it lies by one
//! invocation or one workgroup, in one read and one write, where the global path
//! (src/sort/wide.rs) sorts every key by (segment, key) with digit passes over the whole array.
//!
//! Rules:
//! - **Buckets.** The local stages (`wgsl/sort/segment_local_*.wgsl`, one
//!   `wgsl/sort/lib/segment_local.wgsl` at several tiles) sort a segment in a tile of
//!   `SEGMENT_BUCKETS`' sizes; a segment takes the smallest bucket that holds it. Below the
//!   tiles, segments of up to `segment_tiny_max` keys are sorted by an invocation each
//!   (`wgsl/sort/segment_tiny.wgsl`) and of up to `segment_rank_max` by a workgroup ranking
//!   each key against the others (`wgsl/sort/segment_rank.wgsl`). `L` is the largest tile
//!   whose stage fits the device's workgroup memory (tiles only with real subgroups; without,
//!   the short bucket's bound), capped by
//!   [`SortPolicy::segment_local_max`](super::SortPolicy::segment_local_max).
//! - **The route is decided on the GPU.** A classify stage (`wgsl/sort/segment_classify.wgsl`)
//!   lists each segment under its bucket, or flags the run when a segment is longer than `L`
//!   or the offsets decrease; a dispatch stage (`wgsl/sort/segment_dispatch.wgsl`) writes the
//!   buckets' grids, and the global path's key count (the `gate` word): 0 when every segment
//!   went to a bucket, the run's count when the run is flagged, and then the buckets get no
//!   workgroups. The global path's parts record with the gate as their GPU count, so one
//!   recording serves host and GPU counts alike, with no read-back.
//! - **One plan.** Its count is the sort's: the same clamping, so the gate is the count the
//!   global path would have sorted.

use crate::context::{Buffer, BufferRef, Context};
use crate::device::Caps;
use crate::error::Result;
use crate::fold::ChunkGrid;
use crate::kernel::Flavor;
use crate::plan::{BufferId, BufferInit, Fills, Plan, Workgroups};
use crate::record::{Arg, Recorder};
use crate::stages::sort::lib::{keys, segment_bits as bits, segment_local as local, tile};
// (every local stage declares the same entry point and bindings)
use crate::stages::shared::order;
use crate::stages::sort::segment_local_3072 as first;
use crate::stages::sort::{
    segment_classify as classify, segment_dispatch as dispatch, segment_local_16384,
    segment_local_3072, segment_local_6144, segment_local_8192, segment_rank as rank,
    segment_tiny as tiny,
};
use crate::stages::{Override, Stage};

use super::{Payload, SortConfig};

/// The local stages, smallest tile first (the tile is the stage's `TILE`: 256 or 512
/// invocations × its `KPT`). Not swept on a GPU (the path as a whole is measured:
/// `SortPolicy::segment_local_max`); chosen because 3072 is the smallest
/// tile the ranking allows (256 invocations × 12 keys, `wgsl/sort/lib/tile.wgsl`), 6144 and
/// 8192 take the segments of up to 2^13 keys in 12 and 16 KiB of staging (the reduce-then-scan
/// scatter's 12 KiB and OneSweep's small stage's 16 KiB), and 16384 (32 KiB of staging) fits
/// devices of 48 KiB of workgroup memory but not lavapipe's 32 KiB.
pub(super) const SEGMENT_BUCKETS: [Stage; 4] = [
    segment_local_3072::STAGE,
    segment_local_6144::STAGE,
    segment_local_8192::STAGE,
    segment_local_16384::STAGE,
];

/// The local path of a segmented sort.
pub(super) struct Local {
    rec: Recorder,
    /// The global path's key count (see the module docs).
    gate: Buffer,
    /// The buckets' longest segments, ascending.
    buckets: Vec<u64>,
    /// The plan's bucket counters and flag (`state`), which the tests read.
    #[cfg_attr(not(test), allow(dead_code))]
    state: BufferId,
}

/// The tile of a local stage, where it fits `caps`' workgroup memory and invocations.
fn bucket(stage: Stage, caps: &Caps) -> Result<Option<u64>> {
    let k = stage.load(caps.flavor())?;
    let tile = k.constant(tile::TILE)? as u64;
    let bytes = k
        .workgroup_bytes(first::entry::main.name())
        .ok_or_else(|| crate::error::Error::Plan(format!("{} has no entry point main", k.name)))?;
    let invocations = k.invocations(first::entry::main, &[])?;
    Ok((bytes <= caps.max_workgroup_storage as u64
        && invocations <= caps.max_workgroup_invocations)
        .then_some(tile))
}

impl Local {
    /// The local path of a segmented sort of up to `n` keys in up to `max_segments` segments
    /// of kernel key type `key_type`, or `None` where no bucket fits (the policy's cap, or the
    /// device's workgroup memory and invocations) or the bucket lists would not fit one
    /// storage binding.
    pub fn new(
        ctx: &Context,
        config: &SortConfig,
        key_type: u32,
        n: u64,
        max_segments: u32,
    ) -> Result<Option<Local>> {
        let caps = ctx.caps();
        let flavor = caps.flavor();
        let cap = config.policy.segment_local_max;
        // the tiles need real subgroups: with the emulated ones each item's ranking takes some
        // 30 workgroup barriers, and lavapipe took 88 s to make one sorter's three tile
        // pipelines (2-core VM, 2026-11-30)
        let mut stages = Vec::new();
        for s in SEGMENT_BUCKETS {
            if flavor == Flavor::Subgroup
                && let Some(t) = bucket(s, caps)?
                && t <= cap
            {
                stages.push((s, t));
            }
        }
        // the tiny bucket first (an invocation a segment), the short one, then the tiles
        let tiny_max = (config.policy.segment_tiny_max.min(32) as u64).min(cap) as u32;
        let rank_max = (config.policy.segment_rank_max.min(256) as u64).min(cap) as u32;
        let tiny_bucket = tiny_max > 0;
        let rank_bucket = rank_max > tiny_max;
        let mut bounds = Vec::new();
        if tiny_bucket {
            bounds.push(tiny_max as u64);
        }
        if rank_bucket {
            bounds.push(rank_max as u64);
        }
        bounds.extend(stages.iter().map(|s| s.1));
        if bounds.is_empty() {
            return Ok(None);
        }
        let label = format!("segmented sort {} local", config.key);
        let mut plan = Plan::new(label.clone());
        let control = crate::record::control(&mut plan, 32);
        let policy = crate::fold::ChunkPolicy::flat(
            caps.max_workgroups_per_dim,
            config.policy.elementwise_items,
        );
        let grid = ChunkGrid::new((control, 16), n, &policy, u32::MAX, caps);
        grid.append_prepare(&mut plan, format!("{label} prepare"))?;
        let mut args = Vec::new();
        let mut arg = |plan: &mut Plan, label: &'static str, bytes: u64| {
            let id = plan.arg(label, bytes.max(4) * if bytes > 0 { n } else { 1 });
            args.push(if bytes > 0 {
                Arg::counted(id, label, bytes)
            } else {
                Arg::fixed(id)
            });
            id
        };
        let keys_id = arg(&mut plan, "keys", 4);
        let pairs = config.payload != Payload::None;
        let values = if pairs {
            arg(&mut plan, "values", 4)
        } else {
            plan.buffer("no values", 4, BufferInit::Zeroed)
        };
        let offsets = arg(&mut plan, "offsets", 0);
        let segments = arg(&mut plan, "segment count", 0);
        let gate_id = arg(&mut plan, "global count", 0);
        let b = bounds.len();
        let state = plan.buffer("segment buckets", 4 * (b as u64 + 1), BufferInit::Poison);
        // each bucket's room in the lists: its segments hold at least one more key than the
        // bucket below takes (the first bucket's at least two, or one with the index payload)
        let mut bases = Vec::with_capacity(b + 1);
        let mut room = 0u64;
        for i in 0..b {
            let shortest = match i {
                0 if config.payload == Payload::Index => 1,
                0 => 2,
                _ => bounds[i - 1] + 1,
            };
            bases.push(room as u32);
            room += (max_segments as u64).min(n / shortest);
        }
        // (the end of the last bucket's room: classify lists nothing past a bucket's room)
        bases.push(room as u32);
        // lists past one binding (many segments of nearly every count): the global path only
        if 8 * room > caps.max_storage_binding.min(caps.max_buffer) {
            return Ok(None);
        }
        let lists = plan.buffer("segment lists", 8 * room.max(1), BufferInit::Poison);
        let bases = plan.upload("segment list bases", &bases);
        let dispatch_args = plan.buffer("segment grids", 12 * b as u64, BufferInit::Poison);
        let payload = match config.payload {
            Payload::None => 0.0,
            Payload::Values => 1.0,
            Payload::Index => 2.0,
        };
        plan.fill(format!("{label} clear"), state, 0)?;
        // classify
        let k = classify::STAGE.load(flavor)?;
        let mut ov = grid.params();
        ov.extend([
            (classify::MAX_SEGMENTS, max_segments as f64),
            (classify::BUCKETS, b as f64),
            (classify::PAYLOAD, payload),
        ]);
        let bound_ov = [
            classify::BOUND0,
            classify::BOUND1,
            classify::BOUND2,
            classify::BOUND3,
            classify::BOUND4,
            classify::BOUND5,
        ];
        ov.extend(bound_ov.iter().zip(&bounds).map(|(o, &t)| (*o, t as f64)));
        plan.pass(
            "classify",
            &k,
            classify::entry::main,
            &ov,
            &[
                (classify::bind::count_word, control),
                (classify::bind::offsets, offsets),
                (classify::bind::segments, segments),
                (classify::bind::state, state),
                (classify::bind::lists, lists),
                (classify::bind::bases, bases),
            ],
            grid.workgroups(),
        )?
        .range(classify::bind::count_word, 0, 16)?;
        // the route
        let k = dispatch::STAGE.load(flavor)?;
        let mut ov = grid.params();
        ov.extend([
            (dispatch::BUCKETS, b as f64),
            (dispatch::MAX_DIM, caps.max_workgroups_per_dim as f64),
            (dispatch::TINY_BUCKET, tiny_bucket as u32 as f64),
        ]);
        plan.pass(
            "route",
            &k,
            dispatch::entry::main,
            &ov,
            &[
                (dispatch::bind::count_word, control),
                (dispatch::bind::state, state),
                (dispatch::bind::args, dispatch_args),
                (dispatch::bind::gate, gate_id),
            ],
            Workgroups::Direct([1, 1, 1]),
        )?
        .range(dispatch::bind::count_word, 0, 16)?;
        // the buckets: each stage sorts its bucket's listed segments in place (the same
        // bindings by name in every bucket's stage), dispatched by the route's grid `at`
        let common = [
            (order::KEY_TYPE, key_type as f64),
            (order::DESCENDING, config.descending as u32 as f64),
            (bits::BEGIN_BIT, config.begin_bit as f64),
            (bits::END_BIT, config.end_bit as f64),
            (bits::PAYLOAD, payload),
        ];
        let mut bucket_pass = |label: String, stage: Stage, own: &[(Override, f64)], at: usize| {
            let k = stage.load(flavor)?;
            let ov: Vec<(Override, f64)> = common.iter().chain(own).copied().collect();
            plan.pass(
                label,
                &k,
                first::entry::main,
                &ov,
                &[
                    (first::bind::keys, keys_id),
                    (first::bind::values, values),
                    (first::bind::lists, lists),
                    (first::bind::bases, bases),
                    (first::bind::state, state),
                ],
                Workgroups::Indirect {
                    buffer: dispatch_args,
                    offset: 12 * at as u64,
                },
            )
            .map(|_| ())
        };
        if tiny_bucket {
            let own = [(tiny::TINY, tiny_max as f64)];
            bucket_pass(format!("local {tiny_max}"), tiny::STAGE, &own, 0)?;
        }
        if rank_bucket {
            let at = tiny_bucket as usize;
            let own = [(rank::BUCKET, at as f64)];
            bucket_pass(format!("local {rank_max}"), rank::STAGE, &own, at)?;
        }
        let first_tile = tiny_bucket as usize + rank_bucket as usize;
        for (i, (stage, t)) in stages.iter().enumerate() {
            let own = [
                (keys::SHIFT, 0.0),
                (keys::BITS, 8.0),
                (tile::SG_MIN, super::build::rank_subgroup_min(caps) as f64),
                (tile::FULL_TILES, 1.0),
                // ballots, as the reduce-then-scan scatter's tile_rank (tile.wgsl, RANK_MATCH)
                (tile::RANK_MATCH, 0.0),
                (local::BUCKET, (first_tile + i) as f64),
            ];
            bucket_pass(format!("local {t}"), *stage, &own, first_tile + i)?;
        }
        let rec = Recorder::new(ctx, plan, args, Some(grid.counting()))?;
        Ok(Some(Local {
            rec,
            gate: ctx.scratch("sort: the global path's key count", 4)?,
            buckets: bounds,
            state,
        }))
    }

    /// The plan's recorder.
    pub fn recorder(&self) -> &Recorder {
        &self.rec
    }

    /// The buffers a recording binds: the caller's keys (and values) and offsets, and the
    /// segment count word the split reads.
    pub fn bufs<'a>(
        &'a self,
        keys: BufferRef<'a>,
        values: Option<BufferRef<'a>>,
        offsets: BufferRef<'a>,
        segments: BufferRef<'a>,
    ) -> Vec<BufferRef<'a>> {
        let mut v = vec![keys];
        v.extend(values);
        v.extend([offsets, segments, BufferRef::from(&self.gate)]);
        v
    }

    /// The global path's key count word (the global parts' GPU count).
    pub fn gate(&self) -> BufferRef<'_> {
        BufferRef::from(&self.gate)
    }

    /// The buckets' longest segments, ascending: the last is `L`.
    pub fn buckets(&self) -> &[u64] {
        &self.buckets
    }

    /// The bucket counters and the global path's flag of the last run (tests).
    #[cfg(test)]
    pub fn state(&self) -> Option<BufferRef<'_>> {
        self.rec.prepared().own(self.state)
    }
}

#[cfg(test)]
mod tests {
    use super::super::wide::Wide;
    use super::super::{SortConfig, SortPolicy};
    use crate::context::{BufferRef, Context};
    use crate::count::Count;
    use crate::dtype::Dtype;
    use crate::sim::SimConfig;

    /// Sorts `n` keys in segments of `lens` on a simulator of `caps` and returns the local
    /// path's bucket counts and flag, the global path's count, and whether the keys came out
    /// sorted within each segment.
    fn route(caps: crate::Caps, policy: SortPolicy, lens: &[u32]) -> (Vec<u32>, u32, Vec<u64>) {
        let mut config = SimConfig::for_profile(caps);
        config.subgroup_size = 32;
        let ctx = Context::simulator(config).unwrap();
        let mut offs = vec![0u32];
        for l in lens {
            offs.push(offs.last().unwrap() + l);
        }
        let n = *offs.last().unwrap();
        let keys: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
        let c = SortConfig::keys(Dtype::U32, n as u64)
            .segmented(lens.len() as u32)
            .policy(policy);
        let wide = Wide::new(&ctx, &c, 0).unwrap();
        let (kb, ob) = (
            ctx.upload("keys", &keys).unwrap(),
            ctx.upload("offsets", &offs).unwrap(),
        );
        let mut enc = ctx.encoder();
        let segs = Count::Host(lens.len() as u32);
        let o = Some((BufferRef::from(&ob), segs));
        wide.record(
            (&mut enc).into(),
            (&kb).into(),
            None,
            o,
            Count::Host(n),
            None,
        )
        .unwrap();
        ctx.submit(enc).unwrap();
        let got: Vec<u32> = ctx.read(&kb).unwrap();
        for w in offs.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let mut want = keys[a..b].to_vec();
            want.sort();
            assert_eq!(got[a..b], want[..], "segment [{a}, {b})");
        }
        let Some(local) = wide.local() else {
            return (Vec::new(), 0, Vec::new());
        };
        let state = ctx.read_ref::<u32>(&local.state().unwrap()).unwrap();
        let gate = ctx.read_ref::<u32>(&local.gate()).unwrap()[0];
        (state, gate, local.buckets().to_vec())
    }

    /// Segments within `L` go to their buckets (the smallest that holds each; empty and
    /// single keys to none) and the global path sorts nothing; one segment past `L` flags the
    /// run, whose global path then sorts every key; the policy's cap moves `L`.
    #[test]
    fn the_route_is_the_gpus() {
        let lavapipe = crate::Caps::lavapipe();
        let p = SortPolicy::default();
        let lens = [0, 1, 2, 16, 17, 256, 257, 3072, 3073, 8192, 40];
        let (state, gate, tiles) = route(lavapipe.clone(), p, &lens);
        assert_eq!(
            tiles,
            [16, 256, 3072, 6144, 8192],
            "lavapipe's 32 KiB hold three tiles"
        );
        // the tiny bucket (2, 16), the short one (17, 40, 256), the tiles' (257, 3072; 3073;
        // 8192), the flag
        assert_eq!((state, gate), (vec![2, 3, 2, 1, 1, 0], 0));
        let (state, gate, _) = route(lavapipe.clone(), p, &[5, 8193, 7]);
        assert_eq!(
            (state[5], gate),
            (1, 8205),
            "a segment past L: the global path"
        );
        let capped = SortPolicy {
            segment_local_max: 4000,
            segment_tiny_max: 0,
            segment_rank_max: 0,
            ..p
        };
        let (state, gate, tiles) = route(lavapipe.clone(), capped, &[3072, 3]);
        assert_eq!((tiles, state, gate), (vec![3072], vec![2, 0], 0));
        let (state, gate, _) = route(lavapipe.clone(), capped, &[3073, 3]);
        assert_eq!((state[1], gate), (1, 3076));
        let off = SortPolicy {
            segment_local_max: 0,
            ..p
        };
        assert_eq!(route(lavapipe, off, &[10, 3]).2, Vec::<u64>::new());
        let (_, _, tiles) = route(crate::Caps::h100(), p, &[1]);
        assert_eq!(
            tiles,
            [16, 256, 3072, 6144, 8192, 16384],
            "48 KiB hold four tiles"
        );
        let (_, _, tiles) = route(crate::Caps::lavapipe().without_subgroups(), p, &[1]);
        assert_eq!(tiles, [16, 256], "no subgroups, no tiles");
    }
}
