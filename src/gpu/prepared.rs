//! A plan made ready to record on a device: its own buffers created once, its pipelines
//! compiled once, and bind groups made on the first recording with each set of the caller's
//! buffers and reused afterwards.
//!
//! Rules:
//! - **Recording allocates nothing on the device** after the first recording with the same
//!   caller buffers: no buffer, no bind group, no pipeline. It submits nothing and polls nothing.
//! - The passes are the dispatches of one compute pass; wgpu orders them (a dispatch sees
//!   everything the dispatches before it wrote). With per-pass timestamps each is its own
//!   compute pass, so a pair of timestamps can bracket each one.
//! - The caller's buffers are checked before anything is recorded: usage, size, offset
//!   alignment; a bad one is an [`Error::InvalidInput`] naming the binding and what it needs.

use std::collections::VecDeque;
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};

use super::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::BindingKind;
use crate::plan::{BufferId, BufferInit, Plan, RunSpec, Workgroups};

/// A byte range of a wgpu buffer: `size` bytes from `offset` (`None`: to the end).
#[derive(Clone, Copy, Debug)]
pub struct GpuSlice<'a> {
    /// The buffer.
    pub buffer: &'a wgpu::Buffer,
    /// First byte.
    pub offset: u64,
    /// Bytes; `None`: to the end of the buffer.
    pub size: Option<u64>,
}

impl GpuSlice<'_> {
    /// Bytes from the offset to the end of the range.
    pub fn len(&self) -> u64 {
        self.size
            .unwrap_or_else(|| self.buffer.size().saturating_sub(self.offset))
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a recording writes timestamps: from index `first` of `set`, two per pass (the start
/// and the end of each, in plan order), or with `whole` two in all (the start of the first pass
/// and the end of the last).
#[derive(Clone, Copy, Debug)]
pub struct Timestamps<'a> {
    /// A query set of `QueryType::Timestamp`.
    pub set: &'a wgpu::QuerySet,
    /// The first index written.
    pub first: u32,
    /// Two timestamps for the whole recording instead of two per pass (the per-pass ones and
    /// the barriers they bring cost a tiny pass about 13 µs on the H100).
    pub whole: bool,
}

/// The caller's buffers of one recording, as the bind-group cache keys them.
type ArgKey = Vec<(usize, wgpu::Buffer, u64, u64)>;

/// Each pass's bind group for one set of the caller's buffers (`None`: the pass binds nothing).
type PassGroups = Arc<Vec<Option<wgpu::BindGroup>>>;

/// Bind groups kept per plan: the sets of caller buffers most recently recorded with.
const BIND_GROUP_SETS: usize = 16;

/// A plan ready to record (see the module docs).
pub struct DevicePlan {
    ctx: Arc<GpuContext>,
    plan: Plan,
    buffers: Vec<Option<wgpu::Buffer>>,
    pipelines: Vec<Arc<wgpu::ComputePipeline>>,
    /// Per pass, the bindings of slotted buffers (dynamic offsets), by binding number.
    dynamic: Vec<Vec<(u32, BufferId)>>,
    bind_groups: Mutex<VecDeque<(ArgKey, PassGroups)>>,
    /// Bound where a caller's range holds no whole element of a binding's array (a vec4 view
    /// of a 3-word input, whose words another binding reads): no invocation touches them. One
    /// for read-only bindings, one for read-write ones (a dispatch may not use one buffer both
    /// ways).
    fillers: [wgpu::Buffer; 2],
}

/// Bytes of [`DevicePlan`]'s filler: the largest array stride a kernel binds.
const FILLER_BYTES: u64 = 256;

impl DevicePlan {
    /// Creates the plan's own buffers (with their initial contents, written through the queue)
    /// and its pipelines.
    pub fn new(ctx: &Arc<GpuContext>, plan: Plan) -> Result<DevicePlan> {
        plan.validate()?;
        // one bind group per pass (the shipped kernels bind everything in group 0); the
        // simulator runs any group
        for p in &plan.passes {
            if let Some(b) = p.bindings.iter().find(|b| b.group != 0) {
                return Err(Error::Plan(format!(
                    "pass {}: `{}` is in @group({}); the GPU backend binds @group(0) only",
                    p.label, b.name, b.group
                )));
            }
            if p.immediates.is_some() {
                return Err(Error::Plan(format!(
                    "pass {}: immediate data runs on the simulator only",
                    p.label
                )));
            }
        }
        if let Some(b) = plan.buffers.iter().find(|b| b.texture.is_some()) {
            return Err(Error::Plan(format!(
                "texture {}: textures run on the simulator only",
                b.label
            )));
        }
        let caps = &ctx.caps;
        let mut buffers = Vec::with_capacity(plan.buffers.len());
        for b in &plan.buffers {
            if b.init == BufferInit::Arg {
                buffers.push(None);
                continue;
            }
            if b.allocated() > caps.max_buffer {
                return Err(Error::TooLarge(format!(
                    "buffer {} needs {} bytes; the device's largest buffer is {}",
                    b.label,
                    b.allocated(),
                    caps.max_buffer
                )));
            }
            let buf = ctx.create_buffer(&b.label, b.allocated(), wgpu::BufferUsages::empty())?;
            if let BufferInit::Bytes(bytes) = &b.init {
                let mut padded = bytes.clone();
                padded.resize(bytes.len().div_ceil(4) * 4, 0);
                if !padded.is_empty() {
                    ctx.queue.write_buffer(&buf, 0, &padded);
                }
            }
            buffers.push(Some(buf));
        }
        let dynamic: Vec<Vec<(u32, BufferId)>> = plan
            .passes
            .iter()
            .map(|p| {
                let used = p.kernel.entry(&p.entry);
                let mut d: Vec<(u32, BufferId)> = p
                    .bindings
                    .iter()
                    .filter(|b| plan.buffers[b.buffer.0].slots > 1)
                    .filter(|b| {
                        used.is_some_and(|e| {
                            e.bindings
                                .iter()
                                .any(|u| (u.group, u.binding) == (b.group, b.binding))
                        })
                    })
                    .map(|b| (b.binding, b.buffer))
                    .collect();
                d.sort();
                d
            })
            .collect();
        let pipelines = plan
            .passes
            .iter()
            .zip(&dynamic)
            .map(|(p, d)| {
                let numbers: Vec<u32> = d.iter().map(|(n, _)| *n).collect();
                ctx.pipeline(&p.kernel, &p.entry, &p.overrides, &numbers)
            })
            .collect::<Result<Vec<_>>>()?;
        let filler = |label| ctx.create_buffer(label, FILLER_BYTES, wgpu::BufferUsages::empty());
        let fillers = [filler("filler (read)")?, filler("filler (read-write)")?];
        Ok(DevicePlan {
            ctx: ctx.clone(),
            plan,
            buffers,
            pipelines,
            dynamic,
            bind_groups: Mutex::new(VecDeque::new()),
            fillers,
        })
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The device's caps.
    pub fn caps(&self) -> &crate::device::Caps {
        &self.ctx.caps
    }

    /// The plan's own buffer `id` (`None` for the caller's).
    pub fn buffer(&self, id: BufferId) -> Option<&wgpu::Buffer> {
        self.buffers.get(id.0)?.as_ref()
    }

    /// Checks the usages of the caller's buffers (the rest is checked for every device by
    /// `context::check_args`).
    fn check_args(&self, args: &[(BufferId, GpuSlice)]) -> Result<()> {
        for (i, b) in self.plan.buffers.iter().enumerate() {
            if b.init != BufferInit::Arg {
                continue;
            }
            let Some((_, s)) = args.iter().find(|(id, _)| id.0 == i) else {
                return Err(Error::InvalidInput(format!(
                    "no buffer given for `{}`",
                    b.label
                )));
            };
            let usage = s.buffer.usage();
            if !usage.contains(wgpu::BufferUsages::STORAGE) {
                return Err(Error::BufferUsage {
                    buffer: b.label.clone(),
                    usage: "STORAGE",
                    needed_for: format!("binding it in {}", self.plan.label),
                });
            }
            let indirect = self.plan.passes.iter().any(
                |p| matches!(p.workgroups, Workgroups::Indirect { buffer, .. } if buffer.0 == i),
            );
            if indirect && !usage.contains(wgpu::BufferUsages::INDIRECT) {
                return Err(Error::BufferUsage {
                    buffer: b.label.clone(),
                    usage: "INDIRECT",
                    needed_for: format!("the dispatch arguments of {}", self.plan.label),
                });
            }
        }
        Ok(())
    }

    /// The bind groups of every pass for these caller buffers (made now, or cached).
    fn bind_groups(&self, args: &[(BufferId, GpuSlice)]) -> Result<PassGroups> {
        let key: ArgKey = args
            .iter()
            .map(|(id, s)| (id.0, s.buffer.clone(), s.offset, s.len()))
            .collect();
        let mut cache = self.bind_groups.lock().unwrap();
        if let Some((_, groups)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(groups.clone());
        }
        let mut groups = Vec::with_capacity(self.plan.passes.len());
        for (p, pipeline) in self.plan.passes.iter().zip(&self.pipelines) {
            let used = p
                .kernel
                .entry(&p.entry)
                .map(|e| e.bindings.clone())
                .unwrap_or_default();
            let mut entries = Vec::new();
            for b in &p.bindings {
                let Some(reflected) = used
                    .iter()
                    .find(|u| (u.group, u.binding) == (b.group, b.binding))
                else {
                    continue;
                };
                let decl = &self.plan.buffers[b.buffer.0];
                let (buffer, offset, size) = match &self.buffers[b.buffer.0] {
                    // one copy of a slotted buffer (a dynamic offset picks which)
                    Some(own) if decl.slots > 1 => {
                        (own, b.offset, Some(b.size.unwrap_or(decl.size - b.offset)))
                    }
                    Some(own) => (own, b.offset, b.size),
                    None => {
                        let s = &args
                            .iter()
                            .find(|(id, _)| *id == b.buffer)
                            .expect("checked by check_args")
                            .1;
                        // what the caller's range holds past the plan's offset, in whole array
                        // elements (a range that holds none, of a chunk the count leaves empty
                        // or a vec4 view of a shorter input, binds the filler: no invocation
                        // reads it)
                        let avail = s.len().saturating_sub(b.offset);
                        let size = crate::plan::arg_binding_bytes(avail, b.size, reflected.shape);
                        if size == 0 {
                            let (fixed, stride) = reflected.shape;
                            let one = fixed as u64 + (stride as u64).max(4);
                            if one > FILLER_BYTES {
                                return Err(Error::Plan(format!(
                                    "pass {}: binding `{}` needs {one} bytes for one element",
                                    p.label, reflected.name
                                )));
                            }
                            let write = reflected.kind == BindingKind::StorageReadWrite;
                            (&self.fillers[write as usize], 0, Some(one))
                        } else {
                            (s.buffer, s.offset + b.offset, Some(size))
                        }
                    }
                };
                entries.push(wgpu::BindGroupEntry {
                    binding: b.binding,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: size.and_then(NonZeroU64::new),
                    }),
                });
            }
            groups.push(if entries.is_empty() {
                None
            } else {
                self.ctx
                    .created
                    .bind_groups
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Some(self.ctx.scoped(|| {
                    self.ctx
                        .device
                        .create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some(&p.label),
                            layout: &pipeline.get_bind_group_layout(0),
                            entries: &entries,
                        })
                })?)
            });
        }
        let groups = Arc::new(groups);
        if cache.len() == BIND_GROUP_SETS {
            cache.pop_front();
        }
        cache.push_back((key, groups.clone()));
        Ok(groups)
    }

    /// Records every pass into `enc` as `run` says, the plan's `Arg` buffers bound to `args`,
    /// after `pre` (copies between the caller's ranges, checked by the caller) and `copy_in` (a
    /// caller's range copied into one of the plan's buffers: a GPU count into its control
    /// block). With `stamps`, pass i writes timestamps `first + 2i` (start)
    /// and `first + 2i + 1` (end) (a pass `run` skips writes them around an empty compute
    /// pass). Without per-pass stamps every pass is one dispatch of a single compute pass.
    /// Everything that can fail is checked before the first command reaches `enc`.
    pub fn record(
        &self,
        enc: &mut wgpu::CommandEncoder,
        args: &[(BufferId, GpuSlice)],
        stamps: Option<Timestamps>,
        run: &RunSpec,
        copy_in: Option<CopyIn>,
        pre: &[(GpuSlice, GpuSlice, u64)],
    ) -> Result<()> {
        self.check_args(args)?;
        let max = self.ctx.caps.max_workgroups_per_dim;
        for (i, p) in self.plan.passes.iter().enumerate() {
            let grid = match p.workgroups {
                Workgroups::Direct(g) => Some(g),
                Workgroups::Indirect { .. } => run.grid(i),
            };
            if let Some([x, y, z]) = grid {
                if x > max || y > max || z > max {
                    return Err(Error::Plan(format!(
                        "pass {}: {x}x{y}x{z} workgroups exceed the limit {max} per dimension",
                        p.label
                    )));
                }
            }
        }
        // the run's copy of every slotted buffer exists
        for (i, b) in self.plan.buffers.iter().enumerate() {
            if b.slots > 1 {
                self.slot_offset(BufferId(i), run.slot)?;
            }
        }
        // every dynamic offset this run binds
        let offsets: Vec<Vec<u32>> = self
            .dynamic
            .iter()
            .map(|d| {
                d.iter()
                    .map(|(_, id)| self.slot_offset(*id, run.slot))
                    .collect()
            })
            .collect::<Result<_>>()?;
        let copy = match copy_in {
            Some(c) => {
                let dst = self.buffers[c.dst.0].as_ref().ok_or_else(|| {
                    Error::Plan(format!(
                        "a copy into the caller's `{}`",
                        self.plan.buffers[c.dst.0].label
                    ))
                })?;
                Some((
                    c.src,
                    dst,
                    self.slot_offset(c.dst, run.slot)? as u64 + c.at,
                    c.size,
                ))
            }
            None => None,
        };
        let groups = self.bind_groups(args)?;
        for (s, d, size) in pre {
            enc.copy_buffer_to_buffer(s.buffer, s.offset, d.buffer, d.offset, *size);
        }
        if let Some((src, dst, at, size)) = copy {
            enc.copy_buffer_to_buffer(src.buffer, src.offset, dst, at, size);
        }
        match stamps {
            Some(s) if !s.whole => {
                for (i, p) in self.plan.passes.iter().enumerate() {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(&p.label),
                        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                            query_set: s.set,
                            beginning_of_pass_write_index: Some(s.first + 2 * i as u32),
                            end_of_pass_write_index: Some(s.first + 2 * i as u32 + 1),
                        }),
                    });
                    if run.runs(p) {
                        self.dispatch(&mut pass, i, &groups, &offsets[i], args, run);
                    }
                }
            }
            _ => {
                let runs: Vec<usize> = (0..self.plan.passes.len())
                    .filter(|&i| run.runs(&self.plan.passes[i]))
                    .collect();
                if runs.is_empty() {
                    return Ok(());
                }
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(&self.plan.passes[runs[0]].label),
                    timestamp_writes: stamps.map(|s| wgpu::ComputePassTimestampWrites {
                        query_set: s.set,
                        beginning_of_pass_write_index: Some(s.first),
                        end_of_pass_write_index: Some(s.first + 1),
                    }),
                });
                for &i in &runs {
                    self.dispatch(&mut pass, i, &groups, &offsets[i], args, run);
                }
            }
        }
        Ok(())
    }

    /// Records pass `i`'s dispatch into `pass`, its slotted buffers at `offsets`.
    fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass,
        i: usize,
        groups: &[Option<wgpu::BindGroup>],
        offsets: &[u32],
        args: &[(BufferId, GpuSlice)],
        run: &RunSpec,
    ) {
        let p = &self.plan.passes[i];
        pass.set_pipeline(&self.pipelines[i]);
        if let Some(g) = &groups[i] {
            pass.set_bind_group(0, g, offsets);
        }
        match (p.workgroups, run.grid(i)) {
            (Workgroups::Direct([x, y, z]), _) => pass.dispatch_workgroups(x, y, z),
            // a grid the host computed for this count: a direct dispatch, which does not
            // wait for the prepare pass's arguments to reach the command processor
            (Workgroups::Indirect { .. }, Some([x, y, z])) => {
                if x > 0 && y > 0 && z > 0 {
                    pass.dispatch_workgroups(x, y, z);
                }
            }
            (Workgroups::Indirect { buffer, offset }, None) => {
                let (buf, base) = match &self.buffers[buffer.0] {
                    Some(own) => (
                        own,
                        // (checked before the first command)
                        self.slot_offset(buffer, run.slot).unwrap_or(0) as u64,
                    ),
                    None => {
                        let s = &args
                            .iter()
                            .find(|(id, _)| *id == buffer)
                            .expect("checked by check_args")
                            .1;
                        (s.buffer, s.offset)
                    }
                };
                pass.dispatch_workgroups_indirect(buf, base + offset);
            }
        }
    }
}

/// A caller's range copied into copy `RunSpec::slot` of one of the plan's own buffers, at byte
/// `at`, before the passes (a GPU count into its control block).
#[derive(Clone, Copy, Debug)]
pub struct CopyIn<'a> {
    /// The caller's range.
    pub src: GpuSlice<'a>,
    /// The plan's buffer.
    pub dst: BufferId,
    /// Byte offset within the run's copy of it.
    pub at: u64,
    /// Bytes.
    pub size: u64,
}

impl DevicePlan {
    /// Where copy `slot` of the plan's buffer `id` starts (0 for a buffer of one copy).
    fn slot_offset(&self, id: BufferId, slot: u32) -> Result<u32> {
        let decl = &self.plan.buffers[id.0];
        if decl.slots <= 1 {
            return Ok(0);
        }
        if slot >= decl.slots {
            return Err(Error::Plan(format!(
                "copy {slot} of `{}`, which has {}",
                decl.label, decl.slots
            )));
        }
        u32::try_from(decl.slot_stride() * slot as u64)
            .map_err(|_| Error::TooLarge(format!("copy {slot} of `{}`", decl.label)))
    }
}

/// The usages of the buffers wgsimd creates: bound as storage or uniform, read as dispatch
/// arguments, copied to and from.
pub fn internal_usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE
        | wgpu::BufferUsages::UNIFORM
        | wgpu::BufferUsages::INDIRECT
        | wgpu::BufferUsages::COPY_SRC
        | wgpu::BufferUsages::COPY_DST
}
