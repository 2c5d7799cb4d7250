//! Several passes over shared, named buffers, run in order as one plan on the simulator: the
//! engine of `wgsimd pipeline FILE` (multi-dispatch algorithms whose state lives in buffers
//! between passes; the CLI reads the JSON file) and of `wgsimd check` (a pipeline of one pass).
//!
//! Rules:
//! - **One plan, one run.** Every buffer is a buffer of one [`Plan`]; the passes are its passes,
//!   in order, each a dispatch that sees everything the passes before it wrote. The checkers
//!   watch the whole run, so a word of an `uninit` buffer read before any pass wrote it is an
//!   `uninitialized-read` in whichever pass reads it, and one no pass wrote by the end is an
//!   `unwritten-output`.
//! - **Bindings are by `(@group, @binding)`**, as an application's bind groups give them, in any
//!   group; a slot the shader does not declare is an error (a typo would otherwise go unbound).
//!   Whether a binding is storage, read-only storage or uniform comes from the shader.
//! - **Each pass gets its own parse** of its shader, so a finding is reported once per pass it
//!   occurs in ([`Finding::pass`] is the pass's index in the request), even where two passes
//!   run the same file.
//! - **Textures are buffers of texels** ([`BufferSpec::texture`], [`crate::texture`]), bound
//!   as buffers are, to texture variables.
//! - Every buffer's final contents come back, in the request's order.

use std::sync::Arc;

use crate::directives::Stripped;
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::kernel::{Flavor, Kernel};
use crate::plan::{Binding, BufferId, Pass, Plan, Workgroups};

use super::inputs::{slot_name, ElemType, InitSpec};
use super::{SimConfig, Simulator};

/// A named buffer shared by the passes.
#[derive(Clone, Debug)]
pub struct BufferSpec {
    /// Its name, by which passes bind it.
    pub name: String,
    /// Element type (for random and iota contents, and how dumps print it).
    pub ty: ElemType,
    /// Initial contents.
    pub init: InitSpec,
    /// Seed of its random contents.
    pub seed: u64,
    /// `Some`: a texture of this shape ([`Plan::texture`]), `init` its channel words and `ty`
    /// their type.
    pub texture: Option<crate::texture::TextureDesc>,
}

/// How many workgroups a pass dispatches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grid {
    /// x, y, z.
    Direct([u32; 3]),
    /// Three u32 read from the named buffer at byte `offset` when the pass runs.
    Indirect {
        /// The buffer.
        buffer: String,
        /// Byte offset (a multiple of 4).
        offset: u64,
    },
}

/// A buffer (or byte range of it) bound to one `@group(G) @binding(I)` of a pass.
#[derive(Clone, Debug)]
pub struct BindingSpec {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The buffer's name.
    pub buffer: String,
    /// First byte bound (a multiple of 4).
    pub offset: u64,
    /// Bytes bound; `None`: to the end of the buffer.
    pub size: Option<u64>,
}

/// One dispatch.
#[derive(Clone, Debug)]
pub struct PassSpec {
    /// Name for messages.
    pub label: String,
    /// The shader's file name (source locations name it).
    pub file: String,
    /// Its WGSL text.
    pub source: String,
    /// Entry point.
    pub entry: String,
    /// Workgroup counts.
    pub workgroups: Grid,
    /// Pipeline-overridable constants (`override` declarations), by name or `@id` number.
    pub overrides: Vec<(String, f64)>,
    /// Bound buffers.
    pub bindings: Vec<BindingSpec>,
    /// The buffer whose first bytes are the pass's immediate data (a `var<immediate>`).
    pub immediates: Option<String>,
}

/// Buffers and passes to run.
#[derive(Clone, Debug)]
pub struct PipelineRequest {
    /// The shared buffers.
    pub buffers: Vec<BufferSpec>,
    /// The passes, in order.
    pub passes: Vec<PassSpec>,
    /// Simulator settings.
    pub config: SimConfig,
}

/// What a pipeline run found.
#[derive(Clone, Debug)]
pub struct PipelineReport {
    /// Findings; [`Finding::pass`] is the index of the pass in the request (`None` for those
    /// about the whole run, such as `unwritten-output`).
    pub findings: Vec<Finding>,
    /// Notes ([`crate::Report::notes`]): found, but turned down by the kernel's author.
    pub notes: Vec<Finding>,
    /// Final contents of every buffer, in the request's order.
    pub buffers: Vec<(ElemType, Vec<u32>)>,
    /// What was blanked from each shader file before parsing ([`crate::directives`]), once per
    /// file.
    pub stripped: Vec<(String, Stripped)>,
    /// Invocations per workgroup of each pass, in the request's order.
    pub invocations: Vec<u32>,
}

/// Builds the plan of `req` (every check on input, before anything runs) and runs it.
pub fn run(req: &PipelineRequest) -> Result<PipelineReport> {
    let sim = Simulator::new(req.config.clone())?;
    let max_bytes = sim.caps().max_buffer;
    let mut plan = Plan::new("pipeline");
    let mut ids = Vec::with_capacity(req.buffers.len());
    let mut total = 0u64;
    for (k, b) in req.buffers.iter().enumerate() {
        if b.name.is_empty() {
            return Err(Error::InvalidInput("a buffer has an empty name".into()));
        }
        if req.buffers[..k].iter().any(|o| o.name == b.name) {
            return Err(Error::InvalidInput(format!(
                "buffer `{}` declared twice",
                b.name
            )));
        }
        let what = format!("buffer `{}`", b.name);
        // the buffers together within the memory budget, checked before each is made where
        // its size is known without reading a file
        let budget = req.config.memory_budget;
        let over = |total: u64| {
            Error::TooLarge(format!(
                "{what}: the buffers take {total} bytes with it; the memory budget is {budget}"
            ))
        };
        // (one past the device's largest buffer is that error, from `contents`)
        let known = b
            .init
            .elements()
            .map(|n| b.ty.size_of(n as u64).unwrap_or(u64::MAX));
        if let Some(bytes) = known.filter(|&b| b <= max_bytes) {
            if total.saturating_add(bytes) > budget {
                return Err(over(total.saturating_add(bytes)));
            }
        }
        let (bytes, init) = match &b.texture {
            Some(desc) => b.init.texture_contents(desc, b.seed, max_bytes, &what)?,
            None => b.init.contents(b.ty, b.seed, max_bytes, &what)?,
        };
        total += bytes;
        if total > budget {
            return Err(over(total));
        }
        let id = match b.texture {
            Some(desc) => plan.texture(b.name.clone(), desc, init),
            None => plan.buffer(b.name.clone(), bytes, init),
        };
        plan.read_back(id);
        ids.push(id);
    }
    let buffer = |name: &str, what: &str| -> Result<BufferId> {
        req.buffers
            .iter()
            .position(|b| b.name == name)
            .map(|i| ids[i])
            .ok_or_else(|| Error::InvalidInput(format!("{what}: no buffer `{name}`")))
    };
    let mut stripped: Vec<(String, Stripped)> = Vec::new();
    let mut invocations = Vec::with_capacity(req.passes.len());
    for (pi, p) in req.passes.iter().enumerate() {
        let what = format!("pass {} (`{}`)", pi, p.label);
        let kernel = Arc::new(Kernel::from_source(
            &p.file,
            Flavor::Subgroup,
            p.source.clone(),
        )?);
        if !stripped.iter().any(|(f, _)| *f == p.file) {
            stripped.extend(kernel.stripped.iter().map(|s| (p.file.clone(), s.clone())));
        }
        let module = &kernel.module;
        let compute = |e: &&naga::EntryPoint| e.stage == naga::ShaderStage::Compute;
        if !module
            .entry_points
            .iter()
            .filter(compute)
            .any(|e| e.name == p.entry)
        {
            let names: Vec<&str> = module
                .entry_points
                .iter()
                .filter(compute)
                .map(|e| e.name.as_str())
                .collect();
            return Err(Error::InvalidInput(format!(
                "{what}: no compute entry point `{}` in {} (compute entry points: {})",
                p.entry,
                p.file,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
        for (k, (name, value)) in p.overrides.iter().enumerate() {
            let declared = module.overrides.iter().any(|(_, o)| {
                o.name.as_deref() == Some(name.as_str())
                    || o.id.is_some_and(|id| id.to_string() == *name)
            });
            if !declared {
                let names: Vec<String> = module
                    .overrides
                    .iter()
                    .filter_map(|(_, o)| o.name.clone())
                    .collect();
                return Err(Error::InvalidInput(format!(
                    "{what}: {} declares no override `{name}` (overrides: {})",
                    p.file,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
            if p.overrides[..k].iter().any(|(n, _)| n == name) {
                return Err(Error::InvalidInput(format!(
                    "{what}: override `{name}` given twice"
                )));
            }
            if !value.is_finite() {
                return Err(Error::InvalidInput(format!(
                    "{what}: override `{name}` = {value} is not a finite number"
                )));
            }
        }
        let mut bindings: Vec<Binding> = Vec::with_capacity(p.bindings.len());
        for b in &p.bindings {
            let slot = slot_name(b.group, b.binding);
            if bindings
                .iter()
                .any(|o| (o.group, o.binding) == (b.group, b.binding))
            {
                return Err(Error::InvalidInput(format!(
                    "{what}: binding {slot} given twice"
                )));
            }
            let var = module.global_variables.iter().find(|(_, g)| {
                g.binding
                    .as_ref()
                    .is_some_and(|r| (r.group, r.binding) == (b.group, b.binding))
            });
            let Some((_, var)) = var else {
                return Err(Error::InvalidInput(format!(
                    "{what}: {} declares no @group({}) @binding({})",
                    p.file, b.group, b.binding
                )));
            };
            let texture = matches!(module.types[var.ty].inner, naga::TypeInner::Image { .. });
            if !texture
                && !matches!(
                    var.space,
                    naga::AddressSpace::Storage { .. } | naga::AddressSpace::Uniform
                )
            {
                return Err(Error::InvalidInput(format!(
                    "{what}: @group({}) @binding({}) is not a storage or uniform buffer nor a \
                     texture (the simulator runs no samplers)",
                    b.group, b.binding
                )));
            }
            bindings.push(Binding {
                name: var
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("@binding({slot})")),
                group: b.group,
                binding: b.binding,
                buffer: buffer(&b.buffer, &format!("{what}, binding {slot}"))?,
                offset: b.offset,
                size: b.size,
            });
        }
        let immediates = match &p.immediates {
            None => None,
            Some(name) => {
                if !kernel.declares_immediates() {
                    return Err(Error::InvalidInput(format!(
                        "{what}: {} declares no immediate data (`var<immediate>`)",
                        p.file
                    )));
                }
                Some(buffer(name, &format!("{what}, immediate data"))?)
            }
        };
        // (the specialization the run uses: cached on the kernel under the same overrides)
        let [x, y, z] = kernel.specialize(&p.entry, &p.overrides)?.workgroup_size;
        invocations.push(x.saturating_mul(y).saturating_mul(z));
        let workgroups = match &p.workgroups {
            Grid::Direct(c) => Workgroups::Direct(*c),
            Grid::Indirect {
                buffer: name,
                offset,
            } => Workgroups::Indirect {
                buffer: buffer(name, &format!("{what}, indirect workgroups"))?,
                offset: *offset,
            },
        };
        plan.passes.push(Pass {
            label: p.label.clone(),
            kernel,
            entry: p.entry.clone(),
            overrides: p.overrides.clone(),
            bindings,
            workgroups,
            invalidates: None,
            immediates,
        });
    }
    let (mut read, report) = sim.run_plan(&plan)?;
    let buffers = req
        .buffers
        .iter()
        .zip(&ids)
        .map(|(b, id)| (b.ty, read.remove(id).unwrap_or_default()))
        .collect();
    Ok(PipelineReport {
        findings: report.findings,
        notes: report.notes,
        buffers,
        stripped,
        invocations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pass 0 counts into `hist`, pass 1 scans it into `offsets`: state kept between passes.
    const HIST: &str = "
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(1) @binding(0) var<storage, read_write> hist: array<atomic<u32>>;
@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x < arrayLength(&keys) {
        atomicAdd(&hist[keys[g.x] % BINS], 1u);
    }
}
override BINS: u32 = 4u;
";
    const SCAN: &str = "
@group(0) @binding(0) var<storage, read> hist: array<u32>;
@group(0) @binding(1) var<storage, read_write> offsets: array<u32>;
@compute @workgroup_size(1)
fn scan() {
    var sum = 0u;
    for (var i = 0u; i < arrayLength(&hist); i++) {
        offsets[i] = sum;
        sum += hist[i];
    }
}
";

    fn request(scan_reads: &str, offsets_len: usize) -> PipelineRequest {
        let buf = |name: &str, init: InitSpec| BufferSpec {
            name: name.into(),
            ty: ElemType::U32,
            init,
            seed: 1,
            texture: None,
        };
        let bind = |group, binding, buffer: &str| BindingSpec {
            group,
            binding,
            buffer: buffer.into(),
            offset: 0,
            size: None,
        };
        PipelineRequest {
            buffers: vec![
                buf("keys", InitSpec::Iota(100)),
                buf("hist", InitSpec::Zeros(8)),
                buf("offsets", InitSpec::Uninit(offsets_len)),
            ],
            passes: vec![
                PassSpec {
                    label: "count".into(),
                    file: "hist.wgsl".into(),
                    source: HIST.into(),
                    entry: "count".into(),
                    workgroups: Grid::Direct([2, 1, 1]),
                    overrides: vec![("BINS".into(), 8.0)],
                    bindings: vec![bind(0, 0, "keys"), bind(1, 0, "hist")],
                    immediates: None,
                },
                PassSpec {
                    label: "scan".into(),
                    file: "scan.wgsl".into(),
                    source: SCAN.into(),
                    entry: "scan".into(),
                    workgroups: Grid::Direct([1, 1, 1]),
                    overrides: vec![],
                    bindings: vec![bind(0, 0, scan_reads), bind(0, 1, "offsets")],
                    immediates: None,
                },
            ],
            config: SimConfig::default(),
        }
    }

    /// The histogram of 0..100 in 8 bins, then its exclusive scan: clean, and the second pass
    /// saw what the first wrote (in group 1).
    #[test]
    fn state_is_kept_between_passes() {
        let r = run(&request("hist", 8)).unwrap();
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let hist: Vec<u32> = (0..8)
            .map(|b| (0..100).filter(|k| k % 8 == b).count() as u32)
            .collect();
        assert_eq!(r.buffers[1].1, hist);
        let mut sum = 0;
        let offsets: Vec<u32> = hist
            .iter()
            .map(|h| {
                sum += h;
                sum - h
            })
            .collect();
        assert_eq!(r.buffers[2].1, offsets);
    }

    /// The scan bound to a buffer longer than its output: it writes past `offsets`' end
    /// (out-of-bounds, attributed to pass 1), and a larger `offsets` left partly unwritten is
    /// an unwritten output of the whole run.
    #[test]
    fn findings_name_their_pass() {
        let mut req = request("keys", 8);
        req.buffers[2].init = InitSpec::Uninit(8);
        let r = run(&req).unwrap();
        let oob = r
            .findings
            .iter()
            .find(|f| f.kind.name() == "out-of-bounds")
            .unwrap_or_else(|| panic!("{:?}", r.findings));
        assert_eq!(oob.pass, Some(1));
        assert_eq!(oob.loc.as_ref().unwrap().file, "scan.wgsl");
        let r = run(&request("hist", 12)).unwrap();
        let unwritten = r
            .findings
            .iter()
            .find(|f| f.kind.name() == "unwritten-output")
            .unwrap_or_else(|| panic!("{:?}", r.findings));
        assert_eq!(unwritten.pass, None);
    }

    /// Unknown buffers, slots, entry points and overrides, duplicates and bad ranges are
    /// errors before anything runs.
    #[test]
    fn bad_requests_are_errors() {
        type Change = Box<dyn Fn(&mut PipelineRequest)>;
        let cases: Vec<(Change, &str)> = vec![
            (
                Box::new(|r| r.passes[1].bindings[0].buffer = "nope".into()),
                "no buffer `nope`",
            ),
            (
                Box::new(|r| r.passes[1].bindings[0].binding = 7),
                "declares no @group(0) @binding(7)",
            ),
            (
                Box::new(|r| r.passes[0].entry = "main".into()),
                "no compute entry point `main`",
            ),
            (
                Box::new(|r| r.passes[0].overrides[0].0 = "BIN".into()),
                "declares no override `BIN`",
            ),
            (
                Box::new(|r| r.passes[0].overrides[0].1 = f64::NAN),
                "not a finite number",
            ),
            (
                Box::new(|r| r.buffers[1].name = "keys".into()),
                "declared twice",
            ),
            (
                Box::new(|r| r.passes[1].bindings[1].offset = u64::MAX - 3),
                "outside buffer",
            ),
            (
                Box::new(|r| {
                    r.passes[1].workgroups = Grid::Indirect {
                        buffer: "hist".into(),
                        offset: 24,
                    }
                }),
                "indirect args outside",
            ),
            (
                Box::new(|r| r.passes[1].bindings.pop().map(drop).unwrap_or(())),
                "is not bound",
            ),
        ];
        for (change, want) in cases {
            let mut req = request("hist", 8);
            change(&mut req);
            let e = run(&req)
                .err()
                .unwrap_or_else(|| panic!("{want}: ran"))
                .to_string();
            assert!(e.contains(want), "{want}: {e}");
        }
    }
}
