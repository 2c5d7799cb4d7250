//! Plan building for the two strategies. Buffers: the caller's keys (and values), sorted in
//! place; scratch the passes ping-pong through (undefined at every run, so a key no pass wrote
//! shows); each strategy's counters; the control buffer the prepare pass (or, on a GPU count,
//! OneSweep's histogram stage) fills from the count.
//! Pass labels name the digit pass they belong to ("histogram 0", "scan 0 ...", "scatter 0",
//! "onesweep 0", ...) for the bench's per-pass table.

use std::sync::Arc;

use super::fused::{wide_buffers, wide_digits, wide_words};
use super::passes::{digits, Io};
use super::{Payload, SortConfig, SortPolicy, Strategy};
use crate::device::Caps;
use crate::error::Result;
use crate::kernel::{Flavor, Kernel};
use crate::stages::shared::order;
use crate::stages::sort::lib::{self, control, keys, tile};
// (the ranking stages, OneSweep's and reduce-then-scan's scatter, declare the same entry point
// and tile bindings; the plan checks each against the stage it binds)
use crate::plan::{BufferId, BufferInit, Fills, Pass, Plan, Workgroups};
use crate::record::{BlocksFn, Counting};
use crate::stages::sort::onesweep as rank;
use crate::stages::sort::{
    histogram, onesweep, onesweep_histogram, onesweep_histogram_wide, onesweep_pairs,
    onesweep_small, prepare, scatter,
};
use crate::stages::util::words;
use crate::stages::{Override, Resource, Stage};

/// The ranking stage of a strategy, for keys alone or pairs: its `KPT` sets the tile.
/// OneSweep has one of each and one with smaller tiles for small sorts (`small`:
/// [`SortPolicy::onesweep_small`]).
fn tile_stage(strategy: Strategy, pairs: bool, small: bool) -> Stage {
    match (strategy, pairs, small) {
        (Strategy::OneSweep, _, true) => onesweep_small::STAGE,
        (Strategy::OneSweep, false, false) => onesweep::STAGE,
        (Strategy::OneSweep, true, false) => onesweep_pairs::STAGE,
        (Strategy::ReduceThenScan, _, _) => scatter::STAGE,
    }
}

/// Keys per tile of `strategy` for keys alone or pairs at sizes where the policy's small
/// tiles do not apply: `TILE` of the strategy's ranking stage (256 invocations × the stage's
/// `KPT` keys: 3072 for reduce-then-scan, 8192 for OneSweep). [`tile_keys_for`] gives the
/// tile of a sort of `n` keys.
pub fn tile_keys(strategy: Strategy, pairs: bool) -> Result<u64> {
    tile_of(tile_stage(strategy, pairs, false))
}

/// Keys per tile of a sort of `n` keys by `strategy` under `policy` (OneSweep's small sorts
/// take 4096-key tiles, [`SortPolicy::onesweep_small`]).
pub fn tile_keys_for(strategy: Strategy, pairs: bool, n: u64, policy: &SortPolicy) -> Result<u64> {
    tile_of(stage_for(strategy, pairs, n, policy))
}

/// The ranking stage a sort of `n` keys by `strategy` under `policy` runs.
fn stage_for(strategy: Strategy, pairs: bool, n: u64, policy: &SortPolicy) -> Stage {
    let small = strategy == Strategy::OneSweep && policy.onesweep_small(n, pairs);
    tile_stage(strategy, pairs, small)
}

fn tile_of(stage: Stage) -> Result<u64> {
    Ok(stage.load(Flavor::Subgroup)?.constant(tile::TILE)? as u64)
}

/// Workgroup memory of `strategy`'s ranking stage for keys alone or pairs, bytes (the
/// `var<workgroup>`s its entry point uses: the tile's staging memory, the digit bases, the
/// scan's slots), for the large tiles (OneSweep's small stage takes less).
pub fn workgroup_bytes(strategy: Strategy, pairs: bool, flavor: Flavor) -> Result<u64> {
    stage_bytes(tile_stage(strategy, pairs, false), flavor)
}

/// Workgroup memory of the ranking stage a sort of `n` keys by `strategy` under `policy` runs
/// ([`workgroup_bytes`] for the stage [`tile_keys_for`] reads), bytes.
pub fn workgroup_bytes_for(
    strategy: Strategy,
    pairs: bool,
    n: u64,
    policy: &SortPolicy,
    flavor: Flavor,
) -> Result<u64> {
    stage_bytes(stage_for(strategy, pairs, n, policy), flavor)
}

fn stage_bytes(stage: Stage, flavor: Flavor) -> Result<u64> {
    let k = stage.load(flavor)?;
    k.workgroup_bytes(rank::entry::main.name())
        .ok_or_else(|| crate::error::Error::Plan(format!("{} has no entry point main", k.name)))
}

/// The smallest subgroup the ranking runs at (override `SG_MIN` of `wgsl/sort/lib/tile.wgsl`,
/// which sets its phase count): the device's minimum (1 when it reports none: the most
/// phases, right at any size), or the emulated flavour's 32-lane virtual subgroups.
pub(super) fn rank_subgroup_min(caps: &Caps) -> u32 {
    match caps.flavor() {
        Flavor::Emulated => 32,
        Flavor::Subgroup => caps.subgroup_min.max(1),
    }
}

struct Builder<'a> {
    caps: &'a Caps,
    plan: Plan,
    flavor: Flavor,
    /// The key order's overrides (`wgsl/sort/lib/keys.wgsl`), for every stage.
    keys: Vec<(Override, f64)>,
    /// The ranking's (`wgsl/sort/lib/tile.wgsl`), for the ranking stages.
    tile: Vec<(Override, f64)>,
    /// Values follow the keys.
    pairs: bool,
    /// The values are the keys' indices, made by the first pass.
    index: bool,
    /// Second values follow too (`VALUES2`).
    values2: bool,
    /// `SortPolicy::poison_between_passes`.
    poison_between_passes: bool,
    /// The most keys a run sorts.
    max_count: u64,
}

impl Builder<'_> {
    /// The key order's overrides and `extra`.
    fn key_overrides(&self, extra: &[(Override, f64)]) -> Vec<(Override, f64)> {
        let mut o = self.keys.clone();
        o.extend_from_slice(extra);
        o
    }

    /// The key order's and the ranking's overrides, and `extra`.
    fn tile_overrides(&self, extra: &[(Override, f64)]) -> Vec<(Override, f64)> {
        let mut o = self.key_overrides(&self.tile);
        o.extend_from_slice(extra);
        o
    }

    /// A sort stage pass: the stage's tile bindings (`wgsl/sort/lib/tile.wgsl`) and its own
    /// `(name, buffer)` ones.
    #[allow(clippy::too_many_arguments)]
    fn stage(
        &mut self,
        label: String,
        k: &Arc<Kernel>,
        overrides: &[(Override, f64)],
        g: &Grids,
        io: Io,
        own: &[(Resource, BufferId)],
        workgroups: Workgroups,
    ) -> Result<&mut Pass> {
        let mut b = vec![
            (rank::bind::params, g.control),
            (rank::bind::keys_in, io.keys_in),
            (rank::bind::keys_out, io.keys_out),
            (rank::bind::vals_in, io.vals_in),
            (rank::bind::vals_out, io.vals_out),
            (rank::bind::vals2_in, io.vals2_in),
            (rank::bind::vals2_out, io.vals2_out),
        ];
        b.extend_from_slice(own);
        self.plan
            .pass(label, k, rank::entry::main, overrides, &b, workgroups)?
            .range(rank::bind::params, g.params, 16)
    }

    /// With `SortPolicy::poison_between_passes`, invalidates what digit pass `p` writes (`io`'s
    /// outputs) before it: a device fills them with `POISON_WORD`, the simulator reports a word
    /// read or left unwritten before the pass wrote it (`Fills::invalidate`).
    /// The caller's buffers are invalidated up to the count only: what lies past it is theirs.
    fn poison_outputs(&mut self, g: &Grids, io: Io) -> Result<()> {
        if !self.poison_between_passes {
            return Ok(());
        }
        let outs = match (self.pairs, self.values2) {
            (true, true) => vec![io.keys_out, io.vals_out, io.vals2_out],
            (true, false) => vec![io.keys_out, io.vals_out],
            _ => vec![io.keys_out],
        };
        for buf in outs {
            let label = format!("invalidate {}", self.plan.buffers[buf.0].label);
            let b = &self.plan.buffers[buf.0];
            if b.init == BufferInit::Arg {
                // (words an element: a caller's 64-bit keys hold two)
                let per = (b.size / (4 * self.max_count)).max(1) as u32;
                self.plan
                    .invalidate_first(label, buf, per, g.control, g.copy_params, g.copy)?;
            } else {
                self.plan.invalidate(label, buf)?;
            }
        }
        Ok(())
    }

    /// The copies back to the caller's buffers after a one-pass sort, which wrote scratch a
    /// (`copies`: label, scratch, the caller's).
    fn copy_back(
        &mut self,
        g: &Grids,
        copies: &[(&'static str, BufferId, BufferId)],
    ) -> Result<()> {
        if copies.is_empty() {
            return Ok(());
        }
        let k_words = words::STAGE.load(Flavor::Emulated)?;
        for &(label, src, dst) in copies {
            self.plan
                .pass(
                    label,
                    &k_words,
                    words::entry::copy,
                    &[],
                    &[
                        (words::bind::params, g.control),
                        (words::bind::src, src),
                        (words::bind::dst, dst),
                    ],
                    g.copy,
                )?
                .range(words::bind::params, g.copy_params, 16)?;
        }
        Ok(())
    }

    /// OneSweep's global histogram pass over the caller's `keys` into `states` (one per key
    /// word): every digit pass's counts in one read (`digits`), or for 64-bit keys (`words`:
    /// each word's bit range and passes) both words'. On a GPU count it also writes the control
    /// block (sort/lib/control), and the prepare pass does not run.
    fn onesweep_histogram(
        &mut self,
        g: &Grids,
        keys: BufferId,
        states: &[BufferId],
        digits: &[(u32, u32)],
        words: Option<[((u32, u32), usize); 2]>,
        control_ov: &[(Override, f64)],
    ) -> Result<()> {
        // `keys_in4`: the keys again, read as vec4s in the histogram's full tiles
        if let Some([(low, low_passes), (high, high_passes)]) = words {
            let k_wide = onesweep_histogram_wide::STAGE.load(self.flavor)?;
            // (a word without bits: an empty range)
            let [low, high] = [low, high].map(|(b, e)| if b < e { (b, e) } else { (0, 0) });
            let mut ov = self.key_overrides(&[
                (onesweep_histogram_wide::LOW_BEGIN, low.0 as f64),
                (onesweep_histogram_wide::LOW_END, low.1 as f64),
                (onesweep_histogram_wide::LOW_PASSES, low_passes as f64),
                (onesweep_histogram_wide::HIGH_BEGIN, high.0 as f64),
                (onesweep_histogram_wide::HIGH_END, high.1 as f64),
                (onesweep_histogram_wide::HIGH_PASSES, high_passes as f64),
            ]);
            ov.extend_from_slice(control_ov);
            self.plan.pass(
                "global histogram",
                &k_wide,
                onesweep_histogram_wide::entry::main,
                &ov,
                &[
                    (onesweep_histogram_wide::bind::control, g.control),
                    (onesweep_histogram_wide::bind::keys_in, keys),
                    (onesweep_histogram_wide::bind::state_low, states[0]),
                    (onesweep_histogram_wide::bind::keys_in4, keys),
                    (onesweep_histogram_wide::bind::state_high, states[1]),
                ],
                g.hist,
            )?;
            return Ok(());
        }
        let k_hist = onesweep_histogram::STAGE.load(self.flavor)?;
        let begin = digits[0].0;
        let end = begin + digits.iter().map(|d| d.1).sum::<u32>();
        let mut ov = self.key_overrides(&[
            (onesweep_histogram::BEGIN_BIT, begin as f64),
            (onesweep_histogram::END_BIT, end as f64),
        ]);
        ov.extend_from_slice(control_ov);
        self.plan.pass(
            "global histogram",
            &k_hist,
            onesweep_histogram::entry::main,
            &ov,
            &[
                (onesweep_histogram::bind::control, g.control),
                (onesweep_histogram::bind::keys_in, keys),
                (onesweep_histogram::bind::state, states[0]),
                (onesweep_histogram::bind::keys_in4, keys),
            ],
            g.hist,
        )?;
        Ok(())
    }

    /// One reduce-then-scan digit pass: histogram, scan of the histogram (the scan's own passes,
    /// [`crate::scan::append`]), scatter. Grids are the prepare pass's (`g`).
    #[allow(clippy::too_many_arguments)]
    fn rts_pass(
        &mut self,
        tag: &str,
        digit: (u32, u32),
        map_in: bool,
        map_out: bool,
        g: &Grids,
        max_tiles: u64,
        hist: BufferId,
        hist_scan: BufferId,
        io: Io,
    ) -> Result<()> {
        let k_hist = histogram::STAGE.load(self.flavor)?;
        let k_scatter = scatter::STAGE.load(self.flavor)?;
        let digit = [(keys::SHIFT, digit.0 as f64), (keys::BITS, digit.1 as f64)];
        self.plan
            .pass(
                format!("histogram {tag}"),
                &k_hist,
                histogram::entry::main,
                &self.key_overrides(&[digit[0], digit[1], (keys::MAP_IN, map_in as u32 as f64)]),
                &[
                    (histogram::bind::params, g.control),
                    (histogram::bind::keys_in, io.keys_in),
                    (histogram::bind::hist, hist),
                ],
                g.hist,
            )?
            .range(histogram::bind::params, g.params, 16)?;
        let radix = k_scatter.constant(keys::RADIX)? as u64;
        let scan_control = g.scan_control.expect("reduce-then-scan has a scan control");
        crate::scan::append(
            &mut self.plan,
            self.caps,
            Some(scan_control),
            hist,
            hist_scan,
            radix * max_tiles,
            false,
            &crate::scan::ScanPolicy::for_caps(self.caps),
            tag,
        )?;
        // full tiles without per-item checks for keys alone; pairs keep the checks
        // (`FULL_TILES`, wgsl/sort/lib/tile.wgsl)
        let ov = self.tile_overrides(&[
            digit[0],
            digit[1],
            (keys::MAP_IN, map_in as u32 as f64),
            (keys::MAP_OUT, map_out as u32 as f64),
            (tile::FULL_TILES, (!self.pairs) as u32 as f64),
            (tile::RANK_MATCH, 0.0),
            (tile::INDEX_PAYLOAD, (map_in && self.index) as u32 as f64),
        ]);
        self.stage(
            format!("scatter {tag}"),
            &k_scatter,
            &ov,
            g,
            io,
            &[(scatter::bind::offsets, hist_scan)],
            g.tiles,
        )?;
        Ok(())
    }
}

/// Where the prepare pass (`wgsl/sort/prepare.wgsl`) leaves the passes' params and grids.
struct Grids {
    control: BufferId,
    scan_control: Option<BufferId>,
    /// Byte offset of the sort stages' params block.
    params: u64,
    copy_params: u64,
    hist: Workgroups,
    tiles: Workgroups,
    copy: Workgroups,
}

/// A sort's plan and the buffers a recording binds.
pub(super) struct Built {
    pub plan: Plan,
    pub counting: Counting,
    pub keys: BufferId,
    pub values: BufferId,
    /// With second values: their buffer.
    pub values2: Option<BufferId>,
    pub strategy: Strategy,
}

/// The passes' sources and destinations: caller's keys `K` and values, scratch `a` and `b`. Pass
/// p reads `src(p)` and writes `dst(p)`; the last pass writes the caller's (a sort of one pass
/// writes `a`, and a copy brings it back).
fn route(passes: usize) -> Vec<(usize, usize)> {
    const K: usize = 0;
    const A: usize = 1;
    const B: usize = 2;
    let mut v = Vec::with_capacity(passes);
    let mut src = K;
    for p in 0..passes {
        let dst = if passes == 1 {
            A
        } else if p + 1 == passes {
            K
        } else if passes.is_multiple_of(2) {
            // even: one scratch buffer, K -> a -> K -> a -> K
            if p % 2 == 0 {
                A
            } else {
                K
            }
        } else if p % 2 == 0 {
            // odd: K -> a -> b -> a ... -> K
            A
        } else {
            B
        };
        v.push((src, dst));
        src = dst;
    }
    v
}

/// A sort's buffers: the caller's keys and values (and second values), what each digit pass
/// binds, and the copies back to the caller's buffers after a one-pass sort.
struct Buffers {
    keys: BufferId,
    values: BufferId,
    values2: Option<BufferId>,
    ios: Vec<Io>,
    copies: Vec<(&'static str, BufferId, BufferId)>,
}

/// The buffers of a sort of 32-bit keys of up to `n` in `passes` digit passes: the caller's
/// keys, values (`pairs`) and second values (`values2`), each with scratch a and b, or
/// distinct stand-ins where there are none (every binding needs a buffer of its own).
fn narrow_buffers(plan: &mut Plan, n: u64, passes: usize, pairs: bool, values2: bool) -> Buffers {
    let bytes = n * 4;
    // scratch b holds a pass's output only in an odd route of more than one pass (`route`)
    let b_bytes = if passes % 2 == 1 && passes > 1 {
        bytes
    } else {
        16
    };
    // an operand's caller's buffer, scratch a and scratch b, or stand-ins without it
    let mut operand = |name: &str, real: bool| -> [BufferId; 3] {
        if real {
            [
                plan.arg(name, bytes),
                plan.buffer(format!("{name} a"), bytes, BufferInit::Poison),
                plan.buffer(format!("{name} b"), b_bytes, BufferInit::Poison),
            ]
        } else {
            [
                plan.buffer(format!("no {name}"), 16, BufferInit::Zeroed),
                plan.buffer(format!("no {name} a"), 16, BufferInit::Zeroed),
                plan.buffer(format!("no {name} b"), 16, BufferInit::Zeroed),
            ]
        }
    };
    let k = operand("keys", true);
    let v = operand("values", pairs);
    let v2 = operand("values2", values2);
    let ios = route(passes)
        .into_iter()
        .map(|(src, dst)| Io {
            keys_in: k[src],
            keys_out: k[dst],
            vals_in: v[src],
            vals_out: v[dst],
            vals2_in: v2[src],
            vals2_out: v2[dst],
        })
        .collect();
    let mut copies = Vec::new();
    if passes == 1 {
        // the one pass writes scratch a
        copies.push(("copy back keys", k[1], k[0]));
        if pairs {
            copies.push(("copy back values", v[1], v[0]));
        }
        if values2 {
            copies.push(("copy back values2", v2[1], v2[0]));
        }
    }
    Buffers {
        keys: k[0],
        values: v[0],
        values2: values2.then_some(v2[0]),
        ios,
        copies,
    }
}

pub(super) fn build(
    caps: &Caps,
    config: &SortConfig,
    key_type: u32,
    strategy: Strategy,
    values2: bool,
) -> Result<Built> {
    let n = config.max_count.max(1);
    // 64-bit keys, fused (OneSweep only; src/sort/wide.rs has the other compositions): each
    // pass carries the other word of the keys as its values, the caller's values as its second
    // values
    let wide = config.key.is_wide();
    if wide && (strategy != Strategy::OneSweep || values2) {
        return Err(crate::error::Error::Plan(
            "a fused sort of 64-bit keys is OneSweep's, with no second values of its own".into(),
        ));
    }
    let caller_pairs = config.payload != Payload::None;
    let pairs = caller_pairs || wide;
    let values2 = values2 || (wide && caller_pairs);
    let index = config.payload == Payload::Index;
    let policy = &config.policy;
    let mut plan = Plan::new(format!(
        "sort {} {} {strategy}",
        match config.payload {
            Payload::None => "keys",
            Payload::Values => "pairs",
            Payload::Index => "keys+index",
        },
        config.key
    ));
    let wide_passes = wide_digits(config.begin_bit, config.end_bit);
    let digits = if wide {
        wide_passes.iter().map(|d| (d.0, d.1)).collect()
    } else {
        digits(config.begin_bit, config.end_bit)
    };
    let passes = digits.len();
    let stage = stage_for(strategy, pairs, n, policy);
    let max_tiles = n.div_ceil(tile_of(stage)?);
    let flavor = caps.flavor();
    let k_prep = prepare::STAGE.load(flavor)?;
    let c = |name| k_prep.constant(name).map(|v| v as u64);
    let control = crate::record::control(&mut plan, 4 * c(control::CONTROL_WORDS)?);
    // buffers: the caller's keys (and values), the scratch the passes go through; each pass's
    // bindings, and the copies back after a one-pass sort
    let Buffers {
        keys,
        values,
        values2: values2_arg,
        ios,
        copies,
    } = if wide {
        // (no second values argument: the caller's values are the second values; no copies)
        let (keys, values, ios) = wide_buffers(&mut plan, n, &wide_passes, caller_pairs);
        Buffers {
            keys,
            values,
            values2: None,
            ios,
            copies: Vec::new(),
        }
    } else {
        narrow_buffers(&mut plan, n, passes, pairs, values2)
    };
    let onesweep = strategy == Strategy::OneSweep;

    let scan_control = if onesweep {
        None
    } else {
        Some(plan.slotted(
            "scan control",
            crate::scan::control_size(caps)?,
            crate::count::SLOTS,
        ))
    };
    let args = |name| -> Result<Workgroups> {
        Ok(Workgroups::Indirect {
            buffer: control,
            offset: 4 * c(name)?,
        })
    };
    let g = Grids {
        control,
        scan_control,
        params: 4 * c(control::SORT_PARAMS)?,
        copy_params: 4 * c(control::COPY_PARAMS)?,
        hist: args(control::HIST_ARGS)?,
        tiles: args(control::TILE_ARGS)?,
        copy: args(control::COPY_ARGS)?,
    };
    let k_sweep = stage.load(flavor)?;
    let radix = k_sweep.constant(keys::RADIX)? as u64;
    let (state_tickets, state_status) = if onesweep {
        (
            k_sweep.constant(lib::onesweep::STATE_COUNTERS)?,
            k_sweep.constant(lib::onesweep::STATE_STATUS)? as u64,
        )
    } else {
        (0, 0)
    };
    let k_hist = onesweep_histogram::STAGE.load(flavor)?;
    let hist_group = histogram::STAGE
        .load(flavor)?
        .constant(histogram::HIST_GROUP)?;
    let no_scan = plan.buffer("no scan control", 16, BufferInit::Zeroed);
    // the control block's layout and arithmetic (sort/lib/control): the prepare and OneSweep's
    // histogram stages
    let control_ov = [
        (control::MAX_COUNT, n as f64),
        (control::TILE, tile_of(stage)? as f64),
        (control::ONESWEEP, onesweep as u32 as f64),
        (
            control::HIST_WORKGROUPS,
            policy.histogram_workgroups.max(1) as f64,
        ),
        (
            control::HIST_TILE,
            k_hist.constant(onesweep_histogram::COUNT_TILE)? as f64,
        ),
        (control::HIST_GROUP, hist_group as f64),
        (control::STATE_TICKETS, state_tickets as f64),
        (control::STATE_STATUS, state_status as f64),
        (control::PASSES, passes as f64),
        (
            lib::tile_grid::MAX_DIM,
            caps.max_workgroups_per_dim.max(1) as f64,
        ),
    ];
    plan.pass(
        "sort prepare",
        &k_prep,
        prepare::entry::main,
        &control_ov,
        &[
            (prepare::bind::control, control),
            (prepare::bind::scan_control, scan_control.unwrap_or(no_scan)),
        ],
        Workgroups::Direct([1, 1, 1]),
    )?;
    let mut b = Builder {
        caps,
        plan,
        flavor,
        keys: vec![
            (order::KEY_TYPE, key_type as f64),
            (order::DESCENDING, config.descending as u32 as f64),
        ],
        tile: vec![
            (tile::SG_MIN, rank_subgroup_min(caps) as f64),
            (tile::PAIRS, pairs as u32 as f64),
            (tile::VALUES2, values2 as u32 as f64),
        ],
        pairs,
        index,
        values2,
        poison_between_passes: policy.poison_between_passes,
        max_count: n,
    };
    // OneSweep's copies are marked: its histogram stage writes the control block
    let mut marks = Vec::new();
    match strategy {
        Strategy::ReduceThenScan => {
            let hist_bytes = crate::scan::padded_bytes(radix * max_tiles);
            let hist = b.plan.buffer("histogram", hist_bytes, BufferInit::Poison);
            let hist_scan = b.plan.buffer("offsets", hist_bytes, BufferInit::Poison);
            for (p, &d) in digits.iter().enumerate() {
                b.poison_outputs(&g, ios[p])?;
                b.rts_pass(
                    &p.to_string(),
                    d,
                    p == 0,
                    p + 1 == passes,
                    &g,
                    max_tiles,
                    hist,
                    hist_scan,
                    ios[p],
                )?;
            }
        }
        Strategy::OneSweep => {
            // one state per word of a sort of 64-bit keys (each word's passes count PASS from
            // 0 in their own), one otherwise
            let word_of = |p: usize| if wide { wide_passes[p].2 as usize } else { 0 };
            let word_passes = |w: usize| (0..passes).filter(|&p| word_of(p) == w).count();
            let mut states = Vec::new();
            for w in 0..2 {
                let words = state_status + word_passes(w) as u64 * max_tiles * radix;
                // zeroed once: the global counts must be 0 before the first run's histogram
                // (each run's last pass of the state zeroes them for the next; the histogram
                // zeroes the rest)
                let (label, bytes) = match (wide, w, word_passes(w)) {
                    (false, 0, _) => ("onesweep state", words * 4),
                    (false, _, _) => break,
                    (true, 0, 0) => ("no low word state", 16),
                    (true, 0, _) => ("onesweep state, low words", words * 4),
                    (true, _, 0) => ("no high word state", 16),
                    (true, _, _) => ("onesweep state, high words", words * 4),
                };
                states.push(b.plan.buffer(label, bytes, BufferInit::Zeroed));
            }
            // (64-bit keys: each word's bit range and passes)
            let [low, high] = wide_words(config.begin_bit, config.end_bit);
            let words = wide.then_some([(low, word_passes(0)), (high, word_passes(1))]);
            b.onesweep_histogram(&g, keys, &states, &digits, words, &control_ov)?;
            marks = vec![(4 * c(control::MARK)?, c(control::DERIVE_MARK)? as u32)];
            // the match-mask ranking needs real subgroups (RANK_MATCH, wgsl/sort/lib/tile.wgsl)
            let match_ranking = flavor == Flavor::Subgroup;
            for (p, &d) in digits.iter().enumerate() {
                let (first, last) = (p == 0, p + 1 == passes);
                // the pass's index among its state's, and whether it is their last
                let w = word_of(p);
                let in_word = (0..p).filter(|&q| word_of(q) == w).count();
                let word_last = !(p + 1..passes).any(|q| word_of(q) == w);
                let mut ov = b.tile_overrides(&[
                    (keys::SHIFT, d.0 as f64),
                    (keys::BITS, d.1 as f64),
                    (keys::MAP_IN, (first && !wide) as u32 as f64),
                    (keys::MAP_OUT, (last && !wide) as u32 as f64),
                    (lib::onesweep::PASS, in_word as f64),
                    (lib::onesweep::SPIN, policy.spin as f64),
                    (tile::FULL_TILES, 1.0),
                    (tile::RANK_MATCH, match_ranking as u32 as f64),
                    (
                        lib::onesweep::TICKETS,
                        policy.onesweep_tickets as u32 as f64,
                    ),
                    (lib::onesweep::LAST_PASS, word_last as u32 as f64),
                    (tile::INDEX_PAYLOAD, (first && index) as u32 as f64),
                ]);
                if wide {
                    // (32-bit sorts leave them at 0, which compiles their paths out)
                    ov.extend_from_slice(&[
                        (keys::WIDE_IN, first as u32 as f64),
                        (keys::WIDE_OUT, last as u32 as f64),
                        (keys::WIDE_HALF, w as f64),
                    ]);
                }
                b.poison_outputs(&g, ios[p])?;
                b.stage(
                    format!("onesweep {p}"),
                    &k_sweep,
                    &ov,
                    &g,
                    ios[p],
                    &[(onesweep::bind::state, states[w])],
                    g.tiles,
                )?;
            }
        }
    }
    b.copy_back(&g, &copies)?;
    // the control block for a count (sort/lib/control), restated for the host: OneSweep's
    // grids, and reduce-then-scan's grids and blocks (its scans' too)
    let scan = match scan_control {
        Some(sc) => {
            let policy = crate::scan::ScanPolicy::for_caps(caps);
            Some(crate::scan::ScanArgs::new(
                caps,
                radix * max_tiles,
                &policy,
                sc,
            )?)
        }
        None => None,
    };
    let a = SortArgs {
        control,
        words: c(control::CONTROL_WORDS)?,
        hist_at: c(control::HIST_ARGS)?,
        tile_at: c(control::TILE_ARGS)?,
        copy_at: c(control::COPY_ARGS)?,
        sort_params: c(control::SORT_PARAMS)?,
        copy_params: c(control::COPY_PARAMS)?,
        max_count: n,
        tile: tile_of(stage)?,
        hist_tile: k_hist.constant(onesweep_histogram::COUNT_TILE)? as u64,
        hist_workgroups: policy.histogram_workgroups.max(1) as u64,
        hist_group: hist_group as u64,
        max_dim: caps.max_workgroups_per_dim.max(1) as u64,
        scan: scan.map(|s| (s, radix)),
    };
    let blocks: Option<BlocksFn> = match scan {
        Some(_) => Some(Box::new(move |count| a.blocks(count))),
        None => None,
    };
    let counting = Counting {
        control,
        max: n,
        derived: !marks.is_empty(),
        marks,
        args: Some(Box::new(move |count| a.for_count(count))),
        blocks,
    };
    Ok(Built {
        plan: b.plan,
        counting,
        keys,
        values,
        values2: values2_arg,
        strategy,
    })
}

/// A sort's control block for a count: `write_blocks` of `wgsl/sort/lib/control.wgsl` (its
/// `hist_workgroups`, `tile_grid` and `words_grid`) and, for reduce-then-scan, what the prepare
/// stage writes into its scans' control block, restated for the host (`record.rs`): OneSweep's
/// grids (its histogram stage writes the block), reduce-then-scan's grids and blocks (its
/// stages read them). The simulator runs the prepare stage at every run that dispatches host
/// grids and fails on any difference; unit tests compare the blocks word for word.
#[derive(Clone, Copy, Debug)]
struct SortArgs {
    control: BufferId,
    /// Words of the control block, and word offsets in it (`CONTROL_WORDS`, `HIST_ARGS`, ...).
    words: u64,
    hist_at: u64,
    tile_at: u64,
    copy_at: u64,
    sort_params: u64,
    copy_params: u64,
    max_count: u64,
    tile: u64,
    hist_tile: u64,
    hist_workgroups: u64,
    hist_group: u64,
    max_dim: u64,
    /// Reduce-then-scan: its scans' block, and the digits per tile (`RADIX`).
    scan: Option<(crate::scan::ScanArgs, u64)>,
}

impl SortArgs {
    /// A 1-D grid of `tiles` workgroups up to `max_dim`, else rows of equal width (`tile_grid`).
    fn tile_grid(&self, tiles: u64) -> [u32; 3] {
        if tiles == 0 {
            return [0, 1, 1];
        }
        let rows = tiles.div_ceil(self.max_dim);
        [tiles.div_ceil(rows) as u32, rows as u32, 1]
    }

    /// The keys of a count word, and their tiles.
    fn keys(&self, word: u32) -> (u64, u64) {
        let n = (word as u64).min(self.max_count);
        (n, n.div_ceil(self.tile))
    }

    fn for_count(&self, word: u32) -> Vec<(BufferId, u64, [u32; 3])> {
        let (n, tiles) = self.keys(word);
        let hist = match self.scan {
            None => {
                let hist_tiles = n.div_ceil(self.hist_tile);
                let wgs = (hist_tiles / 4).clamp(self.hist_workgroups / 4, self.hist_workgroups);
                [wgs.min(hist_tiles).clamp(1, self.max_dim) as u32, 1, 1]
            }
            Some(_) => self.tile_grid(tiles.div_ceil(self.hist_group)),
        };
        let words = n.div_ceil(256).clamp(1, 4096);
        let mut args = vec![
            (self.control, 4 * self.hist_at, hist),
            (self.control, 4 * self.tile_at, self.tile_grid(tiles)),
            (self.control, 4 * self.copy_at, [words as u32, 1, 1]),
        ];
        if let Some((scan, radix)) = &self.scan {
            args.extend(scan.for_count((radix * tiles) as u32));
        }
        args
    }

    /// Reduce-then-scan's blocks for a count word: its control block (the head aside) and its
    /// scans'.
    fn blocks(&self, word: u32) -> Vec<(BufferId, Vec<u32>)> {
        let (n, tiles) = self.keys(word);
        let mut w = vec![0u32; self.words as usize];
        let p = self.sort_params as usize;
        w[p..p + 4].copy_from_slice(&[n as u32, tiles as u32, tiles as u32, 0]);
        w[self.copy_params as usize] = n as u32;
        let mut out = Vec::new();
        for (b, at, grid) in self.for_count(word) {
            if b == self.control {
                let a = (at / 4) as usize;
                w[a..a + 3].copy_from_slice(&grid);
            }
        }
        out.push((self.control, w));
        if let Some((scan, radix)) = &self.scan {
            out.push((scan.control(), scan.block((radix * tiles) as u32)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pass reads what the one before wrote, none reads and writes one buffer, and the
    /// last writes the caller's (one pass: scratch a, then the copy back).
    #[test]
    fn routes_end_in_the_callers_buffers() {
        for passes in 1..=6 {
            let r = route(passes);
            assert_eq!(r.len(), passes);
            assert_eq!(
                r[0].0, 0,
                "{passes}: the first pass reads the caller's keys"
            );
            for w in r.windows(2) {
                assert_eq!(w[0].1, w[1].0, "{passes}: {r:?}");
            }
            assert!(r.iter().all(|&(s, d)| s != d), "{passes}: {r:?}");
            let last = r[passes - 1].1;
            assert_eq!(last, if passes == 1 { 1 } else { 0 }, "{passes}: {r:?}");
            // scratch b only where the pass count is odd
            assert_eq!(
                r.iter().any(|&(_, d)| d == 2),
                passes % 2 == 1 && passes > 1
            );
        }
    }

    /// The ranking stages carry the directive (their accesses are proven by the simulator
    /// tests); the histogram stages do not (faster with the checks on the H100).
    #[test]
    fn ranking_stages_are_built_without_runtime_checks() {
        for (name, unchecked) in [
            (scatter::STAGE, true),
            (onesweep::STAGE, true),
            (onesweep_pairs::STAGE, true),
            (onesweep_small::STAGE, true),
            (histogram::STAGE, false),
            (onesweep_histogram::STAGE, false),
        ] {
            let k = name.load(Flavor::Subgroup).unwrap();
            assert_eq!(crate::gpu::asks_unchecked(&k), unchecked, "{name}");
        }
    }

    /// The stages of each strategy agree on its tile, and the strategies' tiles are the
    /// documented ones. (OneSweep's global histogram counts in tiles of its own, 5120 keys.)
    #[test]
    fn every_sort_kernel_agrees_on_its_strategys_tile() {
        let rts = tile_keys(Strategy::ReduceThenScan, false).unwrap() as u32;
        let onesweep = tile_keys(Strategy::OneSweep, false).unwrap() as u32;
        let onesweep_pairs = tile_keys(Strategy::OneSweep, true).unwrap() as u32;
        assert_eq!((rts, onesweep, onesweep_pairs), (3072, 8192, 8192));
        // OneSweep's small sorts (the default policy's thresholds, at and past them)
        let p = SortPolicy::default();
        let small = |n: u64, pairs: bool| tile_keys_for(Strategy::OneSweep, pairs, n, &p).unwrap();
        assert_eq!((small(0, false), small(1 << 20, false)), (4096, 4096));
        assert_eq!((small(0, true), small(1 << 22, true)), (4096, 4096));
        assert_eq!(small((1 << 20) + 1, false), 8192);
        assert_eq!(small((1 << 22) + 1, true), 8192);
        assert_eq!(
            tile_keys_for(Strategy::ReduceThenScan, true, 0, &p).unwrap(),
            3072
        );
        for pairs in [false, true] {
            assert_eq!(
                tile_keys(Strategy::ReduceThenScan, pairs).unwrap() as u32,
                rts
            );
        }
        for (name, tile) in [
            (scatter::STAGE, rts),
            (histogram::STAGE, rts),
            (onesweep::STAGE, onesweep),
            (onesweep_pairs::STAGE, onesweep_pairs),
            (onesweep_small::STAGE, 4096),
        ] {
            for flavor in [Flavor::Subgroup, Flavor::Emulated] {
                let k = name.load(flavor).unwrap();
                assert_eq!(k.constant(tile::TILE).unwrap(), tile, "{name}");
            }
        }
        let k = onesweep_histogram::STAGE.load(Flavor::Subgroup).unwrap();
        assert_eq!(k.constant(onesweep_histogram::COUNT_TILE).unwrap(), 5120);
    }

    /// What the policy's workgroup-memory rule counts: the tile's staging memory (OneSweep's
    /// stages take 8192-key tiles through 5632 keys of it), the digit bases and the scan's slots
    /// (the ranking stages' documented 13.3 and 23.3 KiB).
    #[test]
    fn ranking_stages_workgroup_memory() {
        for (strategy, pairs, tile) in [
            (Strategy::ReduceThenScan, false, 3072),
            (Strategy::OneSweep, false, 5632),
            (Strategy::OneSweep, true, 5632),
        ] {
            let b = workgroup_bytes(strategy, pairs, Flavor::Subgroup).unwrap();
            assert!(
                b > 4 * (tile + 256) && b < 4 * (tile + 256) + 512,
                "{strategy}: {b}"
            );
        }
    }
}
