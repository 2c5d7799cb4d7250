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
//! - **One pass on the scan's chain of tiles** (`single.rs`, [`crate::scan`]'s look-back):
//!   each tile marks its elements, counts them, looks back for the count before it and moves
//!   its selected elements to their places, so the elements and flags are read once and the
//!   selected ones written once; a partition moves its others after them in a second pass. No
//!   count runs a pass before them: every stage computes its count and grid from the head of
//!   the control block (`record.rs`).
//! - **Limits:** the elements (and flags) fit one storage binding.

mod single;

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::device::Caps;
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::fold::ChunkPolicy;
use crate::kernel::{self, Flavor, Kernel};
use crate::plan::Plan;
use crate::record::{Arg, Recorder, Timestamps};
use crate::scan::ScanPolicy;
use crate::stages::select::compact;

pub(crate) use single::{MarkBy, SinglePass, Then};

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

/// The compact stage composed with the caller's predicate `text`.
fn predicate_kernel(
    config: &SelectConfig,
    flavor: Flavor,
    text: &str,
) -> Result<std::sync::Arc<Kernel>> {
    let ty = match config.dtype {
        Dtype::I32 => "i32",
        Dtype::F32 => "f32",
        _ => "u32",
    };
    kernel::compose_replacing(
        compact::STAGE.name(),
        flavor,
        crate::stages::select::lib::keep::HELPER,
        &format!("alias Element = {ty};\n{text}\n"),
    )
}

/// Tuning of the selection. Figures: the lab's `prims_sweep` on the H200 (Vulkan through wgpu
/// 30, 2026-11-29, timestamps, every result checked), u32 elements, half selected, Gitems/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectPolicy {
    /// The chain of tiles the single pass runs on: the scan's spin and tile order
    /// ([`ScanPolicy::for_caps`]) with tiles of 16384 elements at every count
    /// ([`SELECT_TILE`]).
    pub tiles: ScanPolicy,
    /// The grid of a partition's tail pass, an elementwise copy of the others after the
    /// selected ones: 1024 workgroups of 8 elements an invocation (not swept on its own).
    pub tail: ChunkPolicy,
}

/// Elements per tile of the selection: 16384, the most the chain takes. By a predicate at 2^28
/// 350 Gitems/s against 321 for 12288 and 274 for 8192, at 2^24 268 against 258 and 234; by
/// byte flags at 2^22 235 against 186 (12288) and 201 (8192). (Writing each element straight
/// to its place rather than through workgroup memory: 285 at 2^28 by a predicate, best at
/// 8192.)
pub const SELECT_TILE: u32 = 16384;

impl SelectPolicy {
    /// The policy [`Select::new`] takes on a device with `caps`.
    pub fn for_caps(caps: &Caps) -> SelectPolicy {
        SelectPolicy {
            tiles: ScanPolicy {
                tile: SELECT_TILE,
                small_tile: SELECT_TILE,
                ..ScanPolicy::for_caps(caps)
            },
            tail: ChunkPolicy::flat(1024, 8),
        }
    }
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
    /// A selection for `config` on `ctx`, by the device's policy ([`SelectPolicy::for_caps`]).
    pub fn new(ctx: &Context, config: SelectConfig) -> Result<Select> {
        Self::with_policy(ctx, config, SelectPolicy::for_caps(ctx.caps()))
    }

    /// [`Select::new`] with a policy of the caller's.
    pub fn with_policy(
        ctx: &Context,
        config: SelectConfig,
        policy: SelectPolicy,
    ) -> Result<Select> {
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
            Selector::Predicate(text) => {
                MarkBy::Predicate(predicate_kernel(&config, ctx.caps().flavor(), text)?)
            }
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
        let then = if config.partition {
            Then::Others
        } else {
            Then::Nothing
        };
        let c = SinglePass::build(ctx, label, by, then, config.max_count, &policy)?;
        let mut decl = vec![Arg::counted(c.input, "elements", 4)];
        if let Some((f, bytes)) = c.flags {
            decl.push(Arg::counted(f, "flags", bytes));
        }
        decl.push(Arg::counted(c.output, "elements", 4));
        decl.push(Arg::fixed(c.selected));
        let counting = c.counting();
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

/// `max_count` at least 1, or the error for a selection or runs (`label`) of more elements than
/// a storage binding or a u32 count takes.
pub(crate) fn checked_max(caps: &Caps, label: &str, max_count: u64) -> Result<u64> {
    let max = max_count.max(1);
    if max > u32::MAX as u64 {
        return Err(Error::TooLarge(format!(
            "{max} elements: {label} takes fewer than 2^32"
        )));
    }
    let bytes = crate::scan::padded_bytes(max);
    caps.check_buffer(bytes, || format!("{label} of {max} elements"))?;
    caps.check_binding(bytes, || format!("{label} of {max} elements"))?;
    Ok(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's grids (the scan's and the selection's) are the prepare stages' at counts
    /// around every step.
    #[test]
    fn host_grids_are_the_prepare_stages() {
        let ctx = Context::simulator(Default::default()).unwrap();
        let policy = SelectPolicy {
            tail: ChunkPolicy::flat(5, 2),
            ..SelectPolicy::for_caps(ctx.caps())
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
