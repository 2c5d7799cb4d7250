//! Which register words of a function's arguments it reads, so that a call copies only those.
//!
//! A callee reads an argument's words where it uses the argument as a whole (an operand, a
//! stored or returned value), through a constant member (an `AccessIndex` reads its part of
//! the argument's register in place: [`ExprMeta::alias`]), or by passing the argument, or a
//! member, on to another call (the words that callee reads). The radix sort's ranking passes a
//! 17-word struct, dozens of times a tile, to small helpers that read one to five of its words.
//!
//! Words no use reads are never observed (checkers watching an expression see its operands,
//! which are uses), so leaving them stale is exact.

use naga::{Expression, Function, Handle};

use super::tables::{ExprMeta, FnTable};
use super::uses::{User, Uses};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{Flavor, Kernel};
    use crate::program::Program;

    /// A struct of 4 + 1 + 4 words passed down two levels: each function's table lists the
    /// words it reads itself or passes on, a whole-value use reads all of them.
    const SRC: &str = "
        struct S { v: vec4<u32>, k: u32, w: vec4<u32> }
        fn leaf(s: S) -> u32 { return s.w.y; }
        fn mid(s: S, x: u32) -> u32 { return s.k + leaf(s) + x; }
        fn whole(s: S) -> u32 { var t = s; return t.v.x; }
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(8)
        fn main(@builtin(local_invocation_index) lid: u32) {
            let s = S(vec4<u32>(lid), 2u * lid, vec4<u32>(7u, 3u * lid, 9u, 10u));
            out[lid] = mid(s, 1u) + whole(s);
        }";

    fn program() -> Program {
        let kernel = Kernel::from_source("t.wgsl", Flavor::Subgroup, SRC.into()).unwrap();
        let spec = kernel.specialize("main", &[]).unwrap();
        Program::new(spec, "main").unwrap()
    }

    fn runs_of(p: &Program, name: &str) -> Vec<Vec<(u32, u32)>> {
        let fi = p
            .module()
            .functions
            .iter()
            .position(|(_, f)| f.name.as_deref() == Some(name));
        p.funcs[fi.unwrap()].arg_runs[0].clone()
    }

    #[test]
    fn calls_copy_the_argument_words_the_callee_reads() {
        let p = program();
        // s.w.y: word 6 (v 0..4, k 4, w 5..9)
        assert_eq!(runs_of(&p, "leaf"), vec![vec![(6, 1)]]);
        // s.k and what leaf reads
        assert_eq!(runs_of(&p, "mid"), vec![vec![(4, 1), (6, 1)]]);
        assert_eq!(runs_of(&p, "whole"), vec![vec![(0, 9)]]);
    }

    #[test]
    fn runs_of_flags() {
        assert_eq!(runs(&[]), vec![]);
        assert_eq!(runs(&[true, true, false, true]), vec![(0, 2), (3, 1)]);
        assert_eq!(runs(&[false, false]), vec![]);
    }

    /// The values through the narrowed copies are the CPU's (each lane's struct differs, so a
    /// word left from another lane or call would show).
    #[test]
    fn narrowed_arguments_compute_as_whole_ones() {
        let r = crate::tests::run(SRC, 4, &["0=u32:zeros:8"]).unwrap();
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let want: Vec<u32> = (0..8).map(|l| 2 * l + 3 * l + 1 + l).collect();
        assert_eq!(r.buffers[&0].1, want);
    }
}
