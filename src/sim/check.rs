//! `wgsimd check`'s engine: one WGSL file, one entry point, bindings described on the command
//! line, run on the simulator; findings and binding contents come back.
//!
//! A binding spec is `I=TYPE:INIT`: `I` the `@binding` in group 0, `TYPE` `u32|i32|f32`, `INIT`
//! one of `zeros:N`, `random:N` (seeded; f32 in [-1, 1)), `iota:N` (0, 1, 2, ...),
//! `uninit:N` (host-uninitialized: reading it before writing is `uninitialized-read`, leaving
//! any of it unwritten is `unwritten-output`) or a list `[v,v,...]`, of at most
//! [`MAX_ELEMENTS`] elements (and what the simulated device's largest buffer holds). Whether
//! the binding is storage or uniform comes from the shader.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::kernel::{Flavor, Kernel};
use crate::plan::{BufferInit, Plan, Workgroups};

use super::{SimConfig, Simulator};

pub use super::checks::CheckOptions;

/// Element type of a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// u32.
    U32,
    /// i32.
    I32,
    /// f32.
    F32,
}

impl ElemType {
    /// A word of this type as text.
    pub fn format(self, w: u32) -> String {
        match self {
            ElemType::U32 => w.to_string(),
            ElemType::I32 => (w as i32).to_string(),
            ElemType::F32 => f32::from_bits(w).to_string(),
        }
    }

    fn parse_value(self, s: &str) -> Option<u32> {
        let s = s.trim();
        match self {
            ElemType::U32 => s.parse::<u32>().ok(),
            ElemType::I32 => s.parse::<i32>().ok().map(|v| v as u32),
            ElemType::F32 => s.parse::<f32>().ok().map(f32::to_bits),
        }
    }
}

/// Initial contents of a binding.
#[derive(Clone, Debug, PartialEq)]
pub enum InitSpec {
    /// N zeros.
    Zeros(usize),
    /// N seeded random values.
    Random(usize),
    /// 0, 1, ..., N-1.
    Iota(usize),
    /// N host-uninitialized elements.
    Uninit(usize),
    /// These words.
    Values(Vec<u32>),
}

/// Most elements (32-bit words) a binding may have: 2^30, 4 GiB. The device simulated may
/// allow less ([`check`] says so before making the contents).
pub const MAX_ELEMENTS: u64 = 1 << 30;

/// One `--bind I=TYPE:INIT`.
#[derive(Clone, Debug, PartialEq)]
pub struct BindSpec {
    /// `@binding` in group 0.
    pub binding: u32,
    /// Element type.
    pub ty: ElemType,
    /// Contents.
    pub init: InitSpec,
}

impl std::str::FromStr for BindSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<BindSpec> {
        let bad = |why: &str| {
            Error::InvalidInput(format!(
                "--bind {s:?}: {why} (expected I=TYPE:INIT, TYPE u32|i32|f32, INIT zeros:N|random:N|iota:N|uninit:N|[v,...])"
            ))
        };
        let (i, rest) = s.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let binding: u32 = i
            .trim()
            .parse()
            .map_err(|_| bad("binding is not a number"))?;
        let (ty, init) = rest.split_once(':').ok_or_else(|| bad("no `:`"))?;
        let ty = match ty.trim() {
            "u32" => ElemType::U32,
            "i32" => ElemType::I32,
            "f32" => ElemType::F32,
            _ => return Err(bad("unknown type")),
        };
        let init = init.trim();
        let init = if let Some(list) = init.strip_prefix('[') {
            let list = list.strip_suffix(']').ok_or_else(|| bad("unclosed `[`"))?;
            let vals: Option<Vec<u32>> = list
                .split(',')
                .filter(|v| !v.trim().is_empty())
                .map(|v| ty.parse_value(v))
                .collect();
            let vals = vals.ok_or_else(|| bad("a value does not parse as TYPE"))?;
            if vals.len() as u64 > MAX_ELEMENTS {
                return Err(bad("more values than a binding may have"));
            }
            InitSpec::Values(vals)
        } else {
            let (k, n) = init.split_once(':').ok_or_else(|| bad("no count"))?;
            let n: u64 = n.trim().parse().map_err(|_| bad("count is not a number"))?;
            if n > MAX_ELEMENTS {
                return Err(bad(&format!(
                    "{n} elements is more than the {MAX_ELEMENTS} a binding may have"
                )));
            }
            let n = n as usize;
            match k {
                "zeros" => InitSpec::Zeros(n),
                "random" => InitSpec::Random(n),
                "iota" => InitSpec::Iota(n),
                "uninit" => InitSpec::Uninit(n),
                _ => return Err(bad("unknown INIT")),
            }
        };
        let spec = BindSpec { binding, ty, init };
        if spec.is_empty() {
            return Err(bad("a binding needs at least one element"));
        }
        Ok(spec)
    }
}

impl BindSpec {
    /// Elements (32-bit words).
    pub fn len(&self) -> usize {
        match &self.init {
            InitSpec::Values(v) => v.len(),
            InitSpec::Zeros(n) | InitSpec::Random(n) | InitSpec::Iota(n) | InitSpec::Uninit(n) => {
                *n
            }
        }
    }

    /// Whether it has no elements (a parsed spec never has).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What to check.
pub struct CheckRequest {
    /// File name for messages.
    pub name: String,
    /// WGSL text.
    pub source: String,
    /// Entry point.
    pub entry: String,
    /// Workgroup counts.
    pub workgroups: [u32; 3],
    /// Bindings.
    pub binds: Vec<BindSpec>,
    /// Simulator settings.
    pub config: SimConfig,
}

/// What a check found.
pub struct CheckReport {
    /// Findings.
    pub findings: Vec<Finding>,
    /// Final contents of every binding, by binding number.
    pub buffers: BTreeMap<u32, (ElemType, Vec<u32>)>,
}

/// Parses, validates and runs a request (the checkers' options are `req.config.checks`). Parse
/// and validation errors are `Error::Shader` with naga's span-rendered message.
///
/// A kernel that reads past its array on every lane of the last subgroup:
/// ```
/// use wgsimd::sim::{check::{check, CheckRequest}, SimConfig};
/// # fn main() -> wgsimd::Result<()> {
/// let source = r"
///     @group(0) @binding(0) var<storage, read_write> data: array<u32>;
///     @compute @workgroup_size(64)
///     fn main(@builtin(local_invocation_index) i: u32) {
///         data[i] = data[i + 1u];
///     }";
/// let report = check(&CheckRequest {
///     name: "shift.wgsl".into(),
///     source: source.into(),
///     entry: "main".into(),
///     workgroups: [1, 1, 1],
///     binds: vec!["0=u32:iota:64".parse()?],
///     config: SimConfig::default(),
/// })?;
/// let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind.name()).collect();
/// assert!(kinds.contains(&"out-of-bounds"), "{kinds:?}");
/// # Ok(()) }
/// ```
pub fn check(req: &CheckRequest) -> Result<CheckReport> {
    let kernel = Arc::new(Kernel::from_source(
        &req.name,
        Flavor::Subgroup,
        req.source.clone(),
    )?);
    if kernel.entry(&req.entry).is_none() {
        let names: Vec<&str> = kernel.entries.iter().map(|e| e.name.as_str()).collect();
        return Err(Error::InvalidInput(format!(
            "no entry point `{}` in {} (entry points: {})",
            req.entry,
            req.name,
            names.join(", ")
        )));
    }
    let sim = Simulator::new(req.config.clone())?;
    let mut plan = Plan::new(format!("check {}", req.name));
    let mut ids = Vec::new();
    for (k, b) in req.binds.iter().enumerate() {
        if req.binds[..k].iter().any(|o| o.binding == b.binding) {
            return Err(Error::InvalidInput(format!(
                "binding {} given twice",
                b.binding
            )));
        }
        let bytes = (b.len() as u64)
            .checked_mul(4)
            .filter(|&bytes| bytes <= sim.caps().max_buffer)
            .ok_or_else(|| {
                Error::TooLarge(format!(
                    "binding {}: {} elements; the simulated device's largest buffer is {} bytes",
                    b.binding,
                    b.len(),
                    sim.caps().max_buffer
                ))
            })?;
        let mut rng = super::rng::SplitMix::new(0xC0FFEE ^ b.binding as u64);
        let init = match &b.init {
            InitSpec::Zeros(_) => BufferInit::Zeroed,
            InitSpec::Uninit(_) => BufferInit::Poison,
            InitSpec::Iota(n) => {
                let v: Vec<u32> = (0..*n as u32)
                    .map(|i| match b.ty {
                        ElemType::F32 => (i as f32).to_bits(),
                        _ => i,
                    })
                    .collect();
                BufferInit::Bytes(bytemuck::cast_slice(&v).to_vec())
            }
            InitSpec::Random(n) => {
                let v: Vec<u32> = (0..*n)
                    .map(|_| match b.ty {
                        ElemType::F32 => rng.next_f32_signed().to_bits(),
                        _ => rng.next_u32(),
                    })
                    .collect();
                BufferInit::Bytes(bytemuck::cast_slice(&v).to_vec())
            }
            InitSpec::Values(v) => BufferInit::Bytes(bytemuck::cast_slice(v).to_vec()),
        };
        let id = plan.buffer(format!("binding {}", b.binding), bytes, init);
        plan.read_back(id);
        ids.push((b.binding, b.ty, id));
    }
    plan.pass(
        "check",
        &kernel,
        &req.entry,
        &[],
        &[],
        Workgroups::Direct(req.workgroups),
    )?;
    let pass = plan.passes.last_mut().expect("pass");
    for &(binding, _, buffer) in &ids {
        pass.bindings.push(crate::plan::Binding {
            name: format!("@binding({binding})"),
            binding,
            buffer,
            offset: 0,
            size: None,
        });
    }
    let (mut read, findings) = sim.run_plan(&plan)?;
    let buffers = ids
        .iter()
        .map(|&(binding, ty, id)| (binding, (ty, read.remove(&id).unwrap_or_default())))
        .collect();
    Ok(CheckReport { findings, buffers })
}
