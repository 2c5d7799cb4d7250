//! A compute pass's dispatches on simulated lanes: the pipeline's kernel, its bind groups and
//! workgroup counts, the findings of each dispatch.

use std::rc::Rc;
use std::sync::Arc;

use crate::finding::Finding;
use crate::kernel::{Flavor, Kernel};
use crate::plan::{Binding, BufferId, Pass, Plan, RunSpec, Workgroups};
use crate::ron::Value;
use crate::{SimBuffer, SimEncoder, SimSlice};

use super::*;

impl Replay<'_> {
    pub(super) fn compute_pass(&mut self, submission: u64, pass: &Value) -> Step {
        let label = pass
            .get("label")
            .and_then(Value::some)
            .and_then(Value::as_str)
            .map(str::to_string);
        let offsets: Vec<u64> = pass
            .get("dynamic_offsets")
            .and_then(Value::as_list)
            .unwrap_or(&[])
            .iter()
            .map(|v| u64_of(Some(v), "a dynamic offset"))
            .collect::<std::result::Result<_, _>>()?;
        // the words `SetImmediate` commands take their values from
        let immediates_data: Vec<u32> = pass
            .get("immediates_data")
            .and_then(Value::as_list)
            .unwrap_or(&[])
            .iter()
            .map(|v| {
                let w = u64_of(Some(v), "an immediate data word")?;
                u32::try_from(w).map_err(|_| "an immediate data word past u32".to_string())
            })
            .collect::<std::result::Result<_, _>>()?;
        let mut next_offset = 0usize;
        let mut st = PassState::default();
        for cmd in pass.get("commands").and_then(Value::as_list).unwrap_or(&[]) {
            match cmd.name().unwrap_or("") {
                "SetPipeline" => {
                    let id = id_of(cmd.at(0))?;
                    st.pipeline = Some(
                        self.pipelines
                            .get(&id)
                            .cloned()
                            .ok_or_else(|| format!("compute pipeline {id} was not created"))?,
                    );
                }
                "SetBindGroup" => {
                    let index = u64_of(cmd.get("index"), "a bind group index")?;
                    let index = u32::try_from(index).map_err(|_| "a bind group index past u32")?;
                    let n = u64_of(cmd.get("num_dynamic_offsets"), "an offset count")? as usize;
                    let taken: Vec<u64> = offsets
                        .get(next_offset..next_offset.saturating_add(n))
                        .ok_or("more dynamic offsets used than the pass recorded")?
                        .to_vec();
                    next_offset += n;
                    match cmd.get("bind_group").and_then(Value::some) {
                        Some(g) => {
                            let id = id_of(Some(g))?;
                            let bg = self
                                .bind_groups
                                .get(&id)
                                .cloned()
                                .ok_or_else(|| format!("bind group {id} was not created"))?;
                            st.groups.insert(index, (bg, taken));
                        }
                        None => {
                            st.groups.remove(&index);
                        }
                    }
                }
                "SetImmediate" => {
                    let offset = u64_of(cmd.get("offset"), "an immediate offset")?;
                    let size = u64_of(cmd.get("size_bytes"), "an immediate size")?;
                    let from = u64_of(cmd.get("values_offset"), "an immediate values offset")?;
                    if offset % 4 != 0
                        || size % 4 != 0
                        || offset.saturating_add(size) > crate::kernel::MAX_IMMEDIATE_BYTES
                    {
                        return Err(format!(
                            "immediates of {size} bytes at byte {offset}: whole words within \
                             the first {} bytes",
                            crate::kernel::MAX_IMMEDIATE_BYTES
                        ));
                    }
                    let (at, words) = ((offset / 4) as usize, (size / 4) as usize);
                    let values = usize::try_from(from)
                        .ok()
                        .and_then(|f| immediates_data.get(f..f.checked_add(words)?))
                        .ok_or("immediates taken past the pass's immediate data")?;
                    if st.immediates.len() < at + words {
                        st.immediates.resize(at + words, 0);
                    }
                    st.immediates[at..at + words].copy_from_slice(values);
                }
                "DispatchWorkgroups" => {
                    let t = cmd.at(0).ok_or("missing workgroup counts")?;
                    let mut counts = [0u32; 3];
                    for (i, c) in counts.iter_mut().enumerate() {
                        let v = u64_of(t.at(i), "a workgroup count")?;
                        *c = u32::try_from(v).map_err(|_| "a workgroup count past u32")?;
                    }
                    self.dispatch(submission, &label, &st, Workgroups::Direct(counts), None)?;
                }
                "DispatchWorkgroupsIndirect" => {
                    let buf = self.buffer(cmd.get("buffer"))?;
                    let offset = u64_of(cmd.get("offset"), "an indirect offset")?;
                    let grid = Workgroups::Indirect {
                        buffer: BufferId(usize::MAX),
                        offset,
                    };
                    self.dispatch(submission, &label, &st, grid, Some(buf))?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn kernel(&mut self, m: &Rc<Module>) -> std::result::Result<Arc<Kernel>, String> {
        let made = m.kernel.get_or_init(|| {
            let source = m.source.clone()?;
            Kernel::from_source(&m.file, Flavor::Subgroup, source)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        });
        let k = made.clone().map_err(|why| {
            format!(
                "shader module {} ({}): {why}",
                m.label.as_deref().unwrap_or("without a label"),
                m.file
            )
        })?;
        if !self.report.stripped.iter().any(|(f, _)| *f == m.file) {
            let notes = k.stripped.iter().map(|s| (m.file.clone(), s.clone()));
            self.report.stripped.extend(notes);
        }
        Ok(k)
    }

    fn dispatch(
        &mut self,
        submission: u64,
        pass_label: &Option<String>,
        st: &PassState,
        mut grid: Workgroups,
        indirect: Option<Rc<TraceBuffer>>,
    ) -> Step {
        let index = self.report.dispatches.len();
        let pipe = st
            .pipeline
            .clone()
            .ok_or("a dispatch with no pipeline set")?;
        let kernel = self.kernel(&pipe.module)?;
        let entry = match &pipe.entry {
            Some(e) => e.clone(),
            None => {
                let compute: Vec<&str> = kernel
                    .module
                    .entry_points
                    .iter()
                    .filter(|e| e.stage == naga::ShaderStage::Compute)
                    .map(|e| e.name.as_str())
                    .collect();
                match compute[..] {
                    [one] => one.to_string(),
                    _ => {
                        return Err(format!(
                            "pipeline `{}` names no entry point and {} has {} compute entry \
                             points",
                            pipe.label,
                            pipe.module.file,
                            compute.len()
                        ))
                    }
                }
            }
        };
        let used = kernel
            .entry(&entry)
            .ok_or_else(|| format!("{} has no entry point `{entry}`", pipe.module.file))?
            .bindings
            .clone();
        let mut plan = Plan::new(format!("dispatch {index}"));
        let mut args: Vec<(BufferId, Rc<TraceBuffer>)> = Vec::new();
        let mut arg_of = |tb: &Rc<TraceBuffer>, plan: &mut Plan| -> BufferId {
            if let Some((id, _)) = args.iter().find(|(_, b)| b.serial == tb.serial) {
                return *id;
            }
            let id = plan.arg(tb.label.clone(), tb.size);
            args.push((id, tb.clone()));
            id
        };
        let mut bindings = Vec::new();
        for rb in &used {
            let (group, offsets) = st.groups.get(&rb.group).ok_or_else(|| {
                format!(
                    "`{}` (@group({}) @binding({})) has no bind group set at group {}",
                    rb.name, rb.group, rb.binding, rb.group
                )
            })?;
            let (_, res) = group
                .entries
                .iter()
                .find(|(b, _)| *b == rb.binding)
                .ok_or_else(|| {
                    format!(
                        "the bind group at group {} has no binding {} for `{}`",
                        rb.group, rb.binding, rb.name
                    )
                })?;
            let (buffer, offset, size) = match res {
                Resource::Buffer {
                    buffer,
                    offset,
                    size,
                } => (buffer, *offset, *size),
                Resource::Other(kind) => {
                    return Err(format!(
                        "`{}` is bound to a {kind}: the simulator runs buffers only",
                        rb.name
                    ))
                }
            };
            let dynamic = group
                .dynamic
                .iter()
                .position(|&b| b == rb.binding)
                .and_then(|k| offsets.get(k))
                .copied()
                .unwrap_or(0);
            buffer.get(&self.sim)?;
            bindings.push(Binding {
                name: rb.name.clone(),
                group: rb.group,
                binding: rb.binding,
                buffer: arg_of(buffer, &mut plan),
                offset: offset.saturating_add(dynamic),
                size,
            });
        }
        let size = match (&mut grid, &indirect) {
            (Workgroups::Indirect { buffer, offset }, Some(tb)) => {
                tb.get(&self.sim)?;
                *buffer = arg_of(tb, &mut plan);
                DispatchSize::Indirect {
                    buffer: tb.label.clone(),
                    offset: *offset,
                }
            }
            (Workgroups::Direct(c), _) => DispatchSize::Direct(*c),
            _ => return Err("an indirect dispatch without its buffer".into()),
        };
        // the immediates set so far, where the module declares immediate data
        let immediates = (kernel.declares_immediates() && !st.immediates.is_empty())
            .then(|| plan.upload("immediates", &st.immediates));
        plan.passes.push(Pass {
            label: pipe.label.clone(),
            kernel: kernel.clone(),
            entry: entry.clone(),
            overrides: pipe.constants.clone(),
            bindings,
            workgroups: grid,
            invalidates: None,
            immediates,
        });
        let prepared = self.sim.prepare(plan).map_err(|e| e.to_string())?;
        let sim_bufs: Vec<(BufferId, &SimBuffer)> = args
            .iter()
            .map(|(id, tb)| tb.get(&self.sim).map(|b| (*id, b)))
            .collect::<std::result::Result<_, _>>()?;
        let slices: Vec<(BufferId, SimSlice)> = sim_bufs
            .iter()
            .map(|(id, b)| (*id, SimSlice::whole(b)))
            .collect();
        let mut enc = SimEncoder::new();
        enc.record(&prepared, &slices, &RunSpec::default())
            .map_err(|e| e.to_string())?;
        let found = self.sim.submit(enc).map_err(|e| e.to_string())?;
        let mut findings = Vec::new();
        let mut notes = Vec::new();
        let mut repeats = 0;
        let key = |f: &Finding, note: bool| {
            (
                f.kind.name(),
                note,
                f.loc.as_ref().map(|l| (l.file.clone(), l.line, l.col)),
            )
        };
        for f in found.findings {
            if self.seen.insert(key(&f, false)) {
                findings.push(f);
            } else {
                repeats += 1;
            }
        }
        for f in found.notes {
            if self.seen.insert(key(&f, true)) {
                notes.push(f);
            }
        }
        self.report.dispatches.push(DispatchReport {
            index,
            submission,
            pass: pass_label.clone(),
            pipeline: pipe.label.clone(),
            module: pipe.module.label.clone(),
            file: pipe.module.file.clone(),
            entry,
            size,
            findings,
            notes,
            repeats,
        });
        Ok(())
    }
}
