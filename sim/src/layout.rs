//! Type layouts: how a naga type sits in simulator memory and in lane registers.
//!
//! Memory is addressed in 32-bit words, using the WGSL layout the IR records (struct member
//! offsets, array strides), so host buffers of types of 32-bit leaves need no translation.
//! Registers hold a value packed (no padding): `reg_words` words, register word `w` coming from
//! memory word `reg_map[w]`. Every leaf is one word: u32, i32, f32 (bits), bool (0 or 1), and
//! f16 as the **f32 bits of the f16 value** (exact; every expression of f16 type is rounded to
//! f16 when evaluated, so a word of kind `F16` always holds a representable half). An f16 leaf
//! therefore takes a whole word, and so does a bool, which naga sizes as one byte: arrays and
//! structs containing f16 or bool are laid out word per leaf, not by their WGSL strides and
//! offsets. That is the layout of workgroup, private and function memory and of every pointer
//! offset. A storage or uniform buffer must hold the GPU's bytes instead: a
//! binding whose type holds f16 keeps them, `array<f16>` at stride 2, an f16 member at its
//! 2-byte offset, and each of its accesses translates the leaf it touches to its WGSL place
//! (`halves.rs`); bool is not host-shareable. [`Layout::bytes`] keeps the WGSL size, for the
//! workgroup-memory limit.
//!
//! A cooperative matrix (`coop_mat16x16<f16, A>` …) is `rows × columns` leaves, row-major
//! (element `(r, c)` is word `r·columns + c`), replicated in every lane of its subgroup.

use naga::{ArraySize, Handle, Module, ScalarKind, Type, TypeInner};

use crate::error::{Error, Result};

/// Element count of a fixed-size array (`Pending` sizes resolved through the override's
/// value after override processing); `None` for runtime-sized arrays.
pub fn array_len(module: &Module, size: ArraySize) -> Option<u32> {
    match size {
        ArraySize::Constant(n) => Some(n.get()),
        ArraySize::Pending(o) => {
            let init = module.overrides[o].init?;
            match module.global_expressions[init] {
                naga::Expression::Literal(naga::Literal::U32(v)) => Some(v),
                naga::Expression::Literal(naga::Literal::I32(v)) => Some(v as u32),
                naga::Expression::Literal(naga::Literal::AbstractInt(v)) => Some(v as u32),
                _ => None,
            }
        }
        ArraySize::Dynamic => None,
    }
}

/// What the words of a scalar or vector value mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Unsigned 32-bit.
    U32,
    /// Signed 32-bit.
    I32,
    /// IEEE binary32 bits.
    F32,
    /// An IEEE binary16 value, held as the binary32 bits of the same (exactly representable)
    /// value; results are rounded to f16.
    F16,
    /// 0 or 1.
    Bool,
    /// Not a scalar/vector/matrix (struct, array, pointer).
    Other,
}

impl Kind {
    /// The kind of a naga scalar.
    pub fn of(s: naga::Scalar) -> Result<Kind> {
        match (s.kind, s.width) {
            (ScalarKind::Uint, 4) => Ok(Kind::U32),
            (ScalarKind::Sint, 4) => Ok(Kind::I32),
            (ScalarKind::Float, 4) => Ok(Kind::F32),
            (ScalarKind::Float, 2) => Ok(Kind::F16),
            (ScalarKind::Bool, _) => Ok(Kind::Bool),
            (ScalarKind::AbstractInt, _) => Ok(Kind::I32),
            (ScalarKind::AbstractFloat, _) => Ok(Kind::F32),
            _ => Err(Error::Sim(format!(
                "scalar {:?}{} is not simulated",
                s.kind,
                s.width * 8
            ))),
        }
    }
}

/// Layout of one type.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Words in memory (the type's span / 4, at least 1).
    pub mem_words: u32,
    /// Words in a register.
    pub reg_words: u32,
    /// For each register word, its memory word.
    pub reg_map: Vec<u32>,
    /// Contains an f16 leaf.
    pub has_f16: bool,
    /// Contains a leaf narrower than a word, f16 or bool (naga gives bool one byte): then
    /// laid out one word per leaf, not by WGSL offsets and strides.
    pub narrow: bool,
    /// Size in bytes in WGSL (the type's span).
    pub bytes: u64,
}

/// Layouts of every type of a module, by handle index.
pub struct Layouts {
    list: Vec<Layout>,
}

impl Layouts {
    /// Computes every type's layout (types refer only to earlier types).
    pub fn new(module: &Module) -> Result<Layouts> {
        let mut list: Vec<Layout> = Vec::with_capacity(module.types.len());
        for (_, ty) in module.types.iter() {
            let l = match ty.inner {
                TypeInner::Scalar(s) | TypeInner::Atomic(s) => Layout {
                    mem_words: 1,
                    reg_words: 1,
                    reg_map: vec![0],
                    has_f16: is_f16(s),
                    narrow: s.width < 4,
                    bytes: s.width as u64,
                },
                TypeInner::Vector { size, scalar } => {
                    let n = size as u32;
                    Layout {
                        mem_words: n,
                        reg_words: n,
                        reg_map: (0..n).collect(),
                        has_f16: is_f16(scalar),
                        narrow: scalar.width < 4,
                        bytes: (n * scalar.width as u32) as u64,
                    }
                }
                TypeInner::Matrix {
                    columns,
                    rows,
                    scalar,
                } => {
                    let (c, r) = (columns as u32, rows as u32);
                    let cs = if r == 3 { 4 } else { r };
                    Layout {
                        mem_words: c * cs,
                        reg_words: c * r,
                        reg_map: (0..c)
                            .flat_map(|i| (0..r).map(move |j| i * cs + j))
                            .collect(),
                        has_f16: is_f16(scalar),
                        narrow: scalar.width < 4,
                        bytes: (c * cs * scalar.width as u32) as u64,
                    }
                }
                TypeInner::CooperativeMatrix {
                    columns,
                    rows,
                    scalar,
                    ..
                } => {
                    let n = columns as u32 * rows as u32;
                    Layout {
                        mem_words: n,
                        reg_words: n,
                        reg_map: (0..n).collect(),
                        has_f16: is_f16(scalar),
                        narrow: scalar.width < 4,
                        bytes: (n * scalar.width as u32) as u64,
                    }
                }
                TypeInner::Array { base, size, stride } => {
                    let b = &list[base.index()];
                    let sw = elem_words(b, stride);
                    let n = array_len(module, size).unwrap_or(0);
                    let mut reg_map = Vec::with_capacity((n * b.reg_words) as usize);
                    for i in 0..n {
                        reg_map.extend(b.reg_map.iter().map(|&m| i * sw + m));
                    }
                    Layout {
                        mem_words: (n * sw).max(1),
                        reg_words: n * b.reg_words,
                        reg_map,
                        has_f16: b.has_f16,
                        narrow: b.narrow,
                        bytes: n as u64 * stride as u64,
                    }
                }
                TypeInner::Struct { ref members, span } => {
                    let packed = packed(members, &list);
                    let mut reg_map = Vec::new();
                    let mut seq = 0u32;
                    for m in members {
                        let b = &list[m.ty.index()];
                        let base = if packed { seq } else { m.offset / 4 };
                        reg_map.extend(b.reg_map.iter().map(|&x| base + x));
                        seq = base + b.mem_words;
                    }
                    Layout {
                        mem_words: if packed {
                            seq
                        } else {
                            span.div_ceil(4).max(seq)
                        }
                        .max(1),
                        reg_words: reg_map.len() as u32,
                        reg_map,
                        has_f16: members.iter().any(|m| list[m.ty.index()].has_f16),
                        narrow: members.iter().any(|m| list[m.ty.index()].narrow),
                        bytes: span as u64,
                    }
                }
                // pointers, images, samplers: one word (pointer offsets), never in memory
                _ => Layout {
                    mem_words: 1,
                    reg_words: 1,
                    reg_map: vec![0],
                    has_f16: false,
                    narrow: false,
                    bytes: 0,
                },
            };
            list.push(l);
        }
        Ok(Layouts { list })
    }

    /// The layout of `ty`.
    pub fn get(&self, ty: Handle<Type>) -> &Layout {
        &self.list[ty.index()]
    }

    /// The layout of the type with handle index `i`.
    pub fn at(&self, i: u32) -> &Layout {
        &self.list[i as usize]
    }

    /// Memory word offset of struct member `index` of `ty` (packed like [`Layouts::new`]).
    pub fn member_offset(&self, module: &Module, ty: Handle<Type>, index: u32) -> u32 {
        match module.types[ty].inner {
            TypeInner::Struct { ref members, .. } => {
                if !packed(members, &self.list) {
                    return members[index as usize].offset / 4;
                }
                let mut seq = 0;
                for m in &members[..index as usize] {
                    seq += self.get(m.ty).mem_words;
                }
                seq
            }
            _ => 0,
        }
    }

    /// Memory words between consecutive elements of an array of `base` with WGSL `stride`.
    pub fn elem_words(&self, base: Handle<Type>, stride: u32) -> u32 {
        elem_words(self.get(base), stride)
    }

    /// Register word offset of struct member `index` of `ty`.
    pub fn member_reg_offset(&self, module: &Module, ty: Handle<Type>, index: u32) -> u32 {
        match module.types[ty].inner {
            TypeInner::Struct { ref members, .. } => members[..index as usize]
                .iter()
                .map(|m| self.get(m.ty).reg_words)
                .sum(),
            _ => 0,
        }
    }
}

fn is_f16(s: naga::Scalar) -> bool {
    s.kind == ScalarKind::Float && s.width == 2
}

/// Array element words: the WGSL stride in words, or one word per leaf when a narrow leaf
/// (f16, bool) is inside.
fn elem_words(base: &Layout, stride: u32) -> u32 {
    if base.narrow {
        base.mem_words
    } else {
        (stride / 4).max(1)
    }
}

/// A struct laid out member after member (sub-word offsets, or a narrow leaf inside) instead of
/// by offsets.
fn packed(members: &[naga::StructMember], list: &[Layout]) -> bool {
    members
        .iter()
        .any(|m| m.offset % 4 != 0 || list[m.ty.index()].narrow)
}

/// Whether `ty` is a runtime-sized array or a struct ending in one.
pub fn runtime_sized(module: &Module, ty: Handle<Type>) -> bool {
    match module.types[ty].inner {
        TypeInner::Array {
            size: ArraySize::Dynamic,
            ..
        } => true,
        TypeInner::Struct { ref members, .. } => {
            members.last().is_some_and(|m| runtime_sized(module, m.ty))
        }
        _ => false,
    }
}

/// How a bound range of a variable of type `ty` is measured, as `(fixed, stride)`: `fixed`
/// bytes, then whole elements of `stride` bytes. An array: `(0, its stride)`; a struct ending
/// in a runtime-sized array: the offset of that array and its stride; anything else: `(0, its
/// size)`.
pub fn binding_shape(module: &Module, ty: Handle<Type>) -> (u32, u32) {
    match module.types[ty].inner {
        TypeInner::Array { stride, .. } => (0, stride),
        TypeInner::Struct { ref members, .. }
            if members.last().is_some_and(|m| runtime_sized(module, m.ty)) =>
        {
            let last = members.last().expect("checked");
            (last.offset, binding_shape(module, last.ty).1)
        }
        ref other => (0, other.size(module.to_ctx())),
    }
}
