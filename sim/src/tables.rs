//! Per-function tables of a program, computed once before any lane runs: register offsets and
//! widths of every expression, what each access expression indexes, which expressions are
//! constants to evaluate once per dispatch ([`FnTable`]). [`crate::program`] holds them for
//! every function of an entry point.

use naga::{Expression, Function, Handle, Module, Statement, TypeInner};

use crate::error::{Error, Result};

use super::layout::{array_len, Kind, Layouts};

/// Length of an indexed thing.
#[derive(Clone, Copy, Debug)]
pub enum Len {
    /// Fixed.
    Const(u32),
    /// A runtime-sized array: what fits in the binding from the array's start.
    Runtime,
}

/// What eval needs to know about an expression beyond its operands.
#[derive(Clone, Copy, Debug)]
pub enum Aux {
    /// Nothing.
    None,
    /// Dynamic index into the pointee of a pointer: element stride in memory words.
    PtrIndex { stride: u32, len: Len },
    /// Constant member/element of a pointee; `check` for runtime arrays.
    PtrField { off: u32, check: Option<u32> },
    /// Dynamic index into a value: element words in registers, element count.
    ValIndex { elem: u32, count: u32 },
    /// Constant member/element of a value: register word offset.
    ValField { off: u32 },
    /// A load through a pointer; `atomic` if the pointee is atomic.
    Load { atomic: bool },
    /// arrayLength: element stride in words.
    ArrayLen { stride: u32 },
    /// Matrix product: shapes of the operands (columns, rows), 0 for scalars/vectors.
    MatMul { a: (u32, u32), b: (u32, u32) },
}

/// Per-expression table entry.
#[derive(Clone, Copy, Debug)]
pub struct ExprMeta {
    /// First register word (register word `w` of lane `l` is at `(reg + w) * lanes + l`).
    pub reg: u32,
    /// Register words.
    pub words: u32,
    /// Leaf kind.
    pub kind: Kind,
    /// Operand-dependent detail.
    pub aux: Aux,
    /// Type handle index of the value, `u32::MAX` when naga resolved it to a bare inner type.
    pub ty: u32,
    /// A pointer to an atomic.
    pub atomic: bool,
    /// A cooperative matrix: (rows, columns); (0, 0) otherwise.
    pub coop: (u8, u8),
    /// A constant member of a value (`AccessIndex` with [`Aux::ValField`]): its register is
    /// that part of its base's, so evaluating it does nothing (naga scopes expressions to their
    /// block, so the base is evaluated again only where the member is too, before it is read).
    pub alias: bool,
}

/// A local variable's place in its function's local memory.
#[derive(Clone, Debug)]
pub struct LocalMeta {
    /// First memory word.
    pub base: u32,
    /// Its type.
    pub ty: u32,
    /// Const initializer expression.
    pub init: Option<Handle<Expression>>,
}

/// Tables of one function.
pub struct FnTable {
    /// Per expression.
    pub exprs: Vec<ExprMeta>,
    /// Total register words.
    pub reg_words: u32,
    /// Register of the return value.
    pub ret_reg: u32,
    /// Words of the return value.
    pub ret_words: u32,
    /// Expressions evaluated once per dispatch (constants), in arena order.
    pub setup: Vec<Handle<Expression>>,
    /// Argument index -> expressions reading it.
    pub args: Vec<Vec<Handle<Expression>>>,
    /// Parallel to `args`: the runs of register words (first, count) of each such expression
    /// that the function reads, directly or through the functions it passes them to; a call
    /// copies only these (`super::regs`).
    pub arg_runs: Vec<Vec<Vec<(u32, u32)>>>,
    /// Local variables.
    pub locals: Vec<LocalMeta>,
    /// Words of local memory.
    pub local_words: u32,
}

/// The WGSL name of a scalar type (`i64`, `f64`, `bool`).
fn scalar_name(s: naga::Scalar) -> String {
    let prefix = match s.kind {
        naga::ScalarKind::Sint => "i",
        naga::ScalarKind::Uint => "u",
        naga::ScalarKind::Float => "f",
        naga::ScalarKind::Bool => return "bool".into(),
        naga::ScalarKind::AbstractInt => return "abstract-int".into(),
        naga::ScalarKind::AbstractFloat => return "abstract-float".into(),
    };
    format!("{prefix}{}", s.width as u32 * 8)
}

/// An error naming the scalar type of `t` unless the simulator holds it: 32-bit scalars,
/// bool and f16 (see `layout.rs`). 64-bit integers and floats would need two words a leaf.
pub(crate) fn check_scalars(t: &TypeInner) -> Result<()> {
    let s = match *t {
        TypeInner::Scalar(s)
        | TypeInner::Vector { scalar: s, .. }
        | TypeInner::Matrix { scalar: s, .. }
        | TypeInner::CooperativeMatrix { scalar: s, .. }
        | TypeInner::Atomic(s)
        | TypeInner::ValuePointer { scalar: s, .. } => s,
        _ => return Ok(()),
    };
    use naga::ScalarKind as S;
    let held = s.width == 4
        || matches!(s.kind, S::Bool | S::AbstractInt | S::AbstractFloat)
        || matches!(Kind::of(s), Ok(Kind::F16));
    if held {
        return Ok(());
    }
    let name = scalar_name(s);
    let what = if s.width == 8 && s.kind != naga::ScalarKind::Float {
        format!("64-bit integers (`{name}`)")
    } else {
        format!("`{name}`")
    };
    Err(Error::Sim(format!(
        "the simulator does not support {what} yet (it holds 32-bit scalars, bool and f16)"
    )))
}

pub(crate) fn inner<'a>(
    module: &'a Module,
    info: &'a naga::valid::FunctionInfo,
    h: Handle<Expression>,
) -> &'a TypeInner {
    info[h].ty.inner_with(&module.types)
}

fn shape(t: &TypeInner) -> (u32, Kind, bool) {
    match *t {
        TypeInner::Scalar(s) => (1, Kind::of(s).unwrap_or(Kind::Other), false),
        TypeInner::Vector { size, scalar } => {
            (size as u32, Kind::of(scalar).unwrap_or(Kind::Other), false)
        }
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => (
            columns as u32 * rows as u32,
            Kind::of(scalar).unwrap_or(Kind::Other),
            false,
        ),
        TypeInner::CooperativeMatrix {
            columns,
            rows,
            scalar,
            ..
        } => (
            columns as u32 * rows as u32,
            Kind::of(scalar).unwrap_or(Kind::Other),
            false,
        ),
        TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. } => (1, Kind::Other, true),
        _ => (0, Kind::Other, false),
    }
}

/// Type of what a pointer expression points to, as (inner, handle if any).
pub(crate) fn pointee<'a>(
    module: &'a Module,
    t: &'a TypeInner,
) -> Option<(TypeInner, Option<Handle<naga::Type>>)> {
    match *t {
        TypeInner::Pointer { base, .. } => Some((module.types[base].inner.clone(), Some(base))),
        TypeInner::ValuePointer {
            size: Some(size),
            scalar,
            ..
        } => Some((TypeInner::Vector { size, scalar }, None)),
        TypeInner::ValuePointer {
            size: None, scalar, ..
        } => Some((TypeInner::Scalar(scalar), None)),
        _ => None,
    }
}

fn collect_emitted(block: &naga::Block, out: &mut Vec<bool>) {
    for s in block.iter() {
        match s {
            Statement::Emit(r) => {
                for h in r.clone() {
                    out[h.index()] = true;
                }
            }
            Statement::Block(b) => collect_emitted(b, out),
            Statement::If { accept, reject, .. } => {
                collect_emitted(accept, out);
                collect_emitted(reject, out);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    collect_emitted(&c.body, out);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                collect_emitted(body, out);
                collect_emitted(continuing, out);
            }
            _ => {}
        }
    }
}

/// Marks `h` and the operands it is composed of: the expressions of an evaluated constant
/// (literals, constants, zero values, and `Compose`/`Splat` of those).
fn mark_constant_tree(f: &Function, h: Handle<Expression>, marks: &mut [bool]) {
    if std::mem::replace(&mut marks[h.index()], true) {
        return;
    }
    match f.expressions[h] {
        Expression::Compose { ref components, .. } => {
            for &c in components {
                mark_constant_tree(f, c, marks);
            }
        }
        Expression::Splat { value, .. } => mark_constant_tree(f, value, marks),
        _ => {}
    }
}

impl FnTable {
    pub(crate) fn new(
        module: &Module,
        layouts: &Layouts,
        f: &Function,
        info: &naga::valid::FunctionInfo,
    ) -> Result<FnTable> {
        let mut exprs = Vec::with_capacity(f.expressions.len());
        let mut reg = 0u32;
        let mut emitted = vec![false; f.expressions.len()];
        collect_emitted(&f.body, &mut emitted);
        // A local variable's initializer is a constant the variable holds from the function's
        // entry, before the statement that emits it runs: it is evaluated with the constants.
        let mut init_tree = vec![false; f.expressions.len()];
        for (_, lv) in f.local_variables.iter() {
            if let Some(init) = lv.init {
                mark_constant_tree(f, init, &mut init_tree);
            }
        }
        let mut setup = Vec::new();
        let mut args = vec![Vec::new(); f.arguments.len()];
        for (h, e) in f.expressions.iter() {
            let t = inner(module, info, h);
            // (a literal or conversion may have a type the module's arena never names)
            check_scalars(t)?;
            let (mut words, kind, _) = shape(t);
            if words == 0 {
                words = match info[h].ty {
                    naga::proc::TypeResolution::Handle(th) => layouts.get(th).reg_words,
                    _ => 1,
                };
            }
            let aux = match *e {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                    let bt = inner(module, info, base);
                    let idx = match *e {
                        Expression::AccessIndex { index, .. } => Some(index),
                        _ => None,
                    };
                    if let Some((pt, ph)) = pointee(module, bt) {
                        match pt {
                            TypeInner::Array { base, size, stride } => {
                                let sw = layouts.elem_words(base, stride);
                                let len = match array_len(module, size) {
                                    Some(n) => Len::Const(n),
                                    None => Len::Runtime,
                                };
                                match idx {
                                    Some(i) => Aux::PtrField {
                                        off: i * sw,
                                        check: matches!(len, Len::Runtime).then_some(sw),
                                    },
                                    None => Aux::PtrIndex { stride: sw, len },
                                }
                            }
                            TypeInner::Vector { size, .. } => match idx {
                                Some(i) => Aux::PtrField {
                                    off: i,
                                    check: None,
                                },
                                None => Aux::PtrIndex {
                                    stride: 1,
                                    len: Len::Const(size as u32),
                                },
                            },
                            TypeInner::Matrix { columns, rows, .. } => {
                                let cs = if rows as u32 == 3 { 4 } else { rows as u32 };
                                match idx {
                                    Some(i) => Aux::PtrField {
                                        off: i * cs,
                                        check: None,
                                    },
                                    None => Aux::PtrIndex {
                                        stride: cs,
                                        len: Len::Const(columns as u32),
                                    },
                                }
                            }
                            TypeInner::Struct { .. } => Aux::PtrField {
                                off: layouts.member_offset(
                                    module,
                                    ph.expect("struct handle"),
                                    idx.unwrap_or(0),
                                ),
                                check: None,
                            },
                            _ => return Err(Error::Sim(format!("cannot index through {pt:?}"))),
                        }
                    } else {
                        let bw = match info[base].ty {
                            naga::proc::TypeResolution::Handle(th) => layouts.get(th).reg_words,
                            _ => shape(bt).0,
                        };
                        match *bt {
                            TypeInner::Struct { .. } => {
                                let th = match info[base].ty {
                                    naga::proc::TypeResolution::Handle(th) => th,
                                    _ => return Err(Error::Sim("struct without handle".into())),
                                };
                                Aux::ValField {
                                    off: layouts.member_reg_offset(module, th, idx.unwrap_or(0)),
                                }
                            }
                            TypeInner::Array { size, .. }
                            | TypeInner::BindingArray { size, .. } => {
                                let n = array_len(module, size).unwrap_or(1);
                                let elem = bw / n.max(1);
                                match idx {
                                    Some(i) => Aux::ValField { off: i * elem },
                                    None => Aux::ValIndex { elem, count: n },
                                }
                            }
                            TypeInner::Vector { size, .. } => match idx {
                                Some(i) => Aux::ValField { off: i },
                                None => Aux::ValIndex {
                                    elem: 1,
                                    count: size as u32,
                                },
                            },
                            TypeInner::Matrix { columns, rows, .. } => match idx {
                                Some(i) => Aux::ValField {
                                    off: i * rows as u32,
                                },
                                None => Aux::ValIndex {
                                    elem: rows as u32,
                                    count: columns as u32,
                                },
                            },
                            _ => return Err(Error::Sim(format!("cannot index {bt:?}"))),
                        }
                    }
                }
                Expression::Load { pointer } => {
                    let pt = inner(module, info, pointer);
                    let atomic = matches!(pointee(module, pt), Some((TypeInner::Atomic(_), _)));
                    Aux::Load { atomic }
                }
                Expression::ArrayLength(p) => {
                    let pt = inner(module, info, p);
                    match pointee(module, pt) {
                        Some((TypeInner::Array { base, stride, .. }, _)) => Aux::ArrayLen {
                            stride: layouts.elem_words(base, stride),
                        },
                        _ => return Err(Error::Sim("arrayLength of a non-array".into())),
                    }
                }
                Expression::Binary {
                    op: naga::BinaryOperator::Multiply,
                    left,
                    right,
                } => {
                    let m = |t: &TypeInner| match *t {
                        TypeInner::Matrix { columns, rows, .. } => (columns as u32, rows as u32),
                        _ => (0, 0),
                    };
                    let (a, b) = (m(inner(module, info, left)), m(inner(module, info, right)));
                    if a.0 != 0 || b.0 != 0 {
                        Aux::MatMul { a, b }
                    } else {
                        Aux::None
                    }
                }
                _ => Aux::None,
            };
            match *e {
                Expression::FunctionArgument(i) => args[i as usize].push(h),
                Expression::CallResult(_)
                | Expression::AtomicResult { .. }
                | Expression::WorkGroupUniformLoadResult { .. }
                | Expression::SubgroupBallotResult
                | Expression::SubgroupOperationResult { .. } => {}
                _ if !emitted[h.index()] || init_tree[h.index()] => setup.push(h),
                _ => {}
            }
            let ty = match info[h].ty {
                naga::proc::TypeResolution::Handle(th) => th.index() as u32,
                _ => u32::MAX,
            };
            let atomic = matches!(pointee(module, t), Some((TypeInner::Atomic(_), _)));
            let coop = match *t {
                TypeInner::CooperativeMatrix { columns, rows, .. } => (rows as u8, columns as u8),
                _ => (0, 0),
            };
            // A constant member of a value is read in place: naga scopes expressions to their
            // block (a loop's continuing block sees its body's), so a base is evaluated again
            // only where its members are too, before any of them is read.
            let alias = match (e, aux) {
                (Expression::AccessIndex { base, .. }, Aux::ValField { off }) => {
                    exprs.get(base.index()).map(|b: &ExprMeta| b.reg + off)
                }
                _ => None,
            };
            exprs.push(ExprMeta {
                reg: alias.unwrap_or(reg),
                words,
                kind,
                aux,
                ty,
                atomic,
                coop,
                alias: alias.is_some(),
            });
            if alias.is_none() {
                reg += words;
            }
        }
        let ret_words = f
            .result
            .as_ref()
            .map(|r| layouts.get(r.ty).reg_words)
            .unwrap_or(0);
        let ret_reg = reg;
        reg += ret_words;
        let mut locals = Vec::new();
        let mut local_words = 0;
        for (_, lv) in f.local_variables.iter() {
            locals.push(LocalMeta {
                base: local_words,
                ty: lv.ty.index() as u32,
                init: lv.init,
            });
            local_words += layouts.get(lv.ty).mem_words;
        }
        Ok(FnTable {
            exprs,
            reg_words: reg,
            ret_reg,
            ret_words,
            setup,
            args,
            arg_runs: Vec::new(),
            locals,
            local_words,
        })
    }
}
