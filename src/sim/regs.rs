//! Which register words of a function's arguments it reads, so that a call copies only those.
//!
//! A callee reads an argument's words where it uses the argument as a whole (an operand, a
//! stored or returned value), through a constant member (an `AccessIndex` reads its part of
//! the argument's register in place: [`ExprMeta::alias`]), or by passing the argument, or a
//! member, on to another call (the words that callee reads). The radix sort's ranking passes a
//! struct of sixteen words to small helpers that read two or three of them: copying the whole
//! of it at every call was a tenth of the simulator's time at subgroups of 4.
//!
//! Words no use reads are never observed (checkers watching an expression see its operands,
//! which are uses), so leaving them stale is exact.

use naga::{Expression, Function, Handle};

use super::checks::ir::{User, Uses};
use super::program::{ExprMeta, FnTable};

/// For function table `fi` (whose callees with lower indices already have theirs; naga orders
/// a module's functions after those they call), per argument and per expression reading it,
/// the runs of register words the function reads.
pub fn arg_runs(funcs: &[FnTable], fi: usize, f: &Function) -> Vec<Vec<Vec<(u32, u32)>>> {
    let uses = Uses::of(f);
    let t = &funcs[fi];
    t.args
        .iter()
        .map(|hs| {
            hs.iter()
                .map(|&h| {
                    let mut read = vec![false; t.exprs[h.index()].words as usize];
                    words_read(funcs, fi, t, &uses, h, 0, &mut read);
                    runs(&read)
                })
                .collect()
        })
        .collect()
}

/// Marks in `read` (from word `at`) the words of `h` that uses read.
fn words_read(
    funcs: &[FnTable],
    fi: usize,
    t: &FnTable,
    uses: &Uses,
    h: Handle<Expression>,
    at: usize,
    read: &mut [bool],
) {
    let m: ExprMeta = t.exprs[h.index()];
    let all = at..(at + m.words as usize).min(read.len());
    for &u in uses.users(h) {
        match u {
            User::Expr(x) if t.exprs[x.index()].alias => {
                let off = (t.exprs[x.index()].reg - m.reg) as usize;
                words_read(funcs, fi, t, uses, x, at + off, read);
            }
            User::Argument { function, index } if function < fi => {
                let callee = &funcs[function];
                for hr in callee.arg_runs.get(index).into_iter().flatten() {
                    for &(first, count) in hr {
                        let a = (at + first as usize).min(all.end);
                        let b = (at + (first + count) as usize).min(all.end);
                        read[a..b].fill(true);
                    }
                }
            }
            _ => read[all.clone()].fill(true),
        }
    }
}

/// The runs of `true` in `read`, as (first, count).
fn runs(read: &[bool]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < read.len() {
        if read[i] {
            let j = (i..read.len()).find(|&j| !read[j]).unwrap_or(read.len());
            out.push((i as u32, (j - i) as u32));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}
