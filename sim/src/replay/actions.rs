//! The trace's actions replayed in order: resources made, written and copied, submissions'
//! commands, compute passes handed to [`super`]'s dispatch.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::ron::Value;
use crate::SimEncoder;

use super::*;

impl Replay<'_> {
    pub(super) fn action(&mut self, a: &Value) -> Step {
        match a.name().unwrap_or("") {
            "CreateBuffer" => {
                let id = id_of(a.at(0))?;
                let desc = a.at(1);
                let size = u64_of(desc.and_then(|d| d.get("size")), "a buffer size")?;
                self.serial += 1;
                let label = label_of(desc).unwrap_or_else(|| format!("buffer {}", self.serial));
                let buffer = Rc::new(TraceBuffer {
                    serial: self.serial,
                    label,
                    size,
                    sim: OnceCell::new(),
                    made: self.made.clone(),
                });
                if let Some((_, d)) = self.dump.iter_mut().find(|(l, _)| *l == buffer.label) {
                    *d = Some(buffer.clone());
                }
                self.buffers.insert(id, buffer);
            }
            "DestroyBuffer" | "DropBuffer" => {
                self.buffers.remove(&id_of(a.at(0))?);
            }
            "WriteBuffer" => {
                let buf = self.buffer(a.get("id"))?;
                let offset = u64_of(a.get("offset"), "a write offset")?;
                let bytes = self.data(a.get("data"), buf.size)?;
                if bytes.is_empty() {
                    return Ok(());
                }
                let end = offset.saturating_add(bytes.len() as u64);
                if offset % 4 != 0 || bytes.len() % 4 != 0 || end > buf.size.div_ceil(4) * 4 {
                    return Err(format!(
                        "a write of {} bytes at byte {offset} of `{}` ({} bytes) is not whole \
                         words inside it",
                        bytes.len(),
                        buf.label,
                        buf.size
                    ));
                }
                let sim_buf = buf.get(&self.sim)?;
                self.sim
                    .write_buffer(sim_buf, offset, &bytes)
                    .map_err(|e| e.to_string())?;
            }
            "CreateShaderModule" => {
                let id = id_of(a.get("id"))?;
                let label = label_of(a.get("desc"));
                let kind = Self::data_kind(a.get("data"));
                let file = match a.get("data") {
                    Some(d) if d.name() == Some("File") => {
                        let name = d.at(0).and_then(Value::as_str).unwrap_or("?");
                        self.dir.join(name).display().to_string()
                    }
                    _ => format!("{}/shader {id}", self.dir.display()),
                };
                let source = if kind == "wgsl" {
                    self.data(a.get("data"), MAX_SHADER_BYTES)
                        .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8".to_string()))
                } else {
                    Err(format!(
                        "its source is {} (the simulator runs WGSL)",
                        if kind.is_empty() { "missing" } else { &kind }
                    ))
                };
                self.modules.insert(
                    id,
                    Rc::new(Module {
                        label,
                        file,
                        source,
                        kernel: OnceCell::new(),
                    }),
                );
            }
            "CreateShaderModulePassthrough" => {
                let id = id_of(a.get("id"))?;
                self.modules.insert(
                    id,
                    Rc::new(Module {
                        label: a
                            .get("label")
                            .and_then(Value::some)
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        file: format!("{}/shader {id}", self.dir.display()),
                        source: Err("it is a passthrough (native) shader".into()),
                        kernel: OnceCell::new(),
                    }),
                );
            }
            "CreateComputePipeline" => {
                let id = id_of(a.get("id"))?;
                let desc = a.get("desc").ok_or("missing desc")?;
                let stage = desc.get("stage").ok_or("missing stage")?;
                let module_id = id_of(stage.get("module"))?;
                let module = self
                    .modules
                    .get(&module_id)
                    .cloned()
                    .ok_or_else(|| format!("shader module {module_id} was not created"))?;
                let entry = stage
                    .get("entry_point")
                    .and_then(Value::some)
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let mut constants = Vec::new();
                if let Some(Value::Map(m)) = stage.get("constants") {
                    for (k, v) in m {
                        let k = k
                            .as_str()
                            .ok_or("a pipeline constant's name is not a string")?;
                        let v = v
                            .as_f64()
                            .ok_or_else(|| format!("pipeline constant `{k}` is not a number"))?;
                        constants.push((k.to_string(), v));
                    }
                }
                let label = label_of(Some(desc)).unwrap_or_else(|| format!("pipeline {id}"));
                self.pipelines.insert(
                    id,
                    Rc::new(Pipeline {
                        label,
                        module,
                        entry,
                        constants,
                    }),
                );
            }
            "DropComputePipeline" => {
                self.pipelines.remove(&id_of(a.at(0))?);
            }
            "DropShaderModule" => {
                self.modules.remove(&id_of(a.at(0))?);
            }
            "CreateBindGroupLayout" => {
                let id = id_of(a.at(0))?;
                let mut dynamic: Vec<u32> = Vec::new();
                let entries = a
                    .at(1)
                    .and_then(|d| d.get("entries"))
                    .and_then(Value::as_list)
                    .unwrap_or(&[]);
                for e in entries {
                    let dyn_offset = e
                        .get("ty")
                        .and_then(|t| t.get("has_dynamic_offset"))
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    if dyn_offset {
                        let b = u64_of(e.get("binding"), "a layout binding")?;
                        dynamic.push(u32::try_from(b).map_err(|_| "a binding past u32")?);
                    }
                }
                dynamic.sort_unstable();
                self.layouts.insert(id, Rc::new(dynamic));
            }
            "GetComputePipelineBindGroupLayout" | "GetRenderPipelineBindGroupLayout" => {
                // a layout derived from the shader: never with dynamic offsets
                self.layouts
                    .insert(id_of(a.get("id"))?, Rc::new(Vec::new()));
            }
            "DropBindGroupLayout" => {
                self.layouts.remove(&id_of(a.at(0))?);
            }
            "CreateBindGroup" => {
                let id = id_of(a.at(0))?;
                let desc = a.at(1).ok_or("missing desc")?;
                let layout = id_of(desc.get("layout"))?;
                let dynamic = self.layouts.get(&layout).cloned().unwrap_or_default();
                let mut entries = Vec::new();
                for e in desc.get("entries").and_then(Value::as_list).unwrap_or(&[]) {
                    let binding = u64_of(e.get("binding"), "a binding number")?;
                    let binding = u32::try_from(binding).map_err(|_| "a binding past u32")?;
                    let res = e.get("resource").ok_or("missing resource")?;
                    let resource = match res.name() {
                        Some("Buffer") => {
                            let bb = res.at(0).ok_or("bad buffer binding")?;
                            Resource::Buffer {
                                buffer: self.buffer(bb.get("buffer"))?,
                                offset: u64_of(bb.get("offset"), "a binding offset")?,
                                size: match bb.get("size").and_then(Value::some) {
                                    None => None,
                                    Some(s) => Some(u64_of(Some(s), "a binding size")?),
                                },
                            }
                        }
                        other => Resource::Other(other.unwrap_or("resource").to_string()),
                    };
                    entries.push((binding, resource));
                }
                self.bind_groups
                    .insert(id, Rc::new(BindGroup { entries, dynamic }));
            }
            "DropBindGroup" => {
                self.bind_groups.remove(&id_of(a.at(0))?);
            }
            "Submit" => {
                let index = a.at(0).and_then(Value::as_u64).unwrap_or(0);
                for c in a.at(1).and_then(Value::as_list).unwrap_or(&[]) {
                    self.command(index, c)?;
                }
            }
            "FailedCommands" => self.note(
                "commands that failed wgpu's validation are in the trace; they did not run and \
                 are not replayed"
                    .into(),
            ),
            _ => {}
        }
        Ok(())
    }

    fn command(&mut self, submission: u64, c: &Value) -> Step {
        match c.name().unwrap_or("") {
            "CopyBufferToBuffer" => {
                let src = self.buffer(c.get("src"))?;
                let dst = self.buffer(c.get("dst"))?;
                let src_at = u64_of(c.get("src_offset"), "a copy offset")?;
                let dst_at = u64_of(c.get("dst_offset"), "a copy offset")?;
                let size = match c.get("size").and_then(Value::some) {
                    Some(s) => u64_of(Some(s), "a copy size")?,
                    None => src.size.saturating_sub(src_at),
                };
                if size == 0 {
                    return Ok(());
                }
                let mut enc = SimEncoder::new();
                enc.copy_buffer_to_buffer(
                    src.get(&self.sim)?,
                    src_at,
                    dst.get(&self.sim)?,
                    dst_at,
                    size,
                )
                .map_err(|e| e.to_string())?;
                self.sim.submit(enc).map_err(|e| e.to_string())?;
            }
            "ClearBuffer" => {
                let dst = self.buffer(c.get("dst"))?;
                let at = u64_of(c.get("offset"), "a clear offset")?;
                let size = match c.get("size").and_then(Value::some) {
                    Some(s) => u64_of(Some(s), "a clear size")?,
                    None => dst.size.saturating_sub(at),
                };
                if size == 0 {
                    return Ok(());
                }
                let target = dst.get(&self.sim)?;
                if size > target.size() {
                    return Err(format!("a clear of {size} bytes of `{}`", dst.label));
                }
                let zeros = self.sim.zeroed("clear", size);
                let mut enc = SimEncoder::new();
                enc.copy_buffer_to_buffer(&zeros, 0, target, at, size)
                    .map_err(|e| e.to_string())?;
                self.sim.submit(enc).map_err(|e| e.to_string())?;
            }
            "RunComputePass" => {
                let pass = c.get("pass").ok_or("missing pass")?;
                self.compute_pass(submission, pass)?;
            }
            "RunRenderPass" => self.note(
                "render passes are not replayed (the simulator runs compute work); a buffer one \
                 writes keeps its contents"
                    .into(),
            ),
            "CopyTextureToBuffer" | "ResolveQuerySet" | "BuildAccelerationStructures" => {
                self.note(format!(
                    "`{}` is not replayed (textures, queries and acceleration structures are \
                     not simulated); a buffer it writes keeps its contents",
                    c.name().unwrap_or("")
                ))
            }
            _ => {}
        }
        Ok(())
    }
}
