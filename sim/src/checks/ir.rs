//! Static facts about a program's IR, for the checkers that look at how a value is used
//! (which words of a ballot a kernel reads, which reads only a `select` arm consumes) or where
//! it comes from (a builtin, through conversions, `let`s, struct members, variables and
//! function arguments).
//!
//! Function indices are the program's function tables ([`Program::funcs`]): module function
//! `h` is table `h.index()`, the entry point is `prog.entry_fn`.

use std::collections::HashMap;

use naga::{AddressSpace, BuiltIn, Expression, Handle, TypeInner};

use crate::program::Program;
pub use crate::uses::{User, Uses};

/// The uses of every function of a program, by function table.
pub fn all_uses(prog: &Program) -> Vec<Uses> {
    (0..prog.funcs.len())
        .map(|fi| Uses::of(prog.function(fi)))
        .collect()
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A builtin input (component `component` of a vector builtin, or the whole value).
    Builtin {
        /// Which.
        builtin: BuiltIn,
        /// The component read of a vector builtin.
        component: Option<u32>,
    },
    /// The entry point's struct argument `arg` (a struct of builtins), whole.
    EntryStruct {
        /// Argument index.
        arg: u32,
    },
}

impl Origin {
    /// The builtin, whole.
    pub fn builtin(builtin: BuiltIn) -> Origin {
        Origin::Builtin {
            builtin,
            component: None,
        }
    }
}

/// A variable values are stored to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Var {
    /// Local variable `lv` of function table `fi`.
    Local(usize, u32),
    /// A private global.
    Private(u32),
}

/// Where the values of a program come from ([`Origin`]): a value is a builtin when it is one
/// up to conversions (`u32(x)`, `bitcast`), `let`s, struct members of the entry point's
/// argument, function arguments every call passes the same builtin to, and variables (local or
/// private) every store fills with the same builtin.
pub struct Origins<'p> {
    prog: &'p Program,
    /// Per function table, per argument: what every call passes.
    args: Vec<Vec<Option<Origin>>>,
    /// Per variable: the stored values, `None` when the variable is written otherwise too
    /// (through a member, an atomic, a pointer passed on).
    stores: HashMap<Var, Option<Stored>>,
}

/// The values stored to a variable: (function table, expression).
type Stored = Vec<(usize, Handle<Expression>)>;

/// Calls deeper than this give up (variables assigned from each other in a cycle).
const DEPTH: u32 = 32;

impl<'p> Origins<'p> {
    /// The origins of `prog`'s values, with `uses` from [`all_uses`].
    pub fn new(prog: &'p Program, uses: &[Uses]) -> Origins<'p> {
        let mut o = Origins {
            prog,
            args: prog
                .funcs
                .iter()
                .enumerate()
                .map(|(fi, _)| vec![None; prog.function(fi).arguments.len()])
                .collect(),
            stores: HashMap::new(),
        };
        o.collect_stores(uses);
        // callers before callees: the entry point, then module functions last to first (naga
        // orders a callee before its callers)
        let order = std::iter::once(prog.entry_fn).chain((0..prog.funcs.len() - 1).rev());
        let mut seen: Vec<Vec<bool>> = o.args.iter().map(|a| vec![false; a.len()]).collect();
        for caller in order {
            let f = prog.function(caller);
            for (h, _) in f.expressions.iter() {
                for u in uses[caller].users(h) {
                    let User::Argument { function, index } = *u else {
                        continue;
                    };
                    let here = o.of(caller, h);
                    let (Some(slot), Some(first)) = (
                        o.args.get_mut(function).and_then(|a| a.get_mut(index)),
                        seen.get_mut(function).and_then(|a| a.get_mut(index)),
                    ) else {
                        continue;
                    };
                    if !std::mem::replace(first, true) {
                        *slot = here;
                    } else if *slot != here {
                        *slot = None;
                    }
                }
            }
        }
        o
    }

    fn collect_stores(&mut self, uses: &[Uses]) {
        let module = self.prog.module();
        for (fi, fu) in uses.iter().enumerate() {
            let f = self.prog.function(fi);
            for (h, e) in f.expressions.iter() {
                let var = match *e {
                    Expression::LocalVariable(lv) => Var::Local(fi, lv.index() as u32),
                    Expression::GlobalVariable(g)
                        if module.global_variables[g].space == AddressSpace::Private =>
                    {
                        Var::Private(g.index() as u32)
                    }
                    _ => continue,
                };
                let entry = self.stores.entry(var).or_insert_with(|| Some(Vec::new()));
                for u in fu.users(h) {
                    match (*u, entry.as_mut()) {
                        (User::StorePointer { value }, Some(list)) => list.push((fi, value)),
                        (User::Expr(l), _)
                            if matches!(f.expressions[l], Expression::Load { .. }) => {}
                        _ => *entry = None,
                    }
                }
            }
        }
        // initializers count as stores
        for (fi, t) in self.prog.funcs.iter().enumerate() {
            for (lv, l) in t.locals.iter().enumerate() {
                if let (Some(init), Some(Some(list))) =
                    (l.init, self.stores.get_mut(&Var::Local(fi, lv as u32)))
                {
                    list.push((fi, init));
                }
            }
        }
        for (g, gm) in self.prog.globals.iter().enumerate() {
            if gm.init.is_some() {
                // a constant: not a builtin
                self.stores.insert(Var::Private(g as u32), None);
            }
        }
    }

    /// Where expression `h` of function table `fi` comes from, if from a builtin.
    pub fn of(&self, fi: usize, h: Handle<Expression>) -> Option<Origin> {
        self.at(fi, h, 0)
    }

    fn at(&self, fi: usize, h: Handle<Expression>, depth: u32) -> Option<Origin> {
        if depth > DEPTH {
            return None;
        }
        let prog = self.prog;
        let f = prog.function(fi);
        match f.expressions[h] {
            Expression::FunctionArgument(i) if fi == prog.entry_fn => {
                let arg = &f.arguments[i as usize];
                match arg.binding {
                    Some(naga::Binding::BuiltIn(b)) => Some(Origin::builtin(b)),
                    None => Some(Origin::EntryStruct { arg: i }),
                    _ => None,
                }
            }
            Expression::FunctionArgument(i) => self.args[fi].get(i as usize).copied().flatten(),
            Expression::AccessIndex { base, index } => match self.at(fi, base, depth + 1)? {
                Origin::EntryStruct { arg } => {
                    let ef = prog.function(prog.entry_fn);
                    let ty = ef.arguments.get(arg as usize)?.ty;
                    match prog.module().types[ty].inner {
                        TypeInner::Struct { ref members, .. } => {
                            match members.get(index as usize)?.binding {
                                Some(naga::Binding::BuiltIn(b)) => Some(Origin::builtin(b)),
                                _ => None,
                            }
                        }
                        _ => None,
                    }
                }
                Origin::Builtin {
                    builtin,
                    component: None,
                } => Some(Origin::Builtin {
                    builtin,
                    component: Some(index),
                }),
                Origin::Builtin { .. } => None,
            },
            Expression::As { expr, .. } => self.at(fi, expr, depth + 1),
            Expression::Load { pointer } => {
                let var = match f.expressions[pointer] {
                    Expression::LocalVariable(lv) => Var::Local(fi, lv.index() as u32),
                    Expression::GlobalVariable(g) => Var::Private(g.index() as u32),
                    _ => return None,
                };
                let list = self.stores.get(&var)?.as_ref()?;
                let mut origin = None;
                for &(sfi, v) in list {
                    let o = self.at(sfi, v, depth + 1)?;
                    if origin.is_some_and(|x| x != o) {
                        return None;
                    }
                    origin = Some(o);
                }
                origin
            }
            _ => None,
        }
    }
}

/// Which words of a host-visible value hold data (not padding): `fixed` for the first words,
/// then `repeat` over and over for a runtime-sized array.
pub struct DataWords {
    /// Data flags of the words before a runtime-sized array (all of a sized type).
    pub fixed: Vec<bool>,
    /// Data flags of one element (stride) of a trailing runtime-sized array.
    pub repeat: Option<Vec<bool>>,
}

impl DataWords {
    /// Whether word `w` (from the start of the value) holds data.
    pub fn is_data(&self, w: usize) -> bool {
        match (self.fixed.get(w), &self.repeat) {
            (Some(&d), _) => d,
            (None, Some(r)) if !r.is_empty() => r[(w - self.fixed.len()) % r.len()],
            (None, _) => true,
        }
    }

    /// Whether some word is padding.
    pub fn has_padding(&self) -> bool {
        self.fixed.iter().any(|d| !d) || self.repeat.as_ref().is_some_and(|r| r.iter().any(|d| !d))
    }
}

/// The data words of a storage or uniform global of type `ty` (a struct's gaps between
/// members and after the last, an array's stride beyond its element, a `vec3`'s fourth word in
/// a matrix column, are padding).
pub fn data_words(prog: &Program, ty: Handle<naga::Type>) -> DataWords {
    let module = prog.module();
    match module.types[ty].inner {
        TypeInner::Array {
            base,
            size: naga::ArraySize::Dynamic,
            stride,
        } => DataWords {
            fixed: Vec::new(),
            repeat: Some(element(prog, base, stride)),
        },
        TypeInner::Struct { ref members, .. }
            if members.last().is_some_and(|m| {
                matches!(
                    module.types[m.ty].inner,
                    TypeInner::Array {
                        size: naga::ArraySize::Dynamic,
                        ..
                    }
                )
            }) =>
        {
            let last = members.last().expect("a member");
            let TypeInner::Array { base, stride, .. } = module.types[last.ty].inner else {
                unreachable!("checked above")
            };
            let mut fixed = vec![false; last.offset as usize / 4];
            for m in &members[..members.len() - 1] {
                place(&mut fixed, m.offset as usize / 4, &sized(prog, m.ty));
            }
            DataWords {
                fixed,
                repeat: Some(element(prog, base, stride)),
            }
        }
        _ => DataWords {
            fixed: sized(prog, ty),
            repeat: None,
        },
    }
}

/// Data flags of an array element within its stride.
fn element(prog: &Program, base: Handle<naga::Type>, stride: u32) -> Vec<bool> {
    let mut v = vec![false; prog.layouts.elem_words(base, stride) as usize];
    place(&mut v, 0, &sized(prog, base));
    v
}

/// Data flags of a sized type's memory words.
fn sized(prog: &Program, ty: Handle<naga::Type>) -> Vec<bool> {
    let module = prog.module();
    let l = prog.layouts.get(ty);
    let mut v = vec![false; l.mem_words as usize];
    match module.types[ty].inner {
        TypeInner::Struct { ref members, .. } => {
            for m in members {
                place(&mut v, m.offset as usize / 4, &sized(prog, m.ty));
            }
        }
        TypeInner::Array { base, stride, .. } => {
            let e = element(prog, base, stride);
            for chunk in v.chunks_mut(e.len().max(1)) {
                let k = chunk.len().min(e.len());
                chunk[..k].copy_from_slice(&e[..k]);
            }
        }
        _ => {
            for &w in &l.reg_map {
                if let Some(d) = v.get_mut(w as usize) {
                    *d = true;
                }
            }
        }
    }
    v
}

/// Copies data flags `src` into `dst` from word `at` (what does not fit is dropped).
fn place(dst: &mut [bool], at: usize, src: &[bool]) {
    for (d, &s) in dst.iter_mut().skip(at).zip(src) {
        *d |= s;
    }
}
