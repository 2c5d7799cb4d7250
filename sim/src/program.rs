//! Per-(module, entry) tables, computed once before any lane runs: every function's table
//! ([`crate::tables`]), where every variable lives, and the memory the entry point needs.

use naga::{AddressSpace, Expression, Function, Handle, Module, TypeInner};

use crate::error::{Error, Result};
use crate::kernel::Specialized;

use super::layout::{array_len, Layouts};
use super::tables::{check_scalars, inner};
pub use super::tables::{Aux, ExprMeta, FnTable, Len};

/// Where a global variable lives.
#[derive(Clone, Debug)]
pub struct GlobalMeta {
    /// Space.
    pub space: AddressSpace,
    /// `(@group, @binding)`, for storage and uniform.
    pub binding: Option<(u32, u32)>,
    /// First word in workgroup or private memory.
    pub base: u32,
    /// Its type.
    pub ty: u32,
    /// Memory words.
    pub words: u32,
    /// Const initializer (private), in global expressions.
    pub init: Option<Handle<Expression>>,
}

/// Everything about one entry point of one specialized module.
pub struct Program {
    /// The module.
    pub spec: std::sync::Arc<Specialized>,
    /// Type layouts.
    pub layouts: Layouts,
    /// `module.functions` by index, then the entry point.
    pub funcs: Vec<FnTable>,
    /// Index of the entry point's table.
    pub entry_fn: usize,
    /// Index of the entry point in `module.entry_points`.
    pub entry_index: usize,
    /// Globals by handle index.
    pub globals: Vec<GlobalMeta>,
    /// Words of workgroup memory.
    pub wg_words: u32,
    /// Bytes of workgroup memory in WGSL (each variable's size rounded up to 16), for the limit.
    pub wg_bytes: u64,
    /// Words of private memory per lane.
    pub private_words: u32,
    /// Workgroup size.
    pub wg_size: [u32; 3],
    fn_handles: Vec<Handle<Function>>,
}

impl Program {
    /// The module.
    pub fn module(&self) -> &Module {
        &self.spec.module
    }

    /// The function of table `fi`.
    pub fn function(&self, fi: usize) -> &Function {
        let m = &self.spec.module;
        if fi == self.entry_fn {
            &m.entry_points[self.entry_index].function
        } else {
            &m.functions[self.fn_handles[fi]]
        }
    }

    /// The type of expression `h` of function table `fi`, as naga resolved it.
    pub fn expr_type(&self, fi: usize, h: Handle<Expression>) -> &TypeInner {
        let info = if fi == self.entry_fn {
            self.spec.info.get_entry_point(self.entry_index)
        } else {
            &self.spec.info[self.fn_handles[fi]]
        };
        inner(&self.spec.module, info, h)
    }

    /// Builds the tables for `entry` of `spec`.
    pub fn new(spec: std::sync::Arc<Specialized>, entry: &str) -> Result<Program> {
        let module = &spec.module;
        let layouts = Layouts::new(module)?;
        let entry_index = module
            .entry_points
            .iter()
            .position(|e| e.name == entry)
            .ok_or_else(|| Error::Plan(format!("no entry point {entry}")))?;
        for (_, ty) in module.types.iter() {
            check_scalars(&ty.inner)?;
        }
        let mut globals = Vec::new();
        let (mut wg_words, mut private_words, mut wg_bytes) = (0u32, 0u32, 0u64);
        for (_, g) in module.global_variables.iter() {
            let l = layouts.get(g.ty);
            let mut meta = GlobalMeta {
                space: g.space,
                binding: g.binding.as_ref().map(|b| (b.group, b.binding)),
                base: 0,
                ty: g.ty.index() as u32,
                words: l.mem_words,
                init: g.init,
            };
            match g.space {
                AddressSpace::WorkGroup => {
                    meta.base = wg_words;
                    wg_words += l.mem_words;
                    wg_bytes += l.bytes.next_multiple_of(16);
                }
                AddressSpace::Private => {
                    meta.base = private_words;
                    private_words += l.mem_words;
                }
                _ => {}
            }
            globals.push(meta);
        }
        let mut funcs = Vec::new();
        for (h, f) in module.functions.iter() {
            funcs.push(FnTable::new(module, &layouts, f, &spec.info[h])?);
        }
        let ep = &module.entry_points[entry_index];
        funcs.push(FnTable::new(
            module,
            &layouts,
            &ep.function,
            spec.info.get_entry_point(entry_index),
        )?);
        let fn_handles: Vec<Handle<Function>> = module.functions.iter().map(|(h, _)| h).collect();
        for fi in 0..funcs.len() {
            let f = match fn_handles.get(fi) {
                Some(&h) => &module.functions[h],
                None => &ep.function,
            };
            funcs[fi].arg_runs = super::regs::arg_runs(&funcs, fi, f);
        }
        Ok(Program {
            fn_handles,
            wg_size: ep.workgroup_size,
            entry_fn: funcs.len() - 1,
            entry_index,
            funcs,
            globals,
            wg_words,
            wg_bytes,
            private_words,
            layouts,
            spec,
        })
    }
}

/// WGSL's limit on the private variables an entry point uses, and on a function's local
/// (`function` address space) variables: 8192 bytes each.
pub const MAX_PRIVATE_BYTES: u64 = 8192;
/// See [`MAX_PRIVATE_BYTES`].
pub const MAX_FUNCTION_BYTES: u64 = 8192;

/// A type's size, worked out in 64 bits before any table is built: WGSL bytes, memory words
/// and register words as [`Layouts::new`] lays it out, and whether a narrow leaf is inside.
#[derive(Clone, Copy, Default)]
struct Size {
    bytes: u64,
    mem: u64,
    reg: u64,
    narrow: bool,
}

fn sizes(module: &Module) -> Vec<Size> {
    let mut list: Vec<Size> = Vec::with_capacity(module.types.len());
    for (_, ty) in module.types.iter() {
        let leafs = |n: u64, s: naga::Scalar| Size {
            bytes: n * s.width as u64,
            mem: n,
            reg: n,
            narrow: s.width < 4,
        };
        let size = match ty.inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => leafs(1, s),
            TypeInner::Vector { size, scalar } => leafs(size as u64, scalar),
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => {
                let cs = if rows as u64 == 3 { 4 } else { rows as u64 };
                Size {
                    bytes: columns as u64 * cs * scalar.width as u64,
                    mem: columns as u64 * cs,
                    reg: columns as u64 * rows as u64,
                    narrow: scalar.width < 4,
                }
            }
            TypeInner::CooperativeMatrix {
                columns,
                rows,
                scalar,
                ..
            } => Size {
                // (held across the subgroup's lanes, not by one invocation: outside WGSL's
                // per-invocation limits)
                bytes: 0,
                ..leafs(columns as u64 * rows as u64, scalar)
            },
            TypeInner::Array { base, size, stride } => {
                let b = list[base.index()];
                let n = array_len(module, size).unwrap_or(0) as u64;
                let sw = if b.narrow {
                    b.mem
                } else {
                    (stride as u64 / 4).max(1)
                };
                Size {
                    // (of matrices held across the subgroup's lanes: none of an invocation's)
                    bytes: if b.bytes == 0 { 0 } else { n * stride as u64 },
                    mem: (n * sw).max(1),
                    reg: n * b.reg,
                    narrow: b.narrow,
                }
            }
            TypeInner::Struct { ref members, span } => {
                let narrow = members
                    .iter()
                    .any(|m| m.offset % 4 != 0 || list[m.ty.index()].narrow);
                let mut seq = 0u64;
                for m in members {
                    let base = if narrow { seq } else { m.offset as u64 / 4 };
                    seq = base + list[m.ty.index()].mem;
                }
                // (members held across the subgroup's lanes, cooperative matrices, take none
                // of an invocation's bytes, as alone)
                let held: u64 = members
                    .iter()
                    .map(|m| {
                        let laid = module.types[m.ty].inner.size(module.to_ctx()) as u64;
                        laid.saturating_sub(list[m.ty.index()].bytes)
                    })
                    .sum();
                Size {
                    bytes: span as u64 - held.min(span as u64),
                    mem: if narrow {
                        seq
                    } else {
                        (span as u64).div_ceil(4).max(seq)
                    }
                    .max(1),
                    reg: members.iter().map(|m| list[m.ty.index()].reg).sum(),
                    narrow: members.iter().any(|m| list[m.ty.index()].narrow),
                }
            }
            _ => Size {
                mem: 1,
                reg: 1,
                ..Size::default()
            },
        };
        list.push(size);
    }
    list
}

/// Checks the memory `entry` of `spec` needs from the module's types alone, before any table
/// is built: WGSL's limits (the private variables the entry point uses and each function's
/// local variables at most 8192 bytes, workgroup memory at most `max_workgroup` bytes, each
/// variable rounded up to 16), and the tables and per-invocation memories within `budget`
/// bytes at `lanes` invocations. Each is an `Error::TooLarge` naming the variable or function.
pub fn check_memory(
    spec: &Specialized,
    entry: &str,
    max_workgroup: u64,
    lanes: u64,
    budget: u64,
) -> Result<()> {
    let module = &spec.module;
    let Some(ei) = module.entry_points.iter().position(|e| e.name == entry) else {
        return Ok(());
    };
    let sizes = sizes(module);
    let name = |n: &Option<String>| n.as_deref().unwrap_or("?").to_string();
    // (every type's register map is a table of its register words)
    let tables: u64 = sizes.iter().map(|s| s.reg * 4).sum();
    if let Some(s) = sizes
        .iter()
        .find(|s| s.mem > u32::MAX as u64 || s.reg > u32::MAX as u64)
    {
        return Err(Error::TooLarge(format!(
            "a type of {} bytes is past what the simulator lays out ({} words)",
            s.bytes,
            u32::MAX
        )));
    }
    let used = spec.info.get_entry_point(ei);
    let (mut wg, mut private, mut private_all) = (0u64, 0u64, 0u64);
    let mut wg_names = Vec::new();
    let mut private_names = Vec::new();
    for (h, g) in module.global_variables.iter() {
        let s = sizes[g.ty.index()];
        match g.space {
            AddressSpace::WorkGroup => {
                wg += s.bytes.next_multiple_of(16);
                wg_names.push(name(&g.name));
            }
            AddressSpace::Private => {
                private_all += s.mem * 4;
                if !used[h].is_empty() {
                    private += s.bytes;
                    private_names.push(name(&g.name));
                }
            }
            _ => {}
        }
    }
    if wg > max_workgroup {
        return Err(Error::TooLarge(format!(
            "entry point `{entry}`: {wg} bytes of workgroup memory (`{}`); the device allows \
             {max_workgroup}",
            wg_names.join("`, `")
        )));
    }
    if private > MAX_PRIVATE_BYTES {
        return Err(Error::TooLarge(format!(
            "entry point `{entry}`: {private} bytes of private variables (`{}`); WGSL allows \
             {MAX_PRIVATE_BYTES}",
            private_names.join("`, `")
        )));
    }
    let mut locals_all = 0u64;
    let functions = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function));
    for f in functions {
        let bytes: u64 = f
            .local_variables
            .iter()
            .map(|(_, v)| sizes[v.ty.index()].bytes)
            .sum();
        if bytes > MAX_FUNCTION_BYTES {
            return Err(Error::TooLarge(format!(
                "function `{}`: {bytes} bytes of local variables; WGSL allows {MAX_FUNCTION_BYTES}",
                name(&f.name)
            )));
        }
        locals_all += f
            .local_variables
            .iter()
            .map(|(_, v)| sizes[v.ty.index()].mem * 4)
            .sum::<u64>();
    }
    let need = tables + (private_all + locals_all) * lanes;
    if need > budget {
        return Err(Error::TooLarge(format!(
            "entry point `{entry}`: its tables and the private and local memory of {lanes} \
             invocations take {need} bytes; the memory budget is {budget}"
        )));
    }
    Ok(())
}
