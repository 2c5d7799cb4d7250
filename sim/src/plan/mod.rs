//! The device-neutral description of a GPU computation.
//!
//! A [`Plan`] is a list of buffers and an ordered list of passes. An algorithm (reduce, scan,
//! sort, gemm, queue) builds it once; wgsimd's `Context::prepare` makes it ready to record on a
//! wgpu device or on the simulator ([`Simulator::prepare`](crate::Simulator::prepare)); a plan
//! of one's own kernels runs on the simulator as it is
//! ([`Simulator::run_plan`](crate::Simulator::run_plan)). Rules:
//!
//! - **No wgpu types here.** A plan must be runnable by the simulator, which has no device.
//! - **Buffers are declared, not allocated.** Each [`BufferDecl`] states its size in bytes and
//!   its initial contents ([`BufferInit`]), or that the caller binds it when recording
//!   ([`BufferInit::Arg`]). `Poison` means "the kernel must write every element":
//!   the GPU fills it with [`POISON_WORD`] and the simulator marks it uninitialized, so an element
//!   no invocation wrote shows in the result (GPU) or as a finding (simulator).
//! - **Passes run in order**, each as its own dispatch, with everything a previous pass wrote
//!   visible to the next (wgpu inserts the barriers between dispatches).
//! - **Bindings are by name**: a pass names each buffer by the WGSL variable it binds (a
//!   resource variable of the kernel), and the group, binding number and kind (storage,
//!   read-only storage, uniform) come from the kernel's reflection, so a plan never restates
//!   them. The shipped kernels bind everything in `@group(0)`; the simulator runs any group
//!   (kernels of applications, `wgsimd check`), the GPU backend group 0 only.
//! - **Workgroup counts** are direct, or read from a buffer (indirect dispatch, 3×u32).
//! - **Invalidation** (a pass with [`Pass::invalidates`], wgsimd's `Plan::invalidate`) is
//!   `Poison` in the middle of a plan: from that pass on, the buffer's contents are undefined
//!   again. The GPU runs it as a fill with [`POISON_WORD`]; the simulator fills the buffer the
//!   same way without interpreting the fill and tells its checkers, so a word read or read back
//!   before a later pass wrote it is a finding, as for a `Poison` buffer at the start.
//! - **Textures are buffers of texels** ([`Plan::texture`], [`crate::texture`]), bound by name
//!   as buffers are, always whole; a texture variable takes a texture of its dimensionality and
//!   format (a storage texture's declared format, a sampled one's sample type), a buffer
//!   variable a buffer. The simulator runs them; the GPU backend refuses a plan that declares
//!   one.

mod textures;

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::names::{Entry, Override, Resource};
use crate::texture::TextureDesc;

/// The word undefined memory holds: buffers made as outputs by the host-slice functions on a
/// device, and poisoned or invalidated buffers on the simulator.
pub const POISON_WORD: u32 = 0xDEAD_BEEF;

/// Index of a buffer inside its plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub usize);

/// Initial contents of a buffer, or who provides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferInit {
    /// All zero bytes, once, when the buffer is created; passes may keep state in it from one
    /// recording to the next.
    Zeroed,
    /// These bytes (length ≤ the buffer size; the rest is zero), once, when it is created.
    Bytes(Vec<u8>),
    /// Unspecified at the start of every recording: every word must be written by a pass before
    /// it is read (scratch), or read back (outputs of host plans).
    Poison,
    /// The caller's buffer, bound when the plan is recorded (`size` is the most the plan binds).
    /// A binding of it takes what the caller's range holds past the binding's offset in whole
    /// elements of the variable's array ([`arg_binding_bytes`]); a range holding none binds a
    /// filler that no invocation may read (a chunk the count leaves empty, a vec4 view of an
    /// input of one to three words): the GPU binds a buffer of its own, the simulator an empty
    /// range, so that a read of it is a finding.
    Arg,
}

/// The bytes a binding of an [`BufferInit::Arg`] buffer covers: of the `avail` bytes the
/// caller's range holds past the binding's offset, at most `size` (the binding's, if it has
/// one), measured as the variable's type is (`shape`, from
/// [`ReflectedBinding`](crate::kernel::ReflectedBinding)): its fixed part and whole elements.
/// 0 (no whole element) means the binding gets the filler.
pub fn arg_binding_bytes(avail: u64, size: Option<u64>, (fixed, stride): (u32, u32)) -> u64 {
    let (fixed, stride) = (fixed as u64, (stride as u64).max(4));
    let bytes = size.map_or(avail, |n| n.min(avail));
    match bytes.checked_sub(fixed).map(|rest| rest / stride) {
        Some(elements) if elements > 0 => fixed + elements * stride,
        _ => 0,
    }
}

/// A buffer of a plan.
#[derive(Clone, Debug)]
pub struct BufferDecl {
    /// Name for messages and debugging.
    pub label: String,
    /// Size in bytes (a multiple of 4).
    pub size: u64,
    /// Initial contents.
    pub init: BufferInit,
    /// Whether the caller wants its contents after the run.
    pub readback: bool,
    /// Copies of the buffer side by side, each `size` bytes at a multiple of [`SLOT_ALIGN`]; a
    /// recording binds one of them (see [`Plan::slotted`]). 1 for an ordinary buffer.
    pub slots: u32,
    /// Its contents after a run depend, by design, on the order in which invocations ran (see
    /// [`Plan::order_dependent`]).
    pub order_dependent: bool,
    /// `Some`: a texture of this shape, its texels `size` bytes of words ([`Plan::texture`]).
    pub texture: Option<TextureDesc>,
}

/// Where the copies of a slotted buffer start: a multiple of this (the largest offset
/// alignment WebGPU lets a device ask for, so every device can bind each copy).
pub const SLOT_ALIGN: u64 = 256;

impl BufferDecl {
    /// Bytes from one copy of a slotted buffer to the next.
    pub fn slot_stride(&self) -> u64 {
        self.size.div_ceil(SLOT_ALIGN) * SLOT_ALIGN
    }

    /// Bytes the device allocates: every copy.
    pub fn allocated(&self) -> u64 {
        if self.slots <= 1 {
            self.size
        } else {
            self.slot_stride() * self.slots as u64
        }
    }
}

/// How many workgroups a pass dispatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workgroups {
    /// A fixed count in x, y, z.
    Direct([u32; 3]),
    /// Three u32 read from `buffer` at byte `offset` when the pass runs.
    Indirect {
        /// Buffer holding the counts.
        buffer: BufferId,
        /// Byte offset (multiple of 4).
        offset: u64,
    },
}

/// One buffer (or byte range of it) bound to a WGSL resource variable.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The WGSL variable.
    pub name: String,
    /// Its bind group (reflected).
    pub group: u32,
    /// Its binding number in the group (reflected).
    pub binding: u32,
    /// The buffer.
    pub buffer: BufferId,
    /// Byte offset of the bound range (multiple of the adapter's storage offset alignment).
    pub offset: u64,
    /// Byte length of the bound range; `None` = to the end of the buffer.
    pub size: Option<u64>,
}

/// One dispatch.
#[derive(Clone, Debug)]
pub struct Pass {
    /// Name for timing tables ("histogram", "scatter 2", ...).
    pub label: String,
    /// The composed, validated WGSL module.
    pub kernel: Arc<Kernel>,
    /// Entry point name.
    pub entry: String,
    /// Pipeline-overridable constants (`override` declarations), by name.
    pub overrides: Vec<(String, f64)>,
    /// Buffers bound.
    pub bindings: Vec<Binding>,
    /// Workgroup counts.
    pub workgroups: Workgroups,
    /// `Some(buffer)`: this pass only fills `buffer` with [`POISON_WORD`], and the buffer's
    /// contents are undefined from here on (wgsimd's `Plan::invalidate`).
    pub invalidates: Option<BufferId>,
    /// The buffer whose first bytes are the pass's immediate data (a `var<immediate>`, what
    /// wgpu's `set_immediates` gives), read as a uniform block of the variable's size.
    pub immediates: Option<BufferId>,
}

impl Pass {
    /// Whether this is a prepare stage (`wgsl/<algo>/prepare.wgsl`): one invocation that turns a
    /// run's count into the params and dispatch arguments of the passes after it.
    pub fn is_prepare(&self) -> bool {
        self.kernel.name.ends_with("/prepare")
    }

    /// The value the pass gives override `name`, if it gives one.
    pub fn override_value(&self, name: &str) -> Option<f64> {
        self.overrides
            .iter()
            .find(|(k, _)| k == name)
            .map(|&(_, v)| v)
    }

    /// Whether the pass binds `buffer` as read-write storage or a storage texture it writes
    /// (the entry point's reflected use).
    pub fn binds_read_write(&self, buffer: BufferId) -> bool {
        let Some(entry) = self.kernel.entry(&self.entry) else {
            return false;
        };
        self.bindings.iter().any(|b| {
            b.buffer == buffer
                && (entry.bindings.iter().any(|r| {
                    (r.group, r.binding) == (b.group, b.binding)
                        && r.kind == crate::kernel::BindingKind::StorageReadWrite
                }) || entry
                    .textures
                    .iter()
                    .any(|t| (t.group, t.binding) == (b.group, b.binding) && t.writes()))
        })
    }

    /// Whether the pass binds `buffer` as a type holding f16 (the entry point's reflected use).
    pub fn binds_f16(&self, buffer: BufferId) -> bool {
        let Some(entry) = self.kernel.entry(&self.entry) else {
            return false;
        };
        self.bindings.iter().any(|b| {
            b.buffer == buffer
                && entry
                    .bindings
                    .iter()
                    .any(|r| (r.group, r.binding) == (b.group, b.binding) && r.f16)
        })
    }

    /// Binds only `size` bytes from byte `offset` of the buffer bound to `name` (an
    /// [`Error::Plan`] if the pass binds no such variable).
    pub fn range(&mut self, name: Resource, offset: u64, size: u64) -> Result<&mut Pass> {
        self.range_named(name.name(), offset, size)
    }

    /// [`Pass::range`] of a kernel of the caller's, the variable by name.
    pub fn range_named(&mut self, name: &str, offset: u64, size: u64) -> Result<&mut Pass> {
        let b = self
            .bindings
            .iter_mut()
            .find(|b| b.name == name)
            .ok_or_else(|| {
                Error::Plan(format!("pass {}: nothing bound to `{name}`", self.label))
            })?;
        b.offset = offset;
        b.size = Some(size);
        Ok(self)
    }
}

/// How one recording of a plan runs (the recording protocol, `record.rs`, decides): the copy of
/// the plan's slotted buffers (its control blocks) its passes bind, whether its prepare passes
/// run, and per pass a grid to dispatch directly instead of indirectly. The default runs every
/// pass on copy 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunSpec<'a> {
    /// The copy of every slotted buffer the passes bind.
    pub slot: u32,
    /// Skip the prepare passes: the stages compute what they would write.
    pub skip_prepare: bool,
    /// Per pass, a grid that replaces its indirect dispatch.
    pub grids: Option<&'a [Option<[u32; 3]>]>,
    /// The grids are at least what the prepare passes compute (the workgroups past them have
    /// nothing to do), not equal to it.
    pub grids_bound: bool,
}

impl RunSpec<'_> {
    /// Whether `pass` is recorded.
    pub fn runs(&self, pass: &Pass) -> bool {
        !(self.skip_prepare && pass.is_prepare())
    }

    /// The grid that replaces pass `i`'s indirect dispatch, if any.
    pub fn grid(&self, i: usize) -> Option<[u32; 3]> {
        self.grids.and_then(|g| g.get(i).copied().flatten())
    }
}

/// Buffers plus ordered passes: everything a device needs to run them.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Name of the computation.
    pub label: String,
    /// All buffers, indexed by [`BufferId`].
    pub buffers: Vec<BufferDecl>,
    /// Dispatches in execution order.
    pub passes: Vec<Pass>,
}

impl Plan {
    /// An empty plan.
    pub fn new(label: impl Into<String>) -> Self {
        Plan {
            label: label.into(),
            ..Default::default()
        }
    }

    /// Declares a buffer of `size` bytes (rounded up to a multiple of 4, at least 4).
    pub fn buffer(&mut self, label: impl Into<String>, size: u64, init: BufferInit) -> BufferId {
        let size = size.max(4).div_ceil(4) * 4;
        self.buffers.push(BufferDecl {
            label: label.into(),
            size,
            init,
            readback: false,
            slots: 1,
            order_dependent: false,
            texture: None,
        });
        BufferId(self.buffers.len() - 1)
    }

    /// Declares a texture of `desc`: `desc.words()` words of texels ([`crate::texture`]), its
    /// initial contents `init` as a buffer's. `Bytes` hold each texel's channels in the
    /// shader-visible type (f32, u32 or i32 by the format), converted here to what the format
    /// holds; they must cover every texel ([`Plan::validate`] says otherwise).
    pub fn texture(
        &mut self,
        label: impl Into<String>,
        desc: TextureDesc,
        init: BufferInit,
    ) -> BufferId {
        let size = desc.words().saturating_mul(4);
        let init = match init {
            BufferInit::Bytes(mut bytes) if bytes.len() as u64 == size => {
                for w in bytes.chunks_exact_mut(4) {
                    let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    w.copy_from_slice(&desc.format.encode(v).to_le_bytes());
                }
                BufferInit::Bytes(bytes)
            }
            other => other,
        };
        let id = self.buffer(label, size, init);
        self.buffers[id.0].texture = Some(desc);
        id
    }

    /// Declares a zeroed buffer of `slots` copies of `size` bytes. Every pass binding it sees
    /// one copy, the same one for all passes of a recording, chosen when it is recorded: the
    /// control blocks of counted plans (`count.rs`), one copy per recording in flight.
    pub fn slotted(&mut self, label: impl Into<String>, size: u64, slots: u32) -> BufferId {
        let id = self.buffer(label, size, BufferInit::Zeroed);
        self.buffers[id.0].slots = slots.max(1);
        id
    }

    /// Declares a buffer the caller provides at each recording, binding at most `size` bytes.
    pub fn arg(&mut self, label: impl Into<String>, size: u64) -> BufferId {
        self.buffer(label, size, BufferInit::Arg)
    }

    /// Declares a buffer holding `data` (padded with zeros to a multiple of 4 bytes).
    pub fn upload<T: bytemuck::Pod>(&mut self, label: impl Into<String>, data: &[T]) -> BufferId {
        let bytes = bytemuck::cast_slice::<T, u8>(data).to_vec();
        let size = bytes.len() as u64;
        self.buffer(label, size, BufferInit::Bytes(bytes))
    }

    /// Asks for `id`'s contents after the run.
    pub fn read_back(&mut self, id: BufferId) {
        self.buffers[id.0].readback = true;
    }

    /// Declares that what `id` holds after a run depends, by design, on the order in which
    /// invocations ran, while the run's results do not: a work queue's ring, whose version
    /// counters count the operations that went through it, and which tasks waited in its
    /// spill list. The simulator does not compare such a buffer between the schedules it
    /// explores; every other output still must agree.
    pub fn order_dependent(&mut self, id: BufferId) {
        self.buffers[id.0].order_dependent = true;
    }

    /// Appends a pass of a shipped stage binding whole buffers to its resource variables:
    /// `(variable, buffer)`, every name from the stage's descriptor (`wgsimd::stages`), so a
    /// misspelling does not compile. An override or variable `kernel` does not declare (the
    /// name of another stage's) is an [`Error::Plan`].
    pub fn pass(
        &mut self,
        label: impl Into<String>,
        kernel: &Arc<Kernel>,
        entry: Entry,
        overrides: &[(Override, f64)],
        bindings: &[(Resource, BufferId)],
        workgroups: Workgroups,
    ) -> Result<&mut Pass> {
        let overrides: Vec<_> = overrides.iter().map(|(o, v)| (o.name(), *v)).collect();
        let bindings: Vec<_> = bindings.iter().map(|(r, b)| (r.name(), *b)).collect();
        self.pass_named(
            label,
            kernel,
            entry.name(),
            &overrides,
            &bindings,
            workgroups,
        )
    }

    /// [`Plan::pass`] of a kernel of the caller's, its entry point, overrides and resource
    /// variables by name (checked against the module: an unknown one is an [`Error::Plan`]).
    pub fn pass_named(
        &mut self,
        label: impl Into<String>,
        kernel: &Arc<Kernel>,
        entry: &str,
        overrides: &[(&str, f64)],
        bindings: &[(&str, BufferId)],
        workgroups: Workgroups,
    ) -> Result<&mut Pass> {
        let label = label.into();
        if let Some((name, _)) = overrides.iter().find(|(name, _)| {
            !kernel
                .module
                .overrides
                .iter()
                .any(|(_, o)| o.name.as_deref() == Some(*name))
        }) {
            return Err(Error::Plan(format!(
                "pass {label}: kernel {} declares no override `{name}`",
                kernel.name
            )));
        }
        let bindings = bindings
            .iter()
            .map(|&(name, buffer)| {
                let (group, binding) = kernel.resource_of(name).ok_or_else(|| {
                    Error::Plan(format!(
                        "pass {label}: kernel {} declares no resource variable `{name}`",
                        kernel.name
                    ))
                })?;
                Ok(Binding {
                    name: name.to_string(),
                    group,
                    binding,
                    buffer,
                    offset: 0,
                    size: None,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.passes.push(Pass {
            label,
            kernel: kernel.clone(),
            entry: entry.to_string(),
            overrides: overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            bindings,
            workgroups,
            invalidates: None,
            immediates: None,
        });
        Ok(self.passes.last_mut().expect("just pushed"))
    }

    /// The passes' labels, in order.
    pub fn pass_labels(&self) -> Vec<String> {
        self.passes.iter().map(|p| p.label.clone()).collect()
    }

    /// Checks internal consistency: ids in range, bound ranges inside their buffers, entry points
    /// exist, every binding the entry point uses is bound.
    pub fn validate(&self) -> Result<()> {
        let check_id = |id: BufferId, what: &str| -> Result<&BufferDecl> {
            self.buffers
                .get(id.0)
                .ok_or_else(|| Error::Plan(format!("{what}: buffer {} does not exist", id.0)))
        };
        for b in &self.buffers {
            if b.size % 4 != 0 {
                return Err(Error::Plan(format!(
                    "buffer {} size {} not a multiple of 4",
                    b.label, b.size
                )));
            }
            if let BufferInit::Bytes(bytes) = &b.init {
                if bytes.len() as u64 > b.size {
                    return Err(Error::Plan(format!(
                        "buffer {}: init data larger than buffer",
                        b.label
                    )));
                }
            }
            if let Some(desc) = &b.texture {
                textures::check_decl(b, desc)?;
            }
        }
        for p in &self.passes {
            let what = format!("pass {}", p.label);
            let reflected = p.kernel.entry(&p.entry).ok_or_else(|| {
                Error::Plan(format!(
                    "{what}: kernel {} has no entry point {}",
                    p.kernel.name, p.entry
                ))
            })?;
            for binding in &p.bindings {
                let buf = check_id(binding.buffer, &what)?;
                let end = binding.offset.saturating_add(
                    binding
                        .size
                        .unwrap_or(buf.size - binding.offset.min(buf.size)),
                );
                if binding.offset % 4 != 0 || end > buf.size {
                    return Err(Error::Plan(format!(
                        "{what}: @group({}) @binding({}) range {}..{end} outside buffer {} ({} \
                         bytes)",
                        binding.group, binding.binding, binding.offset, buf.label, buf.size
                    )));
                }
            }
            for binding in &p.bindings {
                textures::check_binding(p, binding, &self.buffers[binding.buffer.0])?;
            }
            for used in &reflected.textures {
                let Some(b) = p
                    .bindings
                    .iter()
                    .find(|b| (b.group, b.binding) == (used.group, used.binding))
                else {
                    return Err(Error::Plan(format!(
                        "{what}: @group({}) @binding({}) `{}` ({}) used by {} is not bound",
                        used.group,
                        used.binding,
                        used.name,
                        used.wgsl_type(),
                        p.entry
                    )));
                };
                if let Some(desc) = &self.buffers[b.buffer.0].texture {
                    used.accepts(desc).map_err(|why| {
                        Error::Plan(format!(
                            "{what}: {why} (texture {})",
                            self.buffers[b.buffer.0].label
                        ))
                    })?;
                }
            }
            for used in &reflected.bindings {
                let bound = p
                    .bindings
                    .iter()
                    .any(|b| (b.group, b.binding) == (used.group, used.binding));
                if !bound {
                    return Err(Error::Plan(format!(
                        "{what}: @group({}) @binding({}) `{}` used by {} is not bound",
                        used.group, used.binding, used.name, p.entry
                    )));
                }
            }
            if let Workgroups::Indirect { buffer, offset } = p.workgroups {
                let buf = check_id(buffer, &what)?;
                if offset % 4 != 0 || offset.saturating_add(12) > buf.size {
                    return Err(Error::Plan(format!(
                        "{what}: indirect args outside {}",
                        buf.label
                    )));
                }
            }
            if let Some(target) = p.invalidates {
                let buf = check_id(target, &what)?;
                let whole = p.bindings.iter().any(|b| {
                    b.buffer == target && b.offset == 0 && b.size.is_none_or(|s| s == buf.size)
                });
                if !whole {
                    return Err(Error::Plan(format!(
                        "{what}: invalidates {} but does not bind all of it",
                        buf.label
                    )));
                }
            }
        }
        Ok(())
    }
}
