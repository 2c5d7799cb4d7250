//! `wgsimd check`'s engine: one WGSL file, one entry point, bindings described on the command
//! line, run on the simulator; findings and binding contents come back. It is a pipeline of one
//! pass ([`super::pipeline`]).
//!
//! A binding spec is `[G:]I=TYPE:INIT`: `I` the `@binding` in `@group(G)` (group 0 when `G:`
//! is left out), `TYPE` `u32|i32|f32|f16`, `INIT` one of `zeros:N`, `random:N` (seeded; floats
//! in [-1, 1)), `iota:N` (0, 1, 2, ...), `uninit:N` (host-uninitialized: reading it before
//! writing is `uninitialized-read`, leaving any of it unwritten is `unwritten-output`), a list
//! `[v,v,...]` (an f16 rounded to the nearest), or `file:PATH` (raw little-endian 4-byte words,
//! two f16 each; the CLI also reads `.npy`), of at most [`MAX_ELEMENTS`] elements (and what the
//! simulated device's largest buffer holds). f16 elements take two bytes, two to a word, as an
//! `array<f16>` holds them: an even count.
//! Whether the binding is storage or uniform comes from the shader.
//!
//! A texture spec ([`BindSpec::parse_texture`], `--texture`) is `[G:]I=FORMAT:SIZE:INIT`:
//! `FORMAT` a texel format ([`crate::texture::TexelFormat`], `rgba8unorm`), `SIZE` `W`, `WxH`
//! or `WxHxD` (a 1D, 2D or 3D texture), `INIT` as a binding's in the type of the format's
//! channels (f32, u32 or i32), its count the texture's channel words, which `zeros`, `random`,
//! `iota` and `uninit` may leave out.

use std::collections::BTreeMap;

use crate::directives::Stripped;
use crate::error::{Error, Result};
use crate::finding::Finding;

use super::pipeline::{self, BindingSpec, BufferSpec, Grid, PassSpec, PipelineRequest};
use super::SimConfig;

pub use super::checks::CheckOptions;
pub use super::inputs::{
    parse_slot, parse_texture_init, parse_typed_init, read_raw, slot_name, ElemType, InitSpec,
    MAX_ELEMENTS,
};
use crate::texture::{TexelFormat, TextureDesc};

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
    /// `Some`: a texture of this shape, `ty` its channels' type.
    pub texture: Option<TextureDesc>,
}

impl std::str::FromStr for BindSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<BindSpec> {
        let bad = |why: &str| {
            Error::InvalidInput(format!(
                "--bind {s:?}: {why} (expected [G:]I=TYPE:INIT, TYPE u32|i32|f32|f16, INIT zeros:N|random:N|iota:N|uninit:N|[v,...]|file:PATH)"
            ))
        };
        let (slot, rest) = s.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let (group, binding) = parse_slot(slot)
            .ok_or_else(|| bad("the binding is not I or G:I (unsigned 32-bit numbers)"))?;
        let (ty, init) = parse_typed_init(rest).map_err(|why| bad(&why))?;
        Ok(BindSpec {
            group,
            binding,
            ty,
            init,
            texture: None,
        })
    }
}

impl BindSpec {
    /// A texture: `[G:]I=FORMAT:SIZE:INIT` (the module's rules).
    pub fn parse_texture(s: &str) -> Result<BindSpec> {
        let bad = |why: &str| {
            Error::InvalidInput(format!(
                "--texture {s:?}: {why} (expected [G:]I=FORMAT:SIZE:INIT, SIZE W|WxH|WxHxD, \
                 INIT zeros|random|iota|uninit|[v,...]|file:PATH)"
            ))
        };
        let (slot, rest) = s.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let (group, binding) = parse_slot(slot)
            .ok_or_else(|| bad("the binding is not I or G:I (unsigned 32-bit numbers)"))?;
        let mut parts = rest.splitn(3, ':');
        let (Some(format), Some(size), Some(init)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("not FORMAT:SIZE:INIT"));
        };
        let format = TexelFormat::parse(format).map_err(|why| bad(&why))?;
        let desc = TextureDesc::parse(format, size).map_err(|why| bad(&why))?;
        let ty = ElemType::of_texels(format);
        let init = parse_texture_init(ty, init, desc.words()).map_err(|why| bad(&why))?;
        Ok(BindSpec {
            group,
            binding,
            ty,
            init,
            texture: Some(desc),
        })
    }
}

impl BindSpec {
    /// Elements; `None` for a file, whose size is known when it is read.
    pub fn elements(&self) -> Option<usize> {
        self.init.elements()
    }
}

/// The name of the buffer that holds a check's immediate data.
const IMMEDIATES: &str = "immediates";

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
    /// Bindings: buffers and textures.
    pub binds: Vec<BindSpec>,
    /// Pipeline-overridable constants (`override` declarations), by name or `@id` number.
    pub overrides: Vec<(String, f64)>,
    /// The immediate data (a `var<immediate>`), as elements of a type, like a binding's.
    pub immediates: Option<(ElemType, InitSpec)>,
    /// Simulator settings.
    pub config: SimConfig,
}

/// What a check found.
pub struct CheckReport {
    /// Findings.
    pub findings: Vec<Finding>,
    /// Notes ([`crate::Report::notes`]): found, but turned down by the kernel's author.
    pub notes: Vec<Finding>,
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
/// use wgsimd_sim::{check::{check, CheckRequest}, SimConfig};
/// # fn main() -> wgsimd_sim::Result<()> {
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
///     immediates: None,
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
            texture: b.texture,
        });
        bindings.push(BindingSpec {
            group: b.group,
            binding: b.binding,
            buffer: name,
            offset: 0,
            size: None,
        });
    }
    if let Some((ty, init)) = &req.immediates {
        let max = crate::kernel::MAX_IMMEDIATE_BYTES;
        let bytes = match init {
            InitSpec::File(path) => std::fs::metadata(path)
                .map_err(|e| Error::InvalidInput(format!("immediates {}: {e}", path.display())))?
                .len(),
            other => ty
                .size_of(other.elements().unwrap_or(0) as u64)
                .unwrap_or(u64::MAX),
        };
        if bytes > max {
            return Err(Error::InvalidInput(format!(
                "immediate data of {bytes} bytes: a pass takes at most {max}"
            )));
        }
    }
    let immediates = req.immediates.as_ref().map(|(ty, init)| {
        buffers.push(BufferSpec {
            name: IMMEDIATES.into(),
            ty: *ty,
            init: init.clone(),
            seed: 0x1A3E_D1A7,
            texture: None,
        });
        IMMEDIATES.to_string()
    });
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
            immediates,
        }],
        config: req.config.clone(),
    })?;
    let mut out = CheckReport {
        findings: report.findings,
        notes: report.notes,
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
