//! `wgsimd check`'s engine: one WGSL file, one entry point, bindings described on the command
//! line, run on the simulator; findings and binding contents come back. It is a pipeline of one
//! pass ([`super::pipeline`]).
//!
//! A binding spec is `[G:]I=TYPE:INIT`: `I` the `@binding` in `@group(G)` (group 0 when `G:`
//! is left out), `TYPE` `u32|i32|f32`, `INIT` one of `zeros:N`, `random:N` (seeded; f32 in
//! [-1, 1)), `iota:N` (0, 1, 2, ...), `uninit:N` (host-uninitialized: reading it before writing
//! is `uninitialized-read`, leaving any of it unwritten is `unwritten-output`), a list
//! `[v,v,...]`, or `file:PATH` (raw little-endian 4-byte elements; the CLI also reads `.npy`),
//! of at most [`MAX_ELEMENTS`] elements (and what the simulated device's largest buffer holds).
//! Whether the binding is storage or uniform comes from the shader.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::directives::Stripped;
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::plan::BufferInit;

use super::pipeline::{self, BindingSpec, BufferSpec, Grid, PassSpec, PipelineRequest};
use super::SimConfig;

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

    /// Its WGSL name.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U32 => "u32",
            ElemType::I32 => "i32",
            ElemType::F32 => "f32",
        }
    }

    /// The word of a value written as text (`1.5`, `-3`, `inf`), if it is one of this type.
    pub fn parse_value(self, s: &str) -> Option<u32> {
        let s = s.trim();
        match self {
            ElemType::U32 => s.parse::<u32>().ok(),
            ElemType::I32 => s.parse::<i32>().ok().map(|v| v as u32),
            ElemType::F32 => s.parse::<f32>().ok().map(f32::to_bits),
        }
    }
}

impl std::str::FromStr for ElemType {
    type Err = Error;
    /// `u32`, `i32` or `f32`.
    fn from_str(s: &str) -> Result<ElemType> {
        match s.trim() {
            "u32" => Ok(ElemType::U32),
            "i32" => Ok(ElemType::I32),
            "f32" => Ok(ElemType::F32),
            other => Err(Error::InvalidInput(format!(
                "unknown element type {other:?} (u32, i32 or f32)"
            ))),
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
    /// The raw little-endian contents of a file: 4-byte elements, read when the check runs.
    File(PathBuf),
}

/// Most elements (32-bit words) a binding may have: 2^30, 4 GiB. The device simulated may
/// allow less ([`check`] says so before making the contents).
pub const MAX_ELEMENTS: u64 = 1 << 30;

impl InitSpec {
    /// Parses `INIT` (`zeros:N`, `random:N`, `iota:N`, `uninit:N`, `[v,...]` or `file:PATH`)
    /// for elements of `ty`; the error says what is wrong.
    pub fn parse(ty: ElemType, init: &str) -> std::result::Result<InitSpec, String> {
        let init = init.trim();
        if let Some(path) = init.strip_prefix("file:") {
            if path.is_empty() {
                return Err("no file name after `file:`".into());
            }
            return Ok(InitSpec::File(PathBuf::from(path)));
        }
        let spec = if let Some(list) = init.strip_prefix('[') {
            let list = list.strip_suffix(']').ok_or("unclosed `[`")?;
            let vals: Option<Vec<u32>> = list
                .split(',')
                .filter(|v| !v.trim().is_empty())
                .map(|v| ty.parse_value(v))
                .collect();
            let vals = vals.ok_or("a value does not parse as TYPE")?;
            if vals.len() as u64 > MAX_ELEMENTS {
                return Err("more values than a binding may have".into());
            }
            InitSpec::Values(vals)
        } else {
            let (k, n) = init.split_once(':').ok_or("no count")?;
            let n: u64 = n.trim().parse().map_err(|_| "count is not a number")?;
            if n > MAX_ELEMENTS {
                return Err(format!(
                    "{n} elements is more than the {MAX_ELEMENTS} a binding may have"
                ));
            }
            let n = n as usize;
            match k {
                "zeros" => InitSpec::Zeros(n),
                "random" => InitSpec::Random(n),
                "iota" => InitSpec::Iota(n),
                "uninit" => InitSpec::Uninit(n),
                _ => return Err("unknown INIT".into()),
            }
        };
        if spec.elements() == Some(0) {
            return Err("a binding needs at least one element".into());
        }
        Ok(spec)
    }

    /// Elements (32-bit words); `None` for a file, whose size is known when it is read.
    pub fn elements(&self) -> Option<usize> {
        match self {
            InitSpec::Values(v) => Some(v.len()),
            InitSpec::Zeros(n) | InitSpec::Random(n) | InitSpec::Iota(n) | InitSpec::Uninit(n) => {
                Some(*n)
            }
            InitSpec::File(_) => None,
        }
    }

    /// The buffer's size in bytes and its initial contents, for elements of `ty` (random
    /// values from `seed`), after checking the size against `max_bytes` (the simulated
    /// device's largest buffer) before anything is allocated or read. `what` names the buffer
    /// in errors.
    pub fn contents(
        &self,
        ty: ElemType,
        seed: u64,
        max_bytes: u64,
        what: &str,
    ) -> Result<(u64, BufferInit)> {
        if let InitSpec::File(path) = self {
            let words = read_raw(path, max_bytes.min(MAX_ELEMENTS * 4), what)?;
            let bytes = bytemuck::cast_slice::<u32, u8>(&words).to_vec();
            return Ok((bytes.len() as u64, BufferInit::Bytes(bytes)));
        }
        let n = self.elements().unwrap_or(0);
        let bytes = (n as u64)
            .checked_mul(4)
            .filter(|&b| b > 0 && b <= max_bytes)
            .ok_or_else(|| {
                if n == 0 {
                    return Error::InvalidInput(format!("{what}: no elements"));
                }
                Error::TooLarge(format!(
                    "{what}: {n} elements; the simulated device's largest buffer is {max_bytes} \
                     bytes"
                ))
            })?;
        let mut rng = super::rng::SplitMix::new(seed);
        let init = match self {
            InitSpec::Zeros(_) => BufferInit::Zeroed,
            InitSpec::Uninit(_) => BufferInit::Poison,
            InitSpec::Iota(n) => {
                let v: Vec<u32> = (0..*n as u32)
                    .map(|i| match ty {
                        ElemType::F32 => (i as f32).to_bits(),
                        _ => i,
                    })
                    .collect();
                BufferInit::Bytes(bytemuck::cast_slice(&v).to_vec())
            }
            InitSpec::Random(n) => {
                let v: Vec<u32> = (0..*n)
                    .map(|_| match ty {
                        ElemType::F32 => rng.next_f32_signed().to_bits(),
                        _ => rng.next_u32(),
                    })
                    .collect();
                BufferInit::Bytes(bytemuck::cast_slice(&v).to_vec())
            }
            InitSpec::Values(v) => BufferInit::Bytes(bytemuck::cast_slice(v).to_vec()),
            InitSpec::File(_) => unreachable!("read above"),
        };
        Ok((bytes, init))
    }
}

/// The words of a raw file of little-endian 4-byte elements, its size checked (a whole number
/// of elements, at least one, at most `max_bytes`) before it is read.
pub fn read_raw(path: &Path, max_bytes: u64, what: &str) -> Result<Vec<u32>> {
    let shown = path.display();
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
    {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} is a .npy file; the library reads raw little-endian words (wgsimd \
             check reads .npy)"
        )));
    }
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::InvalidInput(format!("{what}: {shown}: {e}")))?;
    if !meta.is_file() {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} is not a file"
        )));
    }
    let len = meta.len();
    if len == 0 || len % 4 != 0 {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} holds {len} bytes, not a whole number (at least one) of 4-byte \
             elements"
        )));
    }
    if len > max_bytes {
        return Err(Error::TooLarge(format!(
            "{what}: {shown} holds {len} bytes; the simulated device's largest buffer is \
             {max_bytes} bytes"
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| Error::InvalidInput(format!("{what}: {shown}: {e}")))?;
    if bytes.len() as u64 != len {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} changed size while it was read"
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// One `--bind [G:]I=TYPE:INIT`.
#[derive(Clone, Debug, PartialEq)]
pub struct BindSpec {
    /// `@group`.
    pub group: u32,
    /// `@binding` in the group.
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
                "--bind {s:?}: {why} (expected [G:]I=TYPE:INIT, TYPE u32|i32|f32, INIT zeros:N|random:N|iota:N|uninit:N|[v,...]|file:PATH)"
            ))
        };
        let (slot, rest) = s.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let (group, binding) = parse_slot(slot)
            .ok_or_else(|| bad("the binding is not I or G:I (unsigned 32-bit numbers)"))?;
        let (ty, init) = rest.split_once(':').ok_or_else(|| bad("no `:`"))?;
        let ty: ElemType = ty.parse().map_err(|_| bad("unknown type"))?;
        let init = InitSpec::parse(ty, init).map_err(|why| bad(&why))?;
        Ok(BindSpec {
            group,
            binding,
            ty,
            init,
        })
    }
}

/// `I` (group 0) or `G:I`.
pub fn parse_slot(s: &str) -> Option<(u32, u32)> {
    let num = |t: &str| t.trim().parse::<u32>().ok();
    match s.split_once(':') {
        Some((g, i)) => Some((num(g)?, num(i)?)),
        None => Some((0, num(s)?)),
    }
}

/// `I` for group 0, else `G:I`: how bindings are named in messages and dumps.
pub fn slot_name(group: u32, binding: u32) -> String {
    if group == 0 {
        binding.to_string()
    } else {
        format!("{group}:{binding}")
    }
}

impl BindSpec {
    /// Elements (32-bit words); `None` for a file, whose size is known when it is read.
    pub fn elements(&self) -> Option<usize> {
        self.init.elements()
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
    /// Pipeline-overridable constants (`override` declarations), by name or `@id` number.
    pub overrides: Vec<(String, f64)>,
    /// Simulator settings.
    pub config: SimConfig,
}

/// What a check found.
pub struct CheckReport {
    /// Findings.
    pub findings: Vec<Finding>,
    /// Final contents of every binding of group 0, by binding number.
    pub buffers: BTreeMap<u32, (ElemType, Vec<u32>)>,
    /// Final contents of the bindings of the other groups, by `(group, binding)`.
    pub other_groups: BTreeMap<(u32, u32), (ElemType, Vec<u32>)>,
    /// What was blanked from the source before parsing ([`crate::directives`]).
    pub stripped: Vec<Stripped>,
    /// Invocations per workgroup of the entry point (with the request's overrides).
    pub invocations: u32,
}

impl CheckReport {
    /// The final contents of `@group(group) @binding(binding)`.
    pub fn binding(&self, group: u32, binding: u32) -> Option<&(ElemType, Vec<u32>)> {
        if group == 0 {
            self.buffers.get(&binding)
        } else {
            self.other_groups.get(&(group, binding))
        }
    }
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
///     overrides: vec![],
///     config: SimConfig::default(),
/// })?;
/// let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind.name()).collect();
/// assert!(kinds.contains(&"out-of-bounds"), "{kinds:?}");
/// # Ok(()) }
/// ```
pub fn check(req: &CheckRequest) -> Result<CheckReport> {
    let mut buffers = Vec::new();
    let mut bindings = Vec::new();
    for (k, b) in req.binds.iter().enumerate() {
        let slot = slot_name(b.group, b.binding);
        if req.binds[..k]
            .iter()
            .any(|o| (o.group, o.binding) == (b.group, b.binding))
        {
            return Err(Error::InvalidInput(format!("binding {slot} given twice")));
        }
        let name = format!("binding {slot}");
        buffers.push(BufferSpec {
            name: name.clone(),
            ty: b.ty,
            init: b.init.clone(),
            seed: 0xC0FFEE ^ b.binding as u64 ^ ((b.group as u64) << 32),
        });
        bindings.push(BindingSpec {
            group: b.group,
            binding: b.binding,
            buffer: name,
            offset: 0,
            size: None,
        });
    }
    let report = pipeline::run(&PipelineRequest {
        buffers,
        passes: vec![PassSpec {
            label: "check".into(),
            file: req.name.clone(),
            source: req.source.clone(),
            entry: req.entry.clone(),
            workgroups: Grid::Direct(req.workgroups),
            overrides: req.overrides.clone(),
            bindings,
        }],
        config: req.config.clone(),
    })?;
    let mut out = CheckReport {
        findings: report.findings,
        buffers: BTreeMap::new(),
        other_groups: BTreeMap::new(),
        stripped: report.stripped.into_iter().map(|(_, s)| s).collect(),
        invocations: report.invocations.first().copied().unwrap_or(0),
    };
    for (b, (_, words)) in req.binds.iter().zip(report.buffers) {
        if b.group == 0 {
            out.buffers.insert(b.binding, (b.ty, words));
        } else {
            out.other_groups.insert((b.group, b.binding), (b.ty, words));
        }
    }
    Ok(out)
}
