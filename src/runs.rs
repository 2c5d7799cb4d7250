//! Runs of equal keys: unique (each run's key), run-length encoding (each run's key and length)
//! and reduction by key (each run's key and the sum, minimum or maximum of its values), of u32,
//! i32 and f32 keys and values; the run count lands in a GPU word that a later recording takes
//! as its count ([`Count::Gpu`]).
//!
//! Rules:
//! - **A run** is a maximal stretch of consecutive keys equal as words: −0 and +0 are different
//!   keys, and a NaN equals a NaN of the same bits, as in the sort's total order (so sorting and
//!   then taking runs groups every key). CUB compares floats with `==` instead.
//! - **Outputs**: the runs' keys to the start of `keys_out`, in order; their aggregates (lengths
//!   as u32, or the values' reduction in the values' type) to the start of `aggregates`; the
//!   run count to the 4-byte `runs` range (as a selection's count, [`crate::select`]). Nothing
//!   past the run count is written.
//! - **Operators**: integer sums wrap (as CUB's); f32 sums are f32 additions in input order,
//!   grouped in a tree where a run crosses invocations; f32 minimum and maximum are the
//!   reduction's (a NaN wins, the first of a run; −0 below +0, `docs/reduce.md`).
//! - **Stages**: unique is the selection's single pass ([`crate::select`]) selecting the heads
//!   (where a run begins), run-length encoding the same with each head's position and a pass
//!   over the runs for their lengths. A reduction by key takes three passes over the same
//!   chunks (`wgsl/select/runs.wgsl`): each chunk's head count; each chunk reduced in order
//!   (its first run's index from the counts before it), the heads' keys and the runs inside it
//!   written there; one workgroup combining what crosses the chunks' edges. No count runs a
//!   pass before them.
//! - **Limits:** the keys (and values) fit one storage binding.

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::fold::{ChunkGrid, ChunkPolicy, Operator};
use crate::plan::{BufferInit, Plan, Workgroups};
use crate::record::{Arg, Recorder, Timestamps};
use crate::reduce::ReduceOp;
use crate::select::{MarkBy, SelectPolicy, SinglePass, Then};
use crate::stages::select::runs;

/// Reduce-by-key's grid (`wgsl/select/runs.wgsl`; [`Runs::new`] takes it for an aggregate of
/// values). Figures: the lab's `prims_sweep --only runs` on the H200 (2026-11-30, timestamps,
/// every result checked), u32 keys in runs of 8 with u32 values summed, Gkeys/s.
pub const RUNS_POLICY: ChunkPolicy = ChunkPolicy {
    // most workgroups: 528. At 2^22 145 against 115–131 at 1024 and 2112 (items 16); at 2^24
    // 192 against 184 and 178; at 2^28 283 against 277 and 279.
    max_workgroups: 528,
    // keys and values an invocation holds a tile (in registers, read as vec4s): 16, the most
    // the stage takes. At 528 workgroups, 2^28: 283 against 242 (8) and 171 (4); 2^24 192
    // against 178 and 137; 2^22 145 against 144 and 116.
    items: 16,
    // one bound at every count (1024 and 2112 workgroups were no faster at 2^28, above), as
    // ChunkPolicy::flat
    large_count: u32::MAX,
    large_workgroups: 528,
};

/// What each run gives besides its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// Nothing: the keys alone (unique).
    None,
    /// Its length, as u32 (run-length encoding).
    Lengths,
    /// The reduction of its values, of the given type (u32, i32, f32), by the operator.
    Reduce(ReduceOp, Dtype),
}

/// What a [`Runs`] is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunsConfig {
    /// The keys' type: u32, i32 or f32.
    pub keys: Dtype,
    /// What each run gives besides its key.
    pub aggregate: Aggregate,
    /// The most keys one recording takes.
    pub max_count: u64,
}

impl RunsConfig {
    /// The runs' keys (unique).
    pub fn unique(keys: Dtype, max_count: u64) -> RunsConfig {
        RunsConfig {
            keys,
            aggregate: Aggregate::None,
            max_count,
        }
    }

    /// The runs' keys and lengths (run-length encoding).
    pub fn lengths(keys: Dtype, max_count: u64) -> RunsConfig {
        RunsConfig {
            keys,
            aggregate: Aggregate::Lengths,
            max_count,
        }
    }

    /// The runs' keys and the reduction of their `values` by `op` (reduce by key).
    pub fn reduce(keys: Dtype, op: ReduceOp, values: Dtype, max_count: u64) -> RunsConfig {
        RunsConfig {
            keys,
            aggregate: Aggregate::Reduce(op, values),
            max_count,
        }
    }
}

fn check_dtype(dtype: Dtype, what: &'static str) -> Result<()> {
    match dtype {
        Dtype::U32 | Dtype::I32 | Dtype::F32 => Ok(()),
        _ => Err(Error::UnsupportedDtype {
            dtype: dtype.to_string(),
            op: what,
            supported: "u32, i32, f32",
        }),
    }
}

/// Unique, run-length encoding or reduction by key, made for one configuration (see the
/// module docs).
///
/// Each run's key and length, the run count in a word a later recording reads:
/// ```
/// use wgsimd::{dtype::Dtype, runs::{Runs, RunsConfig}, Context, Count};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let rle = Runs::new(&ctx, RunsConfig::lengths(Dtype::U32, 1 << 16))?;
/// let tiles = ctx.upload("tiles", &[7u32, 7, 7, 2, 2, 9])?;
/// let (keys, lengths, runs) = (ctx.zeroed("keys", 24)?, ctx.zeroed("lengths", 24)?, ctx.zeroed("runs", 4)?);
/// let mut enc = ctx.encoder();
/// rle.record(&mut enc, &tiles, None, &keys, Some((&lengths).into()), &runs, Count::Host(6))?;
/// ctx.submit(enc)?.clean("the encoding")?;
/// assert_eq!(ctx.read::<u32>(&runs)?, [3]);
/// assert_eq!(ctx.read::<u32>(&keys)?[..3], [7, 2, 9]);
/// assert_eq!(ctx.read::<u32>(&lengths)?[..3], [3, 2, 1]);
/// # Ok(()) }
/// ```
pub struct Runs {
    config: RunsConfig,
    rec: Recorder,
    /// The run count where the caller's word cannot be bound, before its copy into place.
    spare: Buffer,
}

impl Runs {
    /// Runs for `config` on `ctx`.
    pub fn new(ctx: &Context, config: RunsConfig) -> Result<Runs> {
        Self::with_policy(ctx, config, RUNS_POLICY)
    }

    /// [`Runs::new`] with a policy of the caller's: the grid of a reduction by key's chunked
    /// stages (items up to 16; unique and run-length encoding take the selection's single pass
    /// by its device's policy).
    pub fn with_policy(ctx: &Context, config: RunsConfig, policy: ChunkPolicy) -> Result<Runs> {
        check_dtype(config.keys, "runs of keys")?;
        let label = match config.aggregate {
            Aggregate::None => format!("unique {}", config.keys),
            Aggregate::Lengths => format!("run-length encode {}", config.keys),
            Aggregate::Reduce(op, values) => {
                check_dtype(values, "reduce by key")?;
                format!("reduce {values} by {} key ({op:?})", config.keys).to_lowercase()
            }
        };
        let (plan, decl, counting) = match config.aggregate {
            Aggregate::Reduce(op, value_dtype) => {
                let (plan, decl, grid) =
                    reduce_plan(ctx, label, op, value_dtype, config.max_count, &policy)?;
                (plan, decl, grid.counting())
            }
            Aggregate::None | Aggregate::Lengths => {
                // the heads' keys (and their lengths): the selection's single pass, marking
                // heads
                let then = if config.aggregate == Aggregate::Lengths {
                    Then::Lengths
                } else {
                    Then::Nothing
                };
                let policy = SelectPolicy::for_caps(ctx.caps());
                let c =
                    SinglePass::build(ctx, label, MarkBy::Heads, then, config.max_count, &policy)?;
                let mut decl = vec![
                    Arg::counted(c.input, "keys", 4),
                    Arg::counted(c.output, "keys_out", 4),
                ];
                decl.extend(c.aggregates.map(|a| Arg::counted(a, "aggregates", 4)));
                decl.push(Arg::fixed(c.selected));
                let counting = c.counting();
                (c.plan, decl, counting)
            }
        };
        Ok(Runs {
            config,
            rec: Recorder::new(ctx, plan, decl, Some(counting))?,
            spare: ctx.zeroed("runs", 4)?,
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &RunsConfig {
        &self.config
    }

    /// The plan it records (its passes, buffers and overrides, for inspection).
    pub fn plan(&self) -> &Plan {
        self.rec.plan()
    }

    /// The passes one recording dispatches, by label.
    pub fn passes(&self) -> Vec<String> {
        self.rec.plan().pass_labels()
    }

    /// Records the runs of the first `count` keys of `keys`: their keys to `keys_out`, their
    /// aggregates (with `values` for a reduction by key) to `aggregates`, their count to the 4
    /// bytes of `runs` (see the module docs). `values` exactly for a reduction by key,
    /// `aggregates` exactly when the configuration has an aggregate. `keys`, `values`,
    /// `keys_out` and `aggregates` are bound at multiples of the binding alignment and hold at
    /// least the count.
    #[allow(clippy::too_many_arguments)]
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        keys: impl Into<BufferRef<'a>>,
        values: Option<BufferRef<'a>>,
        keys_out: impl Into<BufferRef<'a>>,
        aggregates: Option<BufferRef<'a>>,
        runs: impl Into<BufferRef<'a>>,
        count: Count,
    ) -> Result<()> {
        self.record_timed(enc, keys, values, keys_out, aggregates, runs, count, None)
    }

    /// [`Runs::record`], with timestamps around each pass (see [`Runs::passes`]).
    #[allow(clippy::too_many_arguments)]
    pub fn record_timed<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        keys: impl Into<BufferRef<'a>>,
        values: Option<BufferRef<'a>>,
        keys_out: impl Into<BufferRef<'a>>,
        aggregates: Option<BufferRef<'a>>,
        runs: impl Into<BufferRef<'a>>,
        count: Count,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        let keys = keys.into();
        let by_values = matches!(self.config.aggregate, Aggregate::Reduce(..));
        if by_values != values.is_some() {
            return Err(Error::InvalidInput(if by_values {
                "a reduction by key takes a values buffer".into()
            } else {
                "only a reduction by key takes a values buffer".into()
            }));
        }
        let aggregated = self.config.aggregate != Aggregate::None;
        if aggregated != aggregates.is_some() {
            return Err(Error::InvalidInput(if aggregated {
                "these runs give an aggregate each: give an `aggregates` buffer".into()
            } else {
                "unique gives the runs' keys alone: give no `aggregates` buffer".into()
            }));
        }
        let mut bufs = vec![keys];
        bufs.extend(values);
        bufs.push(keys_out.into());
        bufs.extend(aggregates);
        let reads: Vec<BufferRef> = [keys].into_iter().chain(values).collect();
        self.rec.record_result(
            &self.spare,
            enc.into(),
            bufs,
            &reads,
            ("`runs`", runs.into(), 4),
            count,
            stamps,
        )
    }
}

/// The reduction by key's plan (`wgsl/select/runs.wgsl`): the grid's prepare stage, then the
/// chunks' head counts, the chunks, the fixup; its arguments and grid.
fn reduce_plan(
    ctx: &Context,
    label: String,
    op: ReduceOp,
    value_dtype: Dtype,
    max_count: u64,
    policy: &ChunkPolicy,
) -> Result<(Plan, Vec<Arg>, ChunkGrid)> {
    let caps = ctx.caps();
    let max = crate::select::checked_max(caps, &label, max_count)?;
    let op = match op {
        ReduceOp::Sum => Operator::sum(value_dtype)?,
        ReduceOp::Min => Operator::min(value_dtype)?,
        ReduceOp::Max => Operator::max(value_dtype)?,
    };
    let k = op.kernel_in(runs::STAGE, caps.flavor())?;
    // an invocation holds at most MAX_ITEMS keys and values in registers
    let max_items = k.constant(runs::MAX_ITEMS)?;
    let mut plan = Plan::new(label);
    let control = crate::record::control(&mut plan, 32);
    let grid = ChunkGrid::new((control, 16), max, policy, max_items, caps);
    let keys = plan.arg("keys", 4 * max);
    let values = plan.arg("values", 4 * max);
    let keys_out = plan.arg("keys_out", 4 * max);
    let out = plan.arg("aggregates", 4 * max);
    let selected = plan.arg("selected", 4);
    let state = plan.buffer(
        "chunk states",
        16 * grid.most_workgroups(),
        BufferInit::Poison,
    );
    grid.append_prepare(&mut plan, "runs prepare".into())?;
    let binds = [
        (runs::bind::count_word, control),
        (runs::bind::keys, keys),
        (runs::bind::values, values),
        (runs::bind::keys4, keys),
        (runs::bind::values4, values),
        (runs::bind::keys_out, keys_out),
        (runs::bind::out, out),
        (runs::bind::selected, selected),
        (runs::bind::chunk_state, state),
    ];
    let ov = grid.params();
    let stages = [
        ("runs heads", runs::entry::heads, grid.workgroups()),
        ("runs chunks", runs::entry::chunks, grid.workgroups()),
        (
            "runs fixup",
            runs::entry::fixup,
            Workgroups::Direct([1, 1, 1]),
        ),
    ];
    for (label, entry, workgroups) in stages {
        plan.pass(label, &k, entry, &ov, &binds, workgroups)?
            .range(runs::bind::count_word, 0, 16)?;
    }
    let decl = vec![
        Arg::counted(keys, "keys", 4),
        Arg::counted(values, "values", 4),
        Arg::counted(keys_out, "keys_out", 4),
        Arg::counted(out, "aggregates", 4),
        Arg::fixed(selected),
    ];
    Ok((plan, decl, grid))
}

/// Runs `config` over `keys` (and `values`) on `ctx`: the keys' and aggregates' words, the run
/// count.
fn run<K: Element, V: Element>(
    ctx: &Context,
    config: RunsConfig,
    keys: &[K],
    values: Option<&[V]>,
) -> Result<(Vec<K>, Vec<V>)> {
    let n = keys.len();
    if let Some(v) = values {
        if v.len() != n {
            return Err(Error::InvalidInput(format!(
                "{} values for {n} keys: one value per key",
                v.len()
            )));
        }
    }
    let r = Runs::new(ctx, config)?;
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let key_buf = ctx.upload("keys", keys)?;
    let value_buf = values.map(|v| ctx.upload("values", v)).transpose()?;
    let keys_out = ctx.zeroed("keys_out", 4 * n as u64)?;
    let aggregates = ctx.zeroed("aggregates", 4 * n as u64)?;
    let runs = ctx.zeroed("runs", 4)?;
    let aggregated = config.aggregate != Aggregate::None;
    let mut enc = ctx.encoder();
    r.record(
        &mut enc,
        &key_buf,
        value_buf.as_ref().map(BufferRef::from),
        &keys_out,
        aggregated.then(|| BufferRef::from(&aggregates)),
        &runs,
        Count::Host(n as u32),
    )?;
    ctx.submit(enc)?.clean("the runs")?;
    let k = ctx.read::<u32>(&runs)?[0] as usize;
    let mut out_keys: Vec<K> = ctx.read(&keys_out)?;
    out_keys.truncate(k);
    let mut out: Vec<V> = if aggregated {
        ctx.read(&aggregates)?
    } else {
        Vec::new()
    };
    out.truncate(k);
    Ok((out_keys, out))
}

/// The first key of each run of equal keys, in order.
///
/// ```
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// assert_eq!(wgsimd::runs::unique(&ctx, &[3u32, 3, 1, 1, 1, 3])?, [3, 1, 3]);
/// # Ok(()) }
/// ```
pub fn unique<K: Element>(ctx: &Context, keys: &[K]) -> Result<Vec<K>> {
    let config = RunsConfig::unique(K::DTYPE, keys.len() as u64);
    Ok(run::<K, u32>(ctx, config, keys, None)?.0)
}

/// Each run of equal keys' key and length, in order.
pub fn run_length_encode<K: Element>(ctx: &Context, keys: &[K]) -> Result<(Vec<K>, Vec<u32>)> {
    let config = RunsConfig::lengths(K::DTYPE, keys.len() as u64);
    run(ctx, config, keys, None::<&[u32]>)
}

/// Each run of equal keys' key and the reduction of its values by `op`, in order.
///
/// ```
/// use wgsimd::reduce::ReduceOp;
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let (keys, sums) = wgsimd::runs::reduce_by_key(&ctx, &[4u32, 4, 8], &[1.5f32, 2.0, -1.0], ReduceOp::Sum)?;
/// assert_eq!((keys, sums), (vec![4, 8], vec![3.5, -1.0]));
/// # Ok(()) }
/// ```
pub fn reduce_by_key<K: Element, V: Element>(
    ctx: &Context,
    keys: &[K],
    values: &[V],
    op: ReduceOp,
) -> Result<(Vec<K>, Vec<V>)> {
    let config = RunsConfig::reduce(K::DTYPE, op, V::DTYPE, keys.len() as u64);
    run(ctx, config, keys, Some(values))
}
