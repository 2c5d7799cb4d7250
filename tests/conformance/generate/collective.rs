//! What invocations share: subgroup operations (expressions), workgroup memory and atomics
//! (statements). Subgroup operations run only in subgroup-uniform control flow, shuffles read
//! lanes inside the subgroup, and shuffle-up and -down results of lanes past the edge are
//! discarded by a `select`; workgroup memory is written and read between barriers at a
//! program's top level; atomics on workgroup memory are read after a barrier, storage atomics
//! only by the host at the end, each word with one commutative operation.

use super::{Cx, Sc, Stmt, Ty, Var, E, G, STORAGE_ATOMICS, WG, WG_ATOMICS};

/// The operation each storage atomic word takes (word `k` takes `SAT_OPS[k % 6]`).
const SAT_OPS: [&str; 6] = [
    "atomicAdd",
    "atomicMax",
    "atomicMin",
    "atomicOr",
    "atomicXor",
    "atomicAnd",
];

impl G {
    /// A subgroup operation on a value of `ty` (subgroup-uniform control flow only).
    pub(super) fn subgroup(&mut self, ty: &Ty, d: u32, cx: Cx) -> E {
        let (n, s) = match ty {
            Ty::S(s) => (1, *s),
            Ty::V(n, s) => (*n, *s),
            _ => unreachable!(),
        };
        let arg = |g: &mut G, s: Sc| -> E {
            let e = if n == 1 {
                g.scalar(s, d - 1, cx)
            } else {
                g.vector(n, s, d - 1, cx)
            };
            if n == 1 {
                g.unfold(s, e, &[], cx)
            } else {
                g.unfold_v(n, s, e, &[], cx)
            }
        };
        if s == Sc::Bool {
            if n > 1 {
                // subgroup operations take no bool vectors: through u32
                let a = arg(self, Sc::Bool);
                let one = format!("vec{n}<u32>(1u)");
                let mut e = E::new(
                    format!(
                        "(subgroupBroadcastFirst(select(vec{n}<u32>(0u), {one}, {})) == {one})",
                        a.s
                    ),
                    &[&a],
                );
                e.uni = true;
                e.cnst = false;
                return e;
            }
            return match self.r.below(3) {
                0 | 1 => {
                    let a = arg(self, Sc::Bool);
                    let f = self.r.pick(&["subgroupAll", "subgroupAny"]);
                    let mut e = E::new(format!("{f}({})", a.s), &[&a]);
                    e.uni = true;
                    e
                }
                _ => {
                    let a = arg(self, Sc::Bool);
                    E {
                        s: format!("(subgroupBroadcastFirst(select(0u, 1u, {})) == 1u)", a.s),
                        uni: true,
                        cnst: false,
                        mulf: false,
                        terms: Vec::new(),
                    }
                }
            };
        }
        if s == Sc::U32 && n == 4 && self.r.chance(40) {
            let a = self.scalar(Sc::Bool, d - 1, cx);
            let mut e = E::new(format!("subgroupBallot({})", a.s), &[&a]);
            e.uni = true;
            e.cnst = false;
            return e;
        }
        let mut kinds = vec!["min", "max", "bcast", "shuffle", "xor", "updown", "quad"];
        if s.int() {
            // not of floats: lavapipe's LLVM (Mesa 22.3) aborts on some `subgroupBroadcastFirst`
            // of f32 values
            kinds.extend(["add", "mul", "bits", "scan", "first"]);
        } else if s == Sc::F32 {
            kinds.extend(["fadd"]);
        }
        let k = *self.r.pick(&kinds);
        let a = if k == "fadd" {
            // quantised: sums of 32 such values are exact in any order
            let v = arg(self, Sc::F32);
            if n == 1 {
                E::new(
                    format!("(floor(clamp({}, -8.0f, 8.0f) * 16.0f) * 0.0625f)", v.s),
                    &[&v],
                )
            } else {
                E::new(
                    format!(
                        "(floor(clamp({}, vec{n}(-8.0f), vec{n}(8.0f)) * 16.0f) * 0.0625f)",
                        v.s
                    ),
                    &[&v],
                )
            }
        } else {
            arg(self, s)
        };
        let (text, uni) = match k {
            "min" => (format!("subgroupMin({})", a.s), true),
            "max" => (format!("subgroupMax({})", a.s), true),
            "add" => (format!("subgroupAdd({})", a.s), true),
            "mul" => (format!("subgroupMul({})", a.s), true),
            "fadd" => {
                let f = *self.r.pick(&[
                    "subgroupAdd",
                    "subgroupInclusiveAdd",
                    "subgroupExclusiveAdd",
                ]);
                (format!("{f}({})", a.s), f == "subgroupAdd")
            }
            "bits" => {
                let f = *self.r.pick(&["subgroupAnd", "subgroupOr", "subgroupXor"]);
                (format!("{f}({})", a.s), true)
            }
            "scan" => {
                let f = *self.r.pick(&[
                    "subgroupInclusiveAdd",
                    "subgroupExclusiveAdd",
                    "subgroupInclusiveMul",
                    "subgroupExclusiveMul",
                ]);
                (format!("{f}({})", a.s), false)
            }
            "first" => (format!("subgroupBroadcastFirst({})", a.s), true),
            "bcast" => (
                format!("subgroupBroadcast({}, {}u)", a.s, self.r.below(4)),
                true,
            ),
            "shuffle" => {
                let i = self.scalar(Sc::U32, 1, cx);
                (format!("subgroupShuffle({}, ({}) % sgs)", a.s, i.s), false)
            }
            "xor" => (
                format!("subgroupShuffleXor({}, {}u)", a.s, self.r.range(1, 3)),
                false,
            ),
            "updown" => {
                let delta = self.r.range(1, 3);
                let zero = if n == 1 {
                    format!("{}(0)", s.name())
                } else {
                    format!("vec{n}<{}>(0)", s.name())
                };
                if self.r.chance(50) {
                    (
                        format!(
                            "select({zero}, subgroupShuffleDown({}, {delta}u), lane + {delta}u < sgs)",
                            a.s
                        ),
                        false,
                    )
                } else {
                    (
                        format!(
                            "select({zero}, subgroupShuffleUp({}, {delta}u), lane >= {delta}u)",
                            a.s
                        ),
                        false,
                    )
                }
            }
            _ => {
                let f = *self.r.pick(&[
                    "quadSwapX",
                    "quadSwapY",
                    "quadSwapDiagonal",
                    "quadBroadcast",
                ]);
                if f == "quadBroadcast" {
                    (
                        format!("quadBroadcast({}, {}u)", a.s, self.r.below(4)),
                        false,
                    )
                } else {
                    (format!("{f}({})", a.s), false)
                }
            }
        };
        // scans and shuffles differ from lane to lane even of a uniform value
        E {
            s: text,
            uni,
            cnst: false,
            mulf: false,
            terms: Vec::new(),
        }
    }

    /// Workgroup memory between barriers: every invocation writes its word, reads another's.
    pub(super) fn workgroup(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let name = self.fresh("w");
        let k = self.r.range(1, WG as i32 - 1);
        match self.r.below(4) {
            0 => {
                let e = self.scalar(Sc::U32, 2, cx);
                out.push(Stmt::Line("workgroupBarrier();".into()));
                out.push(Stmt::Line(format!("wg_u[lid] = {};", e.s)));
                out.push(Stmt::Line("workgroupBarrier();".into()));
                out.push(Stmt::Line(format!(
                    "let {name} = wg_u[(lid + {k}u) % {WG}u];"
                )));
                self.push_var(Var {
                    name,
                    ty: Ty::S(Sc::U32),
                    mutable: false,
                    uni: false,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                });
            }
            1 => {
                let e = self.scalar(Sc::F32, 2, cx);
                out.push(Stmt::Line("workgroupBarrier();".into()));
                out.push(Stmt::Line(format!("wg_f[lid] = {};", e.s)));
                out.push(Stmt::Line("workgroupBarrier();".into()));
                out.push(Stmt::Line(format!("let {name} = wg_f[lid ^ {}u];", k & 31)));
                self.push_var(Var {
                    name,
                    ty: Ty::S(Sc::F32),
                    mutable: false,
                    uni: false,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                });
            }
            2 => {
                let e = self.scalar(Sc::U32, 2, cx);
                let j = self.r.below(WG);
                out.push(Stmt::Line("workgroupBarrier();".into()));
                let tmp = self.fresh("v");
                out.push(Stmt::Line(format!("let {tmp} = {};", e.s)));
                out.push(Stmt::Line(format!(
                    "if lid == {j}u {{ wg_u[{k}] = {tmp}; }}"
                )));
                out.push(Stmt::Line(format!(
                    "let {name} = workgroupUniformLoad(&wg_u[{k}]);"
                )));
                self.push_var(Var {
                    name,
                    ty: Ty::S(Sc::U32),
                    mutable: false,
                    uni: true,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                });
            }
            _ => {
                let signed = self.r.chance(40);
                let (arr, s) = if signed {
                    ("wg_i", Sc::I32)
                } else {
                    ("wg_a", Sc::U32)
                };
                let a = self.r.below(WG_ATOMICS);
                let e = self.scalar(s, 2, cx);
                let f = *self.r.pick(&[
                    "atomicAdd",
                    "atomicSub",
                    "atomicMax",
                    "atomicMin",
                    "atomicOr",
                    "atomicXor",
                    "atomicAnd",
                ]);
                // one operation per word and statement: the result is order-independent
                out.push(Stmt::Line("workgroupBarrier();".into()));
                out.push(Stmt::Line(format!("{f}(&{arr}[{a}], {});", e.s)));
                out.push(Stmt::Line("workgroupBarrier();".into()));
                out.push(Stmt::Line(format!("let {name} = atomicLoad(&{arr}[{a}]);")));
                self.push_var(Var {
                    name,
                    ty: Ty::S(s),
                    mutable: false,
                    uni: true,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                });
            }
        }
    }

    /// A storage atomic whose word takes one commutative operation: read only by the host.
    pub(super) fn storage_atomic(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let k = self.r.below(STORAGE_ATOMICS);
        let f = SAT_OPS[k as usize % SAT_OPS.len()];
        let e = self.scalar(Sc::U32, 2, cx);
        out.push(Stmt::Line(format!("{f}(&sat[{k}], {});", e.s)));
    }
}
