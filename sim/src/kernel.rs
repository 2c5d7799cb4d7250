//! WGSL kernels: composition, validation and reflection, done once per kernel.
//!
//! Rules:
//! - A [`Library`] is a tree of WGSL files embedded in the program; a kernel is named by its
//!   path without extension, e.g. `reduce/sum_u64`. wgsimd's tree is `wgsl/`: one file per
//!   dispatch stage, `wgsl/ALGORITHM/STAGE.wgsl`; helpers live in `wgsl/ALGORITHM/lib/` (one
//!   algorithm's) and `wgsl/shared/` (several algorithms'), start with the line
//!   `// include-only`, and declare no entry point and no binding.
//! - A line `//!include PATH` is replaced by the helper's text. When a flavoured file
//!   `PATH.subgroup.wgsl` / `PATH.emulated.wgsl` exists, the [`Flavor`] picks it:
//!   this is how adapters without `Features::SUBGROUP` get the workgroup-memory implementation of
//!   the same functions. Each helper is included at most once per module. [`Library`] is the only
//!   place where text is joined.
//! - An optional prelude goes first (Dawn needs `enable subgroups;`, which naga 30 rejects, so it
//!   is off by default and only added for consumers that want it).
//! - Before naga parses a text, the directives it refuses (`enable subgroups;` and the others of
//!   [`crate::directives`]) are blanked in place, so WGSL written for browsers loads unchanged and
//!   every line and column stays the author's; [`Kernel::stripped`] says what went.
//! - The composed text is parsed and validated by naga once; parse and validation errors carry
//!   naga's span-rendered message. Entry points' bindings (in every bind group) and workgroup
//!   sizes are reflected from the module, after override processing: host code never restates
//!   them. A kernel of one's own is [`Kernel::from_source`].

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

use crate::error::{Error, Result};
use crate::names::{Constant, Entry, Override};

/// Which implementation of the shared workgroup helpers a kernel is composed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flavor {
    /// Subgroup builtins (`Features::SUBGROUP`).
    Subgroup,
    /// Workgroup-memory emulation for adapters without subgroups.
    Emulated,
}

impl Flavor {
    fn suffix(self) -> &'static str {
        match self {
            Flavor::Subgroup => "subgroup",
            Flavor::Emulated => "emulated",
        }
    }
}

/// How a binding is accessed, as declared in WGSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// `var<storage, read>`.
    StorageRead,
    /// `var<storage, read_write>`.
    StorageReadWrite,
    /// `var<uniform>`.
    Uniform,
}

/// A binding an entry point uses.
#[derive(Clone, Debug)]
pub struct ReflectedBinding {
    /// `@group(G)`.
    pub group: u32,
    /// `@binding(N)`.
    pub binding: u32,
    /// The WGSL variable name.
    pub name: String,
    /// Access.
    pub kind: BindingKind,
    /// How a bound range is measured, `(fixed, stride)`: a fixed part and whole elements (an
    /// array's, or of a struct's runtime-sized tail; a type of neither is one element of its
    /// size).
    pub shape: (u32, u32),
    /// Its type holds f16 (`crate::halves`: the checkers see its words as halves).
    pub f16: bool,
}

/// What the host needs to know about one entry point.
#[derive(Clone, Debug)]
pub struct EntryInfo {
    /// Entry point name.
    pub name: String,
    /// Workgroup size before override processing (may be overridden; see
    /// [`Kernel::workgroup_size`]).
    pub workgroup_size: [u32; 3],
    /// Buffer bindings the entry point uses (statically), by group, then binding.
    pub bindings: Vec<ReflectedBinding>,
    /// Texture bindings the entry point uses, by group, then binding.
    pub textures: Vec<crate::texture::ReflectedTexture>,
}

/// A composed, validated WGSL module.
pub struct Kernel {
    /// Stage path, e.g. `reduce/sum_u64`.
    pub name: String,
    /// Flavor it was composed with.
    pub flavor: Flavor,
    /// The full WGSL text given to the GPU and the simulator (directives naga refuses blanked).
    pub source: String,
    /// What was blanked from the text before parsing ([`crate::directives`]).
    pub stripped: Vec<crate::directives::Stripped>,
    /// The parsed module.
    pub module: naga::Module,
    /// naga's validation info.
    pub info: ModuleInfo,
    /// Reflected entry points.
    pub entries: Vec<EntryInfo>,
    specialized: Mutex<HashMap<String, Arc<Specialized>>>,
    /// Validated one-dimensional: subgroup builtins in a multi-dimensional workgroup.
    flat_validated: bool,
    /// The library it was composed from ([`Library::load`]), for source locations.
    library: Option<&'static Library>,
    /// The filters on the `subgroup_uniformity` diagnostic.
    subgroup_filters: crate::filters::SubgroupFilters,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("flavor", &self.flavor)
            .finish()
    }
}

/// A module after override processing for one entry point.
pub struct Specialized {
    /// Module with overrides replaced by constants.
    pub module: naga::Module,
    /// Its validation info.
    pub info: ModuleInfo,
    /// Concrete workgroup size of the entry point.
    pub workgroup_size: [u32; 3],
}

/// The most bytes of immediate data (`var<immediate>`) a module takes: naga's validator tracks
/// them in 64 words, and Vulkan's common limit is the same (DX12 gives 128, Metal 4096; wgpu's
/// `Limits::max_immediate_size`). Checked before validation, which overflows past it.
pub const MAX_IMMEDIATE_BYTES: u64 = 256;

/// An error for immediate data larger than [`MAX_IMMEDIATE_BYTES`].
fn immediates_fit(module: &naga::Module) -> Result<()> {
    for (_, g) in module.global_variables.iter() {
        if g.space != naga::AddressSpace::Immediate {
            continue;
        }
        let needed = module.types[g.ty].inner.size(module.to_ctx()) as u64;
        if needed > MAX_IMMEDIATE_BYTES {
            return Err(Error::Limit {
                limit: "max_immediate_size",
                needed,
                available: MAX_IMMEDIATE_BYTES,
                needed_for: format!("immediate data `{}`", g.name.as_deref().unwrap_or("?")),
            });
        }
    }
    Ok(())
}

fn validator() -> Validator {
    Validator::new(ValidationFlags::all(), Capabilities::all())
}

/// Whether `e` is naga 30's refusal of `subgroup_id` or `subgroup_invocation_id` in an entry
/// point whose workgroup has more than one dimension, which WGSL allows (the subgroups then
/// take the invocations in `local_invocation_index` order).
fn multi_dimensional_subgroups(e: &naga::WithSpan<naga::valid::ValidationError>) -> bool {
    use naga::valid::{EntryPointError, ValidationError, VaryingError};
    matches!(
        e.as_inner(),
        ValidationError::EntryPoint {
            source: EntryPointError::Argument(
                _,
                VaryingError::InvalidMultiDimensionalSubgroupBuiltIn
            ),
            ..
        }
    )
}

/// `module` with every entry point's workgroup one-dimensional (x·y·z invocations along x):
/// what naga 30 validates a module of [`multi_dimensional_subgroups`] as. Nothing else in
/// validation reads the size, so the info holds for the module as written; the simulator runs
/// the sizes written.
fn flattened(module: &naga::Module) -> naga::Module {
    let mut m = module.clone();
    for ep in m.entry_points.iter_mut() {
        let [x, y, z] = ep.workgroup_size;
        ep.workgroup_size = [x.saturating_mul(y).saturating_mul(z), 1, 1];
    }
    m
}

/// naga's validation of `module`, taking subgroup builtins in multi-dimensional workgroups
/// ([`multi_dimensional_subgroups`]); `true` with the info where it had to.
fn validate(
    module: &naga::Module,
) -> std::result::Result<(ModuleInfo, bool), Box<naga::WithSpan<naga::valid::ValidationError>>> {
    match validator().validate(module) {
        Ok(info) => Ok((info, false)),
        Err(e) if multi_dimensional_subgroups(&e) => validator()
            .validate(&flattened(module))
            .map(|info| (info, true))
            .map_err(Box::new),
        Err(e) => Err(Box::new(e)),
    }
}

impl Kernel {
    /// The value of the stage's `const NAME: u32` (sizes the host must agree with, read from
    /// the kernel rather than restated in Rust).
    pub fn constant(&self, name: Constant) -> Result<u32> {
        self.const_u32(name.name())
    }

    /// Whether the module declares immediate data (a `var<immediate>`).
    pub fn declares_immediates(&self) -> bool {
        self.module
            .global_variables
            .iter()
            .any(|(_, g)| g.space == naga::AddressSpace::Immediate)
    }

    /// The value of the module's `const NAME: u32`, by name (a kernel of the caller's; the
    /// shipped stages' constants are read with [`Kernel::constant`]).
    pub fn const_u32(&self, name: &str) -> Result<u32> {
        let m = &self.module;
        m.constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .and_then(|(_, c)| match m.global_expressions[c.init] {
                naga::Expression::Literal(naga::Literal::U32(v)) => Some(v),
                _ => None,
            })
            .ok_or_else(|| {
                Error::Plan(format!(
                    "kernel {} declares no const {name}: u32",
                    self.name
                ))
            })
    }

    /// The byte offset of member `member` of the module's `struct name` (a block layout the host
    /// writes into, read from the kernel rather than restated in Rust).
    pub fn member_offset(&self, name: &str, member: &str) -> Result<u64> {
        self.module
            .types
            .iter()
            .find_map(|(_, t)| match &t.inner {
                naga::TypeInner::Struct { members, .. } if t.name.as_deref() == Some(name) => {
                    members
                        .iter()
                        .find(|m| m.name.as_deref() == Some(member))
                        .map(|m| m.offset as u64)
                }
                _ => None,
            })
            .ok_or_else(|| {
                Error::Plan(format!(
                    "kernel {} declares no struct {name} with a member {member}",
                    self.name
                ))
            })
    }

    /// Bytes of the `var<workgroup>`s entry point `entry` uses, each rounded up to 16 (drivers
    /// align workgroup variables), for checks against the adapter's `max_workgroup_storage`
    /// before a pipeline would fail. None if there is no such entry point.
    pub fn workgroup_bytes(&self, entry: &str) -> Option<u64> {
        let m = &self.module;
        let i = m.entry_points.iter().position(|e| e.name == entry)?;
        let uses = self.info.get_entry_point(i);
        Some(
            m.global_variables
                .iter()
                .filter(|&(h, g)| g.space == naga::AddressSpace::WorkGroup && !uses[h].is_empty())
                .map(|(_, g)| (m.types[g.ty].inner.size(m.to_ctx()) as u64).div_ceil(16) * 16)
                .sum(),
        )
    }

    /// Parses and validates WGSL text, after blanking the directives naga refuses
    /// ([`crate::directives::strip_unsupported`]); errors carry naga's rendered diagnostic.
    pub fn from_source(name: &str, flavor: Flavor, source: String) -> Result<Kernel> {
        // (size, nesting, operators and statements bounded, naga on a large stack:
        // `crate::source`)
        crate::source::check(name, &source)?;
        let original = source;
        let (mut source, mut stripped) = crate::directives::strip_unsupported(&original);
        let (module, info, flat_validated) = crate::source::on_big_stack(|| -> Result<_> {
            loop {
                let mut module = match naga::front::wgsl::parse_str(&source) {
                    Ok(m) => m,
                    Err(e) => {
                        let message = e.emit_to_string_with_path(&source, name);
                        // (a builtin naga lacks, read as one it has: parse again)
                        if let Some((fixed, note)) =
                            crate::directives::elect_call(&source, e.message())
                        {
                            source = fixed;
                            stripped.push(note);
                            continue;
                        }
                        return Err(Error::Shader {
                            name: name.into(),
                            message,
                        });
                    }
                };
                if let Some((bound, copied, at)) = crate::pointers::bind_pointer_params(&module) {
                    module = bound;
                    let what = "pointer parameters of the workgroup, storage or uniform space";
                    if !copied.is_empty() && !stripped.iter().any(|s| s.text.starts_with(what)) {
                        let loc = at.location(&source);
                        stripped.push(crate::directives::Stripped {
                            line: loc.line_number.max(1),
                            col: loc.line_position.max(1),
                            text: format!("{what} (in {})", copied.join(", ")),
                            reason: "naga 30 refuses them; WGSL allows them \
                                     (unrestricted_pointer_parameters)"
                                .into(),
                            read_as: Some(
                                "a copy of the function for each variable passed, the \
                                 parameter that variable"
                                    .into(),
                            ),
                        });
                    }
                }
                immediates_fit(&module)?;
                match validate(&module) {
                    Ok((info, multi)) => {
                        if multi {
                            stripped.push(crate::directives::Stripped {
                                line: 1,
                                col: 1,
                                text: "subgroup builtins in a multi-dimensional workgroup".into(),
                                reason: "naga 30 refuses them; WGSL allows them, the subgroups \
                                         taking the invocations in local_invocation_index order, \
                                         as the simulator lays them out (a device's wgpu refuses \
                                         the pipeline)"
                                    .into(),
                                read_as: Some("validated as one-dimensional".into()),
                            });
                        }
                        return Ok((module, info, multi));
                    }
                    // (each pass gives one literal its suffix: the loop ends)
                    Err(e) => match crate::directives::lane_argument(&source, &e) {
                        Some((fixed, note)) => {
                            source = fixed;
                            stripped.push(note);
                        }
                        None => {
                            return Err(Error::Shader {
                                name: name.into(),
                                message: e.emit_to_string_with_path(&source, name),
                            });
                        }
                    },
                }
            }
        })??;
        let entries = module
            .entry_points
            .iter()
            .enumerate()
            .map(|(i, ep)| {
                let fi = info.get_entry_point(i);
                let mut bindings: Vec<ReflectedBinding> = module
                    .global_variables
                    .iter()
                    .filter(|(h, _)| !fi[*h].is_empty())
                    .filter_map(|(_, g)| {
                        let rb = g.binding.as_ref()?;
                        let kind = match g.space {
                            naga::AddressSpace::Storage { access } => {
                                if access.contains(naga::StorageAccess::STORE) {
                                    BindingKind::StorageReadWrite
                                } else {
                                    BindingKind::StorageRead
                                }
                            }
                            naga::AddressSpace::Uniform => BindingKind::Uniform,
                            _ => return None,
                        };
                        let shape = crate::layout::binding_shape(&module, g.ty);
                        Some(ReflectedBinding {
                            group: rb.group,
                            binding: rb.binding,
                            name: g.name.clone().unwrap_or_default(),
                            kind,
                            shape,
                            f16: crate::halves::holds_f16(&module, g.ty),
                        })
                    })
                    .collect();
                bindings.sort_by_key(|b| (b.group, b.binding));
                EntryInfo {
                    name: ep.name.clone(),
                    workgroup_size: ep.workgroup_size,
                    bindings,
                    textures: crate::texture::ReflectedTexture::of_entry(&module, fi),
                }
            })
            .collect();
        let subgroup_filters = crate::filters::SubgroupFilters::new(&original, &module);
        Ok(Kernel {
            name: name.into(),
            flavor,
            source,
            stripped,
            module,
            info,
            entries,
            specialized: Mutex::new(HashMap::new()),
            flat_validated,
            library: None,
            subgroup_filters,
        })
    }

    /// The filter on the `subgroup_uniformity` diagnostic in force at `span`, if any
    /// ([`crate::filters`]).
    pub(crate) fn subgroup_filter(&self, span: naga::Span) -> Option<crate::filters::Filter> {
        self.subgroup_filters.at(span.to_range()?.start)
    }

    /// The `@binding` number of the `@group(0)` variable `name`, if the module declares it.
    pub fn binding_of(&self, name: &str) -> Option<u32> {
        match self.resource_of(name)? {
            (0, binding) => Some(binding),
            _ => None,
        }
    }

    /// The `(@group, @binding)` of the resource variable `name`, if the module declares it.
    pub fn resource_of(&self, name: &str) -> Option<(u32, u32)> {
        self.module.global_variables.iter().find_map(|(_, g)| {
            let rb = g.binding.as_ref()?;
            (g.name.as_deref() == Some(name)).then_some((rb.group, rb.binding))
        })
    }

    /// The reflected entry point `name`.
    pub fn entry(&self, name: &str) -> Option<&EntryInfo> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The module with `overrides` applied for `entry` (cached).
    pub fn specialize(&self, entry: &str, overrides: &[(String, f64)]) -> Result<Arc<Specialized>> {
        let mut key = entry.to_string();
        for (k, v) in overrides {
            key.push_str(&format!(";{k}={v}"));
        }
        if let Some(s) = self.specialized.lock().unwrap().get(&key) {
            return Ok(s.clone());
        }
        let index = self
            .module
            .entry_points
            .iter()
            .position(|e| e.name == entry)
            .ok_or_else(|| {
                Error::Plan(format!("kernel {} has no entry point {entry}", self.name))
            })?;
        let stage = self.module.entry_points[index].stage;
        let mut constants = naga::back::PipelineConstants::default();
        for (k, v) in overrides {
            constants.insert(k.clone(), *v);
        }
        // (a module of subgroup builtins in a multi-dimensional workgroup is specialized
        // flattened, as it was validated, and given its sizes back)
        let multi = self.flat_validated;
        let flat = multi.then(|| flattened(&self.module));
        let (module, _) = naga::back::pipeline_constants::process_overrides(
            flat.as_ref().unwrap_or(&self.module),
            &self.info,
            Some((stage, entry)),
            &constants,
        )
        .map_err(|e| Error::Shader {
            name: self.name.clone(),
            message: match e {
                // (an override that makes the module invalid: naga's rendered message)
                naga::back::pipeline_constants::PipelineConstantError::ValidationError(v) => {
                    format!(
                        "overrides: {}",
                        v.emit_to_string_with_path(&self.source, &self.name)
                    )
                }
                other => format!("overrides: {other}"),
            },
        })?;
        let mut module = module.into_owned();
        if multi {
            for (ep, own) in module
                .entry_points
                .iter_mut()
                .zip(&self.module.entry_points)
            {
                if ep.workgroup_size_overrides.is_none() {
                    ep.workgroup_size = own.workgroup_size;
                }
            }
        }
        immediates_fit(&module)?;
        let info = validate(&module)
            .map(|(info, _)| info)
            .map_err(|e| Error::Shader {
                name: self.name.clone(),
                message: e.emit_to_string_with_path(&self.source, &self.name),
            })?;
        let workgroup_size = module
            .entry_points
            .iter()
            .find(|e| e.name == entry)
            .map(|e| e.workgroup_size)
            .unwrap_or([1, 1, 1]);
        let s = Arc::new(Specialized {
            module,
            info,
            workgroup_size,
        });
        self.specialized.lock().unwrap().insert(key, s.clone());
        Ok(s)
    }

    /// The library the kernel was composed from, if [`Library::load`] made it.
    pub(crate) fn library(&self) -> Option<&'static Library> {
        self.library
    }

    /// Concrete workgroup size of a shipped stage's `entry` under `overrides`.
    pub fn workgroup_size(&self, entry: Entry, overrides: &[(Override, f64)]) -> Result<[u32; 3]> {
        let owned: Vec<(String, f64)> = overrides
            .iter()
            .map(|(k, v)| (k.name().to_string(), *v))
            .collect();
        Ok(self.specialize(entry.name(), &owned)?.workgroup_size)
    }

    /// Invocations per workgroup of a shipped stage's `entry` under `overrides`.
    pub fn invocations(&self, entry: Entry, overrides: &[(Override, f64)]) -> Result<u32> {
        let [x, y, z] = self.workgroup_size(entry, overrides)?;
        Ok(x * y * z)
    }
}

/// A tree of WGSL files that kernels are composed from: a stage file and the helpers its
/// `//!include PATH` lines name (see the module rules), every file embedded in the program as
/// `(path, text)`, the path relative to the tree's root with its extension.
pub struct Library {
    root: &'static str,
    files: &'static [(&'static str, &'static str)],
    cache: OnceLock<Cache>,
}

/// A library's kernels, by stage and flavour, composed once.
type Cache = Mutex<HashMap<(String, Flavor), Arc<Kernel>>>;

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("root", &self.root)
            .field("files", &self.files.len())
            .finish()
    }
}

impl Library {
    /// The files `files` of the tree at `root` (how messages and source locations name it,
    /// e.g. `"wgsl/"`).
    pub const fn new(root: &'static str, files: &'static [(&'static str, &'static str)]) -> Self {
        Library {
            root,
            files,
            cache: OnceLock::new(),
        }
    }

    /// The text of `path` (relative to the root, with extension).
    pub fn file(&self, path: &str) -> Option<&'static str> {
        self.files.iter().find(|(p, _)| *p == path).map(|(_, s)| *s)
    }

    /// Every file's path, in the order given.
    pub fn paths(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.files.iter().map(|(p, _)| *p)
    }

    /// Where source locations in this tree start (`wgsl/`).
    pub(crate) fn root(&self) -> &'static str {
        self.root
    }

    /// Joins the stage file `name` (its path without extension) with its helpers; `prelude`
    /// goes first.
    pub fn compose(&self, name: &str, flavor: Flavor, prelude: &str) -> Result<String> {
        let path = format!("{name}.wgsl");
        let text = self.file(&path).ok_or_else(|| Error::Shader {
            name: name.into(),
            message: format!("no file {}{path}", self.root),
        })?;
        let mut out = String::from(prelude);
        if !prelude.is_empty() && !prelude.ends_with('\n') {
            out.push('\n');
        }
        let mut seen = BTreeSet::new();
        self.expand(name, text, flavor, &mut seen, &mut out)?;
        Ok(out)
    }

    /// Expands the `//!include` lines of `text` (a kernel of the caller's, e.g. one that uses
    /// the tree's helpers) as for a stage file; `name` labels errors.
    pub fn compose_text(&self, name: &str, text: &str, flavor: Flavor) -> Result<String> {
        let mut out = String::new();
        self.expand(name, text, flavor, &mut BTreeSet::new(), &mut out)?;
        Ok(out)
    }

    fn expand(
        &self,
        name: &str,
        text: &str,
        flavor: Flavor,
        seen: &mut BTreeSet<String>,
        out: &mut String,
    ) -> Result<()> {
        for line in text.lines() {
            if let Some(target) = line.trim().strip_prefix("//!include ") {
                let target = target.trim();
                let flavored = format!("{target}.{}.wgsl", flavor.suffix());
                let plain = format!("{target}.wgsl");
                let (file, body) = if let Some(t) = self.file(&flavored) {
                    (flavored, t)
                } else if let Some(t) = self.file(&plain) {
                    (plain, t)
                } else {
                    return Err(Error::Shader {
                        name: name.into(),
                        message: format!("include `{target}` not found under {}", self.root),
                    });
                };
                if seen.insert(file.clone()) {
                    out.push_str(&format!("// ---- begin {file}\n"));
                    self.expand(name, body, flavor, seen, out)?;
                    out.push_str(&format!("// ---- end {file}\n"));
                }
            } else {
                out.push_str(line);
                out.push('\n');
            }
        }
        Ok(())
    }

    /// The stage `name` composed with `flavor` and validated (cached for the process).
    pub fn load(&'static self, name: &str, flavor: Flavor) -> Result<Arc<Kernel>> {
        let cache = self.cache.get_or_init(Default::default);
        let key = (name.to_string(), flavor);
        if let Some(k) = cache.lock().unwrap().get(&key) {
            return Ok(k.clone());
        }
        let source = self.compose(name, flavor, "")?;
        let mut kernel = Kernel::from_source(name, flavor, source)?;
        kernel.library = Some(self);
        let kernel = Arc::new(kernel);
        cache.lock().unwrap().insert(key, kernel.clone());
        Ok(kernel)
    }
}
