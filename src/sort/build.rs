//! Plan building for the two strategies. Buffers: the uploaded input (never written), two
//! scratch buffers the passes ping-pong between (poisoned, so a key no pass wrote shows), the
//! same for values, and each strategy's counters. Pass labels name the digit pass they belong
//! to ("histogram 0", "scan 0 ...", "scatter 0", "onesweep 0", ...) for the bench's per-pass table.

use std::sync::Arc;

use super::{SortKey, SortOptions, SortPlan, SortPolicy, Strategy};
use crate::device::Caps;
use crate::error::Result;
use crate::kernel::{self, Flavor, Kernel};
use crate::plan::{BufferId, BufferInit, Pass, Plan, Workgroups};

/// The ranking stage of a strategy, for keys alone or pairs: its `KPT` sets the tile.
/// OneSweep has one of each and one with smaller tiles for small sorts (`small`:
/// [`SortPolicy::onesweep_small`]).
fn tile_stage(strategy: Strategy, pairs: bool, small: bool) -> &'static str {
    match (strategy, pairs, small) {
        (Strategy::OneSweep, _, true) => "sort/onesweep_small",
        (Strategy::OneSweep, false, false) => "sort/onesweep",
        (Strategy::OneSweep, true, false) => "sort/onesweep_pairs",
        (Strategy::ReduceThenScan, _, _) => "sort/scatter",
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
fn stage_for(strategy: Strategy, pairs: bool, n: u64, policy: &SortPolicy) -> &'static str {
    let small = strategy == Strategy::OneSweep && policy.onesweep_small(n, pairs);
    tile_stage(strategy, pairs, small)
}

fn tile_of(stage: &str) -> Result<u64> {
    Ok(kernel::load(stage, Flavor::Subgroup)?.const_u32("TILE")? as u64)
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

fn stage_bytes(stage: &str, flavor: Flavor) -> Result<u64> {
    let k = kernel::load(stage, flavor)?;
    k.workgroup_bytes("main")
        .ok_or_else(|| crate::error::Error::Plan(format!("{} has no entry point main", k.name)))
}

/// The (shift, bits) of each digit pass, least significant first; one 0-bit pass (identity)
/// for an empty range.
fn digits(opts: &SortOptions) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    let mut s = opts.begin_bit;
    while s < opts.end_bit {
        let bits = (opts.end_bit - s).min(8);
        v.push((s, bits));
        s += bits;
    }
    if v.is_empty() {
        v.push((0, 0));
    }
    v
}

fn padded_bytes<T: bytemuck::Pod>(data: &[T]) -> Vec<u8> {
    let mut bytes = bytemuck::cast_slice::<T, u8>(data).to_vec();
    bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
    bytes
}

/// A workgroup grid for `tiles` tiles: 1-D up to `max`, else the fewest rows of equal width
/// (65536 tiles, 2^28 keys: 32768 × 2, where `grid_2d` would launch 65535 × 2 and let 65534
/// workgroups exit, each after taking a OneSweep ticket).
fn tile_grid(tiles: u64, max: u32) -> [u32; 3] {
    // (a hand-built `Caps` may say 0)
    let max = max.max(1);
    let rows = tiles.div_ceil(max as u64).max(1);
    let width = tiles.div_ceil(rows);
    if tiles == 0 {
        return [0, 1, 1];
    }
    [width as u32, rows as u32, 1]
}

/// The smallest subgroup the ranking runs at (override `SG_MIN` of `wgsl/sort/lib/tile.wgsl`,
/// which sets its phase count): the device's minimum (1 when it reports none: the most
/// phases, right at any size), or the emulated flavour's 32-lane virtual subgroups.
fn rank_subgroup_min(caps: &Caps) -> u32 {
    match caps.flavor() {
        Flavor::Emulated => 32,
        Flavor::Subgroup => caps.subgroup_min.max(1),
    }
}

/// What one digit pass binds: keys and values in and out.
#[derive(Clone, Copy)]
struct Io {
    keys_in: BufferId,
    keys_out: BufferId,
    vals_in: BufferId,
    vals_out: BufferId,
}

struct Builder<'a> {
    caps: &'a Caps,
    plan: Plan,
    flavor: Flavor,
    /// The key order's overrides (`wgsl/sort/lib/keys.wgsl`), for every stage.
    keys: Vec<(&'static str, f64)>,
    /// The ranking's (`wgsl/sort/lib/tile.wgsl`), for the ranking stages.
    tile: Vec<(&'static str, f64)>,
    /// Values follow the keys.
    pairs: bool,
    /// `SortPolicy::poison_between_passes`.
    poison_between_passes: bool,
}

impl Builder<'_> {
    /// The key order's overrides and `extra`.
    fn key_overrides(&self, extra: &[(&'static str, f64)]) -> Vec<(&'static str, f64)> {
        let mut o = self.keys.clone();
        o.extend_from_slice(extra);
        o
    }

    /// The key order's and the ranking's overrides, and `extra`.
    fn tile_overrides(&self, extra: &[(&'static str, f64)]) -> Vec<(&'static str, f64)> {
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
        overrides: &[(&'static str, f64)],
        params: BufferId,
        io: Io,
        own: &[(&str, BufferId)],
        workgroups: Workgroups,
    ) -> Result<&mut Pass> {
        let mut b = vec![
            ("params", params),
            ("keys_in", io.keys_in),
            ("keys_out", io.keys_out),
            ("vals_in", io.vals_in),
            ("vals_out", io.vals_out),
        ];
        b.extend_from_slice(own);
        self.plan.pass(label, k, "main", overrides, &b, workgroups)
    }

    /// With `SortPolicy::poison_between_passes`, invalidates what digit pass `p` writes (`io`'s
    /// outputs) before it, where an earlier pass wrote them (the ping-pong reaches a buffer the
    /// second time from p = 2 on): the GPU fills them with `POISON_WORD`, the simulator reports
    /// a word read or read back before the pass wrote it (`Plan::invalidate`).
    fn poison_outputs(&mut self, p: usize, io: Io) -> Result<()> {
        if !self.poison_between_passes || p < 2 {
            return Ok(());
        }
        let outs = if self.pairs {
            vec![io.keys_out, io.vals_out]
        } else {
            vec![io.keys_out]
        };
        for buf in outs {
            let label = format!("invalidate {}", self.plan.buffers[buf.0].label);
            self.plan.invalidate(label, buf)?;
        }
        Ok(())
    }

    /// One reduce-then-scan digit pass: histogram, scan of the histogram (the scan's own passes,
    /// [`crate::scan::append`]), scatter.
    #[allow(clippy::too_many_arguments)]
    fn rts_pass(
        &mut self,
        tag: &str,
        digit: (u32, u32),
        map_in: bool,
        map_out: bool,
        params: BufferId,
        tiles: u64,
        hist: BufferId,
        hist_scan: BufferId,
        io: Io,
    ) -> Result<()> {
        let k_hist = kernel::load("sort/histogram", self.flavor)?;
        let k_scatter = kernel::load("sort/scatter", self.flavor)?;
        let digit = [("SHIFT", digit.0 as f64), ("BITS", digit.1 as f64)];
        let max = self.caps.max_workgroups_per_dim;
        // the histogram counts HIST_GROUP tiles per workgroup
        let group = k_hist.const_u32("HIST_GROUP")? as u64;
        self.plan.pass(
            format!("histogram {tag}"),
            &k_hist,
            "main",
            &self.key_overrides(&[digit[0], digit[1], ("MAP_IN", map_in as u32 as f64)]),
            &[("params", params), ("keys_in", io.keys_in), ("hist", hist)],
            Workgroups::Direct(tile_grid(tiles.div_ceil(group), max)),
        )?;
        let radix = k_scatter.const_u32("RADIX")? as u64;
        crate::scan::append(&mut self.plan, self.caps, hist, hist_scan, radix * tiles, false, tag)?;
        // full tiles without per-item checks for keys alone; pairs keep the checks
        // (`FULL_TILES`, wgsl/sort/lib/tile.wgsl)
        let ov = self.tile_overrides(&[
            digit[0],
            digit[1],
            ("MAP_IN", map_in as u32 as f64),
            ("MAP_OUT", map_out as u32 as f64),
            ("FULL_TILES", (!self.pairs) as u32 as f64),
            ("RANK_MATCH", 0.0),
        ]);
        self.stage(
            format!("scatter {tag}"),
            &k_scatter,
            &ov,
            params,
            io,
            &[("offsets", hist_scan)],
            Workgroups::Direct(tile_grid(tiles, max)),
        )?;
        Ok(())
    }
}

pub(super) fn build<T: SortKey>(
    caps: &Caps,
    keys: &[T],
    values: Option<&[u32]>,
    key_type: u32,
    opts: &SortOptions,
    policy: &SortPolicy,
    strategy: Strategy,
) -> Result<SortPlan> {
    let n = keys.len() as u64;
    let pairs = values.is_some();
    let mut plan = Plan::new(format!(
        "sort {} {} {strategy}",
        if pairs { "pairs" } else { "keys" },
        T::DTYPE
    ));
    if n == 0 {
        return Ok(SortPlan {
            plan,
            strategy,
            keys_out: None,
            vals_out: None,
            n: 0,
        });
    }
    let digits = digits(opts);
    // buffers
    let key_bytes = padded_bytes(keys);
    let size = key_bytes.len() as u64;
    let keys_in = plan.buffer("keys", size, BufferInit::Bytes(key_bytes));
    // scratch holds exactly n words (the kernels access words, not vec4s), so a word no pass
    // wrote is a real defect to the simulator's unwritten-output check
    let scratch = n * 4;
    let ka = plan.buffer("keys a", scratch, BufferInit::Poison);
    let kb = plan.buffer("keys b", scratch, BufferInit::Poison);
    let (vals_in, va, vb) = match values {
        Some(v) => (
            plan.buffer("values", size, BufferInit::Bytes(padded_bytes(v))),
            plan.buffer("values a", scratch, BufferInit::Poison),
            plan.buffer("values b", scratch, BufferInit::Poison),
        ),
        // keys only: the value bindings still need (distinct) buffers
        None => (
            plan.buffer("no values in", 16, BufferInit::Zeroed),
            plan.buffer("no values a", 16, BufferInit::Zeroed),
            plan.buffer("no values b", 16, BufferInit::Zeroed),
        ),
    };
    let io = |src: usize, dst: usize| {
        let k = [keys_in, ka, kb];
        let v = [vals_in, va, vb];
        Io {
            keys_in: k[src],
            keys_out: k[dst],
            vals_in: v[src],
            vals_out: v[dst],
        }
    };
    // pass p reads buffer src(p) and writes 1 + p % 2: input -> a -> b -> a ...
    let src = |p: usize| if p == 0 { 0 } else { 1 + (p - 1) % 2 };
    let dst = |p: usize| 1 + p % 2;
    let mut b = Builder {
        caps,
        plan,
        flavor: caps.flavor(),
        keys: vec![
            ("KEY_TYPE", key_type as f64),
            ("DESCENDING", opts.descending as u32 as f64),
        ],
        tile: vec![
            ("SG_MIN", rank_subgroup_min(caps) as f64),
            ("PAIRS", pairs as u32 as f64),
        ],
        pairs,
        poison_between_passes: policy.poison_between_passes,
    };
    let passes = digits.len();
    // the ranking stage (OneSweep's small sorts take the small stage) and its tile
    let stage = stage_for(strategy, pairs, n, policy);
    let tiles = n.div_ceil(tile_of(stage)?);
    let params = b
        .plan
        .upload("sort params", &[n as u32, tiles as u32, tiles as u32, 0]);
    match strategy {
        Strategy::ReduceThenScan => {
            let radix = kernel::load("sort/scatter", b.flavor)?.const_u32("RADIX")? as u64;
            let hist_len = radix * tiles;
            let hist = b.plan.buffer(
                "histogram",
                crate::scan::padded_bytes(hist_len),
                BufferInit::Poison,
            );
            let hist_scan = b.plan.buffer(
                "offsets",
                crate::scan::padded_bytes(hist_len),
                BufferInit::Poison,
            );
            for (p, &d) in digits.iter().enumerate() {
                b.poison_outputs(p, io(src(p), dst(p)))?;
                b.rts_pass(
                    &p.to_string(),
                    d,
                    p == 0,
                    p + 1 == passes,
                    params,
                    tiles,
                    hist,
                    hist_scan,
                    io(src(p), dst(p)),
                )?;
            }
        }
        Strategy::OneSweep => {
            let k_sweep = kernel::load(stage, b.flavor)?;
            let radix = k_sweep.const_u32("RADIX")? as u64;
            let words = k_sweep.const_u32("STATE_STATUS")? as u64 + passes as u64 * tiles * radix;
            let state = b
                .plan
                .buffer("onesweep state", words * 4, BufferInit::Poison);
            // the whole state: 0.049 ms of a 6.5 ms sort of 2^28 keys on the H100 (2026-11-27);
            // clearing each pass's status words in the pass before cost more (40.8 against 41.5
            // Gkeys/s, 2026-11-25)
            b.plan.fill("clear", state, 0)?;
            let begin = digits[0].0;
            let end = begin + digits.iter().map(|d| d.1).sum::<u32>();
            let k_hist = kernel::load("sort/onesweep_histogram", b.flavor)?;
            let ov = b.key_overrides(&[
                ("PASSES", passes as f64),
                ("BEGIN_BIT", begin as f64),
                ("END_BIT", end as f64),
            ]);
            // (at least one workgroup: with none, every digit's global count would stay 0)
            let grid = tiles
                .min(policy.histogram_workgroups.max(1) as u64)
                .min(caps.max_workgroups_per_dim.max(1) as u64) as u32;
            // `keys_in4`: the keys again, read as vec4s in the histogram's full tiles (its own
            // tiles, not OneSweep's: with n between the two it has a full tile); where it has
            // none, a 16-byte stand-in (a vec4 array needs 16 bytes)
            let keys4 = if n < k_hist.const_u32("TILE")? as u64 {
                b.plan.buffer("no full tile", 16, BufferInit::Zeroed)
            } else {
                keys_in
            };
            b.plan.pass(
                "global histogram",
                &k_hist,
                "main",
                &ov,
                &[
                    ("params", params),
                    ("keys_in", keys_in),
                    ("state", state),
                    ("keys_in4", keys4),
                ],
                Workgroups::Direct([grid, 1, 1]),
            )?;
            // the match-mask ranking needs real subgroups (RANK_MATCH, wgsl/sort/lib/tile.wgsl)
            let match_ranking = caps.flavor() == Flavor::Subgroup;
            for (p, &d) in digits.iter().enumerate() {
                let ov = b.tile_overrides(&[
                    ("SHIFT", d.0 as f64),
                    ("BITS", d.1 as f64),
                    ("MAP_IN", (p == 0) as u32 as f64),
                    ("MAP_OUT", (p + 1 == passes) as u32 as f64),
                    ("PASS", p as f64),
                    ("SPIN", policy.spin as f64),
                    ("FULL_TILES", 1.0),
                    ("RANK_MATCH", match_ranking as u32 as f64),
                    ("TICKETS", policy.onesweep_tickets as u32 as f64),
                ]);
                b.poison_outputs(p, io(src(p), dst(p)))?;
                b.stage(
                    format!("onesweep {p}"),
                    &k_sweep,
                    &ov,
                    params,
                    io(src(p), dst(p)),
                    &[("state", state)],
                    Workgroups::Direct(tile_grid(tiles, caps.max_workgroups_per_dim)),
                )?;
            }
        }
    }
    let last = dst(passes - 1);
    let keys_out = [keys_in, ka, kb][last];
    let vals_out = [vals_in, va, vb][last];
    let mut plan = b.plan;
    plan.read_back(keys_out);
    if pairs {
        plan.read_back(vals_out);
    }
    Ok(SortPlan {
        plan,
        strategy,
        keys_out: Some(keys_out),
        vals_out: pairs.then_some(vals_out),
        n: n as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_grids_cover_tiles_with_few_spare_workgroups() {
        for (tiles, max) in [
            (1u64, 65535u32),
            (65535, 65535),
            (65536, 65535),
            (200_001, 65535),
            (10, 3),
        ] {
            let [x, y, z] = tile_grid(tiles, max);
            assert!(x <= max && z == 1);
            let n = x as u64 * y as u64;
            assert!(n >= tiles && n - tiles < y as u64, "{tiles} {max}: {x}x{y}");
        }
        assert_eq!(tile_grid(65536, 65535), [32768, 2, 1]);
    }

    /// The ranking stages carry the directive (their accesses are proven by the simulator
    /// tests); the histogram stages do not (faster with the checks on the H100).
    #[test]
    fn ranking_stages_are_built_without_runtime_checks() {
        for (name, unchecked) in [
            ("sort/scatter", true),
            ("sort/onesweep", true),
            ("sort/onesweep_pairs", true),
            ("sort/onesweep_small", true),
            ("sort/histogram", false),
            ("sort/onesweep_histogram", false),
        ] {
            let k = kernel::load(name, Flavor::Subgroup).unwrap();
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
            ("sort/scatter", rts),
            ("sort/histogram", rts),
            ("sort/onesweep", onesweep),
            ("sort/onesweep_pairs", onesweep_pairs),
            ("sort/onesweep_small", 4096),
            ("sort/onesweep_histogram", 5120),
        ] {
            for flavor in [Flavor::Subgroup, Flavor::Emulated] {
                let k = kernel::load(name, flavor).unwrap();
                assert_eq!(k.const_u32("TILE").unwrap(), tile, "{name}");
            }
        }
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
