//! Prefix sums of u32 (exclusive or inclusive, wrapping), the radix sort's building block.
//!
//! Rules:
//! - **Recorded once, run for any count.** A [`Scanner`] is made for a direction and a maximum
//!   count; [`Scanner::record`] scans the caller's input into the caller's output (both bound
//!   at offsets that are multiples of the binding alignment, each holding at least the count),
//!   the count given on the host or read from a GPU buffer ([`Count`]). Nothing past the count
//!   is written: the kernels move whole vec4s and the last one to three elements as words.
//! - Reduce-then-scan in three stages (`wgsl/scan/`): tile sums, one workgroup scanning the tile
//!   sums, then every tile scanned and offset. Nothing waits on another workgroup, so it is
//!   safe on GPUs without forward-progress guarantees. Tiles are `TILE` elements (reflected from
//!   the kernels); input longer than one storage binding is chunked at tile boundaries, and the
//!   tile sums of all chunks are scanned together.
//! - Other algorithms take the scan's passes into their own plans ([`append`]: the sort scans
//!   its histogram so), writing the count into the scan's control word themselves.

use crate::context::{BufferRef, Context, EncoderRef, Prepared};
use crate::count::{Count, CountInput};
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::gpu::Timestamps;
use crate::kernel;
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};

/// Bytes the scan's buffers need for `len` elements: whole 16-byte words (the kernels read and
/// write vec4s), at least one.
pub fn padded_bytes(len: u64) -> u64 {
    (len * 4).div_ceil(16).max(1) * 16
}

/// The control buffer of appended scan passes: its word 0 is the count, which whoever appends
/// the passes writes before them.
pub struct ScanControl {
    /// The buffer.
    pub control: BufferId,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Bytes of a scan's control buffer (count, dispatch arguments, params blocks), from the
/// layout `wgsl/scan/prepare.wgsl` declares.
fn control_bytes(prep: &kernel::Kernel) -> Result<(u64, [u64; 4])> {
    let c = |name: &str| prep.const_u32(name).map(|v| v as u64);
    let layout = [
        c("ARGS_AT")?,
        c("MAX_CHUNKS")?,
        c("PARAMS_AT")?,
        c("PARAMS_STRIDE")?,
    ];
    Ok((4 * (layout[2] + layout[3] * layout[1]), layout))
}

/// Appends to `plan` the passes that scan up to `max_len` u32 of `input` into `output` (both at
/// least [`padded_bytes`]`(max_len)` bytes), exclusive or `inclusive`, the count read from word
/// 0 of `control` when the passes run (`control` is declared by the caller with
/// [`control_size`] bytes, or made here when `None`); `tag` names the passes ("scan {tag} ...").
#[allow(clippy::too_many_arguments)]
pub fn append(
    plan: &mut Plan,
    caps: &Caps,
    control: Option<BufferId>,
    input: BufferId,
    output: BufferId,
    max_len: u64,
    inclusive: bool,
    tag: &str,
) -> Result<BufferId> {
    let flavor = caps.flavor();
    let k_prep = kernel::load("scan/prepare", flavor)?;
    let k_sums = kernel::load("scan/tile_sums", flavor)?;
    let k_scan_sums = kernel::load("scan/scan_tile_sums", flavor)?;
    let k_tiles = kernel::load("scan/scan_tiles", flavor)?;
    let tile = k_tiles.const_u32("TILE")? as u64;
    let (bytes, [args_at, max_chunks, params_at, params_stride]) = control_bytes(&k_prep)?;
    let chunks = caps.chunks(max_len.max(1), 4, tile);
    if chunks.len() as u64 > max_chunks {
        return Err(Error::TooLarge(format!(
            "{max_len} elements take {} bindings of this device; a scan handles at most \
             {max_chunks}",
            chunks.len()
        )));
    }
    let control = control.unwrap_or_else(|| {
        plan.slotted(format!("scan {tag} control"), bytes, crate::count::COPIES)
    });
    let max_tiles: u64 = chunks.iter().map(|&(_, c)| c.div_ceil(tile)).sum();
    let tile_sums = plan.buffer(
        format!("scan {tag} tile sums"),
        max_tiles.max(1) * 4,
        BufferInit::Poison,
    );
    plan.pass(
        format!("scan {tag} prepare"),
        &k_prep,
        "main",
        &[
            ("CHUNKS", chunks.len() as f64),
            ("CHUNK", chunks[0].1 as f64),
            ("MAX_COUNT", max_len.min(u32::MAX as u64) as f64),
            ("MAX_DIM", caps.max_workgroups_per_dim as f64),
        ],
        &[("control", control)],
        Workgroups::Direct([1, 1, 1]),
    )?;
    let padded = padded_bytes(max_len);
    let multi = chunks.len() > 1;
    let name = |stage: &str, i: usize| {
        if multi {
            format!("scan {tag} {stage} {i}")
        } else {
            format!("scan {tag} {stage}")
        }
    };
    let params_of = |i: usize| 4 * (params_at + params_stride * i as u64);
    let grid_of = |i: usize| Workgroups::Indirect {
        buffer: control,
        offset: 4 * (args_at + 3 * i as u64),
    };
    for (i, &(first, count)) in chunks.iter().enumerate() {
        let (o, s) = (first * 4, padded_bytes(count).min(padded - first * 4));
        plan.pass(
            name("sums", i),
            &k_sums,
            "main",
            &[],
            &[
                ("params", control),
                ("input", input),
                ("input_words", input),
                ("tile_sums", tile_sums),
            ],
            grid_of(i),
        )?
        .range("params", params_of(i), 16)?
        .range("input", o, s)?
        .range("input_words", o, s)?;
    }
    plan.pass(
        format!("scan {tag} carry"),
        &k_scan_sums,
        "main",
        &[],
        &[("tile_sums", tile_sums), ("params", control)],
        Workgroups::Direct([1, 1, 1]),
    )?
    .range("params", params_of(0), 16)?;
    let inc = [("INCLUSIVE", if inclusive { 1.0 } else { 0.0 })];
    for (i, &(first, count)) in chunks.iter().enumerate() {
        let (o, s) = (first * 4, padded_bytes(count).min(padded - first * 4));
        plan.pass(
            name("tiles", i),
            &k_tiles,
            "main",
            &inc,
            &[
                ("params", control),
                ("input", input),
                ("input_words", input),
                ("tile_prefix", tile_sums),
                ("output", output),
                ("output_words", output),
            ],
            grid_of(i),
        )?
        .range("params", params_of(i), 16)?
        .range("input", o, s)?
        .range("input_words", o, s)?
        .range("output", o, s)?
        .range("output_words", o, s)?;
    }
    Ok(control)
}

/// Bytes of the control buffer [`append`] needs.
pub fn control_size(caps: &Caps) -> Result<u64> {
    Ok(control_bytes(&*kernel::load("scan/prepare", caps.flavor())?)?.0)
}

/// A scan made for one direction and a maximum count (see the module docs).
///
/// Token lengths to offsets, buffer to buffer:
/// ```
/// use wgsimd::{scan::Scanner, Context, Count};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = Context::simulator(Default::default())?;
/// let s = Scanner::new(&ctx, false, 1 << 16)?;
/// let lengths = ctx.upload("lengths", &[3u32, 1, 4, 1, 5])?;
/// let offsets = ctx.uninit("offsets", 20)?;
/// let mut enc = ctx.encoder();
/// s.record(&mut enc, &lengths, &offsets, Count::Host(5))?;
/// ctx.submit(enc)?.clean("the scan")?;
/// assert_eq!(ctx.read::<u32>(&offsets)?, [0, 3, 4, 8, 9]);
/// # Ok(()) }
/// ```
pub struct Scanner {
    ctx: Context,
    max_count: u64,
    prepared: Prepared,
    count: CountInput,
    input: BufferId,
    output: BufferId,
}

impl Scanner {
    /// An exclusive (`inclusive = false`) or inclusive scan of up to `max_count` u32.
    pub fn new(ctx: &Context, inclusive: bool, max_count: u64) -> Result<Scanner> {
        let caps = ctx.caps();
        let max_count = max_count.max(1);
        if max_count > u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "{max_count} elements: a scan takes fewer than 2^32"
            )));
        }
        caps.check_buffer(padded_bytes(max_count), || {
            format!("a scan of {max_count} elements")
        })?;
        let mut plan = Plan::new(if inclusive {
            "scan inclusive u32"
        } else {
            "scan exclusive u32"
        });
        let count = CountInput::declare(&mut plan, control_size(caps)?);
        let input = plan.arg("input", padded_bytes(max_count));
        let output = plan.arg("output", padded_bytes(max_count));
        append(
            &mut plan,
            caps,
            Some(count.control),
            input,
            output,
            max_count,
            inclusive,
            "u32",
        )?;
        Ok(Scanner {
            ctx: ctx.clone(),
            max_count,
            prepared: ctx.prepare(plan)?,
            count,
            input,
            output,
        })
    }

    /// The plan it records (its passes, buffers and overrides, for inspection: the lab's
    /// driver statistics compile exactly these passes).
    pub fn plan(&self) -> &crate::plan::Plan {
        self.prepared.plan()
    }

    /// The passes one recording dispatches, by label.
    pub fn passes(&self) -> Vec<String> {
        self.prepared.plan().pass_labels()
    }

    /// Records the scan of `count` u32 of `input` into `output` (see the module docs).
    pub fn record<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        output: impl Into<BufferRef<'a>>,
        count: Count,
    ) -> Result<()> {
        self.record_timed(enc, input, output, count, None)
    }

    /// [`Scanner::record`], with timestamps around each pass (see [`Scanner::passes`]).
    pub fn record_timed<'a>(
        &self,
        enc: impl Into<EncoderRef<'a>>,
        input: impl Into<BufferRef<'a>>,
        output: impl Into<BufferRef<'a>>,
        count: Count,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        let mut enc = enc.into();
        let (input, output) = (input.into(), output.into());
        if let Count::Host(n) = count {
            let need = n as u64 * 4;
            if input.len() < need || output.len() < need {
                return Err(Error::InvalidInput(format!(
                    "a scan of {n} elements needs {need} bytes of input and of output; got {} \
                     and {}",
                    input.len(),
                    output.len()
                )));
            }
        }
        let counted =
            self.count
                .record(&self.ctx, &self.prepared, &mut enc, &count, self.max_count)?;
        self.prepared.record_with(
            enc,
            &[(self.input, input), (self.output, output)],
            stamps,
            &counted.run(),
        )
    }
}

/// Exclusive (`inclusive = false`) or inclusive prefix sum of `data` on `ctx`, wrapping on
/// overflow.
///
/// ```
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// assert_eq!(wgsimd::scan::scan(&ctx, &[1, 2, 3], true)?, [1, 3, 6]);
/// # Ok(()) }
/// ```
pub fn scan(ctx: &Context, data: &[u32], inclusive: bool) -> Result<Vec<u32>> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let n = data.len() as u64;
    let s = Scanner::new(ctx, inclusive, n)?;
    let input = ctx.upload("input", data)?;
    let output = ctx.uninit("output", n * 4)?;
    let mut enc = ctx.encoder();
    s.record(&mut enc, &input, &output, Count::Host(n as u32))?;
    ctx.submit(enc)?.clean("the scan")?;
    let mut out = ctx.read::<u32>(&output)?;
    out.truncate(data.len());
    Ok(out)
}
