//! Select and partition (stream compaction) of u32, i32 and f32 elements, by a flags array or by
//! a predicate given as WGSL text; the selected count lands in a GPU word that a later recording
//! takes as its count ([`Count::Gpu`]).
//!
//! Rules:
//! - **Stable on both sides.** Select writes the selected elements, in input order, to the start
//!   of the output and leaves the rest of it alone; partition writes every element, the
//!   selected first and then the others, each side in input order.
//! - **Flags**: bytes (numpy's `bool` and `uint8`, four to a word) or u32; a nonzero flag
//!   selects. **Predicate**: `fn keep(x: T) -> bool` in WGSL for the element type `T` (`u32`,
//!   `i32` or `f32`), composed into the kernel that marks the elements; a text naga does not
//!   take is an [`Error::Shader`] when the object is made.
//! - **The selected count** goes to the caller's 4-byte `selected` range (any offset that is a
//!   multiple of 4; where it is not aligned for binding, or shares a buffer with the input, it
//!   is copied into place from a word of the object's, which needs `COPY_DST`). A recording of
//!   anything may take it as `Count::Gpu`.
//! - **Three steps on the scan** ([`crate::scan`]): the marks (1 selected, 0 not), their
//!   exclusive scan (each selected element's place; the scan's own passes and control block,
//!   with the selection's dispatch arguments after it), the scatter. No count runs a pass
//!   before them: every stage computes its count and grid from the head of the control block
//!   (`record.rs`). About 32 bytes move per element (a single-pass select moves about 10).
//! - **Limits:** the elements (and flags) fit one storage binding.

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::fold::{ChunkGrid, ChunkPolicy};
use crate::kernel::{self, Flavor, Kernel};
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};
use crate::record::{Arg, Counting, HostArgs, Recorder, Timestamps};
use crate::scan::{self, ScanArgs, ScanPolicy};
use crate::stages::select::{marks, scatter};
use crate::stages::Override;

/// What selects an element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// A flag per element: `Dtype::U8` (bytes, numpy's `bool`) or `Dtype::U32`; nonzero
    /// selects.
    Flags(Dtype),
    /// WGSL text defining `fn keep(x: T) -> bool` for the element type `T`.
    Predicate(String),
}

/// What a [`Select`] is made for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectConfig {
    /// The elements' type: u32, i32 or f32.
    pub dtype: Dtype,
    /// What selects an element.
    pub by: Selector,
    /// Write the elements not selected after the selected ones (a partition).
    pub partition: bool,
    /// The most elements one recording takes.
    pub max_count: u64,
}

impl SelectConfig {
    /// A selection of `dtype` elements by flags of `flags` (u8 or u32).
    pub fn flags(dtype: Dtype, flags: Dtype, max_count: u64) -> SelectConfig {
        SelectConfig {
            dtype,
            by: Selector::Flags(flags),
            partition: false,
            max_count,
        }
    }

    /// A selection of `dtype` elements by the WGSL predicate `keep`.
    pub fn predicate(dtype: Dtype, wgsl: impl Into<String>, max_count: u64) -> SelectConfig {
        SelectConfig {
            dtype,
            by: Selector::Predicate(wgsl.into()),
            partition: false,
            max_count,
        }
    }

    /// The same, as a partition.
    pub fn partition(mut self) -> SelectConfig {
        self.partition = true;
        self
    }
}

/// The host's grids for a count: the scan's, then the selection's (`ChunkGrid`).
#[derive(Clone, Copy, Debug)]
struct SelectArgs {
    grid: ChunkGrid,
    scan: ScanArgs,
}

impl SelectArgs {
    fn for_count(&self, word: u32) -> HostArgs {
        let mut args = self.scan.for_count(word);
        args.push(self.grid.args(word));
        args
    }
}

/// The marks stage: the shipped one, or composed with the caller's predicate.
fn marks_kernel(config: &SelectConfig) -> Result<std::sync::Arc<Kernel>> {
    let Selector::Predicate(text) = &config.by else {
        return marks::STAGE.load(Flavor::Emulated);
    };
    let ty = match config.dtype {
        Dtype::I32 => "i32",
        Dtype::F32 => "f32",
        _ => "u32",
    };
    kernel::compose_replacing(
        marks::STAGE.name(),
        Flavor::Emulated,
        "select/lib/keep",
        &format!("alias Element = {ty};\n{text}\n"),
    )
}

/// A selection or partition made for one configuration (see the module docs).
///
/// The nonzero-flagged elements to the front, their count in a word a later recording reads:
/// ```
/// use wgsimd::{dtype::Dtype, select::{Select, SelectConfig}, BufferRef, Context, Count};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let s = Select::new(&ctx, SelectConfig::flags(Dtype::U32, Dtype::U8, 1 << 16))?;
/// let particles = ctx.upload("particles", &[10u32, 11, 12, 13, 14])?;
/// let alive = ctx.upload("alive", &[1u8, 0, 1, 1, 0])?;
/// let (kept, stats) = (ctx.zeroed("kept", 20)?, ctx.zeroed("stats", 16)?);
/// let mut enc = ctx.encoder();
/// s.record(&mut enc, &particles, Some((&alive).into()), &kept, stats.slice(4, 4), Count::Host(5))?;
/// ctx.submit(enc)?.clean("the selection")?;
/// assert_eq!(ctx.read::<u32>(&kept)?[..3], [10, 12, 13]);
/// assert_eq!(ctx.read::<u32>(&stats)?[1], 3); // for Count::Gpu(stats.slice(4, 4))
/// # Ok(()) }
/// ```
pub struct Select {
    config: SelectConfig,
    rec: Recorder,
    /// The selected count where the caller's word cannot be bound, before its copy into place.
    spare: Buffer,
}

impl Select {
    /// A selection for `config` on `ctx`.
    pub fn new(ctx: &Context, config: SelectConfig) -> Result<Select> {
        Self::with_policy(ctx, config, ChunkPolicy::default())
    }

    /// [`Select::new`] with a policy of the caller's.
    pub fn with_policy(ctx: &Context, config: SelectConfig, policy: ChunkPolicy) -> Result<Select> {
        if !matches!(config.dtype, Dtype::U32 | Dtype::I32 | Dtype::F32) {
            return Err(Error::UnsupportedDtype {
                dtype: config.dtype.to_string(),
                op: "select",
                supported: "u32, i32, f32",
            });
        }
        let by = match &config.by {
            Selector::Flags(Dtype::U8) => MarkBy::FlagBytes,
            Selector::Flags(Dtype::U32) => MarkBy::FlagWords,
            Selector::Flags(other) => {
                return Err(Error::UnsupportedDtype {
                    dtype: other.to_string(),
                    op: "select flags",
                    supported: "u8 (bool), u32",
                })
            }
            Selector::Predicate(_) => MarkBy::Predicate(marks_kernel(&config)?),
        };
        let label = format!(
            "{} {} by {}",
            if config.partition {
                "partition"
            } else {
                "select"
            },
            config.dtype,
            match &config.by {
                Selector::Flags(d) => format!("{d} flags"),
                Selector::Predicate(_) => "a predicate".into(),
            }
        );
        let c = Compaction::build(
            ctx,
            label,
            "select",
            by,
            config.partition,
            config.max_count,
            &policy,
        )?;
        let mut decl = vec![Arg::counted(c.input, "elements", 4)];
        if let Some((f, bytes)) = c.flags {
            decl.push(Arg::counted(f, "flags", bytes));
        }
        decl.push(Arg::counted(c.output, "elements", 4));
        decl.push(Arg::fixed(c.selected));
        let counting = c.counting()?;
        Ok(Select {
            config,
            rec: Recorder::new(ctx, c.plan, decl, Some(counting))?,
            spare: ctx.zeroed("selected", 4)?,
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &SelectConfig {
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

    /// Records the selection of the first `count` elements of `input` by `flags` (given
    /// exactly when the configuration selects by flags) into `output`, the selected count into
    /// the 4 bytes of `selected` (see the module docs). `input`, `flags` and `output` are bound
    /// at multiples of the binding alignment and hold at least the count.
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        flags: Option<BufferRef<'a>>,
        output: impl Into<BufferRef<'a>>,
        selected: impl Into<BufferRef<'a>>,
        count: Count,
    ) -> Result<()> {
        self.record_timed(enc, input, flags, output, selected, count, None)
    }

    /// [`Select::record`], with timestamps around each pass (see [`Select::passes`]).
    #[allow(clippy::too_many_arguments)]
    pub fn record_timed<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        flags: Option<BufferRef<'a>>,
        output: impl Into<BufferRef<'a>>,
        selected: impl Into<BufferRef<'a>>,
        count: Count,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        let enc = enc.into();
        let (input, output, selected) = (input.into(), output.into(), selected.into());
        let by_flags = matches!(self.config.by, Selector::Flags(_));
        if by_flags != flags.is_some() {
            return Err(Error::InvalidInput(if by_flags {
                "this selection is by flags: give a flags buffer".into()
            } else {
                "this selection is by its predicate: give no flags buffer".into()
            }));
        }
        let mut bufs = vec![input];
        bufs.extend(flags);
        bufs.push(output);
        self.rec.record_result(
            &self.spare,
            enc,
            bufs,
            &[input].into_iter().chain(flags).collect::<Vec<_>>(),
            ("`selected`", selected, 4),
            count,
            stamps,
        )
    }
}

/// How the marks stage (`select/marks.wgsl`, its KIND) marks an element.
pub(crate) enum MarkBy {
    /// A nonzero byte flag (four to a word).
    FlagBytes,
    /// A nonzero u32 flag.
    FlagWords,
    /// The composed predicate (`marks_kernel`).
    Predicate(std::sync::Arc<Kernel>),
    /// The first element and each that differs from the one before it (as words): run heads.
    Heads,
}

/// A compaction's plan: marks, their exclusive scan (`places`) and the scatter of the marked
/// elements, with the selected count; the runs module appends its passes to it.
pub(crate) struct Compaction {
    pub plan: Plan,
    pub control: BufferId,
    pub input: BufferId,
    /// The flags buffer and its bytes per flag.
    pub flags: Option<(BufferId, u64)>,
    pub output: BufferId,
    pub selected: BufferId,
    pub marks: BufferId,
    pub places: BufferId,
    /// The params every selection stage takes (`shared/grid.wgsl`).
    pub params: Vec<(Override, f64)>,
    /// The marks and scatter stages' grid (from the control block).
    pub grid: Workgroups,
    /// Most workgroups of that grid.
    pub max_workgroups: u32,
    args: SelectArgs,
    max: u64,
    scan_marks: Vec<(u64, u32)>,
}

impl Compaction {
    pub fn build(
        ctx: &Context,
        label: String,
        tag: &str,
        by: MarkBy,
        partition: bool,
        max_count: u64,
        policy: &ChunkPolicy,
    ) -> Result<Compaction> {
        let caps = ctx.caps();
        let flag_bytes = match by {
            MarkBy::FlagBytes => 1,
            MarkBy::FlagWords => 4,
            _ => 0,
        };
        let max = max_count.max(1);
        if max > u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "{max} elements: {label} takes fewer than 2^32"
            )));
        }
        let bytes = scan::padded_bytes(max);
        caps.check_buffer(bytes, || format!("{label} of {max} elements"))?;
        if bytes > caps.max_storage_binding {
            return Err(Error::Limit {
                limit: "max_storage_buffer_binding_size",
                needed: bytes,
                available: caps.max_storage_binding,
                needed_for: format!("{label} of {max} elements"),
            });
        }
        let (marks_k, kind) = match by {
            MarkBy::FlagBytes => (marks::STAGE.load(Flavor::Emulated)?, 0.0),
            MarkBy::FlagWords => (marks::STAGE.load(Flavor::Emulated)?, 1.0),
            MarkBy::Predicate(k) => (k, 2.0),
            MarkBy::Heads => (marks::STAGE.load(Flavor::Emulated)?, 3.0),
        };
        let scatter_k = scatter::STAGE.load(Flavor::Emulated)?;
        let mut plan = Plan::new(label.clone());
        let scan_bytes = scan::control_size(caps)?;
        let control = crate::record::control(&mut plan, scan_bytes + 16);
        let input = plan.arg("input", 4 * max);
        let flags = match flag_bytes {
            0 => None,
            b => Some((plan.arg("flags", (b * max).div_ceil(4) * 4), b)),
        };
        let output = plan.arg("output", 4 * max);
        let selected = plan.arg("selected", 4);
        let marks_buf = plan.buffer("marks", bytes, BufferInit::Poison);
        let places = plan.buffer("places", bytes, BufferInit::Poison);
        let max_wg = policy.max_workgroups.clamp(1, caps.max_workgroups_per_dim);
        let select_args = scan_bytes / 4;
        // the selection's dispatch arguments past the scan's control layout
        let chunk_grid = ChunkGrid {
            control,
            args_at: 4 * select_args,
            max_count: max,
            items: policy.items.max(1) as u64,
            max_workgroups: max_wg as u64,
        };
        let params = chunk_grid.params();
        let grid = chunk_grid.workgroups();
        chunk_grid.append_prepare(&mut plan, format!("{tag} prepare"))?;
        let mut marks_ov = params.clone();
        marks_ov.push((marks::KIND, kind));
        plan.pass(
            format!("{tag} marks"),
            &marks_k,
            marks::entry::main,
            &marks_ov,
            &[
                (marks::bind::count_word, control),
                (marks::bind::flags, flags.map_or(input, |f| f.0)),
                (marks::bind::marks, marks_buf),
            ],
            grid,
        )?
        .range(marks::bind::count_word, 0, 16)?;
        let scan_policy = ScanPolicy::for_caps(caps);
        scan::append(
            &mut plan,
            caps,
            Some(control),
            marks_buf,
            places,
            max,
            false,
            &scan_policy,
            tag,
        )?;
        let mut scatter_ov = params.clone();
        scatter_ov.push((scatter::PARTITION, partition as u32 as f64));
        plan.pass(
            format!("{tag} scatter"),
            &scatter_k,
            scatter::entry::main,
            &scatter_ov,
            &[
                (scatter::bind::count_word, control),
                (scatter::bind::input, input),
                (scatter::bind::marks, marks_buf),
                (scatter::bind::places, places),
                (scatter::bind::output, output),
                (scatter::bind::selected, selected),
            ],
            grid,
        )?
        .range(scatter::bind::count_word, 0, 16)?;
        let args = SelectArgs {
            grid: chunk_grid,
            scan: ScanArgs::new(caps, max, &scan_policy, control)?,
        };
        Ok(Compaction {
            plan,
            control,
            input,
            flags,
            output,
            selected,
            marks: marks_buf,
            places,
            params,
            grid,
            max_workgroups: max_wg,
            args,
            max,
            scan_marks: scan::derive_marks(caps)?,
        })
    }

    /// The most elements it takes.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The plan's counting: the scan's marks, the host's grids.
    pub fn counting(&self) -> Result<Counting> {
        let args = self.args;
        Ok(Counting {
            control: self.control,
            max: self.max,
            derived: true,
            marks: self.scan_marks.clone(),
            args: Some(Box::new(move |n| args.for_count(n))),
            blocks: None,
        })
    }
}

/// A flag type the host-slice functions take: u8 (numpy's bool) or u32.
pub trait Flag: bytemuck::Pod + Copy + Send + Sync + 'static {
    /// Its dtype.
    const DTYPE: Dtype;
}

impl Flag for u8 {
    const DTYPE: Dtype = Dtype::U8;
}
impl Flag for u32 {
    const DTYPE: Dtype = Dtype::U32;
}

/// Runs `config` on `data` (and `flags`) on `ctx`: the output's words and the selected count.
fn run<T: Element, F: Flag>(
    ctx: &Context,
    config: SelectConfig,
    data: &[T],
    flags: Option<&[F]>,
) -> Result<(Vec<T>, usize)> {
    let n = data.len();
    if let Some(f) = flags {
        if f.len() != n {
            return Err(Error::InvalidInput(format!(
                "{} flags for {n} elements: one flag per element",
                f.len()
            )));
        }
    }
    let s = Select::new(ctx, config)?;
    if n == 0 {
        return Ok((Vec::new(), 0));
    }
    let input = ctx.upload("input", data)?;
    let flag_buf = flags.map(|f| ctx.upload("flags", f)).transpose()?;
    let output = ctx.zeroed("output", 4 * n as u64)?;
    let selected = ctx.zeroed("selected", 4)?;
    let mut enc = ctx.encoder();
    s.record(
        &mut enc,
        &input,
        flag_buf.as_ref().map(BufferRef::from),
        &output,
        &selected,
        Count::Host(n as u32),
    )?;
    ctx.submit(enc)?.clean("the selection")?;
    let k = ctx.read::<u32>(&selected)?[0] as usize;
    let mut out: Vec<T> = ctx.read(&output)?;
    out.truncate(n);
    Ok((out, k))
}

/// The elements of `data` whose flag is nonzero, in order.
///
/// ```
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let kept = wgsimd::select::select(&ctx, &[1.5f32, -2.0, 3.0], &[1u8, 0, 1])?;
/// assert_eq!(kept, [1.5, 3.0]);
/// # Ok(()) }
/// ```
pub fn select<T: Element, F: Flag>(ctx: &Context, data: &[T], flags: &[F]) -> Result<Vec<T>> {
    let config = SelectConfig::flags(T::DTYPE, F::DTYPE, data.len() as u64);
    let (mut out, k) = run(ctx, config, data, Some(flags))?;
    out.truncate(k);
    Ok(out)
}

/// Every element of `data`, those whose flag is nonzero first, each side in order, and how many
/// those are.
pub fn partition<T: Element, F: Flag>(
    ctx: &Context,
    data: &[T],
    flags: &[F],
) -> Result<(Vec<T>, usize)> {
    let config = SelectConfig::flags(T::DTYPE, F::DTYPE, data.len() as u64).partition();
    run(ctx, config, data, Some(flags))
}

/// The elements of `data` for which the WGSL predicate `fn keep(x: T) -> bool` holds, in order.
///
/// ```
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let even = "fn keep(x: i32) -> bool { return x % 2 == 0; }";
/// assert_eq!(wgsimd::select::select_if(&ctx, &[3i32, -4, 6, 7], even)?, [-4, 6]);
/// # Ok(()) }
/// ```
pub fn select_if<T: Element>(ctx: &Context, data: &[T], predicate: &str) -> Result<Vec<T>> {
    let config = SelectConfig::predicate(T::DTYPE, predicate, data.len() as u64);
    let (mut out, k) = run::<T, u32>(ctx, config, data, None)?;
    out.truncate(k);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's grids (the scan's and the selection's) are the prepare stages' at counts
    /// around every step.
    #[test]
    fn host_grids_are_the_prepare_stages() {
        let ctx = Context::simulator(Default::default()).unwrap();
        let policy = ChunkPolicy {
            max_workgroups: 5,
            items: 2,
        };
        let c = SelectConfig::flags(Dtype::U32, Dtype::U8, 100_000).partition();
        let s = Select::with_policy(&ctx, c, policy).unwrap();
        let mut counts = vec![0, 1, 511, 512, 513, 100_000];
        for k in 1..7 {
            counts.extend([k * 512 - 1, k * 512 + 1, k * 8192 + 1]);
        }
        crate::record::assert_host_grids(&s.rec, &counts);
    }
}
