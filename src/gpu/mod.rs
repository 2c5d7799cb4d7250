//! The wgpu executor: runs a [`Plan`] on a GPU.
//!
//! Rules:
//! - Shader modules are created from the kernel's composed WGSL; pipelines use wgpu's automatic
//!   layout, so binding kinds come from the shader (never restated) and only bindings the entry
//!   point uses are bound.
//! - Pipelines are cached per (kernel, entry, overrides) for the executor's lifetime.
//! - `Poison` buffers are filled with [`POISON_WORD`] by a shader before the first pass.
//! - Each pass is its own compute pass, so wgpu orders them and timestamps bracket each one.
//! - Every run is wrapped in validation and out-of-memory error scopes; errors become
//!   [`Error::Gpu`], never panics.

mod context;

pub use context::{list_adapters, GpuContext};

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::exec::{Caps, Executor, RunOutput, TimeSource, Timing};
use crate::kernel::{self, Flavor, Kernel};
use crate::plan::{BufferInit, Plan, Workgroups, POISON_WORD};

/// Runs plans on a wgpu device.
pub struct GpuExecutor {
    /// The device and what we know of it.
    pub ctx: GpuContext,
    shaders: Mutex<HashMap<(String, Flavor), Arc<wgpu::ShaderModule>>>,
    pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
}

struct Prepared {
    buffers: Vec<wgpu::Buffer>,
    poison: Vec<usize>,
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
        }
    }

    /// Makes algorithms use the workgroup-memory (no subgroup) kernels on this device, as on an
    /// adapter without `Features::SUBGROUP`.
    pub fn disable_subgroups(&mut self) {
        self.ctx.caps.subgroups = false;
        self.ctx.caps.subgroup_min = 0;
        self.ctx.caps.subgroup_max = 0;
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
                    let m = Arc::new(self.scoped(|| {
                        device.create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some(&k.name),
                            source: wgpu::ShaderSource::Wgsl(k.source.as_str().into()),
                        })
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
        self.pipelines.lock().unwrap().insert(key, pipeline.clone());
        Ok(pipeline)
    }

    fn prepare(&self, plan: &Plan) -> Result<Prepared> {
        plan.validate()?;
        let device = &self.ctx.device;
        let caps = &self.ctx.caps;
        let mut buffers = Vec::new();
        let mut poison = Vec::new();
        for (i, b) in plan.buffers.iter().enumerate() {
            if b.size > caps.max_buffer {
                return Err(Error::TooLarge(format!(
                    "buffer {} needs {} bytes; the adapter's largest buffer is {}",
                    b.label, b.size, caps.max_buffer
                )));
            }
            let usage = wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST;
            let buf = self.scoped(|| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&b.label),
                    size: b.size,
                    usage,
                    mapped_at_creation: matches!(b.init, BufferInit::Bytes(_)),
                })
            })?;
            match &b.init {
                BufferInit::Bytes(bytes) => {
                    {
                        let mut view = buf
                            .slice(..)
                            .get_mapped_range_mut()
                            .map_err(|e| Error::Gpu(format!("mapping {}: {e}", b.label)))?;
                        if bytes.len() == view.len() {
                            view.copy_from_slice(bytes);
                        } else {
                            let mut padded = bytes.clone();
                            padded.resize(view.len(), 0);
                            view.copy_from_slice(&padded);
                        }
                    }
                    buf.unmap();
                }
                BufferInit::Poison => poison.push(i),
                BufferInit::Zeroed => {}
            }
            buffers.push(buf);
        }
        Ok(Prepared { buffers, poison })
    }

    fn encode_fill(&self, enc: &mut wgpu::CommandEncoder, buf: &wgpu::Buffer) -> Result<()> {
        let k = kernel::load("util/fill", Flavor::Emulated)?;
        let p = self.pipeline(&k, "main", &[("VALUE".into(), POISON_WORD as f64)])?;
        let words = buf.size() / 4;
        let mut offset = 0;
        // bind at most one max-size binding at a time
        let chunk = (self.ctx.caps.max_storage_binding / 4 * 4).min(buf.size());
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
    fn encode_passes(
        &self,
        plan: &Plan,
        prep: &Prepared,
        enc: &mut wgpu::CommandEncoder,
        queries: Option<&wgpu::QuerySet>,
    ) -> Result<()> {
        let device = &self.ctx.device;
        let mut timed = 0u32;
        for p in &plan.passes {
            let pipeline = self.pipeline(&p.kernel, &p.entry, &p.overrides)?;
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
            let bind_group = if entries.is_empty() {
                None
            } else {
                Some(self.scoped(|| {
                    device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some(&p.label),
                        layout: &pipeline.get_bind_group_layout(0),
                        entries: &entries,
                    })
                })?)
            };
            let timestamp_writes = match queries {
                Some(q) if !p.setup => {
                    let tw = wgpu::ComputePassTimestampWrites {
                        query_set: q,
                        beginning_of_pass_write_index: Some(2 * timed),
                        end_of_pass_write_index: Some(2 * timed + 1),
                    };
                    timed += 1;
                    Some(tw)
                }
                _ => None,
            };
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&p.label),
                timestamp_writes,
            });
            pass.set_pipeline(&pipeline);
            if let Some(bg) = &bind_group {
                pass.set_bind_group(0, bg, &[]);
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
            if b.readback {
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
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
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
        let extra_bytes = match &extra_staging {
            Some(s) => read(s)?,
            None => Vec::new(),
        };
        Ok((out, extra_bytes))
    }

    fn submit_run(
        &self,
        plan: &Plan,
        prep: &Prepared,
        first: bool,
        queries: Option<(&wgpu::QuerySet, &wgpu::Buffer, u32)>,
    ) -> Result<()> {
        let device = &self.ctx.device;
        let mut enc = device.create_command_encoder(&Default::default());
        if first {
            for &i in &prep.poison {
                self.encode_fill(&mut enc, &prep.buffers[i])?;
            }
        }
        self.encode_passes(plan, prep, &mut enc, queries.map(|q| q.0))?;
        if let Some((q, resolve, count)) = queries {
            if count > 0 {
                enc.resolve_query_set(q, 0..count, resolve, 0);
            }
        }
        self.scoped(|| self.ctx.queue.submit([enc.finish()]))?;
        Ok(())
    }
}

impl Executor for GpuExecutor {
    fn caps(&self) -> &Caps {
        &self.ctx.caps
    }

    fn run(&self, plan: &Plan) -> Result<RunOutput> {
        let prep = self.prepare(plan)?;
        self.submit_run(plan, &prep, true, None)?;
        let (out, _) = self.read_buffers(plan, &prep, None)?;
        self.scoped(|| ())?;
        Ok(out)
    }

    fn time(&self, plan: &Plan, warmup: usize, repeats: usize) -> Result<(RunOutput, Timing)> {
        let labels: Vec<String> = plan
            .passes
            .iter()
            .filter(|p| !p.setup)
            .map(|p| p.label.clone())
            .collect();
        let prep = self.prepare(plan)?;
        let device = &self.ctx.device;
        let repeats = repeats.max(1);
        if !self.ctx.caps.timestamps || labels.is_empty() {
            // host timing, labelled as such
            let mut total_ns = Vec::new();
            for r in 0..warmup + repeats {
                let t = std::time::Instant::now();
                self.submit_run(plan, &prep, r == 0, None)?;
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
                if r >= warmup {
                    total_ns.push(t.elapsed().as_secs_f64() * 1e9);
                }
            }
            let (out, _) = self.read_buffers(plan, &prep, None)?;
            return Ok((
                out,
                Timing {
                    source: TimeSource::Host,
                    pass_labels: labels,
                    pass_ns: vec![],
                    total_ns,
                },
            ));
        }
        let count = 2 * labels.len() as u32;
        let qs = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size: 8 * count as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let period = self.ctx.queue.get_timestamp_period() as f64;
        let mut pass_ns = Vec::new();
        let mut total_ns = Vec::new();
        let mut out = RunOutput::default();
        for r in 0..warmup + repeats {
            self.submit_run(plan, &prep, r == 0, Some((&qs, &resolve, count)))?;
            let (o, ts) = self.read_buffers(plan, &prep, Some(&resolve))?;
            out = o;
            if r >= warmup {
                let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&ts);
                let per: Vec<f64> = ticks
                    .chunks(2)
                    .map(|c| c[1].saturating_sub(c[0]) as f64 * period)
                    .collect();
                // span from the first pass's start to the last pass's end: includes the gaps
                // between passes, as a caller would see them
                let span = ticks[ticks.len() - 1].saturating_sub(ticks[0]) as f64 * period;
                total_ns.push(span.max(per.iter().sum()));
                pass_ns.push(per);
            }
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
