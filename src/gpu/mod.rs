//! The wgpu executor: runs a [`Plan`] on a GPU.
//!
//! Rules:
//! - Shader modules are created from the kernel's composed WGSL; pipelines use wgpu's automatic
//!   layout, so binding kinds come from the shader (never restated) and only bindings the entry
//!   point uses are bound.
//! - Shader modules are built with bounds checks but without wgpu's loop bounding (see
//!   [`runtime_checks`]); pipelines are cached per (kernel, entry, overrides) for the
//!   executor's lifetime, bind groups per prepared plan, large buffers in a pool.
//! - Timing (`Executor::time` below) warms up in batches until one run stops getting faster,
//!   then queues the timed runs back to back and reads back once, so clocks stay up; totals
//!   come from runs timed whole (two timestamps per run), the per-pass breakdown from a second
//!   set of runs with timestamps around every pass; every pass or run is timed from the end of
//!   the one before, because begin timestamps can run ahead of queued work.
//! - Transfers above 1 MiB go through two persistent staging buffers (`staging.rs`).
//! - `Poison` buffers are filled with [`POISON_WORD`] by a shader before the first pass; an
//!   invalidating pass (`Plan::invalidate`) runs as the fill it is.
//! - Each pass is its own compute pass, so wgpu orders them and timestamps bracket each one.
//! - Every run is wrapped in validation and out-of-memory error scopes; errors become
//!   [`Error::Gpu`], never panics.

mod context;
mod staging;

pub use context::{list_adapters, wanted_features, GpuContext};

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::device::Caps;
use crate::exec::{Executor, RunOutput, TimeSource, Timing};
use crate::kernel::{self, Flavor, Kernel};
use crate::plan::{BufferInit, Plan, Workgroups, POISON_WORD};

/// The line by which a kernel asks to be built without runtime checks (see [`runtime_checks`]).
pub const UNCHECKED_DIRECTIVE: &str = "// wgsimd: runtime checks off";

/// The runtime checks wgpu compiles into one of our shaders. Bounds checks stay on and wgpu's
/// loop bounding (an extra counter and branch in every loop, meant for untrusted web shaders)
/// is off: on the H100 it cost a grid-stride reduction 3×. A kernel whose every access the
/// simulator proves in bounds in its tests (its out-of-bounds checker at several subgroup
/// sizes, edge tiles included) may carry the line [`UNCHECKED_DIRECTIVE`] and is built without
/// checks: the cooperative-matrix GEMM does, because the checks on its workgroup-memory staging
/// cost 45% on the H100 (8192³: 98 against 178 TFLOP/s).
pub fn runtime_checks(k: &Kernel) -> wgpu::ShaderRuntimeChecks {
    if asks_unchecked(k) {
        return wgpu::ShaderRuntimeChecks::unchecked();
    }
    let mut c = wgpu::ShaderRuntimeChecks::checked();
    c.force_loop_bounding = false;
    c
}

/// Whether `k` carries the line [`UNCHECKED_DIRECTIVE`].
pub fn asks_unchecked(k: &Kernel) -> bool {
    k.source.lines().any(|l| l.trim() == UNCHECKED_DIRECTIVE)
}

/// Least warm-up before timed runs, in seconds.
const WARMUP_MIN_S: f64 = 0.1;

/// Where a run writes its timestamps: from index `base` of `set`, two per pass (`per_pass`)
/// or two per run (the beginning of its first pass and the end of its last).
#[derive(Clone, Copy)]
struct Stamps<'a> {
    set: &'a wgpu::QuerySet,
    base: u32,
    per_pass: bool,
}

/// Longest warm-up before timed runs, in seconds.
const WARMUP_MAX_S: f64 = 4.0;
/// The warm-up ends when one run got no faster over this many seconds.
const SETTLE_S: f64 = 0.25;

/// Runs plans on a wgpu device.
pub struct GpuExecutor {
    /// The device and what we know of it.
    pub ctx: GpuContext,
    shaders: Mutex<HashMap<(String, Flavor), Arc<wgpu::ShaderModule>>>,
    pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
    pool: Mutex<BufferPool>,
    staging: Mutex<staging::Staging>,
}

struct Prepared<'a> {
    buffers: Vec<wgpu::Buffer>,
    /// One bind group per pass, made on first use and reused by every later run.
    bind_groups: std::cell::RefCell<Vec<Option<Arc<wgpu::BindGroup>>>>,
    poison: Vec<usize>,
    zeroed: Vec<usize>,
    pool: &'a Mutex<BufferPool>,
}

/// Device buffers kept for reuse between plans, by size. Allocating gigabyte buffers per plan
/// is slow: on the H100 the 8192³ cooperative-matrix GEMM measured 21 TFLOP/s with fresh
/// allocations and 99 with reuse. (It did not cure the slower reads of uploaded inputs after
/// the first plans of a process: see docs/benchmarks.md.) Only buffers of at least `MIN_POOLED`
/// bytes are kept, at most `MAX_POOL_BYTES` in all.
#[derive(Default)]
struct BufferPool {
    free: HashMap<u64, Vec<wgpu::Buffer>>,
    bytes: u64,
}

const MIN_POOLED: u64 = 1 << 20;
const MAX_POOL_BYTES: u64 = 12 << 30;

impl Drop for Prepared<'_> {
    fn drop(&mut self) {
        let mut pool = self.pool.lock().unwrap();
        for b in self.buffers.drain(..) {
            if b.size() >= MIN_POOLED && pool.bytes + b.size() <= MAX_POOL_BYTES {
                pool.bytes += b.size();
                pool.free.entry(b.size()).or_default().push(b);
            } else {
                b.destroy();
            }
        }
    }
}

impl GpuExecutor {
    /// Opens the best adapter (see [`GpuContext::new`]).
    pub fn new() -> Result<GpuExecutor> {
        Ok(Self::with_context(GpuContext::new()?))
    }

    /// Wraps an open context.
    pub fn with_context(ctx: GpuContext) -> GpuExecutor {
        GpuExecutor {
            ctx,
            shaders: Mutex::new(HashMap::new()),
            pipelines: Mutex::new(HashMap::new()),
            pool: Mutex::new(BufferPool::default()),
            staging: Mutex::new(staging::Staging::default()),
        }
    }

    /// Makes algorithms use the workgroup-memory (no subgroup) kernels on this device, as on an
    /// adapter without `Features::SUBGROUP`.
    pub fn disable_subgroups(&mut self) {
        self.ctx.caps.subgroups = false;
        self.ctx.caps.subgroup_min = 0;
        self.ctx.caps.subgroup_max = 0;
    }

    /// Makes [`Executor::time`] time on the host clock, as on an adapter without
    /// `Features::TIMESTAMP_QUERY` (no per-pass breakdown).
    pub fn disable_timestamps(&mut self) {
        self.ctx.caps.timestamps = false;
    }

    fn scoped<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        let device = &self.ctx.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let v = pollster::block_on(val.pop());
        let o = pollster::block_on(oom.pop());
        if let Some(e) = v.or(o) {
            return Err(Error::Gpu(e.to_string()));
        }
        if let Some(e) = self.ctx.uncaptured.lock().unwrap().drain(..).next() {
            return Err(Error::Gpu(e));
        }
        Ok(out)
    }

    fn pipeline(
        &self,
        k: &Arc<Kernel>,
        entry: &str,
        overrides: &[(String, f64)],
    ) -> Result<Arc<wgpu::ComputePipeline>> {
        let mut key = format!("{}|{:?}|{entry}", k.name, k.flavor);
        for (n, v) in overrides {
            key.push_str(&format!("|{n}={v}"));
        }
        if let Some(p) = self.pipelines.lock().unwrap().get(&key) {
            return Ok(p.clone());
        }
        let device = &self.ctx.device;
        let module = {
            let mut shaders = self.shaders.lock().unwrap();
            match shaders.get(&(k.name.clone(), k.flavor)) {
                Some(m) => m.clone(),
                None => {
                    let checks = runtime_checks(k);
                    let m = Arc::new(self.scoped(|| {
                        let desc = wgpu::ShaderModuleDescriptor {
                            label: Some(&k.name),
                            source: wgpu::ShaderSource::Wgsl(k.source.as_str().into()),
                        };
                        // SAFETY: only the crate's own kernels reach this point (composed from
                        // wgsl/, validated by naga, tested on GPUs and on the simulator, which
                        // reports out-of-bounds accesses and hangs). Which checks stay on is
                        // chosen by `runtime_checks`.
                        unsafe { device.create_shader_module_trusted(desc, checks) }
                    })?);
                    shaders.insert((k.name.clone(), k.flavor), m.clone());
                    m
                }
            }
        };
        let constants: Vec<(&str, f64)> = overrides.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let pipeline = Arc::new(self.scoped(|| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&key),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    zero_initialize_workgroup_memory: true,
                },
                cache: None,
            })
        })?);
        // Two threads may have built the same pipeline at once: every caller must get the one
        // that stays cached, or a bind group made from the other's (automatic) layout fails
        // later with "pipelines don't match" (seen once in 50 runs of tests/queue.rs).
        Ok(self
            .pipelines
            .lock()
            .unwrap()
            .entry(key)
            .or_insert(pipeline)
            .clone())
    }

    fn prepare(&self, plan: &Plan) -> Result<Prepared<'_>> {
        plan.validate()?;
        let device = &self.ctx.device;
        let caps = &self.ctx.caps;
        let mut prep = Prepared {
            buffers: Vec::new(),
            bind_groups: std::cell::RefCell::new(vec![None; plan.passes.len()]),
            poison: Vec::new(),
            zeroed: Vec::new(),
            pool: &self.pool,
        };
        for (i, b) in plan.buffers.iter().enumerate() {
            if b.size > caps.max_buffer {
                return Err(Error::TooLarge(format!(
                    "buffer {} needs {} bytes; the adapter's largest buffer is {}",
                    b.label, b.size, caps.max_buffer
                )));
            }
            let pooled = {
                let mut pool = self.pool.lock().unwrap();
                let buf = pool.free.get_mut(&b.size).and_then(Vec::pop);
                if buf.is_some() {
                    pool.bytes -= b.size;
                }
                buf
            };
            let buf = match pooled {
                Some(buf) => buf,
                None => self.scoped(|| {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(&b.label),
                        size: b.size,
                        usage: wgpu::BufferUsages::STORAGE
                            | wgpu::BufferUsages::UNIFORM
                            | wgpu::BufferUsages::INDIRECT
                            | wgpu::BufferUsages::COPY_SRC
                            | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                })?,
            };
            match &b.init {
                BufferInit::Bytes(bytes) => {
                    let whole = bytes.len() as u64 / 4 * 4;
                    if whole > 0 {
                        self.upload(&buf, &bytes[..whole as usize])?;
                    }
                    if whole < b.size {
                        // the tail (a partial word, then zeros)
                        let mut tail = bytes[whole as usize..].to_vec();
                        tail.resize(4, 0);
                        self.ctx.queue.write_buffer(&buf, whole, &tail);
                        if whole + 4 < b.size {
                            prep.zeroed.push(i);
                        }
                    }
                }
                BufferInit::Poison => prep.poison.push(i),
                BufferInit::Zeroed => prep.zeroed.push(i),
            }
            prep.buffers.push(buf);
        }
        Ok(prep)
    }

    /// Writes `bytes` (a multiple of 4) at the start of `buf`: large inputs through the
    /// persistent staging buffers (`staging.rs` says why), small ones with `write_buffer`.
    fn upload(&self, buf: &wgpu::Buffer, bytes: &[u8]) -> Result<()> {
        if bytes.len() as u64 <= staging::SMALL {
            self.ctx.queue.write_buffer(buf, 0, bytes);
            return Ok(());
        }
        self.staging
            .lock()
            .unwrap()
            .upload(&self.ctx.device, &self.ctx.queue, buf, bytes)
    }

    /// Queues `repeats` runs of a multi-pass plan to be timed whole, back to back: one
    /// timestamp at the beginning of a run's first pass and one at the end of its last, so
    /// that the per-pass timestamps and the barriers they bring do not weigh on the total (on
    /// the H100 a tiny pass measured 13 µs between two per-pass stamps). Returns their query
    /// set and resolve buffer ([`Self::read_whole_runs`] reads the (begin, end) ticks of each
    /// run), or `None` where the per-pass totals are used: one-pass plans (the same thing) and
    /// plans with setup passes (which run before the timed ones, so a run's total could not
    /// start at the end of the run before).
    fn queue_whole_runs(
        &self,
        plan: &Plan,
        prep: &Prepared,
        repeats: usize,
    ) -> Result<Option<(wgpu::QuerySet, wgpu::Buffer)>> {
        if plan.passes.len() < 2 || plan.passes.iter().any(|p| p.setup) {
            return Ok(None);
        }
        Ok(Some(self.stamped_runs(
            plan,
            prep,
            repeats.clamp(1, 2048),
            false,
        )?))
    }

    /// The (begin, end) ticks of the runs [`Self::queue_whole_runs`] queued.
    fn read_whole_runs(&self, whole: (wgpu::QuerySet, wgpu::Buffer)) -> Result<Vec<u64>> {
        let (qs, resolve) = whole;
        let bytes = self.staging.lock().unwrap().download(
            &self.ctx.device,
            &self.ctx.queue,
            &resolve,
            resolve.size(),
        )?;
        resolve.destroy();
        qs.destroy();
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// Submits `repeats` runs back to back, each writing its timestamps (`per_pass`: two per
    /// pass, else two per run, see [`Stamps`]) into one query set, then resolves the set into
    /// the returned buffer (8 bytes per stamp). The caller reads the buffer and destroys both.
    fn stamped_runs(
        &self,
        plan: &Plan,
        prep: &Prepared,
        repeats: usize,
        per_pass: bool,
    ) -> Result<(wgpu::QuerySet, wgpu::Buffer)> {
        let device = &self.ctx.device;
        let per_run = if per_pass {
            2 * plan.passes.len() as u32
        } else {
            2
        };
        let count = per_run * repeats as u32;
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size: 8 * count as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        for r in 0..repeats as u32 {
            let stamps = Stamps {
                set: &set,
                base: r * per_run,
                per_pass,
            };
            self.submit_run(plan, prep, false, Some(stamps))?;
        }
        let mut enc = device.create_command_encoder(&Default::default());
        enc.resolve_query_set(&set, 0..count, &resolve, 0);
        self.scoped(|| self.ctx.queue.submit([enc.finish()]))?;
        Ok((set, resolve))
    }

    fn encode_fill(&self, enc: &mut wgpu::CommandEncoder, buf: &wgpu::Buffer) -> Result<()> {
        let k = kernel::load("util/fill", Flavor::Emulated)?;
        let p = self.pipeline(&k, "main", &[("VALUE".into(), POISON_WORD as f64)])?;
        let words = buf.size() / 4;
        let mut offset = 0;
        // bind at most one max-size binding at a time, at aligned offsets
        let align = self.ctx.caps.storage_offset_alignment.max(16);
        let chunk = (self.ctx.caps.max_storage_binding / align * align).min(buf.size());
        while offset < buf.size() {
            let len = chunk.min(buf.size() - offset);
            let bg = self
                .ctx
                .device
                .create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &p.get_bind_group_layout(0),
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: buf,
                            offset,
                            size: NonZeroU64::new(len),
                        }),
                    }],
                });
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups((words.div_ceil(256) as u32).clamp(1, 4096), 1, 1);
            drop(pass);
            offset += len;
        }
        Ok(())
    }

    /// Encodes every pass; with `queries`, pass i of the timed ones writes timestamps 2i, 2i+1.
    fn bind_group(
        &self,
        p: &crate::plan::Pass,
        prep: &Prepared,
        pipeline: &wgpu::ComputePipeline,
    ) -> Result<Option<wgpu::BindGroup>> {
        let device = &self.ctx.device;
        let used = p
            .kernel
            .entry(&p.entry)
            .map(|e| e.bindings.clone())
            .unwrap_or_default();
        let entries: Vec<wgpu::BindGroupEntry> = p
            .bindings
            .iter()
            .filter(|b| used.iter().any(|u| u.binding == b.binding))
            .map(|b| wgpu::BindGroupEntry {
                binding: b.binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &prep.buffers[b.buffer.0],
                    offset: b.offset,
                    size: b.size.and_then(NonZeroU64::new),
                }),
            })
            .collect();
        Ok(if entries.is_empty() {
            None
        } else {
            Some(self.scoped(|| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&p.label),
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            })?)
        })
    }

    fn encode_passes(
        &self,
        plan: &Plan,
        prep: &Prepared,
        enc: &mut wgpu::CommandEncoder,
        queries: Option<Stamps>,
    ) -> Result<()> {
        let mut timed = queries.map_or(0, |q| q.base / 2);
        let last = plan.passes.len().saturating_sub(1);
        for (index, p) in plan.passes.iter().enumerate() {
            let pipeline = self.pipeline(&p.kernel, &p.entry, &p.overrides)?;
            let cached = prep.bind_groups.borrow()[index].clone();
            let bind_group = match cached {
                Some(bg) => Some(bg),
                None => {
                    let bg = self.bind_group(p, prep, &pipeline)?.map(Arc::new);
                    prep.bind_groups.borrow_mut()[index] = bg.clone();
                    bg
                }
            };
            let timestamp_writes = match queries {
                Some(Stamps {
                    set,
                    per_pass: true,
                    ..
                }) => {
                    let tw = wgpu::ComputePassTimestampWrites {
                        query_set: set,
                        beginning_of_pass_write_index: Some(2 * timed),
                        end_of_pass_write_index: Some(2 * timed + 1),
                    };
                    timed += 1;
                    Some(tw)
                }
                Some(Stamps {
                    set,
                    per_pass: false,
                    base,
                }) if index == 0 || index == last => Some(wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: (index == 0).then_some(base),
                    end_of_pass_write_index: (index == last).then_some(base + 1),
                }),
                _ => None,
            };
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&p.label),
                timestamp_writes,
            });
            pass.set_pipeline(&pipeline);
            if let Some(bg) = &bind_group {
                pass.set_bind_group(0, &**bg, &[]);
            }
            match p.workgroups {
                Workgroups::Direct([x, y, z]) => {
                    let max = self.ctx.caps.max_workgroups_per_dim;
                    if x > max || y > max || z > max {
                        return Err(Error::Plan(format!(
                            "pass {}: {x}x{y}x{z} workgroups exceed the limit {max} per dimension",
                            p.label
                        )));
                    }
                    if x > 0 && y > 0 && z > 0 {
                        pass.dispatch_workgroups(x, y, z);
                    }
                }
                Workgroups::Indirect { buffer, offset } => {
                    pass.dispatch_workgroups_indirect(&prep.buffers[buffer.0], offset);
                }
            }
        }
        Ok(())
    }

    fn read_buffers(
        &self,
        plan: &Plan,
        prep: &Prepared,
        extra: Option<&wgpu::Buffer>,
    ) -> Result<(RunOutput, Vec<u8>)> {
        let device = &self.ctx.device;
        let mut enc = device.create_command_encoder(&Default::default());
        let mut staging = Vec::new();
        for (i, b) in plan.buffers.iter().enumerate() {
            if b.readback && (b.size <= staging::SMALL) {
                let s = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size: b.size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                enc.copy_buffer_to_buffer(&prep.buffers[i], 0, &s, 0, b.size);
                staging.push((i, s));
            }
        }
        let extra_staging = extra.map(|e| {
            let s = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback timestamps"),
                size: e.size(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_buffer_to_buffer(e, 0, &s, 0, e.size());
            s
        });
        self.ctx.queue.submit([enc.finish()]);
        let mut out = RunOutput::default();
        let all: Vec<&wgpu::Buffer> = staging
            .iter()
            .map(|(_, s)| s)
            .chain(extra_staging.iter())
            .collect();
        let pending = Arc::new(Mutex::new(Vec::new()));
        for s in &all {
            let pending = pending.clone();
            s.map_async(wgpu::MapMode::Read, .., move |r| {
                pending.lock().unwrap().push(r)
            });
        }
        staging::poll_until(device, "the GPU", || {
            pending.lock().unwrap().len() == all.len()
        })?;
        for r in pending.lock().unwrap().drain(..) {
            r.map_err(|e| Error::Gpu(format!("mapping a result buffer: {e}")))?;
        }
        let read = |s: &wgpu::Buffer| -> Result<Vec<u8>> {
            let view = s
                .slice(..)
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("reading a result: {e}")))?;
            Ok(view.to_vec())
        };
        for (i, s) in &staging {
            out.buffers.insert(crate::plan::BufferId(*i), read(s)?);
        }
        for (i, b) in plan.buffers.iter().enumerate() {
            if b.readback && !out.buffers.contains_key(&crate::plan::BufferId(i)) {
                let bytes = self.staging.lock().unwrap().download(
                    device,
                    &self.ctx.queue,
                    &prep.buffers[i],
                    b.size,
                )?;
                out.buffers.insert(crate::plan::BufferId(i), bytes);
            }
        }
        let extra_bytes = match &extra_staging {
            Some(s) => read(s)?,
            None => Vec::new(),
        };
        Ok((out, extra_bytes))
    }

    /// Encodes and submits one run; with `queries`, the timed passes write timestamps from
    /// index `base` on. Does not wait.
    fn submit_run(
        &self,
        plan: &Plan,
        prep: &Prepared,
        first: bool,
        queries: Option<Stamps>,
    ) -> Result<()> {
        let device = &self.ctx.device;
        let mut enc = device.create_command_encoder(&Default::default());
        if first {
            for &i in &prep.poison {
                self.encode_fill(&mut enc, &prep.buffers[i])?;
            }
            for &i in &prep.zeroed {
                // Zeroed buffers, and the part of Bytes buffers past their data
                let start = match &plan.buffers[i].init {
                    BufferInit::Bytes(b) => (b.len() as u64 / 4 + 1) * 4,
                    _ => 0,
                };
                enc.clear_buffer(&prep.buffers[i], start, None);
            }
        }
        self.encode_passes(plan, prep, &mut enc, queries)?;
        self.scoped(|| self.ctx.queue.submit([enc.finish()]))?;
        Ok(())
    }

    fn wait(&self) -> Result<()> {
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        Ok(())
    }
}

/// Runs in a batch of about `secs` at `per_run_s` seconds a run (at least one, at most 1000).
fn runs_in(secs: f64, per_run_s: f64) -> usize {
    ((secs / per_run_s).ceil() as usize).clamp(1, 1000)
}

impl Executor for GpuExecutor {
    fn caps(&self) -> &Caps {
        &self.ctx.caps
    }

    fn run(&self, plan: &Plan) -> Result<RunOutput> {
        let prep = self.prepare(plan)?;
        self.submit_run(plan, &prep, true, None)?;
        let (out, _) = self.read_buffers(plan, &prep, None)?;
        drop(prep);
        self.scoped(|| ())?;
        self.wait()?;
        Ok(out)
    }

    /// Times `plan` the way a GPU is used in practice: runs are submitted back to back with no
    /// host round trip between them (a readback between runs lets the clocks drop: on the H100
    /// that halved measured bandwidth), after a warm-up of at least ~100 ms of GPU work so the
    /// clocks have ramped up. Timestamps bracket every timed pass of every repeat; buffers are
    /// read back once, from one more (untimed) run whose outputs were poisoned first, and
    /// verified by the caller (test: tests/executor_time.rs).
    fn time(&self, plan: &Plan, warmup: usize, repeats: usize) -> Result<(RunOutput, Timing)> {
        let labels: Vec<String> = plan
            .passes
            .iter()
            .filter(|p| !p.setup)
            .map(|p| p.label.clone())
            .collect();
        let prep = self.prepare(plan)?;
        // the first run poisons outputs and tells how long one run takes
        let t = std::time::Instant::now();
        self.submit_run(plan, &prep, true, None)?;
        self.wait()?;
        let mut per_run_s = t.elapsed().as_secs_f64().max(1e-6);
        // every pass (setup ones too) is bracketed, so each pass's start can be taken from the
        // end of the pass before it (see below)
        let per_run = 2 * plan.passes.len() as u32;
        let use_timestamps = self.ctx.caps.timestamps && per_run > 0;
        // wgpu caps a query set at 4096 queries
        let repeats = if use_timestamps {
            repeats.clamp(1, (4096 / per_run.max(1)) as usize)
        } else {
            repeats.max(1)
        };
        // Warm up in batches of about 20 ms until at least `warmup` runs and `WARMUP_MIN_S`
        // have passed and one run has not become faster by more than 1.5% over the last
        // SETTLE_S (at most WARMUP_MAX_S in all). On the H100, after a large transfer or seconds
        // of host work the GPU came back to full speed only gradually, over more than 100 ms:
        // a fixed 100 ms warm-up measured the same reduction at 1.5 and at 2.9 TB/s.
        let (target, start) = (WARMUP_MIN_S, std::time::Instant::now());
        let mut done = 0;
        // (seconds since start, seconds per run) of each batch
        let mut history: Vec<(f64, f64)> = Vec::new();
        loop {
            let elapsed = start.elapsed().as_secs_f64();
            // CPU adapters' timings are too noisy (and their clocks need no ramp) to wait for
            let settled = self.ctx.caps.is_cpu()
                || history
                    .iter()
                    .rev()
                    .find(|(t, _)| *t <= elapsed - SETTLE_S)
                    .is_some_and(|&(_, then)| per_run_s >= then / 1.015);
            if (done >= warmup && elapsed >= target && settled) || elapsed >= WARMUP_MAX_S {
                break;
            }
            let k = runs_in(0.02, per_run_s);
            let t = std::time::Instant::now();
            for _ in 0..k {
                self.submit_run(plan, &prep, false, None)?;
            }
            self.wait()?;
            per_run_s = (t.elapsed().as_secs_f64() / k as f64).max(1e-6);
            history.push((start.elapsed().as_secs_f64(), per_run_s));
            done += k;
        }
        if !use_timestamps {
            // each repeat is a batch of about 10 ms of runs queued back to back (one run where
            // a run takes longer), timed on the host from submit to wait: a sample per repeat,
            // so the median and minimum are of the samples (they were all the mean of one
            // batch before), and no host round trip inside a batch
            self.wait()?;
            let k = runs_in(0.01, per_run_s);
            let mut total_ns = Vec::with_capacity(repeats);
            for _ in 0..repeats {
                let t = std::time::Instant::now();
                for _ in 0..k {
                    self.submit_run(plan, &prep, false, None)?;
                }
                self.wait()?;
                total_ns.push(t.elapsed().as_secs_f64() * 1e9 / k as f64);
            }
            // (read back from a run on poisoned buffers, as below)
            self.submit_run(plan, &prep, true, None)?;
            let (out, _) = self.read_buffers(plan, &prep, None)?;
            drop(prep);
            self.wait()?;
            let timing = Timing {
                source: TimeSource::Host,
                pass_labels: labels,
                pass_ns: vec![],
                total_ns,
            };
            return Ok((out, timing));
        }
        let (qs, resolve) = self.stamped_runs(plan, &prep, repeats, true)?;
        // the whole runs go right behind the per-pass ones, before anything is read back: a
        // read-back idles the GPU long enough for its clocks to drop (behind the 2 GiB of a
        // 2^28-pair sort's outputs, the whole runs' median was 40.6 ms against 12.9 ms summed
        // over their passes on the H100)
        let whole = self.queue_whole_runs(plan, &prep, repeats)?;
        // the output read back is one more run's, on poisoned buffers (untimed): a word the
        // timed runs left unwritten would otherwise still hold an earlier run's right value
        self.submit_run(plan, &prep, true, None)?;
        let (out, ts) = self.read_buffers(plan, &prep, Some(&resolve))?;
        resolve.destroy();
        qs.destroy();
        let run_ticks = whole.map(|w| self.read_whole_runs(w)).transpose()?;
        drop(prep);
        self.wait()?;
        let period = self.ctx.queue.get_timestamp_period() as f64;
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&ts);
        let mut pass_ns = Vec::new();
        let mut total_ns = Vec::new();
        // A pass's begin timestamp may be written before the work ahead of it has finished
        // (top-of-pipe): with runs queued back to back, begin stamps ran ahead and doubled the
        // apparent kernel times on the H100. End stamps wait for the pass. So a pass is timed
        // from the end of the pass before it.
        let setup: Vec<bool> = plan.passes.iter().map(|p| p.setup).collect();
        let mut prev_end: Option<u64> = None;
        for run in ticks.chunks(per_run as usize) {
            let mut per = Vec::new();
            for (i, c) in run.chunks(2).enumerate() {
                // inside a run, passes chain end to end (the gap between two passes is part of
                // the algorithm's time); the first pass starts no earlier than the last run ended
                let start = match prev_end {
                    Some(e) if i > 0 => e,
                    Some(e) => c[0].max(e),
                    None => c[0],
                };
                prev_end = Some(c[1]);
                if !setup[i] {
                    per.push(c[1].saturating_sub(start) as f64 * period);
                }
            }
            total_ns.push(per.iter().sum());
            pass_ns.push(per);
        }
        if let Some(run_ticks) = run_ticks {
            // the totals from the runs timed whole (see `queue_whole_runs`); they were queued
            // right behind the per-pass runs, so the first starts no earlier than those ended
            let mut prev_end: Option<u64> = ticks.last().copied();
            total_ns = run_ticks
                .chunks(2)
                .map(|c| {
                    let start = prev_end.map_or(c[0], |e| c[0].max(e));
                    prev_end = Some(c[1]);
                    c[1].saturating_sub(start) as f64 * period
                })
                .collect();
        }
        Ok((
            out,
            Timing {
                source: TimeSource::Timestamps,
                pass_labels: labels,
                pass_ns,
                total_ns,
            },
        ))
    }
}
