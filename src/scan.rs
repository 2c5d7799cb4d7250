//! Prefix sums of u32 (exclusive or inclusive, wrapping), the radix sort's building block.
//!
//! Rules:
//! - **Recorded once, run for any count.** A [`Scanner`] is made for a direction and a maximum
//!   count; [`Scanner::record`] scans the caller's input into the caller's output (both bound
//!   at offsets that are multiples of the binding alignment, each holding at least the count),
//!   the count given on the host or read from a GPU buffer ([`Count`]). Nothing past the count
//!   is written: the kernels move whole vec4s and the last one to three elements as words.
//! - **One pass over the data** (`wgsl/scan/chained.wgsl`): a chained scan with decoupled
//!   look-back (Merrill & Garland), reading the input once, so 8 bytes move per element. Its
//!   params come from the control block the host writes, or, on a GPU count, from the count
//!   word itself; a [`Scanner`]'s one-invocation prepare pass runs only on the simulator, for
//!   the host (a plan that [`append`]s the scan runs it on the device for a GPU count). Each tile publishes its sum and then its inclusive prefix as two
//!   atomic words of 16 bits and a flag each; its successors add those up.
//! - **No tile waits on another workgroup being scheduled.** A predecessor that stays silent
//!   is not waited for: the looking tile reduces that tile's input itself (decoupled
//!   fallback), so the scan is safe on GPUs without forward-progress guarantees, whatever order
//!   they start workgroups in ([`ScanPolicy::tickets`]).
//! - **No clearing pass.** The status words come in two halves that alternate between runs:
//!   a run publishes into the half the run before cleared and clears the other (the run's
//!   last tile to arrive turns the books over, `wgsl/shared/chain_params.wgsl`), so a scanner
//!   records any number of runs.
//! - Tiles are [`ScanPolicy`] values; input longer than one storage binding is chunked at tile
//!   boundaries, one dispatch per chunk, the look-back running on across chunks.
//! - Other algorithms take the scan's passes into their own plans ([`append`]: the sort scans
//!   its histogram so), writing the count into the scan's control word themselves.
//! - **By an operator** ([`Scanner::with_operator`], [`crate::fold`]): the same chained stage
//!   composed with the operator's text where the device has subgroups
//!   ([`OperatorPolicy::Chained`]), its combinations in input order; elsewhere two passes
//!   ([`OperatorPolicy::TwoPass`]).

use std::sync::Mutex;

use crate::context::{Buffer, BufferRef, Context, EncoderRef};
use crate::count::Count;
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::kernel::{self, Flavor};
use crate::plan::{BufferId, BufferInit, Plan, Workgroups};
use crate::record::{Arg, Counting, Recorder, Timestamps};
use crate::stages::scan::{chained, prepare};
use crate::stages::shared::chain;
use crate::stages::Override;

/// Bytes the scan's buffers need for `len` elements: whole 16-byte words (the kernels read and
/// write vec4s), at least one.
pub fn padded_bytes(len: u64) -> u64 {
    (len * 4).div_ceil(16).max(1) * 16
}

/// Bytes of a scan's control buffer (count, dispatch arguments, params blocks), from the
/// layout `wgsl/scan/prepare.wgsl` declares.
fn control_bytes(prep: &kernel::Kernel) -> Result<(u64, [u64; 4])> {
    let c = |name| prep.constant(name).map(|v| v as u64);
    let layout = [
        c(prepare::ARGS_AT)?,
        c(prepare::MAX_CHUNKS)?,
        c(prepare::PARAMS_AT)?,
        c(prepare::PARAMS_STRIDE)?,
    ];
    Ok((4 * (layout[2] + layout[3] * layout[1]), layout))
}

/// Bytes of a chunk's params block (`ScanParams`, `wgsl/shared/chain_params.wgsl`).
const PARAMS_BYTES: u64 = 32;

/// Tuning of the scan. Figures: Vulkan through wgpu 30, subgroups of 32, 2026-11-27, the H100
/// (`scan_sweep`, exclusive u32) or the H200 (against CUB's `DeviceScan::ExclusiveSum` in the
/// same call) as named; see docs/scan.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScanPolicy {
    /// Elements per tile of scanners of more than `small_max` elements: 256 invocations ×
    /// `tile / 1024` vec4s each, a multiple of 4096 up to 16384. 12288: at 2^28 2397 GB/s
    /// against 2316 for 8192 and 2352 for 16384, at 2^26 2309 against 2244 and 2271, at 2^25
    /// 2209 against 2155 and 2133 (H100).
    pub tile: u32,
    /// Elements per tile of scanners of up to `small_max` elements. 8192: at 2^24 2027 GB/s
    /// against 1998 for 12288 and 1984 for 16384 (H100); at 2^22 0.95× CUB against 0.94× for
    /// 12288 (H200).
    pub small_tile: u32,
    /// The largest maximum count that takes `small_tile`: 2^24, where 8192 and 12288 cross
    /// (above, 12288 leads from 2^25 on the H100).
    pub small_max: u64,
    /// Window reads that find the same predecessor silent before the decoupled fallback
    /// reduces its tile (48 KiB of input at 12288-element tiles). 64, as the sort's (to be
    /// measured on the H100; no fallback is expected where workgroups start in order).
    pub spin: u32,
    /// Whether tiles take their index from an atomic ticket in order of start (true) or are
    /// their workgroup's index (false). Either is correct: a tile whose predecessors have not
    /// started reduces their input itself. A ticket costs one atomic round trip before a
    /// workgroup's first load; without tickets, a device that starts workgroups out of order
    /// makes tiles reduce many predecessors: lavapipe started the second half of a 513-tile
    /// grid first, and one workgroup's 255 fallbacks ran past its loop limit (65535 iterations,
    /// after which it ends every loop silently) into a wrong sum. `Default`: true;
    /// [`ScanPolicy::for_caps`]: false on GPUs, which start workgroups in order of index: at
    /// 2^22 0.95× CUB against 0.85× with tickets, at 2^28 0.96× either way (to be measured on
    /// the H100).
    pub tickets: bool,
}

impl Default for ScanPolicy {
    fn default() -> Self {
        ScanPolicy {
            tile: 12288,
            small_tile: 8192,
            small_max: 1 << 24,
            spin: 64,
            tickets: true,
        }
    }
}

impl ScanPolicy {
    /// The policy [`Scanner::new`] and the sort take on a device with `caps`: the default, with
    /// tiles in workgroup order (no tickets) on GPUs.
    pub fn for_caps(caps: &Caps) -> ScanPolicy {
        ScanPolicy {
            tickets: caps.is_cpu(),
            ..ScanPolicy::default()
        }
    }

    /// Elements per tile of a scanner of up to `max_count` elements (`tile` or `small_tile`);
    /// an error for a tile the scan pass cannot take.
    pub fn tile_for(&self, max_count: u64, flavor: Flavor) -> Result<u64> {
        let tile = if max_count <= self.small_max {
            self.small_tile
        } else {
            self.tile
        };
        let k = chained::STAGE.load(flavor)?;
        let (wg, max_quads) = (
            k.constant(chained::WG_SIZE)?,
            k.constant(chained::MAX_QUADS)?,
        );
        let quad = 16 * wg;
        if tile == 0 || tile % quad != 0 || tile / quad > max_quads {
            return Err(Error::InvalidInput(format!(
                "a scan's tile is a multiple of {quad} elements up to {}; got {tile}",
                quad * max_quads
            )));
        }
        Ok(tile as u64)
    }
}

/// How a scan by an operator runs ([`Scanner::with_operator_policy`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperatorPolicy {
    /// The chained scan of the sums (`wgsl/scan/chained.wgsl`) by the operator, in one pass:
    /// 8 bytes an element. Subgroups only: elsewhere an error when the scanner is made.
    Chained(ScanPolicy),
    /// Two passes over chunks (`wgsl/fold/scan.wgsl`): the chunks' totals, then each chunk
    /// scanned from its carry; 12 bytes an element, on every device.
    TwoPass(crate::fold::ChunkPolicy),
}

impl OperatorPolicy {
    /// The path [`Scanner::with_operator`] takes on a device with `caps`: chained by the
    /// device's policy ([`ScanPolicy::for_caps`]) with subgroups, else two passes by the
    /// default grid.
    pub fn for_caps(caps: &Caps) -> OperatorPolicy {
        if caps.flavor() == Flavor::Subgroup {
            OperatorPolicy::Chained(ScanPolicy::for_caps(caps))
        } else {
            OperatorPolicy::TwoPass(Default::default())
        }
    }
}

/// The scan's chain of tiles in a plan (`wgsl/shared/chain.wgsl`): its control block, the
/// status words, the chunks, the prepare pass, and the overrides every stage on the chain takes.
/// The scan's chained stage and the single-pass selection's stage are such stages.
pub(crate) struct Chain {
    /// The control block (count, dispatch arguments, params blocks).
    pub control: BufferId,
    /// The status words (`shared/chain_params.wgsl`'s layout), created zeroed, kept between runs.
    pub state: BufferId,
    /// (first element, elements) of each chunk at the maximum count: one dispatch each.
    pub chunks: Vec<(u64, u64)>,
    /// The overrides of `shared/chain_params` and `shared/chain`.
    pub overrides: Vec<(Override, f64)>,
    args_at: u64,
    params_at: u64,
    params_stride: u64,
}

impl Chain {
    /// Appends the chain's prepare pass for up to `max_len` elements by `policy`, its chunk 0
    /// having at least `min_tiles` tiles; `control` as [`append`]'s; `tag` names the passes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn append(
        plan: &mut Plan,
        caps: &Caps,
        control: Option<BufferId>,
        max_len: u64,
        policy: &ScanPolicy,
        min_tiles: u32,
        tag: &str,
    ) -> Result<Chain> {
        let k_prep = prepare::STAGE.load(caps.flavor())?;
        let tile = policy.tile_for(max_len, caps.flavor())?;
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
            plan.slotted(format!("scan {tag} control"), bytes, crate::count::SLOTS)
        });
        let max_tiles: u64 = chunks
            .iter()
            .map(|&(_, c)| c.div_ceil(tile))
            .sum::<u64>()
            .max(1);
        // tickets, the books of the two halves, and each half's status words: 2 per tile
        // (shared/chain_params.wgsl's layout); created zeroed, kept between runs
        let state_words = k_prep.constant(prepare::STATE_STATUS)? as u64 + 2 * 2 * max_tiles;
        let state = plan.buffer(
            format!("scan {tag} state"),
            state_words * 4,
            BufferInit::Zeroed,
        );
        // shared/chain_params.wgsl: the prepare stage's and the chain's alike
        let params = [
            (prepare::CHUNKS, chunks.len() as f64),
            (prepare::CHUNK, chunks[0].1 as f64),
            (prepare::MAX_COUNT, max_len.min(u32::MAX as u64) as f64),
            (prepare::TILE, tile as f64),
            (prepare::MIN_TILES, min_tiles as f64),
        ];
        let mut prep_overrides = params.to_vec();
        prep_overrides.push((prepare::MAX_DIM, caps.max_workgroups_per_dim as f64));
        plan.pass(
            format!("scan {tag} prepare"),
            &k_prep,
            prepare::entry::main,
            &prep_overrides,
            &[(prepare::bind::control, control)],
            Workgroups::Direct([1, 1, 1]),
        )?;
        let mut overrides = params.to_vec();
        overrides.extend([
            (chain::SPIN, policy.spin as f64),
            (chain::TICKETS, policy.tickets as u32 as f64),
            (chain::MAX_TILES, max_tiles as f64),
        ]);
        Ok(Chain {
            control,
            state,
            chunks,
            overrides,
            args_at,
            params_at,
            params_stride,
        })
    }

    /// Chunk `i`'s grid: from its dispatch arguments in the control block.
    pub(crate) fn workgroups(&self, i: usize) -> Workgroups {
        Workgroups::Indirect {
            buffer: self.control,
            offset: 4 * (self.args_at + 3 * i as u64),
        }
    }

    /// Chunk `i`'s params block: (byte offset, bytes) in the control block.
    pub(crate) fn params_block(&self, i: usize) -> (u64, u64) {
        (
            4 * (self.params_at + self.params_stride * i as u64),
            PARAMS_BYTES,
        )
    }
}

/// Appends to `plan` the passes that scan up to `max_len` u32 of `input` into `output` (both at
/// least [`padded_bytes`]`(max_len)` bytes, two different buffers), exclusive or `inclusive`,
/// by `policy`, the count read from word 0 of `control` when the passes run (`control` is
/// declared by the caller with [`control_size`] bytes, or made here when `None`); `tag` names
/// the passes ("scan {tag} ..."). Returns `control`.
#[allow(clippy::too_many_arguments)]
pub fn append(
    plan: &mut Plan,
    caps: &Caps,
    control: Option<BufferId>,
    input: BufferId,
    output: BufferId,
    max_len: u64,
    inclusive: bool,
    policy: &ScanPolicy,
    tag: &str,
) -> Result<BufferId> {
    let k_scan = chained::STAGE.load(caps.flavor())?;
    append_stage(
        plan, caps, control, input, output, max_len, inclusive, policy, tag, &k_scan,
    )
}

/// [`append`] with the chained stage `k_scan` (composed with an operator).
#[allow(clippy::too_many_arguments)]
fn append_stage(
    plan: &mut Plan,
    caps: &Caps,
    control: Option<BufferId>,
    input: BufferId,
    output: BufferId,
    max_len: u64,
    inclusive: bool,
    policy: &ScanPolicy,
    tag: &str,
    k_scan: &std::sync::Arc<kernel::Kernel>,
) -> Result<BufferId> {
    let chain = Chain::append(plan, caps, control, max_len, policy, 0, tag)?;
    let mut overrides = chain.overrides.clone();
    overrides.push((chained::INCLUSIVE, inclusive as u32 as f64));
    let padded = padded_bytes(max_len);
    for (i, &(first, count)) in chain.chunks.iter().enumerate() {
        let label = if chain.chunks.len() > 1 {
            format!("scan {tag} {i}")
        } else {
            format!("scan {tag}")
        };
        let (o, s) = (first * 4, padded_bytes(count).min(padded - first * 4));
        let (params_at, params_bytes) = chain.params_block(i);
        plan.pass(
            label,
            k_scan,
            chained::entry::main,
            &overrides,
            &[
                (chained::bind::params_block, chain.control),
                (chained::bind::count_word, chain.control),
                (chained::bind::input, input),
                (chained::bind::input_words, input),
                (chained::bind::output, output),
                (chained::bind::output_words, output),
                (chained::bind::state, chain.state),
            ],
            chain.workgroups(i),
        )?
        .range(chained::bind::params_block, params_at, params_bytes)?
        .range(chained::bind::count_word, 0, 16)?
        .range(chained::bind::input, o, s)?
        .range(chained::bind::input_words, o, s)?
        .range(chained::bind::output, o, s)?
        .range(chained::bind::output_words, o, s)?;
    }
    Ok(chain.control)
}

/// The marks that make the chained stage compute each chunk's params from the head (its block's
/// `derive` and `chunk` words, `ScanParams` of `wgsl/shared/chain_params.wgsl`), for every copy of
/// a control block of [`control_size`] bytes (`record.rs`).
pub(crate) fn derive_marks(caps: &Caps) -> Result<Vec<(u64, u32)>> {
    let prep = prepare::STAGE.load(caps.flavor())?;
    let (_, [_, max_chunks, params_at, params_stride]) = control_bytes(&prep)?;
    let derived = prep.constant(prepare::PARAMS_DERIVED)?;
    let derive_at = prep.member_offset("ScanParams", "derive")?;
    let chunk_at = prep.member_offset("ScanParams", "chunk")?;
    Ok((0..max_chunks)
        .flat_map(|i| {
            let at = 4 * (params_at + params_stride * i);
            [(at + derive_at, derived), (at + chunk_at, i as u32)]
        })
        .collect())
}

/// Bytes of the control buffer [`append`] needs.
pub fn control_size(caps: &Caps) -> Result<u64> {
    Ok(control_bytes(&*prepare::STAGE.load(caps.flavor())?)?.0)
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
    /// Binds the input and the output (both counted).
    rec: Recorder,
    /// Where a scan in place reads its input from: a copy, made at the first such recording
    /// (the decoupled fallback rereads a predecessor's input, which in place may already be
    /// its output).
    in_place: Mutex<Option<Buffer>>,
}

/// What `wgsl/scan/prepare.wgsl` writes for a count (each chunk's params and the 2-D grid of its
/// tiles), restated for the host (`record.rs`): the grids a recording dispatches, and in a plan
/// whose chained stages read their params from the block (the sort's reduce-then-scan) the
/// blocks themselves. The simulator runs the prepare stage at every run that dispatches host
/// grids and fails on any difference; unit tests compare the blocks word for word.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanArgs {
    /// The control buffer.
    control: BufferId,
    /// Word offsets of chunk 0's dispatch arguments and params, and of one chunk's params to
    /// the next's; words in the control block.
    args_at: u64,
    params_at: u64,
    params_stride: u64,
    words: u64,
    chunks: u64,
    chunk: u64,
    tile: u64,
    max_count: u64,
    max_dim: u64,
    /// Tiles chunk 0 has at least (`MIN_TILES`).
    min_tiles: u64,
}

impl ScanArgs {
    /// For a scan of up to `max_len` elements by `policy` on a device of `caps`, its control
    /// block in `control`.
    pub(crate) fn new(
        caps: &Caps,
        max_len: u64,
        policy: &ScanPolicy,
        control: BufferId,
    ) -> Result<ScanArgs> {
        let prep = prepare::STAGE.load(caps.flavor())?;
        let (bytes, [args_at, _, params_at, params_stride]) = control_bytes(&prep)?;
        let tile = policy.tile_for(max_len, caps.flavor())?;
        let chunks = caps.chunks(max_len.max(1), 4, tile);
        Ok(ScanArgs {
            control,
            args_at,
            params_at,
            params_stride,
            words: bytes / 4,
            chunks: chunks.len() as u64,
            chunk: chunks[0].1,
            tile,
            max_count: max_len.min(u32::MAX as u64),
            max_dim: caps.max_workgroups_per_dim as u64,
            min_tiles: 0,
        })
    }

    /// The same for a chain whose chunk 0 has at least `tiles` tiles ([`Chain::append`]).
    pub(crate) fn with_min_tiles(mut self, tiles: u32) -> ScanArgs {
        self.min_tiles = tiles as u64;
        self
    }

    /// The control buffer.
    pub(crate) fn control(&self) -> BufferId {
        self.control
    }

    /// Each chunk's (elements, tiles) for a count word.
    fn chunks_of(&self, word: u32) -> impl Iterator<Item = (u64, u64)> + '_ {
        let count = (word as u64).min(self.max_count);
        (0..self.chunks).map(move |c| {
            let len = count.saturating_sub(c * self.chunk).min(self.chunk);
            let least = if c == 0 { self.min_tiles } else { 0 };
            (len, len.div_ceil(self.tile).max(least))
        })
    }

    /// The dispatch arguments of each chunk for a count word.
    pub(crate) fn for_count(&self, word: u32) -> Vec<(BufferId, u64, [u32; 3])> {
        self.chunks_of(word)
            .enumerate()
            .map(|(c, (_, tiles))| {
                let x = tiles.min(self.max_dim);
                let y = if tiles > 0 { tiles.div_ceil(x) } else { 0 };
                let at = 4 * (self.args_at + 3 * c as u64);
                (self.control, at, [x as u32, y as u32, 1])
            })
            .collect()
    }

    /// The control block the prepare stage leaves for a count word (the word itself at 0).
    pub(crate) fn block(&self, word: u32) -> Vec<u32> {
        let mut w = vec![0u32; self.words as usize];
        w[0] = word;
        let total: u64 = self.chunks_of(word).map(|(_, t)| t).sum();
        let mut base = 0;
        for (c, ((len, tiles), (_, at, grid))) in
            self.chunks_of(word).zip(self.for_count(word)).enumerate()
        {
            let a = (at / 4) as usize;
            w[a..a + 3].copy_from_slice(&grid);
            let p = (self.params_at + self.params_stride * c as u64) as usize;
            w[p..p + 5].copy_from_slice(&[len, tiles, base, total, c as u64].map(|v| v as u32));
            base += tiles;
        }
        w
    }
}

impl Scanner {
    /// An exclusive (`inclusive = false`) or inclusive scan of up to `max_count` u32, by the
    /// device's policy ([`ScanPolicy::for_caps`]).
    pub fn new(ctx: &Context, inclusive: bool, max_count: u64) -> Result<Scanner> {
        Self::with_policy(ctx, inclusive, max_count, ScanPolicy::for_caps(ctx.caps()))
    }

    /// [`Scanner::new`] with a policy of the caller's.
    pub fn with_policy(
        ctx: &Context,
        inclusive: bool,
        max_count: u64,
        policy: ScanPolicy,
    ) -> Result<Scanner> {
        Self::chained(ctx, None, inclusive, max_count, policy)
    }

    /// The chained scan: of u32 sums, or by `op` (with subgroups only).
    fn chained(
        ctx: &Context,
        op: Option<&crate::fold::Operator>,
        inclusive: bool,
        max_count: u64,
        policy: ScanPolicy,
    ) -> Result<Scanner> {
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
        let direction = if inclusive { "inclusive" } else { "exclusive" };
        let (name, tag, k_scan) = match op {
            None => (
                format!("scan {direction} u32"),
                "u32".to_string(),
                chained::STAGE.load(caps.flavor())?,
            ),
            Some(op) => {
                if caps.flavor() != Flavor::Subgroup {
                    return Err(Error::InvalidInput(
                        "the chained scan by an operator takes subgroups, which this device \
                         lacks: scan by OperatorPolicy::TwoPass"
                            .into(),
                    ));
                }
                (
                    format!("scan {direction} by {}", op.label()),
                    format!("by {}", op.label()),
                    op.kernel_in(chained::STAGE, Flavor::Subgroup)?,
                )
            }
        };
        let mut plan = Plan::new(name);
        let control = crate::record::control(&mut plan, control_size(caps)?);
        let marks = derive_marks(caps)?;
        let input = plan.arg("input", padded_bytes(max_count));
        let output = plan.arg("output", padded_bytes(max_count));
        append_stage(
            &mut plan,
            caps,
            Some(control),
            input,
            output,
            max_count,
            inclusive,
            &policy,
            &tag,
            &k_scan,
        )?;
        let grid = ScanArgs::new(caps, max_count, &policy, control)?;
        let counting = Counting {
            control,
            max: max_count,
            derived: true,
            marks,
            args: Some(Box::new(move |n| grid.for_count(n))),
            blocks: None,
        };
        let args = vec![
            Arg::counted(input, "elements", 4),
            Arg::counted(output, "elements", 4),
        ];
        Ok(Scanner {
            ctx: ctx.clone(),
            max_count,
            rec: Recorder::new(ctx, plan, args, Some(counting))?,
            in_place: Mutex::new(None),
        })
    }

    /// An exclusive (`inclusive = false`, which needs the operator's identity) or inclusive
    /// scan by `op` of up to `max_count` elements of the operator's type ([`crate::fold`]):
    /// element i of the output is `op` over the elements before i (exclusive, the identity for
    /// the first) or up to i (inclusive), in input order. Recorded as [`Scanner::record`].
    ///
    /// ```
    /// use wgsimd::{dtype::Dtype, fold::Operator, scan::Scanner, Context, Count};
    /// # fn main() -> wgsimd::Result<()> {
    /// let ctx = Context::simulator(Default::default())?;
    /// // running maximum of a signal
    /// let s = Scanner::with_operator(&ctx, &Operator::max(Dtype::F32)?, true, 1 << 16)?;
    /// let signal = ctx.upload("signal", &[0.5f32, 2.0, 1.0, 3.5])?;
    /// let peaks = ctx.uninit("peaks", 16)?;
    /// let mut enc = ctx.encoder();
    /// s.record(&mut enc, &signal, &peaks, Count::Host(4))?;
    /// ctx.submit(enc)?.clean("the scan")?;
    /// assert_eq!(ctx.read::<f32>(&peaks)?, [0.5, 2.0, 2.0, 3.5]);
    /// # Ok(()) }
    /// ```
    pub fn with_operator(
        ctx: &Context,
        op: &crate::fold::Operator,
        inclusive: bool,
        max_count: u64,
    ) -> Result<Scanner> {
        let policy = OperatorPolicy::for_caps(ctx.caps());
        Self::with_operator_policy(ctx, op, inclusive, max_count, policy)
    }

    /// [`Scanner::with_operator`] by a path and policy of the caller's.
    pub fn with_operator_policy(
        ctx: &Context,
        op: &crate::fold::Operator,
        inclusive: bool,
        max_count: u64,
        policy: OperatorPolicy,
    ) -> Result<Scanner> {
        if !inclusive {
            op.need_identity("an exclusive scan")?;
        }
        let policy = match policy {
            OperatorPolicy::Chained(p) => {
                return Self::chained(ctx, Some(op), inclusive, max_count, p)
            }
            OperatorPolicy::TwoPass(p) => p,
        };
        let max_count = max_count.max(1);
        if max_count > u32::MAX as u64 {
            return Err(Error::TooLarge(format!(
                "{max_count} elements: a scan takes fewer than 2^32"
            )));
        }
        let mut plan = Plan::new(format!(
            "scan {} by {}",
            if inclusive { "inclusive" } else { "exclusive" },
            op.label()
        ));
        let input = plan.arg("input", padded_bytes(max_count));
        let output = plan.arg("output", padded_bytes(max_count));
        let counting = crate::fold::append(
            &mut plan,
            ctx.caps(),
            op,
            input,
            output,
            max_count,
            Some(inclusive),
            &policy,
        )?;
        let args = vec![
            Arg::counted(input, "elements", 4),
            Arg::counted(output, "elements", 4),
        ];
        Ok(Scanner {
            ctx: ctx.clone(),
            max_count,
            rec: Recorder::new(ctx, plan, args, Some(counting))?,
            in_place: Mutex::new(None),
        })
    }

    /// The plan it records (its passes, buffers and overrides, for inspection: the lab's
    /// driver statistics compile exactly these passes).
    pub fn plan(&self) -> &crate::plan::Plan {
        self.rec.plan()
    }

    /// The passes one recording dispatches, by label.
    pub fn passes(&self) -> Vec<String> {
        self.rec.plan().pass_labels()
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
        let enc = enc.into();
        let (input, output) = (input.into(), output.into());
        if !input.same_buffer(&output) {
            return self.rec.record(enc, &[input, output], Some(count), stamps);
        }
        // in place, or two ranges of one buffer (which one dispatch may not bind read-only and
        // read-write): the scan reads a copy of the input
        let bytes = match count {
            Count::Host(n) => n as u64 * 4,
            Count::Gpu(_) => input.len().min(padded_bytes(self.max_count)) / 4 * 4,
        };
        if input.len() < bytes.max(4) || !input.inside() {
            return Err(Error::InvalidInput(format!(
                "`input` ({}) lies outside its buffer or holds fewer than {} elements of 4 \
                 bytes (and at least one)",
                input.describe(),
                bytes / 4
            )));
        }
        let copy = self.in_place_copy()?;
        // (a range of exactly the elements copied, so a GPU count's limit counts them)
        let copy = copy.slice(0, bytes.max(4));
        let pre: Vec<(BufferRef, BufferRef, u64)> = if bytes > 0 {
            enc.check_copy(&input, &copy, bytes)?;
            vec![(input, copy, bytes)]
        } else {
            Vec::new()
        };
        self.rec
            .record_after(enc, &[copy, output], Some(count), stamps, &pre)
    }

    /// The buffer a scan in place reads its input from (made at the first such recording).
    fn in_place_copy(&self) -> Result<Buffer> {
        let mut copy = self.in_place.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = &*copy {
            return Ok(b.clone());
        }
        let b = self
            .ctx
            .scratch("scan input copy", padded_bytes(self.max_count))?;
        *copy = Some(b.clone());
        Ok(b)
    }
}

/// Exclusive (`inclusive = false`, which needs the operator's identity) or inclusive scan of
/// `data` by `op` on `ctx` ([`Scanner::with_operator`]); `T` the operator's type.
///
/// ```
/// use wgsimd::{dtype::Dtype, fold::Operator};
/// # fn main() -> wgsimd::Result<()> {
/// let ctx = wgsimd::Context::simulator(Default::default())?;
/// let min = Operator::min(Dtype::I32)?;
/// assert_eq!(wgsimd::scan::scan_by(&ctx, &[4i32, -1, 3, -7], &min, true)?, [4, -1, -1, -7]);
/// # Ok(()) }
/// ```
pub fn scan_by<T: crate::dtype::Element>(
    ctx: &Context,
    data: &[T],
    op: &crate::fold::Operator,
    inclusive: bool,
) -> Result<Vec<T>> {
    if T::DTYPE != op.dtype() {
        return Err(Error::InvalidInput(format!(
            "{} elements for an operator over {}",
            T::DTYPE,
            op.dtype()
        )));
    }
    let s = Scanner::with_operator(ctx, op, inclusive, data.len() as u64)?;
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let input = ctx.upload("input", data)?;
    let output = ctx.zeroed("output", padded_bytes(data.len() as u64))?;
    let mut enc = ctx.encoder();
    s.record(&mut enc, &input, &output, Count::Host(data.len() as u32))?;
    ctx.submit(enc)?.clean("the scan")?;
    let mut out: Vec<T> = ctx.read(&output)?;
    out.truncate(data.len());
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's grids are the prepare stage's at counts around every boundary: tiles, the
    /// chunks of a device with 256 KiB bindings, and 2-D grids past 3 workgroups a dimension.
    #[test]
    fn host_grids_are_the_prepare_stages() {
        let mut caps = Caps::h100();
        caps.max_storage_binding = 1 << 18;
        caps.max_workgroups_per_dim = 3;
        let ctx = Context::simulator(crate::sim::SimConfig::for_profile(caps)).unwrap();
        let max = 300_000u32;
        let s = Scanner::new(&ctx, false, max as u64).unwrap();
        let (tile, chunk) = (8192u32, 1u32 << 16);
        let mut counts = vec![0, 1, 3, 4, 5, tile - 1, tile, tile + 1, max - 1, max];
        for t in [2, 3, 4, 7, 9, 10] {
            counts.extend([t * tile - 1, t * tile + 1]);
        }
        for c in 1..5 {
            counts.extend([c * chunk - 1, c * chunk, c * chunk + 1]);
        }
        crate::record::assert_host_grids(&s.rec, &counts);
    }

    /// A scan by an operator: the host's grid is the fold's prepare stage's around each step
    /// of a small policy, and on both sides of its larger bound's count.
    #[test]
    fn operator_host_grids_are_the_prepare_stage() {
        let ctx = Context::simulator(Default::default()).unwrap();
        let policy = crate::fold::ChunkPolicy {
            max_workgroups: 5,
            items: 2,
            large_count: 4000,
            large_workgroups: 9,
        };
        let op = crate::fold::Operator::max(crate::dtype::Dtype::U32).unwrap();
        let s = Scanner::with_operator_policy(
            &ctx,
            &op,
            true,
            100_000,
            OperatorPolicy::TwoPass(policy),
        )
        .unwrap();
        let mut counts = vec![0, 1, 511, 512, 513, 3999, 4000, 4001, 100_000];
        for k in 1..11 {
            counts.extend([k * 512 - 1, k * 512 + 1]);
        }
        crate::record::assert_host_grids(&s.rec, &counts);
        // the grid grows past the smaller bound only above the count
        let grid = |n: u32| crate::record::host_args(&s.rec, n)[0].2;
        assert_eq!((grid(4000), grid(4001)), ([5, 1, 1], [8, 1, 1]));
    }
}
