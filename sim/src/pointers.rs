//! Pointer parameters in the workgroup, storage and uniform spaces, which WGSL allows (the
//! `unrestricted_pointer_parameters` language feature, which browsers ship) and naga 30 refuses
//! ("can't be passed into functions").
//!
//! Rules:
//! - A call that passes a whole variable of one of those spaces (`f(&tile)`) calls a copy of the
//!   function in which that parameter is the variable itself, one copy per function, parameter
//!   and variable, the parameter removed from the copy and from the call. That is what the
//!   pointer means: the function reads and writes the variable, so the program is the same one.
//! - Copies are made until no call passes such a pointer (a copy may pass the variable on). A
//!   function left with such a parameter and no caller is dropped; one still called with a
//!   pointer into a variable (`f(&tile[i])`) is kept, and naga's refusal stands.
//! - The functions are laid out again so that every callee comes before its callers (naga's
//!   rule): each copy right after the function it copies.

use std::collections::HashMap;

use naga::{AddressSpace, Arena, Block, Expression, Function, Handle, Module, Statement};

/// Whether `space` is one naga refuses for a parameter.
fn refused(space: AddressSpace) -> bool {
    !matches!(space, AddressSpace::Function | AddressSpace::Private)
}

/// The index of the first parameter of `f` that naga refuses.
fn refused_param(module: &Module, f: &Function) -> Option<usize> {
    f.arguments.iter().position(|a| {
        module.types[a.ty]
            .inner
            .pointer_space()
            .is_some_and(refused)
    })
}

/// `f` with parameter `i` replaced by the variable `g`.
fn bind_param(f: &Function, i: usize, g: Handle<naga::GlobalVariable>) -> Function {
    let mut copy = f.clone();
    copy.arguments.remove(i);
    for (_, e) in copy.expressions.iter_mut() {
        if let Expression::FunctionArgument(k) = *e {
            let k = k as usize;
            if k == i {
                *e = Expression::GlobalVariable(g);
            } else if k > i {
                *e = Expression::FunctionArgument(k as u32 - 1);
            }
        }
    }
    copy
}

/// Every statement of `block`, nested ones included, given to `visit`.
fn each_statement(block: &mut Block, visit: &mut dyn FnMut(&mut Statement)) {
    for s in block.iter_mut() {
        match s {
            Statement::Block(b) => each_statement(b, visit),
            Statement::If { accept, reject, .. } => {
                each_statement(accept, visit);
                each_statement(reject, visit);
            }
            Statement::Switch { cases, .. } => {
                for c in cases.iter_mut() {
                    each_statement(&mut c.body, visit);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                each_statement(body, visit);
                each_statement(continuing, visit);
            }
            _ => {}
        }
        visit(s);
    }
}

/// The copies made: (function, parameter, variable) to the copy.
type Copies = HashMap<(Handle<Function>, usize, Handle<naga::GlobalVariable>), Handle<Function>>;

/// One round over the calls of a body (`body`, its function's expressions `exprs`): each call
/// passing a whole variable for a refused parameter is pointed at the copy for it, made (and
/// its original recorded in `origin`) where missing. Returns whether a call changed.
fn redirect_calls(
    module: &Module,
    functions: &mut Arena<Function>,
    origin: &mut Vec<usize>,
    copies: &mut Copies,
    (body, exprs): (&mut Block, &mut Arena<Expression>),
) -> bool {
    let mut changed = false;
    let mut results = Vec::new();
    each_statement(body, &mut |s| {
        let Statement::Call {
            function,
            arguments,
            result,
        } = s
        else {
            return;
        };
        let callee = *function;
        let Some(i) = refused_param(module, &functions[callee]) else {
            return;
        };
        let Expression::GlobalVariable(g) = exprs[arguments[i]] else {
            return;
        };
        let copy = *copies.entry((callee, i, g)).or_insert_with(|| {
            let span = functions.get_span(callee);
            let made = functions.append(bind_param(&functions[callee], i, g), span);
            origin.push(origin[callee.index()]);
            made
        });
        arguments.remove(i);
        *function = copy;
        results.extend(result.map(|r| (r, copy)));
        changed = true;
    });
    call_results(exprs, results);
    changed
}

/// The calls' result expressions, which name the function called, pointed at `(expression,
/// function)`.
fn call_results(
    exprs: &mut Arena<Expression>,
    results: Vec<(Handle<Expression>, Handle<Function>)>,
) {
    for (r, f) in results {
        exprs[r] = Expression::CallResult(f);
    }
}

/// Every call of `f` (a body and its expressions) pointed through `map`.
fn remap_calls(
    (body, exprs): (&mut Block, &mut Arena<Expression>),
    map: &HashMap<Handle<Function>, Handle<Function>>,
) {
    let mut results = Vec::new();
    each_statement(body, &mut |s| {
        if let Statement::Call {
            function, result, ..
        } = s
        {
            *function = map[function];
            results.extend(result.map(|r| (r, *function)));
        }
    });
    call_results(exprs, results);
}

/// `module` with its refused pointer parameters bound to the variables the calls pass (the
/// module docs); `None` if it has none. The names of the functions copied come with it, and
/// where the first of them is declared.
pub fn bind_pointer_params(module: &Module) -> Option<(Module, Vec<String>, naga::Span)> {
    if !module
        .functions
        .iter()
        .any(|(_, f)| refused_param(module, f).is_some())
    {
        return None;
    }
    let mut m = module.clone();
    let originals = m.functions.len();
    let mut origin: Vec<usize> = (0..originals).collect();
    let mut copies = Copies::new();
    loop {
        let mut changed = false;
        let mut i = 0;
        while i < m.functions.len() {
            let h = m.functions.iter().nth(i).map(|(h, _)| h).expect("in range");
            let mut f = std::mem::take(&mut m.functions[h]);
            changed |= redirect_calls(
                module,
                &mut m.functions,
                &mut origin,
                &mut copies,
                (&mut f.body, &mut f.expressions),
            );
            m.functions[h] = f;
            i += 1;
        }
        for ep in m.entry_points.iter_mut() {
            let Function {
                body, expressions, ..
            } = &mut ep.function;
            changed |= redirect_calls(
                module,
                &mut m.functions,
                &mut origin,
                &mut copies,
                (body, expressions),
            );
        }
        if !changed {
            break;
        }
    }
    // the functions the entry points still reach
    let calls = |b: &mut Block| {
        let mut out = Vec::new();
        each_statement(b, &mut |s| {
            if let Statement::Call { function, .. } = s {
                out.push(*function);
            }
        });
        out
    };
    let mut pending: Vec<Handle<Function>> = m
        .entry_points
        .iter_mut()
        .flat_map(|ep| calls(&mut ep.function.body))
        .collect();
    let mut called = std::collections::HashSet::new();
    while let Some(h) = pending.pop() {
        if called.insert(h) {
            pending.extend(calls(&mut m.functions[h].body));
        }
    }
    // laid out again: each original, then its copies in the order they were made; a function
    // with a refused parameter that nothing calls any more is dropped
    let mut order: Vec<(usize, Handle<Function>)> = m
        .functions
        .iter()
        .map(|(h, _)| (origin[h.index()], h))
        .collect();
    order.sort_by_key(|&(o, h)| (o, h.index()));
    let mut arena = Arena::new();
    let mut new_handle = HashMap::new();
    let mut copied = Vec::new();
    let mut first = None;
    for (_, h) in order {
        let f = &m.functions[h];
        if !called.contains(&h) && refused_param(module, f).is_some() {
            continue;
        }
        if h.index() >= originals {
            copied.push(f.name.clone().unwrap_or_default());
            first = first.or(Some(m.functions.get_span(h)));
        }
        new_handle.insert(h, arena.append(f.clone(), m.functions.get_span(h)));
    }
    for (_, f) in arena.iter_mut() {
        remap_calls((&mut f.body, &mut f.expressions), &new_handle);
    }
    for ep in m.entry_points.iter_mut() {
        let f = &mut ep.function;
        remap_calls((&mut f.body, &mut f.expressions), &new_handle);
    }
    m.functions = arena;
    copied.sort();
    copied.dedup();
    Some((m, copied, first.unwrap_or_default()))
}
