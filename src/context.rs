//! Where the algorithms run: a wgpu device (the caller's, or one wgsimd opens) or the simulator,
//! behind one set of calls.
//!
//! Rules:
//! - **Record, don't run.** Algorithm objects record into an encoder the caller owns ([`EncoderRef`]:
//!   a `wgpu::CommandEncoder`, or a simulator [`sim::SimEncoder`]), on buffers the caller owns
//!   ([`BufferRef`]: a `wgpu::Buffer` or its slice, or a simulator buffer). Recording creates no
//!   device, submits nothing, polls nothing; the caller submits. On the simulator
//!   [`Context::submit`] is that submission and returns the findings.
//! - **The same calls on both.** Tests, the CLI and applications drive the GPU and the simulator
//!   through the same objects; only the buffers and the encoder differ.
//! - **The same checks on both.** A prepared plan ([`Prepared`]) checks the caller's buffers
//!   the same way on every device before anything is recorded, WebGPU's usage rules included:
//!   what wgpu would reject at submission the simulator context refuses at recording. The
//!   algorithms reach it through the recording protocol (`record.rs`).
//! - The host-slice functions of each algorithm, and [`Context::upload`], [`Context::read`],
//!   [`Context::submit`], are conveniences built on the above: they make buffers, record, submit
//!   and wait.

use std::sync::Arc;

use crate::device::Caps;
use crate::error::{Error, Result};
use crate::gpu::clock::{asks_clock, missing_clock};
use crate::gpu::{CopyIn, DevicePlan, GpuContext, GpuSlice, Timestamps};
use crate::kernel::BindingKind;
use crate::plan::{BufferId, BufferInit, Plan, RunSpec, Workgroups, POISON_WORD};
use crate::sim::{self, SimConfig, SimCopyIn, SimPlan, SimSlice, Simulator};

pub use crate::sim::Report;

/// A device the algorithms run on (see the module docs).
#[derive(Clone)]
pub enum Context {
    /// A wgpu device.
    Gpu(Arc<GpuContext>),
    /// The simulator.
    Sim(Arc<Simulator>),
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.is_simulator() {
            "simulator"
        } else {
            "gpu"
        };
        write!(f, "Context({kind}: {})", self.caps().name)
    }
}

impl Context {
    /// The caller's wgpu device, created from `adapter` (request [`wanted_features`] and
    /// [`wanted_limits`] when creating it to get the fast kernels, and make the instance with
    /// [`instance_flags`]: wgpu's validation of indirect dispatches costs every pass after a
    /// prepare pass about 10 µs on the H100). Nothing is installed on it.
    ///
    /// [`wanted_features`]: crate::gpu::wanted_features
    /// [`wanted_limits`]: crate::gpu::wanted_limits
    /// [`instance_flags`]: crate::gpu::instance_flags
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    /// desc.flags = wgsimd::gpu::instance_flags(desc.flags);
    /// let instance = wgpu::Instance::new(desc);
    /// let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    /// let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
    ///     required_features: adapter.features() & wgsimd::gpu::wanted_features(),
    ///     required_limits: wgsimd::gpu::wanted_limits(&adapter),
    ///     ..Default::default()
    /// }))?;
    /// let ctx = wgsimd::Context::from_wgpu(&adapter, &device, &queue);
    /// println!("sorting with {:?}", wgsimd::sort::SortPolicy::default().choose(ctx.caps(), 1 << 20, true));
    /// # Ok(()) }
    /// ```
    pub fn from_wgpu(
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Context {
        Context::Gpu(Arc::new(GpuContext::from_wgpu(adapter, device, queue)))
    }

    /// A device wgsimd opens on the best adapter (`WGSIMD_ADAPTER` picks by name).
    pub fn open_gpu() -> Result<Context> {
        Ok(Context::Gpu(Arc::new(GpuContext::open()?)))
    }

    /// [`Context::open_gpu`] with the device's clock where the adapter has one
    /// ([`GpuContext::open_with_clock`]): kernels can time themselves (the work queue's
    /// latency).
    pub fn open_gpu_with_clock() -> Result<Context> {
        Ok(Context::Gpu(Arc::new(GpuContext::open_with_clock()?)))
    }

    /// The simulator with `config` (a device profile and its subgroup size).
    ///
    /// ```
    /// use wgsimd::{sim::SimConfig, Caps, Context};
    /// # fn main() -> wgsimd::Result<()> {
    /// let mut config = SimConfig::for_profile(Caps::apple_m());
    /// config.subgroup_size = 64; // any power of two in 4..=128
    /// config.shuffle_lanes = Some(1); // a lane layout that is not the identity
    /// let ctx = Context::simulator(config)?;
    /// assert_eq!(ctx.caps().subgroup_max, 64);
    /// # Ok(()) }
    /// ```
    pub fn simulator(config: SimConfig) -> Result<Context> {
        Ok(Context::Sim(Arc::new(Simulator::new(config)?)))
    }

    /// The same device made to run the workgroup-memory kernels (as a device without
    /// `Features::SUBGROUP`): the flavour adapters without subgroups get, on this one.
    pub fn without_subgroups(&self) -> Result<Context> {
        Ok(match self {
            Context::Gpu(g) => {
                Context::Gpu(Arc::new(g.with_caps(g.caps.clone().without_subgroups())))
            }
            Context::Sim(s) => {
                let mut config = s.config().clone();
                config.profile = config.profile.without_subgroups();
                Context::Sim(Arc::new(Simulator::new(config)?))
            }
        })
    }

    /// What the device can do.
    pub fn caps(&self) -> &Caps {
        match self {
            Context::Gpu(g) => &g.caps,
            Context::Sim(s) => s.caps(),
        }
    }

    /// Whether this is the simulator.
    pub fn is_simulator(&self) -> bool {
        matches!(self, Context::Sim(_))
    }

    /// The wgpu device, if this is one.
    pub fn gpu(&self) -> Option<&Arc<GpuContext>> {
        match self {
            Context::Gpu(g) => Some(g),
            Context::Sim(_) => None,
        }
    }

    /// The simulator, if this is one.
    pub fn sim(&self) -> Option<&Arc<Simulator>> {
        match self {
            Context::Sim(s) => Some(s),
            Context::Gpu(_) => None,
        }
    }

    /// Makes `plan` ready to record: its own buffers and pipelines are created now.
    pub fn prepare(&self, plan: Plan) -> Result<Prepared> {
        Ok(match self {
            Context::Gpu(g) => Prepared::Gpu(DevicePlan::new(g, plan)?),
            Context::Sim(s) => {
                // the stand-in for the device clock must never run (src/gpu/clock.rs)
                let clocked = plan.passes.iter().find(|p| asks_clock(&p.overrides));
                if let Some(p) = clocked {
                    return Err(missing_clock(&format!("pass {} on the simulator", p.label)));
                }
                Prepared::Sim(s.prepare(plan)?)
            }
        })
    }

    /// A new encoder for this device (the host-slice functions' and the tests' own recordings).
    pub fn encoder(&self) -> Encoder {
        match self {
            Context::Gpu(g) => Encoder::Gpu(g.device.create_command_encoder(
                &wgpu::CommandEncoderDescriptor {
                    label: Some("wgsimd"),
                },
            )),
            Context::Sim(_) => Encoder::Sim(sim::SimEncoder::new()),
        }
    }

    /// Submits `enc` and waits for it (the host-slice path; applications submit their own
    /// encoders). On the simulator the report carries the findings.
    pub fn submit(&self, enc: Encoder) -> Result<Report> {
        match (self, enc) {
            (Context::Gpu(g), Encoder::Gpu(e)) => {
                g.submit_and_wait(e)?;
                Ok(Report::default())
            }
            (Context::Sim(s), Encoder::Sim(e)) => s.submit(e),
            _ => Err(mixed()),
        }
    }

    /// A buffer holding `data` (padded with zeros to whole words, at least one), usable as a
    /// storage, uniform or indirect buffer and as a copy source and destination.
    pub fn upload<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> Result<Buffer> {
        match self {
            Context::Gpu(g) => {
                let mut bytes = bytemuck::cast_slice::<T, u8>(data).to_vec();
                bytes.resize(bytes.len().div_ceil(4).max(1) * 4, 0);
                let b = g.create_buffer(label, bytes.len() as u64, wgpu::BufferUsages::empty())?;
                g.upload(&b, 0, &bytes)?;
                Ok(Buffer::Gpu(b))
            }
            Context::Sim(s) => Ok(Buffer::Sim(s.upload(label, data))),
        }
    }

    /// A buffer of `bytes` zeros (rounded up to whole words).
    pub fn zeroed(&self, label: &str, bytes: u64) -> Result<Buffer> {
        match self {
            Context::Gpu(g) => {
                let b = g.create_buffer(label, bytes, wgpu::BufferUsages::empty())?;
                let mut enc = g.device.create_command_encoder(&Default::default());
                enc.clear_buffer(&b, 0, None);
                g.submit_and_wait(enc)?;
                Ok(Buffer::Gpu(b))
            }
            Context::Sim(s) => Ok(Buffer::Sim(s.zeroed(label, bytes))),
        }
    }

    /// A buffer of `bytes` (rounded up to whole words) whose contents are unspecified, made
    /// without submitting anything: scratch a recording makes for itself.
    pub(crate) fn scratch(&self, label: &str, bytes: u64) -> Result<Buffer> {
        match self {
            Context::Gpu(g) => Ok(Buffer::Gpu(g.create_buffer(
                label,
                bytes,
                wgpu::BufferUsages::empty(),
            )?)),
            Context::Sim(s) => Ok(Buffer::Sim(s.zeroed(label, bytes))),
        }
    }

    /// An output buffer of `bytes` (rounded up to whole words) filled with
    /// [`POISON_WORD`], so a word no pass writes shows; on the simulator such words are
    /// `unwritten-output` findings of the next submission.
    pub fn uninit(&self, label: &str, bytes: u64) -> Result<Buffer> {
        match self {
            Context::Gpu(_) => {
                let words = bytes.div_ceil(4).max(1) as usize;
                self.upload(label, &vec![POISON_WORD; words])
            }
            Context::Sim(s) => Ok(Buffer::Sim(s.uninit(label, bytes))),
        }
    }

    /// The contents of `buf` as `T`s, once the work submitted before has run.
    pub fn read<T: bytemuck::Pod>(&self, buf: &Buffer) -> Result<Vec<T>> {
        match (self, buf) {
            (Context::Gpu(g), Buffer::Gpu(b)) => {
                let bytes = g.download(b, 0, b.size())?;
                Ok(bytemuck::pod_collect_to_vec(&bytes))
            }
            (Context::Sim(_), Buffer::Sim(b)) => Ok(b.read()),
            _ => Err(mixed()),
        }
    }

    /// The contents of the range `buf` as `T`s, once the work submitted before has run.
    pub fn read_ref<T: bytemuck::Pod>(&self, buf: &BufferRef) -> Result<Vec<T>> {
        match (self, buf) {
            (Context::Gpu(g), BufferRef::Gpu(s)) => {
                let bytes = g.download(s.buffer, s.offset, s.len())?;
                Ok(bytemuck::pod_collect_to_vec(&bytes))
            }
            (Context::Sim(_), BufferRef::Sim(s)) => {
                let words: Vec<u32> = s.buffer.read();
                let (first, n) = ((s.offset / 4) as usize, (s.len() / 4) as usize);
                Ok(bytemuck::pod_collect_to_vec(&words[first..first + n]))
            }
            _ => Err(mixed()),
        }
    }

    /// Writes `bytes` (whole words) into `dst` at its offset through the queue: on a device they
    /// land before the commands of the next submission, on the simulator likewise.
    pub fn write_buffer(&self, dst: &BufferRef, bytes: &[u8]) -> Result<()> {
        match (self, dst) {
            (Context::Gpu(g), BufferRef::Gpu(s)) => {
                g.queue.write_buffer(s.buffer, s.offset, bytes);
                Ok(())
            }
            (Context::Sim(sim), BufferRef::Sim(s)) => sim.write_buffer(s.buffer, s.offset, bytes),
            _ => Err(mixed()),
        }
    }
}

fn mixed() -> Error {
    Error::InvalidInput(
        "a GPU buffer or encoder was given to the simulator, or a simulator one to a GPU".into(),
    )
}

/// A buffer of either device, owned.
#[derive(Clone, Debug)]
pub enum Buffer {
    /// A wgpu buffer.
    Gpu(wgpu::Buffer),
    /// A simulator buffer.
    Sim(sim::SimBuffer),
}

impl Buffer {
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        match self {
            Buffer::Gpu(b) => b.size(),
            Buffer::Sim(b) => b.size(),
        }
    }

    /// The whole buffer, to record with.
    pub fn as_ref(&self) -> BufferRef<'_> {
        self.into()
    }

    /// `size` bytes from byte `offset`.
    pub fn slice(&self, offset: u64, size: u64) -> BufferRef<'_> {
        BufferRef::from(self).range(offset, size)
    }
}

/// A byte range of a buffer of either device, as the recording calls take it.
#[derive(Clone, Copy, Debug)]
pub enum BufferRef<'a> {
    /// Of a wgpu buffer.
    Gpu(GpuSlice<'a>),
    /// Of a simulator buffer.
    Sim(SimSlice<'a>),
}

impl<'a> BufferRef<'a> {
    /// Bytes from the offset to the end of the range.
    pub fn len(&self) -> u64 {
        match self {
            BufferRef::Gpu(s) => s.len(),
            BufferRef::Sim(s) => s.len(),
        }
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the whole buffer the range is of.
    pub fn buffer_size(&self) -> u64 {
        match self {
            BufferRef::Gpu(s) => s.buffer.size(),
            BufferRef::Sim(s) => s.buffer.size(),
        }
    }

    /// The first byte.
    pub fn offset(&self) -> u64 {
        match self {
            BufferRef::Gpu(s) => s.offset,
            BufferRef::Sim(s) => s.offset,
        }
    }

    /// Whether the range lies inside its buffer.
    pub fn inside(&self) -> bool {
        self.offset()
            .checked_add(self.len())
            .is_some_and(|e| e <= self.buffer_size())
    }

    /// Whether `other` is a range of the same buffer.
    pub fn same_buffer(&self, other: &BufferRef) -> bool {
        match (self, other) {
            (BufferRef::Gpu(a), BufferRef::Gpu(b)) => a.buffer == b.buffer,
            (BufferRef::Sim(a), BufferRef::Sim(b)) => a.buffer.same(b.buffer),
            _ => false,
        }
    }

    /// Whether this range and `other` share a byte of one buffer.
    pub fn overlaps(&self, other: &BufferRef) -> bool {
        let (a, b) = (self.offset(), other.offset());
        self.same_buffer(other) && a < b + other.len() && b < a + self.len()
    }

    /// The range in words for a message: its bytes, its buffer's size, and the buffer's label
    /// where the device keeps one (wgpu does not give a buffer's label back).
    pub fn describe(&self) -> String {
        let (o, e) = (self.offset(), self.offset() + self.len());
        match self {
            BufferRef::Gpu(s) => format!("bytes {o}..{e} of a {}-byte buffer", s.buffer.size()),
            BufferRef::Sim(s) => format!(
                "bytes {o}..{e} of `{}` ({} bytes)",
                s.buffer.label(),
                s.buffer.size()
            ),
        }
    }

    /// The bytes from byte `offset` of this range to its end.
    pub fn range_from(self, offset: u64) -> BufferRef<'a> {
        let len = self.len().saturating_sub(offset);
        self.range(offset.min(self.len()), len)
    }

    /// `size` bytes from byte `offset` of this range.
    pub fn range(self, offset: u64, size: u64) -> BufferRef<'a> {
        match self {
            BufferRef::Gpu(s) => BufferRef::Gpu(GpuSlice {
                buffer: s.buffer,
                offset: s.offset + offset,
                size: Some(size),
            }),
            BufferRef::Sim(s) => BufferRef::Sim(SimSlice {
                buffer: s.buffer,
                offset: s.offset + offset,
                size: Some(size),
            }),
        }
    }
}

impl<'a> From<&'a wgpu::Buffer> for BufferRef<'a> {
    fn from(buffer: &'a wgpu::Buffer) -> Self {
        BufferRef::Gpu(GpuSlice {
            buffer,
            offset: 0,
            size: None,
        })
    }
}

impl<'a> From<wgpu::BufferSlice<'a>> for BufferRef<'a> {
    fn from(s: wgpu::BufferSlice<'a>) -> Self {
        BufferRef::Gpu(GpuSlice {
            buffer: s.buffer(),
            offset: s.offset(),
            size: Some(s.size()),
        })
    }
}

impl<'a> From<&'a sim::SimBuffer> for BufferRef<'a> {
    fn from(buffer: &'a sim::SimBuffer) -> Self {
        BufferRef::Sim(SimSlice {
            buffer,
            offset: 0,
            size: None,
        })
    }
}

impl<'a> From<&'a Buffer> for BufferRef<'a> {
    fn from(b: &'a Buffer) -> Self {
        match b {
            Buffer::Gpu(b) => b.into(),
            Buffer::Sim(b) => b.into(),
        }
    }
}

/// An encoder of either device, owned (the host-slice functions' and the tests' recordings).
pub enum Encoder {
    /// A wgpu command encoder.
    Gpu(wgpu::CommandEncoder),
    /// A simulator encoder.
    Sim(sim::SimEncoder),
}

/// An encoder of either device, as the recording calls take it.
pub enum EncoderRef<'a> {
    /// A wgpu command encoder.
    Gpu(&'a mut wgpu::CommandEncoder),
    /// A simulator encoder.
    Sim(&'a mut sim::SimEncoder),
}

impl<'a> From<&'a mut wgpu::CommandEncoder> for EncoderRef<'a> {
    fn from(e: &'a mut wgpu::CommandEncoder) -> Self {
        EncoderRef::Gpu(e)
    }
}

impl<'a> From<&'a mut sim::SimEncoder> for EncoderRef<'a> {
    fn from(e: &'a mut sim::SimEncoder) -> Self {
        EncoderRef::Sim(e)
    }
}

impl<'a> From<&'a mut Encoder> for EncoderRef<'a> {
    fn from(e: &'a mut Encoder) -> Self {
        match e {
            Encoder::Gpu(e) => EncoderRef::Gpu(e),
            Encoder::Sim(e) => EncoderRef::Sim(e),
        }
    }
}

impl EncoderRef<'_> {
    /// Re-borrows, for recording several things in one encoder.
    pub fn reborrow(&mut self) -> EncoderRef<'_> {
        match self {
            EncoderRef::Gpu(e) => EncoderRef::Gpu(e),
            EncoderRef::Sim(e) => EncoderRef::Sim(e),
        }
    }

    /// Checks what [`EncoderRef::copy`] checks, recording nothing.
    pub fn check_copy(&self, src: &BufferRef, dst: &BufferRef, size: u64) -> Result<()> {
        if !size.is_multiple_of(4)
            || !src.offset().is_multiple_of(4)
            || !dst.offset().is_multiple_of(4)
        {
            return Err(Error::InvalidInput(format!(
                "a copy of {size} bytes from byte {} to byte {}: offsets and size must be \
                 multiples of 4",
                src.offset(),
                dst.offset()
            )));
        }
        if src.len() < size || dst.len() < size || !src.inside() || !dst.inside() {
            return Err(Error::InvalidInput(format!(
                "a copy of {size} bytes from {} to {}: a range is shorter or lies past the \
                 end of its buffer",
                src.describe(),
                dst.describe()
            )));
        }
        match (self, src, dst) {
            (EncoderRef::Gpu(_), BufferRef::Gpu(_), BufferRef::Gpu(_)) => {
                for (b, usage, role) in [
                    (src, wgpu::BufferUsages::COPY_SRC, "source"),
                    (dst, wgpu::BufferUsages::COPY_DST, "destination"),
                ] {
                    check_usage(b, usage, &format!("a buffer copy's {role}"), || {
                        b.describe()
                    })?;
                }
                Ok(())
            }
            (EncoderRef::Sim(_), BufferRef::Sim(_), BufferRef::Sim(_)) => Ok(()),
            _ => Err(mixed()),
        }
    }

    /// Copies `size` bytes (whole words) from the start of `src` to the start of `dst`; both
    /// ranges must hold them, `src` needs `COPY_SRC` and `dst` `COPY_DST` (checked here, so
    /// nothing invalid reaches the caller's encoder).
    pub fn copy(&mut self, src: &BufferRef, dst: &BufferRef, size: u64) -> Result<()> {
        self.check_copy(src, dst, size)?;
        match (self, src, dst) {
            (EncoderRef::Gpu(e), BufferRef::Gpu(s), BufferRef::Gpu(d)) => {
                e.copy_buffer_to_buffer(s.buffer, s.offset, d.buffer, d.offset, size);
                Ok(())
            }
            (EncoderRef::Sim(e), BufferRef::Sim(s), BufferRef::Sim(d)) => {
                e.copy_buffer_to_buffer(s.buffer, s.offset, d.buffer, d.offset, size)
            }
            _ => Err(mixed()),
        }
    }

    /// Keeps `what` until the work recorded in this encoder has run on the device (or the
    /// encoder is dropped without being submitted): a wgpu encoder drops it in its
    /// submitted-work-done callback, a simulator encoder when it is submitted.
    pub(crate) fn hold(&mut self, what: impl Send + 'static) {
        match self {
            EncoderRef::Gpu(e) => e.on_submitted_work_done(move || drop(what)),
            EncoderRef::Sim(e) => e.hold(Box::new(what)),
        }
    }
}

/// `Error::BufferUsage` where the range `b` of a wgpu buffer lacks `usage` (what `name` says
/// it is for a message); a simulator buffer has every usage.
pub(crate) fn check_usage(
    b: &BufferRef,
    usage: wgpu::BufferUsages,
    needed_for: &str,
    name: impl FnOnce() -> String,
) -> Result<()> {
    match b {
        BufferRef::Gpu(s) if !s.buffer.usage().contains(usage) => Err(Error::BufferUsage {
            buffer: name(),
            usage: usage_name(usage),
            needed_for: needed_for.to_string(),
        }),
        _ => Ok(()),
    }
}

fn usage_name(usage: wgpu::BufferUsages) -> &'static str {
    match usage {
        wgpu::BufferUsages::COPY_SRC => "COPY_SRC",
        wgpu::BufferUsages::COPY_DST => "COPY_DST",
        wgpu::BufferUsages::STORAGE => "STORAGE",
        wgpu::BufferUsages::INDIRECT => "INDIRECT",
        _ => "a usage",
    }
}

/// A plan ready to record on either device.
pub enum Prepared {
    /// On a wgpu device.
    Gpu(DevicePlan),
    /// On the simulator.
    Sim(SimPlan),
}

impl Prepared {
    /// The plan.
    pub fn plan(&self) -> &Plan {
        match self {
            Prepared::Gpu(p) => p.plan(),
            Prepared::Sim(p) => p.plan(),
        }
    }

    /// The caps of the device it was prepared on.
    pub fn caps(&self) -> &Caps {
        match self {
            Prepared::Gpu(p) => p.caps(),
            Prepared::Sim(p) => p.caps(),
        }
    }

    /// The plan's own buffer `id`, whole.
    pub fn own(&self, id: BufferId) -> Option<BufferRef<'_>> {
        match self {
            Prepared::Gpu(p) => p.buffer(id).map(BufferRef::from),
            Prepared::Sim(p) => p.buffer(id).map(BufferRef::from),
        }
    }

    /// Records the plan into `enc` with its `Arg` buffers bound to `args`; with `stamps` (a
    /// device only), pass i writes timestamps `first + 2i` and `first + 2i + 1`.
    pub fn record(
        &self,
        enc: EncoderRef,
        args: &[(BufferId, BufferRef)],
        stamps: Option<Timestamps>,
    ) -> Result<()> {
        self.record_run(enc, args, stamps, &RunSpec::default(), None, &[])
    }

    /// [`Prepared::record`] as `run` says (which copy of the slotted buffers, which passes,
    /// which grids), after `copy_in` (a GPU count copied into its control block) and `pre`
    /// (copies between the caller's ranges: a scan's input into the copy it reads in place).
    /// The caller's buffers are checked first, the same way on every device (`check_args`),
    /// and nothing reaches `enc` unless every check passes.
    /// Checks `args` as every recording does (`check_args`), recording nothing.
    pub(crate) fn check(&self, args: &[(BufferId, BufferRef)], run: &RunSpec) -> Result<()> {
        check_args(self.plan(), self.caps(), args, run)
    }

    pub(crate) fn record_run(
        &self,
        enc: EncoderRef,
        args: &[(BufferId, BufferRef)],
        stamps: Option<Timestamps>,
        run: &RunSpec,
        copy_in: Option<(BufferRef, BufferId, u64, u64)>,
        pre: &[(BufferRef, BufferRef, u64)],
    ) -> Result<()> {
        check_args(self.plan(), self.caps(), args, run)?;
        for (src, dst, size) in pre {
            enc.check_copy(src, dst, *size)?;
        }
        match (self, enc) {
            (Prepared::Gpu(p), EncoderRef::Gpu(e)) => {
                let args: Vec<(BufferId, GpuSlice)> = args
                    .iter()
                    .map(|(id, b)| match b {
                        BufferRef::Gpu(s) => Ok((*id, *s)),
                        BufferRef::Sim(_) => Err(mixed()),
                    })
                    .collect::<Result<_>>()?;
                let copy_in = match copy_in {
                    Some((BufferRef::Gpu(src), dst, at, size)) => {
                        Some(CopyIn { src, dst, at, size })
                    }
                    Some(_) => return Err(mixed()),
                    None => None,
                };
                let pre: Vec<(GpuSlice, GpuSlice, u64)> = pre
                    .iter()
                    .map(|c| match c {
                        (BufferRef::Gpu(s), BufferRef::Gpu(d), n) => Ok((*s, *d, *n)),
                        _ => Err(mixed()),
                    })
                    .collect::<Result<_>>()?;
                p.record(e, &args, stamps, run, copy_in, &pre)
            }
            (Prepared::Sim(p), EncoderRef::Sim(e)) => {
                let args: Vec<(BufferId, SimSlice)> = args
                    .iter()
                    .map(|(id, b)| match b {
                        BufferRef::Sim(s) => Ok((*id, *s)),
                        BufferRef::Gpu(_) => Err(mixed()),
                    })
                    .collect::<Result<_>>()?;
                let copy_in = match copy_in {
                    Some((BufferRef::Sim(src), dst, at, size)) => {
                        Some(SimCopyIn { src, dst, at, size })
                    }
                    Some(_) => return Err(mixed()),
                    None => None,
                };
                let pre: Vec<(SimSlice, SimSlice, u64)> = pre
                    .iter()
                    .map(|c| match c {
                        (BufferRef::Sim(s), BufferRef::Sim(d), n) => Ok((*s, *d, *n)),
                        _ => Err(mixed()),
                    })
                    .collect::<Result<_>>()?;
                e.record_after(p, &args, run, copy_in, &pre)
            }
            _ => Err(mixed()),
        }
    }
}

/// Checks the caller's buffers against `plan` the same way on every device: each `Arg` buffer
/// given, bound at an offset aligned for binding, inside its buffer, at least a word; no
/// buffer bound read-only and read-write in one dispatch (WebGPU's usage rule, which wgpu
/// enforces at submission and the simulator here); no range a pass writes overlapping another.
fn check_args(
    plan: &Plan,
    caps: &Caps,
    args: &[(BufferId, BufferRef)],
    run: &RunSpec,
) -> Result<()> {
    let align = binding_alignment(caps);
    let label = |id: BufferId| plan.buffers[id.0].label.as_str();
    for (i, b) in plan.buffers.iter().enumerate() {
        if b.init != BufferInit::Arg {
            continue;
        }
        let Some((_, s)) = args.iter().find(|(id, _)| id.0 == i) else {
            return Err(Error::InvalidInput(format!(
                "no buffer given for `{}`",
                b.label
            )));
        };
        if s.offset() % align != 0 {
            return Err(Error::InvalidInput(format!(
                "`{}` is bound at byte offset {}, which is not a multiple of {align} (the \
                 device's min_storage_buffer_offset_alignment, and 16)",
                b.label,
                s.offset()
            )));
        }
        if !s.inside() {
            return Err(Error::InvalidInput(format!(
                "`{}`: {} lie past the end of its buffer",
                b.label,
                s.describe()
            )));
        }
        if s.len() < 4 || s.len() % 4 != 0 {
            return Err(Error::InvalidInput(format!(
                "`{}` needs whole words, at least one; got {}",
                b.label,
                s.describe()
            )));
        }
        check_usage(
            s,
            wgpu::BufferUsages::STORAGE,
            &format!("binding it in {}", plan.label),
            || format!("`{}` ({})", b.label, s.describe()),
        )?;
    }
    // a pass dispatched from a buffer it writes (WebGPU's usage rule again)
    for (i, p) in plan.passes.iter().enumerate() {
        if let Workgroups::Indirect { buffer, .. } = p.workgroups {
            if run.runs(p) && run.grid(i).is_none() && p.binds_read_write(buffer) {
                return Err(Error::Plan(format!(
                    "pass {} is dispatched from arguments in `{}`, which it binds read-write",
                    p.label,
                    label(buffer)
                )));
            }
        }
    }
    // how each pass that runs binds the caller's buffers
    let mut written = vec![false; args.len()];
    for p in plan.passes.iter().filter(|p| run.runs(p)) {
        let Some(entry) = p.kernel.entry(&p.entry) else {
            continue;
        };
        let mut uses: Vec<(usize, bool)> = Vec::new();
        for b in &p.bindings {
            let Some(a) = args.iter().position(|(id, _)| *id == b.buffer) else {
                continue;
            };
            let Some(r) = entry
                .bindings
                .iter()
                .find(|r| (r.group, r.binding) == (b.group, b.binding))
            else {
                continue;
            };
            let writes = r.kind == BindingKind::StorageReadWrite;
            written[a] |= writes;
            uses.push((a, writes));
        }
        for &(a, wa) in &uses {
            for &(b, wb) in &uses {
                if wa && !wb && args[a].1.same_buffer(&args[b].1) {
                    return Err(Error::InvalidInput(format!(
                        "`{}` and `{}` lie in one buffer, which pass `{}` would bind \
                         read-write and read-only at once (WebGPU forbids it within one \
                         dispatch); give them separate buffers",
                        label(args[a].0),
                        label(args[b].0),
                        p.label
                    )));
                }
            }
        }
    }
    for (i, (ia, a)) in args.iter().enumerate() {
        for (ib, b) in &args[i + 1..] {
            let j = args.iter().position(|(id, _)| id == ib).unwrap_or(i);
            if (written[i] || written[j]) && a.overlaps(b) {
                return Err(Error::InvalidInput(format!(
                    "`{}` ({}) and `{}` ({}) overlap, and {} writes {}",
                    label(*ia),
                    a.describe(),
                    label(*ib),
                    b.describe(),
                    plan.label,
                    if written[i] { label(*ia) } else { label(*ib) }
                )));
            }
        }
    }
    Ok(())
}
/// The alignment of byte offsets at which the caller's buffers may be bound: the device's
/// `min_storage_buffer_offset_alignment`, and 16 (the kernels read vec4s).
pub fn binding_alignment(caps: &Caps) -> u64 {
    caps.storage_offset_alignment.max(16)
}
