//! The recording protocol: how every algorithm object records its plan into a caller's encoder
//! on the caller's buffers, written once.
//!
//! An algorithm declares what it binds (`Arg`: a plan buffer the caller gives, and what it
//! holds per counted element) and, for a counted plan, its control blocks (`Counting`); a
//! `Recorder` does the rest at every recording, in this order, so that nothing reaches the
//! caller's encoder unless the whole recording can be made:
//!
//! 1. **Arguments.** Each range holds the count's elements (a host count), is aligned for
//!    binding, lies inside its buffer, has the usages it needs; no buffer is bound read-only
//!    and read-write in one dispatch (WebGPU's rule, which wgpu enforces at submission and the
//!    simulator here); no range a pass writes overlaps another. Errors name the argument and
//!    its range, in one line.
//! 2. **The count.** A host count may not exceed the object's maximum or what the ranges hold.
//!    A GPU count is clamped on the GPU to the smaller of the maximum and what every range
//!    bound holds (the head's limit, `count.rs`). The recording takes a copy of the control
//!    blocks whose head agrees (`Ring`), or is refused while all are in flight.
//! 3. **The grids.** Where the stages compute their params from the head (the copies are
//!    marked, `Counting::marks`) the prepare passes do not run: the host dispatches the grids
//!    it computes for the count (`Counting::args`, a few integer operations that restate the
//!    prepare stage's; the simulator runs the prepare stage at every such run and fails on any
//!    difference). A GPU count dispatches the grids of its limit, whose workgroups past the
//!    live count leave at once, except on CPU devices, where idle workgroups cost what busy
//!    ones do ([`gpu_counts_indirect`]): there the prepare passes run on the device and the
//!    passes dispatch indirectly. In a plan whose stages read their params from the blocks
//!    (the reduce-then-scan sort) a host count's blocks are written by the host with its head
//!    (`Counting::blocks`, restated likewise; unit tests compare them word for word), and a
//!    GPU count runs the prepare passes.
//! 4. **Recording**: the GPU count's word copied into the head, then the passes (one compute
//!    pass, or one per plan pass with per-pass timestamps); the copy of the control blocks is
//!    held until the encoder's work has run.
//!
//! No interpreter runs on the recording path: a recording costs the same with a new count as
//! with a repeated one, but for a 16-byte queue write (`benches/recording.rs`).

use crate::context::{
    binding_alignment, check_usage, Buffer, BufferRef, Context, EncoderRef, Prepared,
};
use crate::count::{Content, Count, Ring, SLOTS};
use crate::device::{Caps, DeviceKind};
use crate::error::{Error, Result};
use crate::plan::{BufferId, Plan, RunSpec, Workgroups};

pub use crate::gpu::Timestamps;

/// A caller's buffer an algorithm binds: the plan buffer, and what the range holds per
/// counted element (for the count checks and messages).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg {
    /// The plan's `Arg` buffer.
    pub id: BufferId,
    /// What its elements are, plural, for messages ("keys", "elements").
    pub items: &'static str,
    /// Bytes per counted element; 0 for a range the count does not size (a result).
    pub item_bytes: u64,
}

impl Arg {
    /// A range of `item_bytes`-byte elements, one per counted element.
    pub fn counted(id: BufferId, items: &'static str, item_bytes: u64) -> Arg {
        Arg {
            id,
            items,
            item_bytes,
        }
    }

    /// A range the count does not size.
    pub fn fixed(id: BufferId) -> Arg {
        Arg {
            id,
            items: "",
            item_bytes: 0,
        }
    }
}

/// Dispatch arguments: (slotted buffer, byte offset within a copy, grid).
pub(crate) type HostArgs = Vec<(BufferId, u64, [u32; 3])>;

/// The dispatch arguments a plan's prepare passes compute for a count.
pub(crate) type ArgsFn = Box<dyn Fn(u32) -> HostArgs + Send + Sync>;

/// What a plan's prepare passes write for a host count where its stages cannot compute it:
/// (slotted buffer, its words from the start of a copy).
pub(crate) type BlocksFn = Box<dyn Fn(u32) -> Vec<(BufferId, Vec<u32>)> + Send + Sync>;

/// A counted plan's control blocks, as its algorithm declares them.
pub(crate) struct Counting {
    /// The slotted control buffer (word 0 the count, `COUNT_LIMIT` the limit).
    pub control: BufferId,
    /// The most elements one recording processes.
    pub max: u64,
    /// Whether the stages compute what the prepare passes would write from the head
    /// themselves (from blocks that carry `marks`, or needing no block at all): then a host
    /// count, and a GPU count on a GPU, skips the prepare passes.
    pub derived: bool,
    /// Words (byte offset, value) every copy holds from the start and no kernel writes, which
    /// tell the stages to compute their params from the head.
    pub marks: Vec<(u64, u32)>,
    /// The grids the prepare passes compute for a count (see the module docs), which the host
    /// dispatches where the stages are `derived` or the host writes the `blocks`.
    pub args: Option<ArgsFn>,
    /// Without marks: the blocks the prepare passes write for a host count, which the host
    /// writes into a fresh copy (its head included) so that they need not run
    /// (reduce-then-scan's, whose stages read their params from the blocks).
    pub blocks: Option<BlocksFn>,
}

/// Whether GPU counts run the prepare passes and dispatch indirectly on a device of `caps`
/// rather than the grids of their limit: on CPU devices, where a workgroup with nothing to do
/// costs about what one with work does. A 2^20-pair sorter sorting 100k pairs by a GPU count
/// took 431–460 ms on lavapipe with the maximum's grids against 146–171 ms by a host count
/// (2-core VM, 2026-11-28); indirect, 71.6 against 71.5 ms, and objects made for 2^20
/// reducing and scanning 100k elements 1.01× and 1.06× their host counts (`lab`'s
/// `count_grids`, 2026-11-29). On GPUs the indirect dispatch waits for its arguments, about
/// 1.7 µs a pass on the H200, while an idle workgroup costs nanoseconds.
pub fn gpu_counts_indirect(caps: &Caps) -> bool {
    caps.kind == DeviceKind::Cpu
}

/// What [`Recorder`] keeps of a [`Counting`].
struct Counted {
    spec: Counting,
    /// Byte offset of the limit word in the head (`COUNT_LIMIT` of `wgsl/shared/count.wgsl`,
    /// reflected from the plan's prepare stage).
    limit_at: u64,
    ring: Ring,
    /// Per pass, where its indirect arguments lie: a slotted buffer and a byte offset.
    pass_args: Vec<Option<(BufferId, u64)>>,
    /// GPU counts take indirect grids ([`gpu_counts_indirect`], or no marks).
    gpu_indirect: bool,
}

/// A prepared plan and what its recordings bind and check (see the module docs).
pub(crate) struct Recorder {
    ctx: Context,
    prepared: Prepared,
    args: Vec<Arg>,
    counted: Option<Counted>,
}

impl Recorder {
    /// Prepares `plan` on `ctx` (its buffers and pipelines made now) for recordings binding
    /// `args`, in the order [`Recorder::record`] takes them; `counting` for a counted plan
    /// (its copies' marks written now).
    pub fn new(
        ctx: &Context,
        plan: Plan,
        args: Vec<Arg>,
        counting: Option<Counting>,
    ) -> Result<Recorder> {
        let pass_args: Vec<Option<(BufferId, u64)>> = plan
            .passes
            .iter()
            .map(|p| match p.workgroups {
                Workgroups::Indirect { buffer, offset } if plan.buffers[buffer.0].slots > 1 => {
                    Some((buffer, offset))
                }
                _ => None,
            })
            .collect();
        let limit_at = match plan.passes.iter().find(|p| p.is_prepare()) {
            Some(p) => {
                4 * p
                    .kernel
                    .constant(crate::stages::shared::count::COUNT_LIMIT)? as u64
            }
            None if counting.is_some() => {
                return Err(Error::Plan(format!(
                    "{}: a count but no prepare pass",
                    plan.label
                )));
            }
            None => 0,
        };
        let prepared = ctx.prepare(plan)?;
        let counted = match counting {
            Some(spec) => {
                if !spec.marks.is_empty() {
                    mark_copies(ctx, &prepared, &spec)?;
                }
                // (a stage that writes the control block cannot be dispatched from it: WebGPU
                // forbids a buffer as indirect arguments and read-write storage in one dispatch)
                let writes_args = writes_own_arguments(prepared.plan());
                let gpu_indirect = !spec.derived
                    || spec.args.is_none()
                    || (gpu_counts_indirect(ctx.caps()) && !writes_args);
                Some(Counted {
                    spec,
                    limit_at,
                    ring: Ring::new(),
                    pass_args,
                    gpu_indirect,
                })
            }
            None => None,
        };
        Ok(Recorder {
            ctx: ctx.clone(),
            prepared,
            args,
            counted,
        })
    }

    /// The prepared plan.
    pub fn prepared(&self) -> &Prepared {
        &self.prepared
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        self.prepared.plan()
    }

    /// The label of the plan buffer `id`.
    fn label(&self, id: BufferId) -> &str {
        &self.plan().buffers[id.0].label
    }

    /// Records one run into `enc` on `bufs` (one per declared [`Arg`], in order), for
    /// `count` (a counted plan's; `None` otherwise), with `stamps` (see the module docs).
    pub fn record(
        &self,
        enc: EncoderRef,
        bufs: &[BufferRef],
        count: Option<Count>,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        self.record_after(enc, bufs, count, stamps, &[])
    }

    /// [`Recorder::record`] over `bufs` and then the plan's last argument: the first `bytes`
    /// of the caller's `result` (named `role` in errors), at any offset that is a multiple of 4.
    /// It is bound directly where it is aligned for binding and shares no buffer with `reads`;
    /// else the plan writes `spare` and a copy puts it in place (which needs `COPY_DST`), every
    /// check made before anything is recorded.
    #[allow(clippy::too_many_arguments)]
    pub fn record_result<'a>(
        &self,
        spare: &'a Buffer,
        mut enc: EncoderRef<'a>,
        mut bufs: Vec<BufferRef<'a>>,
        reads: &[BufferRef<'a>],
        (role, result, bytes): (&str, BufferRef<'a>, u64),
        count: Count,
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        if result.len() < bytes || !result.offset().is_multiple_of(4) {
            return Err(Error::InvalidInput(format!(
                "{role} needs {bytes} bytes at an offset that is a multiple of 4; got {}",
                result.describe()
            )));
        }
        let result = result.range(0, bytes);
        let direct = result.offset() % binding_alignment(self.ctx.caps()) == 0
            && !reads.iter().any(|r| result.same_buffer(r));
        if direct {
            bufs.push(result);
            return self.record(enc, &bufs, Some(count), stamps);
        }
        let target = spare.slice(0, bytes);
        bufs.push(target);
        enc.check_copy(&target, &result, bytes)?;
        self.record(enc.reborrow(), &bufs, Some(count), stamps)?;
        enc.copy(&target, &result, bytes)
    }

    /// [`Recorder::record`] with `pre`, copies (source, destination, bytes) the caller has
    /// checked ([`EncoderRef::check_copy`]), recorded once every check of the recording has
    /// passed, before its passes.
    pub fn record_after(
        &self,
        mut enc: EncoderRef,
        bufs: &[BufferRef],
        count: Option<Count>,
        stamps: Option<Timestamps>,
        pre: &[(BufferRef, BufferRef, u64)],
    ) -> Result<()> {
        let args = self.bind(bufs)?;
        let (Some(c), Some(count)) = (&self.counted, count) else {
            if self.counted.is_some() {
                return Err(Error::Plan(format!("{}: no count", self.plan().label)));
            }
            if count.is_some() {
                return Err(Error::Plan(format!(
                    "{}: a count for a plan that takes none",
                    self.plan().label
                )));
            }
            let run = RunSpec::default();
            return self
                .prepared
                .record_run(enc, &args, stamps, &run, None, pre);
        };
        let v = self.verify(c, &args, count)?;
        let check = RunSpec {
            slot: 0,
            skip_prepare: v.grids.is_some(),
            grids: v.grids.as_deref(),
            grids_bound: matches!(v.content, Content::Gpu { .. }),
        };
        let (content, word, copy_in) = (v.content, v.word, v.copy_in);
        // a fresh copy's head (and a reduce-then-scan host count's blocks) written while the
        // ring is held, so no other recording finds the copy before it is written
        let write = |slot: u32| -> Result<()> {
            let limit = match content {
                Content::Host(n) => n,
                Content::Gpu { limit } => limit,
            };
            let head = head_words(c, word, limit);
            let writes = match (&c.spec.blocks, content) {
                (Some(b), Content::Host(n)) => {
                    let mut images = b(n);
                    for (id, words) in &mut images {
                        if *id == c.spec.control && words.len() >= 4 {
                            words[..4].copy_from_slice(&head);
                        }
                    }
                    images
                }
                _ => vec![(c.spec.control, head.to_vec())],
            };
            for (id, words) in writes {
                let own = self
                    .prepared
                    .own(id)
                    .ok_or_else(|| Error::Plan("a control buffer is the caller's".into()))?;
                let at = self.plan().buffers[id.0].slot_stride() * slot as u64;
                let bytes: &[u8] = bytemuck::cast_slice(&words);
                self.ctx
                    .write_buffer(&own.range(at, bytes.len() as u64), bytes)?;
            }
            Ok(())
        };
        let taken = c.ring.take(content, write)?.ok_or_else(|| {
            Error::InvalidInput(format!(
                "{} recordings of {} with other counts are in flight (recorded and not yet \
                 run); submit them (and let the device finish them) first, or record with \
                 another object",
                SLOTS,
                self.plan().label
            ))
        })?;
        let run = RunSpec {
            slot: taken.slot,
            ..check
        };
        self.prepared
            .record_run(enc.reborrow(), &args, stamps, &run, copy_in, pre)?;
        enc.hold(taken.held);
        Ok(())
    }

    /// Checks a recording of `bufs` for `count` as [`Recorder::record`] would make it, and
    /// records nothing: for objects that record several plans in one recording, which check
    /// every part before recording the first.
    pub fn check(&self, bufs: &[BufferRef], count: Count) -> Result<()> {
        let args = self.bind(bufs)?;
        let c = self.counted.as_ref().ok_or_else(|| {
            Error::Plan(format!(
                "{}: a count for a plan that takes none",
                self.plan().label
            ))
        })?;
        self.verify(c, &args, count).map(|_| ())
    }

    /// The plan's arguments bound to `bufs`.
    fn bind<'b>(&self, bufs: &[BufferRef<'b>]) -> Result<Vec<(BufferId, BufferRef<'b>)>> {
        if bufs.len() != self.args.len() {
            return Err(Error::Plan(format!(
                "{}: {} buffers for {} arguments",
                self.plan().label,
                bufs.len(),
                self.args.len()
            )));
        }
        Ok(self
            .args
            .iter()
            .zip(bufs)
            .map(|(a, b)| (a.id, *b))
            .collect())
    }

    /// Steps 1-3 of the module docs for one recording: its arguments and count checked, its
    /// head's content and grids.
    fn verify<'b>(
        &self,
        c: &Counted,
        args: &[(BufferId, BufferRef<'b>)],
        count: Count<'b>,
    ) -> Result<Verified<'b>> {
        let bufs: Vec<BufferRef> = args.iter().map(|a| a.1).collect();
        let max = c.spec.max;
        // the most elements every counted range holds
        let capacity = self
            .args
            .iter()
            .zip(&bufs)
            .filter(|(a, _)| a.item_bytes > 0)
            .map(|(a, b)| b.len() / a.item_bytes)
            .fold(max, u64::min);
        let (content, word, copy_in) = match count {
            Count::Host(n) => {
                if n as u64 > max {
                    return Err(Error::InvalidInput(format!(
                        "count {n} exceeds the maximum {max} {} was made for",
                        self.plan().label
                    )));
                }
                for (a, b) in self.args.iter().zip(&bufs) {
                    if a.item_bytes > 0 && b.len() < n as u64 * a.item_bytes {
                        return Err(Error::InvalidInput(format!(
                            "`{}` ({}) holds fewer than {n} {} of {} bytes",
                            self.label(a.id),
                            b.describe(),
                            a.items,
                            a.item_bytes
                        )));
                    }
                }
                (Content::Host(n), n, None)
            }
            Count::Gpu(src) => {
                if src.offset() % 4 != 0 || src.len() < 4 || !src.inside() {
                    return Err(Error::InvalidInput(format!(
                        "a GPU count is a u32 at an offset that is a multiple of 4; got {}",
                        src.describe()
                    )));
                }
                check_usage(
                    &src,
                    wgpu::BufferUsages::COPY_SRC,
                    "reading a GPU count",
                    || format!("the GPU count ({})", src.describe()),
                )?;
                let limit = capacity as u32;
                let copy_in = Some((src.range(0, 4), c.spec.control, 0, 4));
                (Content::Gpu { limit }, 0, copy_in)
            }
        };
        // the grids: the host's for the count (or, for a GPU count, its limit), or indirect
        let host = match content {
            Content::Host(n) => Some(n),
            Content::Gpu { limit } if !c.gpu_indirect => Some(limit),
            Content::Gpu { .. } => None,
        };
        // (the host writes a host count's blocks where the stages cannot compute them)
        let host_blocks = c.spec.blocks.is_some() && matches!(content, Content::Host(_));
        let grids = match (&c.spec.args, host) {
            (Some(f), Some(n)) if c.spec.derived || host_blocks => {
                let args = f(n);
                let grids: Vec<Option<[u32; 3]>> = c
                    .pass_args
                    .iter()
                    .map(|o| {
                        o.and_then(|(b, at)| {
                            args.iter().find(|a| (a.0, a.1) == (b, at)).map(|a| a.2)
                        })
                    })
                    .collect();
                Some(grids)
            }
            _ => None,
        };
        // every argument checked as this run binds them (its grids decide which passes are
        // dispatched indirectly), before a copy is taken
        let check = RunSpec {
            slot: 0,
            skip_prepare: grids.is_some(),
            grids: grids.as_deref(),
            grids_bound: matches!(content, Content::Gpu { .. }),
        };
        self.prepared.check(args, &check)?;
        Ok(Verified {
            content,
            word,
            copy_in,
            grids,
        })
    }
}

/// A recording's checked count: the head's content, its count word, the GPU count's copy into
/// the head, and the host's grids.
struct Verified<'b> {
    content: Content,
    word: u32,
    copy_in: Option<(BufferRef<'b>, BufferId, u64, u64)>,
    grids: Option<Vec<Option<[u32; 3]>>>,
}

/// Declares a counted plan's control buffer of `bytes` per copy, in [`SLOTS`] copies.
pub(crate) fn control(plan: &mut Plan, bytes: u64) -> BufferId {
    plan.slotted("control", bytes, SLOTS)
}

/// Whether a pass other than a prepare pass binds read-write the buffer it is dispatched from
/// (OneSweep's histogram stage, which writes the control block of its run).
fn writes_own_arguments(plan: &Plan) -> bool {
    plan.passes
        .iter()
        .filter(|p| !p.is_prepare())
        .any(|p| match p.workgroups {
            Workgroups::Indirect { buffer, .. } => p.binds_read_write(buffer),
            Workgroups::Direct(_) => false,
        })
}

/// The head of a copy: the count word, the limit, and the marks that lie in the head.
fn head_words(c: &Counted, count: u32, limit: u32) -> [u32; 4] {
    let mut head = [count, 0, 0, 0];
    for &(at, v) in &c.spec.marks {
        if at < 16 {
            head[(at / 4) as usize] = v;
        }
    }
    head[(c.limit_at / 4) as usize] = limit;
    head
}

/// Writes the marks into every copy of the control blocks (once, when the object is made).
fn mark_copies(ctx: &Context, prepared: &Prepared, spec: &Counting) -> Result<()> {
    let decl = &prepared.plan().buffers[spec.control.0];
    let stride = decl.slot_stride();
    let mut bytes = vec![0u8; decl.allocated() as usize];
    for slot in 0..decl.slots as u64 {
        for &(at, v) in &spec.marks {
            let at = (slot * stride + at) as usize;
            if let Some(w) = bytes.get_mut(at..at + 4) {
                w.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    let own = prepared
        .own(spec.control)
        .ok_or_else(|| Error::Plan("the control buffer is the caller's".into()))?;
    ctx.write_buffer(&own, &bytes)
}

/// The host's dispatch arguments of `rec` (a counted plan) for a count of `n`.
#[cfg(test)]
pub(crate) fn host_args(rec: &Recorder, n: u32) -> HostArgs {
    let c = rec.counted.as_ref().expect("a counted plan");
    (c.spec.args.as_ref().expect("host grids"))(n)
}

/// Asserts that the host's grids of `rec` (a counted plan on the simulator) are those its
/// prepare stage computes, at each of `counts`, that they grow with the count (a GPU count's
/// limit's grids bound its count's), and that the blocks the host writes for a host count
/// (reduce-then-scan's) are word for word what the prepare passes write.
#[cfg(test)]
pub(crate) fn assert_host_grids(rec: &Recorder, counts: &[u32]) {
    let c = rec.counted.as_ref().expect("a counted plan");
    let f = c.spec.args.as_ref().expect("host grids");
    let Context::Sim(sim) = &rec.ctx else {
        panic!("a simulator context")
    };
    let plan = rec.plan();
    let control = c.spec.control.0;
    let size = |g: [u32; 3]| g.iter().map(|&x| x as u64).product::<u64>();
    let mut last: Option<(u32, HostArgs)> = None;
    let mut sorted = counts.to_vec();
    sorted.sort();
    for n in sorted {
        // a copy of the control blocks as a host count finds it: the marks and the head
        let init = |b: usize| -> Vec<u32> {
            let mut w = vec![0u32; (plan.buffers[b].size / 4) as usize];
            if b == control {
                for &(at, v) in &c.spec.marks {
                    w[(at / 4) as usize] = v;
                }
                w[..4].copy_from_slice(&head_words(c, n, n));
            }
            w
        };
        let (want, words) = sim.prepare_run(plan, &init).unwrap();
        let got = f(n);
        // every pass dispatched from a control block has its host grid
        for &(b, at) in c.pass_args.iter().flatten() {
            let host = got.iter().find(|a| (a.0, a.1) == (b, at)).map(|a| &a.2);
            assert_eq!(
                want.get(&(b.0, at)),
                host,
                "{}: count {n}, the arguments at byte {at} of `{}`",
                plan.label,
                plan.buffers[b.0].label
            );
        }
        if let Some(blocks) = &c.spec.blocks {
            for (b, mut image) in blocks(n) {
                if b.0 == control {
                    image[..4].copy_from_slice(&head_words(c, n, n));
                }
                let prepared = &words[&b.0];
                assert_eq!(
                    &prepared[..image.len()],
                    &image[..],
                    "{}: count {n}, the blocks of `{}`",
                    plan.label,
                    plan.buffers[b.0].label
                );
                assert!(prepared[image.len()..].iter().all(|&w| w == 0));
            }
        }
        if let Some((m, prev)) = &last {
            for (a, b) in prev.iter().zip(&got) {
                assert!(
                    size(a.2) <= size(b.2),
                    "{}: the grid at byte {} shrinks from count {m} to {n}",
                    plan.label,
                    a.1
                );
            }
        }
        last = Some((n, got));
    }
}
