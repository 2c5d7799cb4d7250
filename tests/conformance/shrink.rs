//! Shrinking a failing program: statements are cut, and blocks replaced by one of their
//! bodies, one at a time, while the failure persists. The lines that keep a loop finite
//! ([`LOOP`]) stay; an edit that leaves the program invalid WGSL fails the predicate and is
//! undone.

use crate::generate::{Program, Stmt, LOOP};

/// The edits tried at one statement.
#[derive(Clone, Copy)]
enum Edit {
    Remove,
    /// The block becomes the body of its segment `usize`.
    Flatten(usize),
}

/// Applies `edit` to the statement `*at` positions further in pre-order: `Some(whether it
/// could take it)` once that statement is reached, `None` while it is further on.
fn apply(stmts: &mut Vec<Stmt>, at: &mut usize, edit: Edit) -> Option<bool> {
    let mut i = 0;
    while i < stmts.len() {
        if *at == 0 {
            return Some(match (&stmts[i], edit) {
                (Stmt::Line(l), _) if l.ends_with(LOOP) => false,
                (_, Edit::Remove) => {
                    stmts.remove(i);
                    true
                }
                (Stmt::Block(segs), Edit::Flatten(k)) if k < segs.len() => {
                    let body = segs[k].body.clone();
                    stmts.splice(i..=i, body);
                    true
                }
                _ => false,
            });
        }
        *at -= 1;
        if let Stmt::Block(segs) = &mut stmts[i] {
            for seg in segs.iter_mut() {
                if let Some(done) = apply(&mut seg.body, at, edit) {
                    return Some(done);
                }
            }
        }
        i += 1;
    }
    None
}

/// `p` with `edit` at statement `at` (pre-order), if it applies.
fn edited(p: &Program, at: usize, edit: Edit) -> Option<Program> {
    let mut q = p.clone();
    let mut k = at;
    (apply(&mut q.body, &mut k, edit) == Some(true)).then_some(q)
}

/// The smallest program found, by single edits, for which `fails` still holds; at most
/// `tries` calls of `fails`.
pub fn shrink(p: &Program, tries: usize, mut fails: impl FnMut(&Program) -> bool) -> Program {
    let mut best = p.clone();
    let mut left = tries;
    let mut progress = true;
    while progress && left > 0 {
        progress = false;
        // declarations (helpers, structs, private variables) first, then statements
        let mut d = 0;
        while d < best.decls.len() && left > 0 {
            let mut q = best.clone();
            q.decls.remove(d);
            left -= 1;
            if fails(&q) {
                best = q;
                progress = true;
            } else {
                d += 1;
            }
        }
        let mut at = 0;
        while at < best.size() && left > 0 {
            let mut taken = false;
            for edit in [
                Edit::Remove,
                Edit::Flatten(0),
                Edit::Flatten(1),
                Edit::Flatten(2),
            ] {
                let Some(q) = edited(&best, at, edit) else {
                    continue;
                };
                if left == 0 {
                    break;
                }
                left -= 1;
                if fails(&q) {
                    best = q;
                    progress = true;
                    taken = true;
                    break;
                }
            }
            if !taken {
                at += 1;
            }
        }
    }
    best
}
