//! The WebGPU CTS's subgroup and quad execution tests (gpuweb/cts,
//! `shader/execution/expression/call/builtin/subgroup*.spec.ts`, `quad*.spec.ts`) re-expressed by
//! a generator of this crate's own: every builtin on the types it takes (f16 written out as
//! f32), under the CTS's activity patterns (all lanes, a predicate, the split cases where both
//! branches call it, whole quads), in 1-D and multi-dimensional workgroups whose size is and is
//! not a multiple of the subgroup's, at every simulated subgroup size from 4 to 128.
//!
//! Each generated kernel writes, per invocation, its lane, subgroup, subgroup size, branch and
//! the builtin's result; the expectation is computed here from the builtins' definitions over
//! the lanes that were active in that branch of that subgroup, from values that are functions
//! of `local_invocation_index` (small integers for floats, so every order of a sum or product
//! gives the same bits). The subgroups must be the workgroup's invocations in
//! `local_invocation_index` order, `subgroup_size` at a time. A result WGSL leaves undefined (a
//! shuffle from an inactive or missing lane, a broadcast from an inactive lane) is not checked.
//! Every run must also be free of findings.

use super::check_src;
use wgsimd::finding::FindingKind;

/// Words each invocation writes: lane, subgroup, size, branch (0 none, 1 or 2), 4 result words.
const W: usize = 8;
const UNSET: u32 = 0xDEAD_BEEF;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    U32,
    I32,
    F32,
    F16,
    Vec2U32,
    Vec4F32,
    Vec4F16,
}

impl Ty {
    fn wgsl(self) -> &'static str {
        match self {
            Ty::U32 => "u32",
            Ty::I32 => "i32",
            Ty::F32 => "f32",
            Ty::F16 => "f16",
            Ty::Vec2U32 => "vec2<u32>",
            Ty::Vec4F32 => "vec4<f32>",
            Ty::Vec4F16 => "vec4<f16>",
        }
    }
    fn comps(self) -> usize {
        match self {
            Ty::Vec2U32 => 2,
            Ty::Vec4F32 | Ty::Vec4F16 => 4,
            _ => 1,
        }
    }
    fn float(self) -> bool {
        matches!(self, Ty::F32 | Ty::Vec4F32) || self.half()
    }
    /// f16 values (`enable f16;`), written out as f32: the small integers generated are exact
    /// in both, so the expectation is the f32 one.
    fn half(self) -> bool {
        matches!(self, Ty::F16 | Ty::Vec4F16)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
    ExclusiveAdd,
    ExclusiveMul,
    InclusiveAdd,
    InclusiveMul,
    Broadcast(u32),
    BroadcastFirst,
    Shuffle,
    // from a lane given by the data (any lane of the subgroup; defined where it is active)
    ShuffleData,
    ShuffleXor(u32),
    ShuffleUp(u32),
    ShuffleDown(u32),
    QuadBroadcast(u32),
    QuadSwapX,
    QuadSwapY,
    QuadSwapDiagonal,
    // bool and ballot builtins (the type is the predicate's)
    All,
    Any,
    Ballot,
    Elect,
}

impl Op {
    fn call(self) -> String {
        match self {
            Op::Add => "subgroupAdd(v)".into(),
            Op::Mul => "subgroupMul(v)".into(),
            Op::Min => "subgroupMin(v)".into(),
            Op::Max => "subgroupMax(v)".into(),
            Op::And => "subgroupAnd(v)".into(),
            Op::Or => "subgroupOr(v)".into(),
            Op::Xor => "subgroupXor(v)".into(),
            Op::ExclusiveAdd => "subgroupExclusiveAdd(v)".into(),
            Op::ExclusiveMul => "subgroupExclusiveMul(v)".into(),
            Op::InclusiveAdd => "subgroupInclusiveAdd(v)".into(),
            Op::InclusiveMul => "subgroupInclusiveMul(v)".into(),
            // (abstract-int lane arguments, as most code writes them)
            Op::Broadcast(l) => format!("subgroupBroadcast(v, {l})"),
            Op::BroadcastFirst => "subgroupBroadcastFirst(v)".into(),
            // from lane (lane + 3) mod the active count: the active lanes are the first ones
            Op::Shuffle => "subgroupShuffle(v, (lane + 3u) % subgroupAdd(1u))".into(),
            Op::ShuffleData => "subgroupShuffle(v, hash(id, 5u) % size)".into(),
            Op::ShuffleXor(m) => format!("subgroupShuffleXor(v, {m})"),
            Op::ShuffleUp(d) => format!("subgroupShuffleUp(v, {d}u)"),
            Op::ShuffleDown(d) => format!("subgroupShuffleDown(v, {d}u)"),
            Op::QuadBroadcast(l) => format!("quadBroadcast(v, {l})"),
            Op::QuadSwapX => "quadSwapX(v)".into(),
            Op::QuadSwapY => "quadSwapY(v)".into(),
            Op::QuadSwapDiagonal => "quadSwapDiagonal(v)".into(),
            Op::All => "select(0u, 1u, subgroupAll(p))".into(),
            Op::Any => "select(0u, 1u, subgroupAny(p))".into(),
            Op::Ballot => "subgroupBallot(p)".into(),
            Op::Elect => "select(0u, 1u, subgroupElect())".into(),
        }
    }
    fn integer_only(self) -> bool {
        matches!(self, Op::And | Op::Or | Op::Xor)
    }
    fn boolean(self) -> bool {
        matches!(self, Op::All | Op::Any | Op::Ballot | Op::Elect)
    }
    fn quad(self) -> bool {
        matches!(
            self,
            Op::QuadBroadcast(_) | Op::QuadSwapX | Op::QuadSwapY | Op::QuadSwapDiagonal
        )
    }
    /// The result's words (a ballot is a vec4<u32>; the bool builtins' results are written as
    /// u32).
    fn words(self, ty: Ty) -> usize {
        match self {
            Op::Ballot => 4,
            _ if self.boolean() => 1,
            _ => ty.comps(),
        }
    }
}

/// Where the builtin is called: every lane, a predicate of the lane, both branches of one (the
/// CTS's split cases), or every other whole quad.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pred {
    All,
    Even,
    Below7,
    Split,
    Quads,
}

impl Pred {
    fn cond(self) -> &'static str {
        match self {
            Pred::All => "true",
            Pred::Even | Pred::Split => "lane % 2u == 0u",
            Pred::Below7 => "lane < 7u",
            Pred::Quads => "(lane / 4u) % 2u == 0u",
        }
    }
    fn takes(self, lane: u32) -> bool {
        match self {
            Pred::All => true,
            Pred::Even | Pred::Split => lane.is_multiple_of(2),
            Pred::Below7 => lane < 7,
            Pred::Quads => (lane / 4).is_multiple_of(2),
        }
    }
}

/// The seeded word of invocation `id`, component `c` (the WGSL `hash` below).
fn hash(id: u32, c: u32) -> u32 {
    let mut x = id.wrapping_mul(4).wrapping_add(c).wrapping_add(0x9E37_79B9);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^ (x >> 16)
}

const WGSL_HASH: &str = "fn hash(id: u32, c: u32) -> u32 {
    var x = id * 4u + c + 0x9E3779B9u;
    x ^= x >> 16u;
    x *= 0x7FEB352Du;
    x ^= x >> 15u;
    x *= 0x846CA68Bu;
    return x ^ (x >> 16u);
}";

/// Component c of invocation id's value as the kernel computes it, as bits: integers are the
/// hash; floats small integers (products: ±1, and 2 on every 16th invocation).
fn value_bits(ty: Ty, op: Op, id: u32, c: u32) -> u32 {
    let h = hash(id, c);
    if !ty.float() {
        return h;
    }
    let multiplies = matches!(op, Op::Mul | Op::ExclusiveMul | Op::InclusiveMul);
    let f = if multiplies {
        (if h & 1 == 1 { -1.0f32 } else { 1.0 }) * if id.is_multiple_of(16) { 2.0 } else { 1.0 }
    } else {
        (h % 17) as f32 - 8.0
    };
    f.to_bits()
}

fn value_fn(ty: Ty, op: Op) -> String {
    let comp = |c: u32| -> String {
        if !ty.float() {
            let h = format!("hash(id, {c}u)");
            return if ty == Ty::I32 {
                format!("bitcast<i32>({h})")
            } else {
                h
            };
        }
        let f = if matches!(op, Op::Mul | Op::ExclusiveMul | Op::InclusiveMul) {
            format!(
                "select(1.0, -1.0, (hash(id, {c}u) & 1u) == 1u) * select(1.0, 2.0, id % 16u == 0u)"
            )
        } else {
            format!("f32(hash(id, {c}u) % 17u) - 8.0")
        };
        if ty.half() {
            format!("f16({f})")
        } else {
            f
        }
    };
    let body = match ty.comps() {
        1 => comp(0),
        n => format!(
            "{}({})",
            ty.wgsl(),
            (0..n as u32).map(comp).collect::<Vec<_>>().join(", ")
        ),
    };
    format!(
        "fn value(id: u32) -> {} {{\n    return {body};\n}}",
        ty.wgsl()
    )
}

/// The kernel of one case.
fn kernel(ty: Ty, op: Op, pred: Pred, wg: [u32; 3]) -> String {
    let words = op.words(ty);
    let store = |r: &str, branch: u32| -> String {
        let mut s = format!("        out[base + 3u] = {branch}u;\n");
        let as_u32 = |e: String| -> String {
            match (ty.float() && !op.boolean(), ty == Ty::I32 && !op.boolean()) {
                (true, _) if ty.half() => format!("bitcast<u32>(f32({e}))"),
                (true, _) => format!("bitcast<u32>({e})"),
                (_, true) => format!("bitcast<u32>({e})"),
                _ => e,
            }
        };
        if words == 1 {
            s += &format!("        out[base + 4u] = {};\n", as_u32(r.to_string()));
        } else {
            for w in 0..words {
                s += &format!(
                    "        out[base + {}u] = {};\n",
                    4 + w,
                    as_u32(format!("{r}[{w}]"))
                );
            }
        }
        s
    };
    let call = op.call();
    let body = if pred == Pred::Split {
        format!(
            "    if {} {{\n        let r = {call};\n{}    }} else {{\n        let r = {call};\n{}    }}\n",
            pred.cond(),
            store("r", 1),
            store("r", 2)
        )
    } else {
        format!(
            "    if {} {{\n        let r = {call};\n{}    }}\n",
            pred.cond(),
            store("r", 1)
        )
    };
    // (calls under a predicate are outside uniform control flow: the CTS's kernels turn the
    // uniformity diagnostic off, the author's statement that the divergence is meant)
    let enable = if ty.half() { "enable f16;\n" } else { "" };
    format!(
        "{enable}diagnostic(off, subgroup_uniformity);

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

{WGSL_HASH}

{}

@compute @workgroup_size({}, {}, {})
fn main(@builtin(local_invocation_index) id: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32,
        @builtin(subgroup_id) sg: u32) {{
    let base = id * {W}u;
    out[base] = lane;
    out[base + 1u] = sg;
    out[base + 2u] = size;
    out[base + 3u] = 0u;
    for (var w = 4u; w < {W}u; w++) {{
        out[base + w] = {UNSET}u;
    }}
    let v = value(id);
    let p = (hash(id, 7u) & 3u) != 0u;
{body}}}
",
        value_fn(ty, op),
        wg[0],
        wg[1],
        wg[2]
    )
}

/// The lanes of one subgroup that took one branch: (lane, id), lane order.
type Lanes = Vec<(u32, u32)>;

fn combine(ty: Ty, op: Op, a: u32, b: u32) -> u32 {
    if ty.float() {
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        let r = match op {
            Op::Add | Op::ExclusiveAdd | Op::InclusiveAdd => x + y,
            Op::Mul | Op::ExclusiveMul | Op::InclusiveMul => x * y,
            Op::Min => x.min(y),
            Op::Max => x.max(y),
            _ => unreachable!(),
        };
        return r.to_bits();
    }
    let signed = ty == Ty::I32;
    match op {
        Op::Add | Op::ExclusiveAdd | Op::InclusiveAdd => a.wrapping_add(b),
        Op::Mul | Op::ExclusiveMul | Op::InclusiveMul => a.wrapping_mul(b),
        Op::Min if signed => (a as i32).min(b as i32) as u32,
        Op::Max if signed => (a as i32).max(b as i32) as u32,
        Op::Min => a.min(b),
        Op::Max => a.max(b),
        Op::And => a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        _ => unreachable!(),
    }
}

fn identity(ty: Ty, op: Op) -> u32 {
    let adds = matches!(op, Op::ExclusiveAdd | Op::InclusiveAdd);
    match (adds, ty.float()) {
        (true, true) => 0f32.to_bits(),
        (true, false) => 0,
        (false, true) => 1f32.to_bits(),
        (false, false) => 1,
    }
}

/// The expected words of `lane` (invocation `id`) among `lanes` (those of its subgroup in its
/// branch), `count` the subgroup's lanes (all branches) and `sg` the subgroup size; `None`
/// where WGSL leaves the result undefined.
fn expect(
    ty: Ty,
    op: Op,
    lanes: &Lanes,
    (lane, id): (u32, u32),
    (count, sg): (u32, u32),
) -> Option<Vec<u32>> {
    let val = |id: u32, c: u32| value_bits(ty, op, id, c);
    let of_lane = |l: u32| lanes.iter().find(|&&(x, _)| x == l).map(|&(_, i)| i);
    let comps = ty.comps() as u32;
    let per_comp =
        |f: &dyn Fn(u32) -> Option<u32>| -> Option<Vec<u32>> { (0..comps).map(f).collect() };
    let pred = |id: u32| hash(id, 7) & 3 != 0;
    match op {
        Op::Add | Op::Mul | Op::Min | Op::Max | Op::And | Op::Or | Op::Xor => per_comp(&|c| {
            lanes
                .iter()
                .map(|&(_, i)| val(i, c))
                .reduce(|a, b| combine(ty, op, a, b))
        }),
        Op::ExclusiveAdd | Op::ExclusiveMul | Op::InclusiveAdd | Op::InclusiveMul => {
            let inclusive = matches!(op, Op::InclusiveAdd | Op::InclusiveMul);
            per_comp(&|c| {
                let before = lanes
                    .iter()
                    .filter(|&&(l, _)| l < lane || (inclusive && l == lane))
                    .map(|&(_, i)| val(i, c));
                Some(before.fold(identity(ty, op), |a, b| combine(ty, op, a, b)))
            })
        }
        Op::Broadcast(l) => of_lane(l).and_then(|src| per_comp(&|c| Some(val(src, c)))),
        Op::BroadcastFirst => per_comp(&|c| Some(val(lanes[0].1, c))),
        Op::Shuffle => {
            let active = lanes.len() as u32;
            // the kernel's index assumes the active lanes are the first ones
            if lanes.iter().enumerate().any(|(k, &(l, _))| l != k as u32) {
                return None;
            }
            of_lane((lane + 3) % active).and_then(|src| per_comp(&|c| Some(val(src, c))))
        }
        Op::ShuffleData => {
            of_lane(hash(id, 5) % sg).and_then(|src| per_comp(&|c| Some(val(src, c))))
        }
        Op::ShuffleXor(m) => of_lane(lane ^ m).and_then(|src| per_comp(&|c| Some(val(src, c)))),
        Op::ShuffleUp(d) => lane
            .checked_sub(d)
            .and_then(of_lane)
            .and_then(|src| per_comp(&|c| Some(val(src, c)))),
        Op::ShuffleDown(d) => {
            (lane + d < count).then_some(())?;
            of_lane(lane + d).and_then(|src| per_comp(&|c| Some(val(src, c))))
        }
        Op::QuadBroadcast(_) | Op::QuadSwapX | Op::QuadSwapY | Op::QuadSwapDiagonal => {
            let q = lane & !3;
            // a quad operation is defined only where its whole quad is active
            if !(q..q + 4).all(|l| of_lane(l).is_some()) {
                return None;
            }
            let src = match op {
                Op::QuadBroadcast(l) => q + l,
                Op::QuadSwapX => lane ^ 1,
                Op::QuadSwapY => lane ^ 2,
                _ => lane ^ 3,
            };
            of_lane(src).and_then(|s| per_comp(&|c| Some(val(s, c))))
        }
        Op::All => Some(vec![lanes.iter().all(|&(_, i)| pred(i)) as u32]),
        Op::Any => Some(vec![lanes.iter().any(|&(_, i)| pred(i)) as u32]),
        Op::Ballot => {
            let mut b = [0u32; 4];
            for &(l, i) in lanes {
                if pred(i) {
                    b[l as usize / 32] |= 1 << (l % 32);
                }
            }
            Some(b.to_vec())
        }
        Op::Elect => Some(vec![(lanes[0].0 == lane) as u32]),
    }
}

/// The generated cases: (type, builtin, activity).
fn cases() -> Vec<(Ty, Op, Pred)> {
    use Op::*;
    let ops = [
        Add,
        Mul,
        Min,
        Max,
        And,
        Or,
        Xor,
        ExclusiveAdd,
        ExclusiveMul,
        InclusiveAdd,
        InclusiveMul,
        Broadcast(0),
        Broadcast(3),
        BroadcastFirst,
        Shuffle,
        ShuffleData,
        ShuffleXor(1),
        ShuffleXor(2),
        ShuffleUp(1),
        ShuffleUp(2),
        ShuffleDown(2),
        ShuffleDown(3),
        QuadBroadcast(2),
        QuadSwapX,
        QuadSwapY,
        QuadSwapDiagonal,
        All,
        Any,
        Ballot,
        Elect,
    ];
    let tys = [
        Ty::U32,
        Ty::I32,
        Ty::F32,
        Ty::F16,
        Ty::Vec2U32,
        Ty::Vec4F32,
        Ty::Vec4F16,
    ];
    let preds = [
        Pred::All,
        Pred::Even,
        Pred::Below7,
        Pred::Split,
        Pred::Quads,
    ];
    let mut out = Vec::new();
    for op in ops {
        for ty in tys {
            if (op.integer_only() && ty.float()) || (op.boolean() && ty != Ty::U32) {
                continue;
            }
            // (vectors: the arithmetic and the data movement once each, as the CTS does)
            if ty.comps() > 1
                && !matches!(
                    op,
                    Add | InclusiveAdd | Broadcast(3) | ShuffleXor(1) | QuadSwapY
                )
            {
                continue;
            }
            for pred in preds {
                // (a quad builtin only where its quads are whole: the CTS's quad cases)
                if op.quad() && !matches!(pred, Pred::All | Pred::Quads) {
                    continue;
                }
                // (under the even lanes, a source lane of the other parity is never active: the
                // result is undefined in every lane, so the case would compare nothing)
                let odd_source = matches!(
                    op,
                    Shuffle | Broadcast(3) | ShuffleXor(1) | ShuffleUp(1) | ShuffleDown(3)
                );
                if odd_source && matches!(pred, Pred::Even | Pred::Split) {
                    continue;
                }
                out.push((ty, op, pred));
            }
        }
    }
    out
}

/// Workgroup shapes: 1-D and multi-dimensional, multiples of the subgroup size and not.
const SHAPES: [[u32; 3]; 4] = [[64, 1, 1], [8, 8, 1], [4, 3, 5], [100, 1, 1]];

/// Runs one case at subgroup size `sg` on one shape: the description of each wrong word, and
/// the number of result words compared.
fn run(ty: Ty, op: Op, pred: Pred, wg: [u32; 3], sg: u32) -> (Vec<String>, usize) {
    let n = wg.iter().product::<u32>();
    let src = kernel(ty, op, pred, wg);
    let what = format!("{op:?} {ty:?} {pred:?} {wg:?} sg {sg}");
    let report = match check_src(&src, n as usize * W, sg) {
        Ok(r) => r,
        Err(e) => return (vec![format!("{what}: {e}")], 0),
    };
    let mut bad = Vec::new();
    if !report.findings.is_empty() {
        let kinds: Vec<FindingKind> = report.findings.iter().map(|f| f.kind).collect();
        bad.push(format!("{what}: findings {kinds:?}"));
    }
    let out = &report.buffers[&0].1;
    let word = |id: u32, w: usize| out[id as usize * W + w];
    // subgroups: local_invocation_index order, sg at a time
    for id in 0..n {
        let (lane, sgid, size) = (word(id, 0), word(id, 1), word(id, 2));
        if (lane, sgid, size) != (id % sg, id / sg, sg) {
            bad.push(format!(
                "{what}: invocation {id} is lane {lane} of subgroup {sgid} of {size}"
            ));
        }
    }
    if !bad.is_empty() {
        return (bad, 0);
    }
    // invocations outside the predicate's branches wrote nothing but their ids
    let outside = (0..n).filter(|&id| pred != Pred::Split && !pred.takes(id % sg));
    for id in outside {
        if word(id, 3) != 0 || (4..W).any(|w| word(id, w) != UNSET) {
            bad.push(format!(
                "{what}: invocation {id}, outside the branch, wrote a result"
            ));
        }
    }
    let mut compared = 0;
    for s in 0..n.div_ceil(sg) {
        let ids: Vec<u32> = (s * sg..((s + 1) * sg).min(n)).collect();
        let count = ids.len() as u32;
        for branch in [1u32, 2] {
            let lanes: Lanes = ids
                .iter()
                .map(|&id| (id % sg, id))
                .filter(|&(l, _)| match (pred, branch) {
                    (Pred::Split, 2) => !pred.takes(l),
                    (_, 2) => false,
                    _ => pred.takes(l),
                })
                .collect();
            for &(lane, id) in &lanes {
                if word(id, 3) != branch {
                    bad.push(format!(
                        "{what}: invocation {id} took branch {}",
                        word(id, 3)
                    ));
                    continue;
                }
                let Some(want) = expect(ty, op, &lanes, (lane, id), (count, sg)) else {
                    continue;
                };
                let got: Vec<u32> = (0..want.len()).map(|w| word(id, 4 + w)).collect();
                compared += want.len();
                if got != want {
                    bad.push(format!(
                        "{what}: invocation {id}: {got:x?}, expected {want:x?}"
                    ));
                }
            }
        }
    }
    (bad, compared)
}

/// Every case at every simulated subgroup size: all pass (the pass rate is printed), and every
/// case compares result words somewhere (none is left with only undefined results).
#[test]
fn every_case_at_every_size() {
    let cases = cases();
    let (mut runs, mut failed) = (0usize, Vec::new());
    let mut compared = vec![0usize; cases.len()];
    for sg in [4u32, 8, 16, 32, 64, 128] {
        for (c, &(ty, op, pred)) in cases.iter().enumerate() {
            for wg in SHAPES {
                runs += 1;
                let (bad, words) = run(ty, op, pred, wg, sg);
                compared[c] += words;
                if !bad.is_empty() {
                    failed.push(bad[0].clone());
                }
            }
        }
    }
    let unchecked: Vec<_> = (0..cases.len())
        .filter(|&c| compared[c] == 0)
        .map(|c| cases[c])
        .collect();
    assert!(
        unchecked.is_empty(),
        "cases that compare nothing: {unchecked:?}"
    );
    println!(
        "CTS-style subgroup cases: {} of {runs} runs passed ({} cases × 4 shapes × 6 sizes)",
        runs - failed.len(),
        cases.len()
    );
    assert!(
        failed.is_empty(),
        "{} failed, first: {:#?}",
        failed.len(),
        &failed[..failed.len().min(10)]
    );
}
