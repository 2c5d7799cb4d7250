//! Replays the compute work of a wgpu API trace on the simulator: the engine of
//! `wgsimd replay DIR`.
//!
//! wgpu 30 records a trace when the application opens its device with
//! `DeviceDescriptor { trace: wgpu::Trace::Directory(DIR), .. }` and wgpu is built with its
//! `trace` feature: `DIR/trace.ron` is the list of API actions (RON, read by `ron/`),
//! and `DIR/dataN.*` hold what the actions carry: each shader module's source as the
//! application gave it (`.wgsl`), and every byte the application put into a buffer (`.bin`:
//! buffers made with contents, `Queue::write_buffer`, writes through a mapped range). So the
//! trace has everything a compute dispatch reads, and the replay rebuilds it:
//!
//! - **Buffers** start zeroed, as wgpu's do, and receive every recorded write in order (a
//!   queue write lands at the next submission, as on the queue); copies and clears between
//!   buffers run where they were recorded. A buffer gets memory when something first writes,
//!   copies or binds it.
//! - **Every compute dispatch** runs on simulated lanes, in submission order: the pipeline's
//!   shader module (parsed from the application's own `.wgsl`, so findings point at its
//!   lines), its entry point and pipeline constants, the bind groups set at the dispatch (any
//!   group, dynamic offsets applied), direct or indirect workgroup counts (indirect ones read
//!   from the simulated buffer, as the GPU would).
//! - **One run per dispatch** for the checkers, so each finding belongs to one dispatch; a
//!   finding at the same kind and source position as one an earlier dispatch reported is
//!   counted in the later dispatch's `repeats` (a count of findings, not invocations) instead
//!   of reported again. wgpu zero-fills buffers, so nothing is uninitialized: the findings are
//!   races, bounds, uniformity, barriers, step limits and the portability checks.
//! - **What is not compute is not run**: render passes, texture copies, query resolves and
//!   acceleration-structure builds are left out with a note (a buffer one of them writes keeps
//!   its contents). A dispatch the simulator cannot run (a texture or sampler binding, a module
//!   given as SPIR-V or naga IR, a shader naga refuses) ends the replay there, with the
//!   findings so far and the reason ([`ReplayReport::stopped`]).

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use crate::directives::Stripped;
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::kernel::Kernel;
use crate::ron::{Reader, Value};
use crate::{SimBuffer, SimConfig, SimEncoder, Simulator};

/// The name wgpu gives the action list in a trace folder.
pub const TRACE_FILE: &str = "trace.ron";

/// Largest `trace.ron` read (4 GiB).
pub const MAX_TRACE_BYTES: u64 = 4 << 30;

/// Largest shader source read (64 MiB).
const MAX_SHADER_BYTES: u64 = 64 << 20;

/// How many workgroups a replayed dispatch ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DispatchSize {
    /// `dispatch_workgroups(x, y, z)`.
    Direct([u32; 3]),
    /// `dispatch_workgroups_indirect`: the counts read from this buffer at this byte offset.
    Indirect {
        /// The buffer's label (or `buffer N`).
        buffer: String,
        /// Byte offset.
        offset: u64,
    },
}

/// One compute dispatch of the trace and what the simulator found in it.
#[derive(Clone, Debug)]
pub struct DispatchReport {
    /// Its number among the trace's dispatches, from 0.
    pub index: usize,
    /// The index of the submission it was in, as the trace numbers them.
    pub submission: u64,
    /// The compute pass's label.
    pub pass: Option<String>,
    /// The pipeline's label (or `pipeline N`).
    pub pipeline: String,
    /// The shader module's label.
    pub module: Option<String>,
    /// The shader's file in the trace folder (source locations name it).
    pub file: String,
    /// Entry point.
    pub entry: String,
    /// Workgroup counts.
    pub size: DispatchSize,
    /// New findings (not at a kind and position an earlier dispatch reported).
    pub findings: Vec<Finding>,
    /// New notes ([`crate::Report::notes`]: found, but turned down by the shader's author),
    /// each kind and position once over the replay.
    pub notes: Vec<Finding>,
    /// How many findings were at a kind and position an earlier dispatch already reported (not
    /// reported again; their invocations are not added to the earlier report's).
    pub repeats: usize,
}

/// What a replay did and found.
#[derive(Clone, Debug, Default)]
pub struct ReplayReport {
    /// The compute dispatches run, in order.
    pub dispatches: Vec<DispatchReport>,
    /// What was left out (render passes, texture copies, ...), each said once.
    pub notes: Vec<String>,
    /// What was blanked from shader sources before parsing ([`crate::directives`]), by file.
    pub stripped: Vec<(String, Stripped)>,
    /// Why the replay stopped before the end of the trace, if it did (the dispatches before
    /// it were run and are reported).
    pub stopped: Option<String>,
    /// The contents of the buffers asked for by label, as 32-bit words, at the end of the
    /// trace (or where the replay stopped), in the order asked; of the buffer made last where
    /// several have the label. A label no buffer has is not here.
    pub dumps: Vec<(String, Vec<u32>)>,
}

impl ReplayReport {
    /// All findings, in dispatch order.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.dispatches.iter().flat_map(|d| d.findings.iter())
    }
}

/// A trace buffer: memory made on first use.
struct TraceBuffer {
    serial: u64,
    label: String,
    size: u64,
    sim: OnceCell<SimBuffer>,
    /// Bytes of the trace's buffers made and not yet dropped, shared by all of them.
    made: Rc<std::cell::Cell<u64>>,
}

impl Drop for TraceBuffer {
    fn drop(&mut self) {
        if self.sim.get().is_some() {
            self.made.set(self.made.get().saturating_sub(self.size));
        }
    }
}

impl TraceBuffer {
    fn get(&self, sim: &Simulator) -> std::result::Result<&SimBuffer, String> {
        if let Some(b) = self.sim.get() {
            return Ok(b);
        }
        let max = sim.caps().max_buffer;
        if self.size > max {
            return Err(format!(
                "buffer `{}` has {} bytes; the simulated device's largest buffer is {max}",
                self.label, self.size
            ));
        }
        let budget = sim.config().memory_budget;
        let made = self.made.get().saturating_add(self.size);
        if made > budget {
            return Err(format!(
                "buffer `{}` has {} bytes; with the trace's other buffers that is {made}, past \
                 the memory budget of {budget}",
                self.label, self.size
            ));
        }
        self.made.set(made);
        Ok(self.sim.get_or_init(|| sim.zeroed(&self.label, self.size)))
    }
}

struct Module {
    label: Option<String>,
    file: String,
    /// The WGSL text, or why there is none to run.
    source: std::result::Result<String, String>,
    kernel: OnceCell<std::result::Result<Arc<Kernel>, String>>,
}

struct Pipeline {
    label: String,
    module: Rc<Module>,
    entry: Option<String>,
    constants: Vec<(String, f64)>,
}

enum Resource {
    Buffer {
        buffer: Rc<TraceBuffer>,
        offset: u64,
        size: Option<u64>,
    },
    /// A texture, sampler, array or acceleration structure: its kind.
    Other(String),
}

struct BindGroup {
    entries: Vec<(u32, Resource)>,
    /// The bindings with dynamic offsets, in increasing order (they take the offsets of
    /// `set_bind_group` in that order).
    dynamic: Rc<Vec<u32>>,
}

/// The state of a compute pass.
#[derive(Default)]
struct PassState {
    pipeline: Option<Rc<Pipeline>>,
    groups: HashMap<u32, (Rc<BindGroup>, Vec<u64>)>,
    /// The immediate data set so far (`SetImmediate`), by word.
    immediates: Vec<u32>,
}

struct Replay<'a> {
    dir: &'a Path,
    sim: Simulator,
    serial: u64,
    /// Bytes of the buffers made and not dropped ([`SimConfig::memory_budget`] bounds them).
    made: Rc<std::cell::Cell<u64>>,
    buffers: HashMap<u64, Rc<TraceBuffer>>,
    modules: HashMap<u64, Rc<Module>>,
    pipelines: HashMap<u64, Rc<Pipeline>>,
    layouts: HashMap<u64, Rc<Vec<u32>>>,
    bind_groups: HashMap<u64, Rc<BindGroup>>,
    seen: HashSet<FindingKey>,
    noted: HashSet<String>,
    /// Labels of the buffers to dump, and the last buffer made with each (kept alive here
    /// after the trace drops it: a bind group may still write it).
    dump: Vec<(String, Option<Rc<TraceBuffer>>)>,
    report: ReplayReport,
}

type Step = std::result::Result<(), String>;

/// A finding's kind, whether it is a note, and its source position (`file`, line, column): what
/// makes a later one a repeat.
type FindingKey = (&'static str, bool, Option<(String, u32, u32)>);

/// The id in `PointerId(n)` (or a bare number).
fn id_of(v: Option<&Value>) -> std::result::Result<u64, String> {
    let v = v.ok_or("missing id")?;
    v.as_u64()
        .or_else(|| v.at(0).and_then(Value::as_u64))
        .ok_or_else(|| "an id is not `PointerId(N)`".to_string())
}

fn u64_of(v: Option<&Value>, what: &str) -> std::result::Result<u64, String> {
    v.and_then(Value::as_u64)
        .ok_or_else(|| format!("{what} is not an unsigned integer"))
}

fn label_of(desc: Option<&Value>) -> Option<String> {
    desc?.get("label")?.some()?.as_str().map(str::to_string)
}

/// Replays the trace in folder `dir` with `config` (see the module docs), keeping the final
/// contents of the buffers labelled as in `dump` ([`ReplayReport::dumps`]). An unreadable or
/// malformed `trace.ron` is an error; a dispatch that cannot run ends the replay with
/// [`ReplayReport::stopped`].
pub fn replay(dir: &Path, config: SimConfig, dump: &[String]) -> Result<ReplayReport> {
    let path = dir.join(TRACE_FILE);
    let meta = std::fs::metadata(&path)
        .map_err(|e| Error::InvalidInput(format!("{}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(Error::InvalidInput(format!(
            "{} is not a file",
            path.display()
        )));
    }
    if meta.len() > MAX_TRACE_BYTES {
        return Err(Error::TooLarge(format!(
            "{} has {} bytes (at most {MAX_TRACE_BYTES} are read)",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(&path)
        .map_err(|e| Error::InvalidInput(format!("{}: {e}", path.display())))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::InvalidInput(format!("{} is not UTF-8 text", path.display())))?;
    let mut r = Reader::new(&text);
    let bad = |e: super::ron::ParseError| Error::InvalidInput(format!("{}:{e}", path.display()));
    r.expect(b'[').map_err(|e| {
        bad(super::ron::ParseError {
            message: format!("{} (a wgpu trace is a list of actions)", e.message),
            ..e
        })
    })?;
    let mut rp = Replay {
        dir,
        sim: Simulator::new(config)?,
        serial: 0,
        made: Rc::default(),
        buffers: HashMap::new(),
        modules: HashMap::new(),
        pipelines: HashMap::new(),
        layouts: HashMap::new(),
        bind_groups: HashMap::new(),
        seen: HashSet::new(),
        noted: HashSet::new(),
        dump: dump.iter().map(|d| (d.clone(), None)).collect(),
        report: ReplayReport::default(),
    };
    let mut count = 0usize;
    loop {
        // wgpu writes the closing `]` when the device goes away: a trace of an application
        // that did not close its device ends without it
        if r.at_end().map_err(bad)? {
            rp.note(format!(
                "{} ends without `]` (the application did not drop its device): replayed what \
                 was recorded",
                path.display()
            ));
            break;
        }
        if r.eat(b']').map_err(bad)? {
            if !r.at_end().map_err(bad)? {
                return Err(bad(r.error_here("text after the action list")));
            }
            break;
        }
        let action = match r.value() {
            Ok(a) => a,
            // the actions before it were replayed; a malformed action is where the trace ends
            Err(e) if count > 0 => {
                rp.report.stopped = Some(format!("{}:{e}", path.display()));
                break;
            }
            Err(e) => return Err(bad(e)),
        };
        count += 1;
        let name = action.name().unwrap_or("").to_string();
        if let Err(why) = rp.action(&action) {
            rp.report.stopped = Some(format!("action {count} ({name}): {why}"));
            break;
        }
        if !r.eat(b',').map_err(bad)? {
            r.skip_trivia().map_err(bad)?;
        }
    }
    // queue writes land at the next submission: one with no commands puts them in place
    if rp.sim.submit(SimEncoder::new()).is_ok() {
        for (label, b) in std::mem::take(&mut rp.dump) {
            let Some(b) = b else { continue };
            let words = match b.sim.get() {
                Some(buf) => buf.read::<u32>(),
                // never made, so zeros, as many as the device and the budget could hold
                None => {
                    let max = rp.sim.caps().max_buffer.min(rp.sim.config().memory_budget);
                    if b.size > max {
                        return Err(Error::TooLarge(format!(
                            "--dump {label}: buffer `{}` has {} bytes, more than the {max} \
                             a simulated buffer may hold",
                            b.label, b.size
                        )));
                    }
                    vec![0; b.size.div_ceil(4) as usize]
                }
            };
            rp.report.dumps.push((label, words));
        }
    }
    Ok(rp.report)
}

impl Replay<'_> {
    fn note(&mut self, note: String) {
        if self.noted.insert(note.clone()) {
            self.report.notes.push(note);
        }
    }

    fn buffer(&self, v: Option<&Value>) -> std::result::Result<Rc<TraceBuffer>, String> {
        let id = id_of(v)?;
        self.buffers
            .get(&id)
            .cloned()
            .ok_or_else(|| format!("buffer {id} was not created (or was dropped)"))
    }

    /// The bytes of a `Data` value: `File(name)` in the trace folder, or inline.
    fn data(&self, v: Option<&Value>, max: u64) -> std::result::Result<Vec<u8>, String> {
        let v = v.ok_or("missing data")?;
        match v.name() {
            Some("File") => {
                let name = v.at(0).and_then(Value::as_str).ok_or("bad `File` data")?;
                // a file of the trace folder, named by the trace: nothing outside it is read
                let plain = Path::new(name)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
                    && Path::new(name).components().count() == 1;
                if !plain {
                    return Err(format!(
                        "data file name {name:?} is not a file of the trace"
                    ));
                }
                let path = self.dir.join(name);
                let len = std::fs::metadata(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .len();
                if len > max {
                    return Err(format!(
                        "{} has {len} bytes, more than the {max} it can hold",
                        path.display()
                    ));
                }
                // (no further than `max`: a device such as /dev/zero has no length)
                let mut bytes = Vec::new();
                std::fs::File::open(&path)
                    .and_then(|f| std::io::Read::read_to_end(&mut f.take(max + 1), &mut bytes))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                if bytes.len() as u64 > max {
                    return Err(format!(
                        "{} has more than the {max} bytes it can hold",
                        path.display()
                    ));
                }
                Ok(bytes)
            }
            Some("String") => Ok(v
                .at(1)
                .and_then(Value::as_str)
                .ok_or("bad `String` data")?
                .as_bytes()
                .to_vec()),
            Some("Binary") => v
                .at(1)
                .and_then(Value::as_list)
                .ok_or("bad `Binary` data")?
                .iter()
                .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(|| "bad `Binary` data".to_string()),
            _ => Err("data is not `File`, `String` or `Binary`".into()),
        }
    }

    /// The kind of the data of a `CreateShaderModule`: `wgsl`, `spv`, `ron`, ...
    fn data_kind(v: Option<&Value>) -> String {
        let Some(v) = v else { return String::new() };
        match v.name() {
            Some("File") => v
                .at(0)
                .and_then(Value::as_str)
                .and_then(|n| n.rsplit_once('.'))
                .map(|(_, ext)| ext.to_ascii_lowercase())
                .unwrap_or_default(),
            _ => v
                .at(0)
                .and_then(Value::name)
                .unwrap_or("")
                .to_ascii_lowercase(),
        }
    }
}

mod actions;
mod dispatch;
