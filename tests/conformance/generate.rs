//! The seeded program generator.
//!
//! A program is one WGSL function, `fn NAME(o: u32)`, with its own structs, private variables
//! and helper functions, that reads the input words and writes output words `out[o + k]`, each
//! with the comparison its type and operation call for ([`Cmp`]). Programs are generated from
//! their seed alone, so program `i` of a module is the same text whatever else the module holds,
//! and a module ([`module`]) calls many of them from one entry point.
//!
//! Everything generated is well defined in WGSL, so the simulator and a GPU must agree:
//! - integer division and remainder by zero and `i32::MIN / -1` are defined, shifts take the
//!   amount modulo 32 (a constant amount is always below 32), indices are reduced modulo the
//!   length, no operation has only constant operands (naga folds those and rejects overflow);
//! - float operations compared bit for bit are those a GPU rounds correctly (`+ - *`, `/`,
//!   `sqrt` where the device does, `floor`, `min`, conversions ...) on inputs of a few
//!   significant bits between 2^-6 and 2^6 (no denormals, few overflows); the ones a GPU
//!   computes within some ulps (`sin`, `exp`, `pow`, ...) write their result straight to an
//!   output compared within those ulps and feed nothing else; sums of products (`dot`, matrix
//!   products, `cross`, `determinant`, subgroup float sums) take operands quantised to a few
//!   bits, where every order of summation and every fused multiply-add gives the same bits;
//! - float→int conversions are clamped into range first; f16 conversions likewise;
//! - subgroup operations run only in subgroup-uniform control flow (uniform conditions,
//!   no divergent `break` before them), shuffles read lanes inside the subgroup, shuffle-up
//!   and -down results of lanes past the edge are discarded by a `select`;
//! - workgroup memory is written and read between barriers at a program's top level; atomics
//!   on workgroup memory are read after a barrier, storage atomics only by the host at the end,
//!   each word with one commutative operation.

use std::fmt::Write as _;
use std::ops::Range;

use crate::exec::{Cmp, Shape};

/// Uniform input words: i32/u32 bits, then f32, then f16 (as f32 bits).
pub const UNI_INT: u32 = 8;
/// Uniform f32 input words.
pub const UNI_F32: u32 = 4;
/// Uniform f16 input words.
pub const UNI_F16: u32 = 3;
/// The uniform input word that is always zero (the `fz` a compiler cannot see through).
pub const ZERO_WORD: u32 = UNI_INT + UNI_F32 + UNI_F16;
/// All uniform input words.
pub const UNI_WORDS: u32 = ZERO_WORD + 1;
/// Integer input words per invocation.
pub const INT_WORDS: u32 = 16;
/// f32 input words per invocation.
pub const F32_WORDS: u32 = 12;
/// f16 input words per invocation (f32 bits of f16 values).
pub const F16_WORDS: u32 = 8;
/// Input words per invocation.
pub const IN_STRIDE: u32 = INT_WORDS + F32_WORDS + F16_WORDS;
/// Invocations per workgroup.
pub const WG: u32 = 32;
/// Workgroups per dispatch.
pub const GROUPS: u32 = 2;
/// Storage atomic words.
pub const STORAGE_ATOMICS: u32 = 12;
/// f16's smallest normal value, as an f32 literal.
const F16_NORMAL: &str = "0.00006103515625f";
/// A `u32` zero the compiler cannot see. The pack and unpack family take their operand through
/// it (floats through `+ fz`): lavapipe (Mesa 22.3) folds a constant operand wrongly, the high
/// half of `unpack2x16float` to 0 and a negative byte of `pack4x8snorm` over the bytes above.
const UZ: &str = "bitcast<u32>(fz)";
/// Workgroup atomic words (of each of `wg_a`, `wg_i`).
const WG_ATOMICS: u32 = 8;
/// The operation each storage atomic word takes (word `k` takes `SAT_OPS[k % 6]`).
const SAT_OPS: [&str; 6] = [
    "atomicAdd",
    "atomicMax",
    "atomicMin",
    "atomicOr",
    "atomicXor",
    "atomicAnd",
];

/// SplitMix64: small, seeded, the same everywhere.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Below `n` (> 0).
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n as u64) as u32
    }

    /// In `lo..=hi`.
    pub fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo + 1) as u32) as i32
    }

    /// True `pct` percent of the time.
    pub fn chance(&mut self, pct: u32) -> bool {
        self.below(100) < pct
    }

    /// One of `v`.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u32) as usize]
    }

    /// An integer input word: small values, edge cases (0, ±1, the extremes, shift widths) and
    /// random bits.
    pub fn int_input(&mut self) -> u32 {
        const EDGES: [u32; 14] = [
            0,
            1,
            u32::MAX,
            0x8000_0000,
            0x7fff_ffff,
            31,
            32,
            33,
            0xff,
            0x80,
            0x7f,
            0xffff,
            0x1_0000,
            0xffff_ff80,
        ];
        match self.below(10) {
            0..=2 => self.range(-8, 8) as u32,
            3 | 4 => *self.pick(&EDGES),
            _ => self.next_u64() as u32,
        }
    }

    /// `±(1 + k/2^bits) · 2^e`, `e` in `emin..=emax`, or one of a few random-mantissa values.
    fn nice(&mut self, bits: u32, mant: u32, emin: i32, emax: i32) -> f32 {
        let sign = if self.chance(50) { -1.0 } else { 1.0 };
        let e = self.range(emin, emax);
        let m = if self.chance(15) {
            1.0 + self.below(1 << mant) as f32 / (1u32 << mant) as f32
        } else {
            1.0 + self.below(1 << bits) as f32 / (1u32 << bits) as f32
        };
        sign * m * (e as f32).exp2()
    }

    /// An f32 input: zeros, small integers and halves, and values of few significant bits
    /// between 2^-6 and 2^6 (never denormal, infinite or NaN).
    pub fn f32_input(&mut self) -> f32 {
        match self.below(20) {
            0 => 0.0,
            1 => -0.0,
            2..=4 => self.range(-16, 16) as f32,
            5 | 6 => self.range(-16, 16) as f32 + 0.5,
            _ => self.nice(4, 23, -6, 6),
        }
    }

    /// An f16 input, as f32 (exactly representable in f16): likewise, between 2^-4 and 2^4.
    pub fn f16_input(&mut self) -> f32 {
        match self.below(20) {
            0 => 0.0,
            1 => -0.0,
            2..=4 => self.range(-16, 16) as f32,
            5 | 6 => self.range(-16, 16) as f32 + 0.5,
            _ => self.nice(3, 10, -4, 4),
        }
    }
}

/// `a` and `b` mixed into one seed.
pub fn mix(a: u64, b: u64) -> u64 {
    Rng::new(a ^ b.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
}

/// What the device runs, so what may be generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// `f16` (`Features::SHADER_F16`).
    pub f16: bool,
    /// Subgroup operations.
    pub subgroups: bool,
    /// Whether `/` and `sqrt` of f32 are correctly rounded on the device (compared bit for
    /// bit); otherwise their results are terminal and compared within ulps.
    pub exact_div: bool,
}

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sc {
    Bool,
    I32,
    U32,
    F32,
    F16,
}

impl Sc {
    fn name(self) -> &'static str {
        match self {
            Sc::Bool => "bool",
            Sc::I32 => "i32",
            Sc::U32 => "u32",
            Sc::F32 => "f32",
            Sc::F16 => "f16",
        }
    }
    fn float(self) -> bool {
        matches!(self, Sc::F32 | Sc::F16)
    }
    fn int(self) -> bool {
        matches!(self, Sc::I32 | Sc::U32)
    }
    /// The literal suffix.
    fn suffix(self) -> &'static str {
        match self {
            Sc::I32 => "i",
            Sc::U32 => "u",
            Sc::F32 => "f",
            Sc::F16 => "h",
            Sc::Bool => "",
        }
    }
}

/// A type the generator uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    S(Sc),
    V(u8, Sc),
    /// f32 `matCxR`: columns, rows.
    M(u8, u8),
    A(Box<Ty>, u8),
    /// A struct of the program's, by index.
    St(usize),
}

/// A generated statement: one line of WGSL, or a block of segments (`if … { } else { }`,
/// loops, switches) whose bodies the shrinker can cut.
#[derive(Clone, Debug)]
pub enum Stmt {
    Line(String),
    Block(Vec<Seg>),
}

/// A segment of a block: its opening text, body and closing text.
#[derive(Clone, Debug)]
pub struct Seg {
    pub open: String,
    pub body: Vec<Stmt>,
    pub close: String,
}

/// Prints `stmts` at `indent`.
pub fn print_stmts(stmts: &[Stmt], indent: usize, out: &mut String) {
    let pad = "    ".repeat(indent);
    for s in stmts {
        match s {
            Stmt::Line(l) => {
                let _ = writeln!(out, "{pad}{l}");
            }
            Stmt::Block(segs) => {
                for seg in segs {
                    if !seg.open.is_empty() {
                        let _ = writeln!(out, "{pad}{}", seg.open);
                    }
                    print_stmts(&seg.body, indent + 1, out);
                    if !seg.close.is_empty() {
                        let _ = writeln!(out, "{pad}{}", seg.close);
                    }
                }
            }
        }
    }
}

/// One generated program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Its function's name (also the prefix of its structs, helpers and private variables).
    pub name: String,
    /// Module-scope declarations: structs, private variables, helper functions.
    pub decls: Vec<String>,
    /// The body of `fn NAME(o: u32)`.
    pub body: Vec<Stmt>,
    /// The comparison of each word it writes, `out[o + k]`.
    pub outs: Vec<Cmp>,
}

impl Program {
    /// Its WGSL: the declarations and the function.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for d in &self.decls {
            s.push_str(d);
            s.push('\n');
        }
        let _ = writeln!(s, "fn {}(o: u32) {{", self.name);
        print_stmts(&self.body, 1, &mut s);
        s.push_str("}\n");
        s
    }

    /// How many statements it has, nested ones included.
    pub fn size(&self) -> usize {
        fn count(s: &[Stmt]) -> usize {
            s.iter()
                .map(|s| match s {
                    Stmt::Line(_) => 1,
                    Stmt::Block(segs) => 1 + segs.iter().map(|g| count(&g.body)).sum::<usize>(),
                })
                .sum()
        }
        count(&self.body)
    }
}

/// A module of programs: the WGSL, its run's shape and each program's output words.
pub struct Module {
    pub text: String,
    pub shape: Shape,
    /// Program `i` writes words `ranges[i]` of each invocation's outputs.
    pub ranges: Vec<Range<usize>>,
    /// Program `i`'s text (declarations and function) is on lines `lines[i]` (1-based).
    pub lines: Vec<Range<u32>>,
    /// The storage atomic words program `i` updates.
    pub sats: Vec<Vec<u32>>,
}

impl Module {
    /// The program whose text holds 1-based line `line`.
    pub fn program_at(&self, line: u32) -> Option<usize> {
        self.lines.iter().position(|r| r.contains(&line))
    }
}

/// The storage atomic words `text` updates (`&sat[K]`).
fn sat_words(text: &str) -> Vec<u32> {
    let mut v: Vec<u32> = text
        .match_indices("&sat[")
        .filter_map(|(i, m)| {
            let rest = &text[i + m.len()..];
            rest[..rest.find(']')?].parse().ok()
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The module-scope declarations and entry point around programs.
pub fn module(programs: &[Program], feat: Features, seed: u64) -> Module {
    let mut text = String::new();
    if feat.f16 {
        text.push_str("enable f16;\n\n");
    }
    let _ = write!(
        text,
        "@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> sat: array<atomic<u32>, {STORAGE_ATOMICS}>;
var<workgroup> wg_u: array<u32, {WG}>;
var<workgroup> wg_f: array<f32, {WG}>;
var<workgroup> wg_a: array<atomic<u32>, {WG_ATOMICS}>;
var<workgroup> wg_i: array<atomic<i32>, {WG_ATOMICS}>;
var<private> ib: u32;
var<private> lid: u32;
var<private> lane: u32;
var<private> sgs: u32;
var<private> fz: f32;
"
    );
    text.push('\n');
    let mut ranges = Vec::new();
    let mut lines = Vec::new();
    let mut sats = Vec::new();
    let mut outs = Vec::new();
    let mut texts = Vec::new();
    for p in programs {
        let first = text.lines().count() as u32 + 1;
        let t = p.text();
        text.push_str(&t);
        text.push('\n');
        lines.push(first..text.lines().count() as u32 + 1);
        sats.push(sat_words(&t));
        ranges.push(outs.len()..outs.len() + p.outs.len());
        outs.extend_from_slice(&p.outs);
        texts.push(t);
    }
    let stride = outs.len().max(1);
    let sg_args = if feat.subgroups {
        ", @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) ss: u32"
    } else {
        ""
    };
    let _ = writeln!(
        text,
        "@compute @workgroup_size({WG})
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>{sg_args}) {{
    let g = wid.x * {WG}u + li;
    ib = {UNI_WORDS}u + g * {IN_STRIDE}u;
    lid = li;
    fz = bitcast<f32>(inp[{ZERO_WORD}u]);"
    );
    if feat.subgroups {
        text.push_str("    lane = sl;\n    sgs = ss;\n");
    } else {
        text.push_str("    lane = 0u;\n    sgs = 1u;\n");
    }
    let _ = writeln!(text, "    let ob = g * {stride}u;");
    for ((p, r), t) in programs.iter().zip(&ranges).zip(&texts) {
        if t.contains("&wg_a[") || t.contains("&wg_i[") {
            // each program starts from zeroed workgroup atomics, whatever ran before it
            let _ = writeln!(
                text,
                "    workgroupBarrier();
    if li < {WG_ATOMICS}u {{ atomicStore(&wg_a[li], 0u); atomicStore(&wg_i[li], 0i); }}
    workgroupBarrier();"
            );
        }
        let _ = writeln!(text, "    {}(ob + {}u);", p.name, r.start);
    }
    text.push_str("}\n");
    Module {
        text,
        shape: Shape {
            wg: WG,
            groups: GROUPS,
            out: outs,
            atomics: STORAGE_ATOMICS,
            seed,
        },
        ranges,
        lines,
        sats,
    }
}

/// An expression and what the generator knows of it.
#[derive(Clone, Debug)]
struct E {
    s: String,
    /// Subgroup-uniform.
    uni: bool,
    /// Built from literals only (naga folds operations on such values, so none is made).
    cnst: bool,
    /// May hold a float product (or quotient, square root, dot product, determinant ...) that a
    /// GPU compiler could fuse with an addition it feeds (`a * b + c` as one `fma`) or rewrite
    /// with it: such a value
    /// passes through `+ fz` (a zero the compiler cannot see) before an addition, a
    /// subtraction or a division takes it. Propagates through everything built from it.
    mulf: bool,
    /// The leaves it is made of (inputs, variables, float literals, by text; through every
    /// operation, call and variable); empty: it is one itself. A compiler may cancel a value
    /// that appears on both sides of an addition or subtraction (`(x + y) - x` as `y`) or a
    /// comparison (`x + y < x` as `y < 0`), and finds equal values behind different text:
    /// lavapipe cancels `(v + (m * v)[0].x * v) - (transpose(m)[0] * v * v).y`, and
    /// `(x + y) - min(y, y)`. So the operands of an addition, a subtraction or a comparison
    /// never share a leaf.
    terms: Vec<String>,
}

impl E {
    fn new(s: String, parts: &[&E]) -> E {
        // the leaves of its operands that are not constant
        let mut terms: Vec<String> = parts
            .iter()
            .filter(|p| !p.cnst)
            .flat_map(|p| p.atoms())
            .collect();
        terms.sort();
        terms.dedup();
        E {
            s,
            uni: parts.iter().all(|p| p.uni),
            cnst: parts.iter().all(|p| p.cnst),
            mulf: parts.iter().any(|p| p.mulf),
            terms,
        }
    }
    fn lit(s: String) -> E {
        E {
            s,
            uni: true,
            cnst: true,
            mulf: false,
            terms: Vec::new(),
        }
    }
    /// Its terms (itself, if it is no sum).
    fn atoms(&self) -> Vec<String> {
        if self.terms.is_empty() {
            vec![self.s.clone()]
        } else {
            self.terms.clone()
        }
    }
    /// Made of the leaves of `parts`, constant ones too.
    fn sum_of(mut self, parts: &[&E]) -> E {
        let mut t: Vec<String> = parts.iter().flat_map(|p| p.atoms()).collect();
        t.sort();
        t.dedup();
        self.terms = t;
        self
    }
    /// Whether it and `other` share a leaf.
    fn shares(&self, other: &E) -> bool {
        let b = other.atoms();
        self.atoms().iter().any(|t| b.contains(t))
    }
    /// Marked as a product.
    fn product(mut self) -> E {
        self.mulf = true;
        self
    }
}

/// A variable in scope (or `(*p)` of a pointer parameter).
#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    /// Holds subgroup-uniform values only (assignments keep it so).
    uni: bool,
    cnst: bool,
    /// May hold a product ([`E::mulf`]); set for good once one is stored.
    mulf: bool,
    /// The terms of every value stored ([`E::terms`]).
    terms: Vec<String>,
}

/// Where the generator is.
#[derive(Clone, Copy, Debug)]
struct Cx {
    /// Control flow is subgroup-uniform here.
    uni: bool,
    /// In a helper function (no subgroup operations, barriers or outputs).
    helper: bool,
    /// At the program's top level (barriers allowed).
    top: bool,
    /// Loops around here.
    loops: u32,
    /// Blocks around here.
    nest: u32,
    /// Inside a `while` (where `continue` would skip the increment).
    in_while: bool,
    /// The innermost loop may take divergent `break`s and `continue`s (so its whole body is
    /// non-uniform: a lane that left in one iteration is missing from the next).
    divergent: bool,
    /// The innermost loop's body is uniform: a jump in it must be too.
    loop_uni: bool,
}

/// A helper function the program may call.
#[derive(Clone, Debug)]
struct Helper {
    name: String,
    params: Vec<Ty>,
    ret: Ty,
    /// The leaves its body reads ([`E::terms`]).
    reads: Vec<String>,
}

/// A helper taking a pointer to a `function` variable of `target` and a value of `arg`.
#[derive(Clone, Debug)]
struct Mutator {
    name: String,
    target: Ty,
    arg: Ty,
    /// The leaves its body reads.
    reads: Vec<String>,
}

#[derive(Clone)]
struct G {
    r: Rng,
    feat: Features,
    name: String,
    structs: Vec<Vec<(String, Ty)>>,
    decls: Vec<String>,
    helpers: Vec<Helper>,
    mutators: Vec<Mutator>,
    scopes: Vec<Vec<Var>>,
    outs: Vec<Cmp>,
    fresh: u32,
    /// Statements left to generate.
    budget: i32,
    /// The counters of the loops around here, innermost last.
    loop_vars: Vec<String>,
    /// The leaves read since a helper's body began (`None` outside helpers).
    reads: Option<Vec<String>>,
}

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// The comment ending the lines that keep a loop finite (the shrinker leaves them).
pub const LOOP: &str = "// loop";

/// Generates the program `name` from `seed`.
pub fn program(seed: u64, name: &str, feat: Features) -> Program {
    let g = G {
        r: Rng::new(seed),
        feat,
        name: name.to_string(),
        structs: Vec::new(),
        decls: Vec::new(),
        helpers: Vec::new(),
        mutators: Vec::new(),
        scopes: vec![Vec::new()],
        outs: Vec::new(),
        fresh: 0,
        budget: 0,
        loop_vars: Vec::new(),
        reads: None,
    };
    g.program()
}

impl G {
    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    /// Whether f16 conversions may be generated: not in a program with subgroup operations
    /// (lavapipe's LLVM, Mesa 22.3, aborts on some subgroup operations of values converted
    /// from f16).
    fn half_ok(&self) -> bool {
        !self.feat.subgroups
    }

    fn program(mut self) -> Program {
        // a program has f16 or subgroup operations, not both (see `half_ok`)
        if self.feat.f16 && self.feat.subgroups {
            if self.r.chance(50) {
                self.feat.subgroups = false;
            } else {
                self.feat.f16 = false;
            }
        }
        // private variables
        for _ in 0..self.r.below(2) {
            let ty = self.rand_ty(true);
            let name = format!("{}_g{}", self.name, self.fresh);
            self.fresh += 1;
            self.decls
                .push(format!("var<private> {name}: {};", self.ty_name(&ty)));
            self.scopes[0].push(Var {
                name,
                ty,
                mutable: true,
                uni: false,
                cnst: false,
                mulf: false,
                terms: Vec::new(),
            });
        }
        // helper functions
        for _ in 0..self.r.below(3) {
            if self.r.chance(60) {
                self.helper();
            } else {
                self.mutator();
            }
        }
        let cx = Cx {
            uni: true,
            helper: false,
            top: true,
            loops: 0,
            nest: 0,
            in_while: false,
            divergent: false,
            loop_uni: false,
        };
        self.budget = self.r.range(6, 22);
        self.scopes.push(Vec::new());
        let mut body = Vec::new();
        // the private variables start from values a compiler cannot know: one it sees is
        // never written is zero to it, `(g + fz)` is `fz`, and that cancels another `+ fz`
        let globals = self.scopes[0].clone();
        for g in &globals {
            let saved = std::mem::replace(&mut self.scopes, vec![Vec::new()]);
            let e = self.expr(&g.ty, 1, cx);
            self.scopes = saved;
            body.push(Stmt::Line(format!("{} = {};", g.name, e.s)));
            self.stored(&g.name, &e, false);
        }
        while self.budget > 0 {
            self.stmt(cx, &mut body);
        }
        // the final values of the top-level variables
        let vars: Vec<Var> = self.scopes.last().unwrap().clone();
        for v in vars.iter().filter(|v| v.mutable) {
            if self.outs.len() > 40 {
                break;
            }
            let e = E {
                s: v.name.clone(),
                uni: v.uni,
                cnst: false,
                mulf: false,
                terms: Vec::new(),
            };
            self.out(&v.ty.clone(), e, &mut body);
        }
        Program {
            name: self.name,
            decls: self.decls,
            body,
            outs: self.outs,
        }
    }

    // ---- types

    fn scalar_ty(&mut self) -> Sc {
        let mut v = vec![
            Sc::I32,
            Sc::I32,
            Sc::U32,
            Sc::U32,
            Sc::F32,
            Sc::F32,
            Sc::Bool,
        ];
        if self.feat.f16 {
            v.push(Sc::F16);
        }
        *self.r.pick(&v)
    }

    fn rand_ty(&mut self, composite: bool) -> Ty {
        let k = self.r.below(100);
        if !composite || k < 50 {
            return Ty::S(self.scalar_ty());
        }
        if k < 80 {
            return Ty::V(self.r.range(2, 4) as u8, self.scalar_ty());
        }
        if k < 87 {
            return Ty::M(self.r.range(2, 4) as u8, self.r.range(2, 4) as u8);
        }
        if k < 94 {
            let elem = if self.r.chance(70) {
                Ty::S(self.scalar_ty())
            } else {
                Ty::V(self.r.range(2, 4) as u8, self.scalar_ty())
            };
            return Ty::A(Box::new(elem), self.r.range(2, 4) as u8);
        }
        if !self.structs.is_empty() && self.r.chance(50) {
            return Ty::St(self.r.below(self.structs.len() as u32) as usize);
        }
        self.new_struct()
    }

    fn new_struct(&mut self) -> Ty {
        let i = self.structs.len();
        let n = self.r.range(1, 4);
        let mut fields = Vec::new();
        for f in 0..n {
            let ty = if self.r.chance(60) {
                Ty::S(self.scalar_ty())
            } else {
                Ty::V(self.r.range(2, 4) as u8, self.scalar_ty())
            };
            fields.push((format!("f{f}"), ty));
        }
        let mut d = format!("struct {}_S{i} {{\n", self.name);
        for (f, t) in &fields {
            let _ = writeln!(d, "    {f}: {},", self.ty_name(t));
        }
        d.push('}');
        self.decls.push(d);
        self.structs.push(fields);
        Ty::St(i)
    }

    fn ty_name(&self, t: &Ty) -> String {
        match t {
            Ty::S(s) => s.name().into(),
            Ty::V(n, s) => format!("vec{n}<{}>", s.name()),
            Ty::M(c, r) => format!("mat{c}x{r}<f32>"),
            Ty::A(e, n) => format!("array<{}, {n}>", self.ty_name(e)),
            Ty::St(i) => format!("{}_S{i}", self.name),
        }
    }

    // ---- places

    /// Every place of type `ty` readable (or, with `write`, assignable) here: variables and
    /// their components, fields and elements. A dynamic index is the marker `§N§` (N the
    /// length), filled in by [`G::fill_index`].
    fn places(&self, ty: &Ty, write: bool) -> Vec<(String, bool, bool, bool, Vec<String>)> {
        let mut all = Vec::new();
        for scope in &self.scopes {
            for v in scope {
                if write && !v.mutable {
                    continue;
                }
                let mut sub = Vec::new();
                self.sub_places(&v.name, &v.ty, 2, &mut sub);
                for (p, t) in sub {
                    if &t == ty {
                        let mut terms = v.terms.clone();
                        terms.push(v.name.clone());
                        all.push((p, v.uni, v.cnst, v.mulf, terms));
                    }
                }
            }
        }
        all
    }

    fn sub_places(&self, name: &str, ty: &Ty, depth: u32, out: &mut Vec<(String, Ty)>) {
        out.push((name.to_string(), ty.clone()));
        if depth == 0 {
            return;
        }
        match ty {
            Ty::V(n, s) => {
                for c in &XYZW[..*n as usize] {
                    out.push((format!("{name}.{c}"), Ty::S(*s)));
                }
                out.push((format!("{name}[§{n}§]"), Ty::S(*s)));
            }
            Ty::M(c, r) => {
                for i in 0..*c {
                    self.sub_places(&format!("{name}[{i}]"), &Ty::V(*r, Sc::F32), depth - 1, out);
                }
            }
            Ty::A(e, n) => {
                let k = (name.len() as u32) % *n as u32;
                self.sub_places(&format!("{name}[{k}]"), e, depth - 1, out);
                self.sub_places(&format!("{name}[§{n}§]"), e, depth - 1, out);
            }
            Ty::St(i) => {
                for (f, t) in &self.structs[*i] {
                    self.sub_places(&format!("{name}.{f}"), t, depth - 1, out);
                }
            }
            Ty::S(_) => {}
        }
    }

    /// Replaces each `§N§` of `p` with an index below N; the result's uniformity.
    fn fill_index(&mut self, p: &str, uni: bool, cx: Cx) -> (String, bool) {
        let mut s = p.to_string();
        let mut uni = uni;
        while let Some(a) = s.find('§') {
            let rest = &s[a + '§'.len_utf8()..];
            let b = rest.find('§').unwrap();
            let n: u32 = rest[..b].parse().unwrap();
            let end = a + '§'.len_utf8() + b + '§'.len_utf8();
            let idx = if self.r.chance(30) {
                E::lit(format!("{}u", self.r.below(n)))
            } else {
                let sc = if self.r.chance(50) { Sc::I32 } else { Sc::U32 };
                let e = self.nonconst_leaf(sc, cx);
                let e = if sc == Sc::I32 {
                    E::new(format!("u32({})", e.s), &[&e])
                } else {
                    e
                };
                E::new(format!("({} % {n}u)", e.s), &[&e])
            };
            uni &= idx.uni;
            s.replace_range(a..end, &idx.s);
        }
        (s, uni)
    }

    // ---- expressions

    fn expr(&mut self, ty: &Ty, d: u32, cx: Cx) -> E {
        match ty {
            Ty::S(s) => self.scalar(*s, d, cx),
            Ty::V(n, s) => self.vector(*n, *s, d, cx),
            Ty::M(c, r) => self.matrix(*c, *r, d, cx),
            Ty::A(e, n) => {
                if let Some(p) = self.read_place(ty, cx, 60) {
                    return p;
                }
                let parts: Vec<E> = (0..*n).map(|_| self.expr(e, d.min(1), cx)).collect();
                let refs: Vec<&E> = parts.iter().collect();
                let list: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                E::new(format!("{}({})", self.ty_name(ty), list.join(", ")), &refs).sum_of(&refs)
            }
            Ty::St(i) => {
                if let Some(p) = self.read_place(ty, cx, 60) {
                    return p;
                }
                let fields = self.structs[*i].clone();
                let parts: Vec<E> = fields
                    .iter()
                    .map(|(_, t)| self.expr(t, d.min(1), cx))
                    .collect();
                let refs: Vec<&E> = parts.iter().collect();
                let list: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                E::new(format!("{}({})", self.ty_name(ty), list.join(", ")), &refs).sum_of(&refs)
            }
        }
    }

    /// A readable place of `ty`, `pct` percent of the time when there is one.
    fn read_place(&mut self, ty: &Ty, cx: Cx, pct: u32) -> Option<E> {
        let places = self.places(ty, false);
        if places.is_empty() || !self.r.chance(pct) {
            return None;
        }
        let (p, uni, cnst, mulf, terms) = self.r.pick(&places).clone();
        let (s, uni) = self.fill_index(&p, uni, cx);
        Some(self.note(E {
            s,
            uni,
            cnst,
            mulf,
            terms,
        }))
    }

    /// `e`, a leaf, noted among the reads of the helper being generated.
    fn note(&mut self, e: E) -> E {
        if let Some(r) = &mut self.reads {
            r.extend(e.atoms());
        }
        e
    }

    fn literal(&mut self, s: Sc) -> E {
        let v = match s {
            Sc::Bool => return E::lit(if self.r.chance(50) { "true" } else { "false" }.into()),
            Sc::I32 => match self.r.below(8) {
                0 => return E::lit("bitcast<i32>(0x80000000u)".into()),
                1 => "2147483647i".to_string(),
                _ => format!("{}i", self.r.range(-9, 9)),
            },
            Sc::U32 => match self.r.below(8) {
                0 => "4294967295u".to_string(),
                1 => format!("{}u", self.r.range(29, 35)),
                _ => format!("{}u", self.r.range(0, 9)),
            },
            // a float constant in arithmetic lets a compiler reassociate (`(x + 1.5) + 2.25`
            // as `x + 3.75`): float literals come with `+ fz`
            Sc::F32 | Sc::F16 => {
                let (v, suffix, fz) = if s == Sc::F32 {
                    (self.r.f32_input(), "f", "fz")
                } else {
                    (self.r.f16_input(), "h", "f16(fz)")
                };
                // a zero as `fz * 0.5`: `(0.0 + fz)` is `fz` to a compiler, which cancels
                // another literal's `+ fz` (`(c + fz) - fz` as the constant `c`)
                let s = if v == 0.0 {
                    format!("({fz} * {:?}{suffix})", 0.5f32.copysign(v))
                } else {
                    format!("({v:?}{suffix} + {fz})")
                };
                return self.note(E {
                    s,
                    uni: true,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                });
            }
        };
        let v = if v.starts_with('-') {
            format!("({v})")
        } else {
            v
        };
        E::lit(v)
    }

    /// An input word of scalar type `s`: per invocation, or (subgroup-)uniform.
    fn input(&mut self, s: Sc) -> E {
        let uni = self.r.chance(20);
        let (base, ints, f32s) = if uni {
            ("", UNI_INT, UNI_F32)
        } else {
            ("ib + ", INT_WORDS, F32_WORDS)
        };
        let (f16s, _) = if uni { (UNI_F16, 0) } else { (F16_WORDS, 0) };
        let s = match s {
            Sc::U32 => format!("inp[{base}{}u]", self.r.below(ints)),
            Sc::I32 => format!("bitcast<i32>(inp[{base}{}u])", self.r.below(ints)),
            Sc::Bool => format!("((inp[{base}{}u] & 1u) == 1u)", self.r.below(ints)),
            Sc::F32 => format!("bitcast<f32>(inp[{base}{}u])", ints + self.r.below(f32s)),
            Sc::F16 => format!(
                "f16(bitcast<f32>(inp[{base}{}u]))",
                ints + f32s + self.r.below(f16s)
            ),
        };
        self.note(E {
            s,
            uni,
            cnst: false,
            mulf: false,
            terms: Vec::new(),
        })
    }

    /// A value of `s` that is not constant.
    fn nonconst_leaf(&mut self, s: Sc, cx: Cx) -> E {
        let places: Vec<_> = self
            .places(&Ty::S(s), false)
            .into_iter()
            .filter(|p| !p.2)
            .collect();
        if !places.is_empty() && self.r.chance(50) {
            let (p, uni, _, mulf, terms) = self.r.pick(&places).clone();
            let (s, uni) = self.fill_index(&p, uni, cx);
            return self.note(E {
                s,
                uni,
                cnst: false,
                mulf,
                terms,
            });
        }
        if s == Sc::U32 && self.r.chance(20) {
            let (n, uni) = *self
                .r
                .pick(&[("lid", false), ("lane", false), ("sgs", true)]);
            return self.note(E {
                s: n.into(),
                uni,
                cnst: false,
                mulf: false,
                terms: Vec::new(),
            });
        }
        self.input(s)
    }

    fn leaf(&mut self, s: Sc, cx: Cx) -> E {
        if let Some(p) = self.read_place(&Ty::S(s), cx, 40) {
            return p;
        }
        if self.r.chance(25) {
            self.literal(s)
        } else {
            self.nonconst_leaf(s, cx)
        }
    }

    /// `e`, unless it and `others` are all constant: then a non-constant value instead.
    fn unfold(&mut self, s: Sc, e: E, others: &[&E], cx: Cx) -> E {
        if e.cnst && others.iter().all(|o| o.cnst) {
            self.nonconst_leaf(s, cx)
        } else {
            e
        }
    }

    /// `e` of scalar or vector type `s` safe to add to or divide by: a product passes
    /// through `+ fz` first ([`E::mulf`]).
    fn unmul(&self, s: Sc, e: E) -> E {
        if !e.mulf || !s.float() {
            return e;
        }
        let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
        let mut e = E::new(format!("({} + {z})", e.s), &[&e]).sum_of(&[&e]);
        e.mulf = false;
        e
    }

    /// `unmul` for an f32 matrix of `c` columns.
    fn unmul_m(&self, c: u8, r: u8, e: E) -> E {
        if !e.mulf {
            return e;
        }
        let cols: Vec<String> = (0..c).map(|i| format!("m[{i}] + fz")).collect();
        let _ = r;
        let mut e = E::new(
            format!(
                "(mat{c}x{r}<f32>({}))",
                cols.join(", ").replace('m', &format!("({})", e.s))
            ),
            &[&e],
        )
        .sum_of(&[&e]);
        e.mulf = false;
        e
    }

    fn scalar(&mut self, s: Sc, d: u32, cx: Cx) -> E {
        if d == 0 || self.r.chance(15) {
            return self.leaf(s, cx);
        }
        // shared forms
        match self.r.below(20) {
            0 => {
                let c = self.expr(&Ty::S(Sc::Bool), d - 1, cx);
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                return E::new(format!("select({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                    .sum_of(&[&a, &b]);
            }
            1 => {
                // a component of a vector
                let n = self.r.range(2, 4) as u8;
                let v = self.vector(n, s, d - 1, cx);
                if self.r.chance(50) {
                    let c = XYZW[self.r.below(n as u32) as usize];
                    return E::new(format!("({}).{c}", v.s), &[&v]).sum_of(&[&v]);
                }
                let (i, _) = self.fill_index(&format!("§{n}§"), true, cx);
                let mut e = E::new(format!("({})[{i}]", v.s), &[&v]).sum_of(&[&v]);
                e.uni = false;
                return e;
            }
            2 => {
                if let Some(e) = self.call(&Ty::S(s), d, cx) {
                    return e;
                }
            }
            // no f16 subgroup operations: lavapipe's LLVM (Mesa 22.3) aborts on some
            3 if cx.uni && !cx.helper && self.feat.subgroups && s != Sc::F16 => {
                return self.subgroup(&Ty::S(s), d, cx);
            }
            _ => {}
        }
        match s {
            Sc::Bool => self.boolean(d, cx),
            Sc::I32 | Sc::U32 => self.integer(s, d, cx),
            Sc::F32 | Sc::F16 => self.float(s, d, cx),
        }
    }

    fn call(&mut self, ty: &Ty, d: u32, cx: Cx) -> Option<E> {
        let hs: Vec<Helper> = self
            .helpers
            .iter()
            .filter(|h| &h.ret == ty)
            .cloned()
            .collect();
        if hs.is_empty() {
            return None;
        }
        let h = self.r.pick(&hs).clone();
        // a float argument passes `+ fz`: the helper, inlined, must not cancel a term of the
        // caller's with one of its own
        let args: Vec<E> = h
            .params
            .iter()
            .map(|p| {
                let e = self.expr(p, d - 1, cx);
                match p {
                    Ty::S(s) | Ty::V(_, s) if s.float() => {
                        let z = if *s == Sc::F16 { "f16(fz)" } else { "fz" };
                        E::new(format!("({} + {z})", e.s), &[&e])
                    }
                    _ => e,
                }
            })
            .collect();
        let refs: Vec<&E> = args.iter().collect();
        let list: Vec<&str> = args.iter().map(|a| a.s.as_str()).collect();
        let mut e = E::new(format!("{}({})", h.name, list.join(", ")), &refs);
        // helpers read per-invocation inputs and private variables, and may return a product
        e.cnst = false;
        e.uni = false;
        e.mulf = true;
        e.terms.extend(h.reads.iter().cloned());
        e.terms.extend(self.global_terms());
        e.terms.push(e.s.clone());
        e.terms.sort();
        e.terms.dedup();
        Some(self.note(e))
    }

    fn boolean(&mut self, d: u32, cx: Cx) -> E {
        match self.r.below(9) {
            0..=2 => {
                let t = self.scalar_ty();
                let t = if t == Sc::Bool { Sc::I32 } else { t };
                let a = self.scalar(t, d - 1, cx);
                let b = self.scalar(t, d - 1, cx);
                let b = self.unfold(t, b, &[&a], cx);
                // `x + y < x` may be compiled as `y < 0`
                let b = if t.float() && a.shares(&b) {
                    self.fresh_float(t, 1, &a, cx)
                } else {
                    b
                };
                let op = self.r.pick(&["==", "!=", "<", "<=", ">", ">="]);
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            3 => {
                let a = self.scalar(Sc::Bool, d - 1, cx);
                E::new(format!("!({})", a.s), &[&a])
            }
            4 | 5 => {
                let a = self.scalar(Sc::Bool, d - 1, cx);
                let op = *self.r.pick(&["&&", "||", "&", "|", "!=", "=="]);
                // naga evaluates the right operand of `&&` and `||` only where it decides
                let mut rcx = cx;
                if op == "&&" || op == "||" {
                    rcx.uni = cx.uni && a.uni;
                }
                let b = self.scalar(Sc::Bool, d - 1, rcx);
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            6 => {
                let n = self.r.range(2, 4) as u8;
                let v = self.vector(n, Sc::Bool, d - 1, cx);
                let f = self.r.pick(&["all", "any"]);
                E::new(format!("{f}({})", v.s), &[&v])
            }
            _ => {
                let t = *self.r.pick(&[Sc::I32, Sc::U32, Sc::F32]);
                let a = self.scalar(t, d - 1, cx);
                let a = self.unfold(t, a, &[], cx);
                E::new(format!("bool({})", a.s), &[&a])
            }
        }
    }

    fn integer(&mut self, s: Sc, d: u32, cx: Cx) -> E {
        let t = s.name();
        let sfx = s.suffix();
        match self.r.below(16) {
            0..=2 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let op = *self
                    .r
                    .pick(&["+", "-", "*", "/", "%", "&", "|", "^", "/", "%"]);
                let b = if op == "/" || op == "%" {
                    self.divisor(s, None, b, cx)
                } else {
                    b
                };
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            3 => {
                let a = self.scalar(s, d - 1, cx);
                let b = if self.r.chance(30) {
                    E::lit(format!("{}u", self.r.below(32)))
                } else {
                    let b = self.scalar(Sc::U32, d - 1, cx);
                    self.unfold(Sc::U32, b, &[], cx)
                };
                let a = self.unfold(s, a, &[&b], cx);
                let op = self.r.pick(&["<<", ">>"]);
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            4 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                if s == Sc::I32 && self.r.chance(50) {
                    E::new(format!("(-{})", a.s), &[&a])
                } else {
                    E::new(format!("(~{})", a.s), &[&a])
                }
            }
            5 | 6 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                let mut fs = vec![
                    "abs",
                    "countOneBits",
                    "countLeadingZeros",
                    "countTrailingZeros",
                    "firstLeadingBit",
                    "firstTrailingBit",
                    "reverseBits",
                ];
                if s == Sc::I32 {
                    fs.push("sign");
                }
                let f = self.r.pick(&fs);
                E::new(format!("{f}({})", a.s), &[&a])
            }
            7 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                if self.r.chance(70) {
                    let f = self.r.pick(&["min", "max"]);
                    E::new(format!("{f}({}, {})", a.s, b.s), &[&a, &b])
                } else {
                    let c = self.scalar(s, d - 1, cx);
                    E::new(format!("clamp({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                }
            }
            8 => {
                let e = self.scalar(s, d - 1, cx);
                let off = self.scalar(Sc::U32, 0, cx);
                let cnt = self.scalar(Sc::U32, 0, cx);
                let e = self.unfold(s, e, &[&off, &cnt], cx);
                if self.r.chance(50) {
                    E::new(
                        format!("extractBits({}, {}, {})", e.s, off.s, cnt.s),
                        &[&e, &off, &cnt],
                    )
                } else {
                    let nb = self.scalar(s, d - 1, cx);
                    E::new(
                        format!("insertBits({}, {}, {}, {})", e.s, nb.s, off.s, cnt.s),
                        &[&e, &nb, &off, &cnt],
                    )
                }
            }
            9 | 10 => {
                // conversions
                match self.r.below(4) {
                    0 => {
                        let o = if s == Sc::I32 { Sc::U32 } else { Sc::I32 };
                        let a = self.scalar(o, d - 1, cx);
                        let a = self.unfold(o, a, &[], cx);
                        if self.r.chance(50) {
                            E::new(format!("{t}({})", a.s), &[&a])
                        } else {
                            E::new(format!("bitcast<{t}>({})", a.s), &[&a])
                        }
                    }
                    1 => {
                        let a = self.scalar(Sc::Bool, d - 1, cx);
                        let a = self.unfold(Sc::Bool, a, &[], cx);
                        E::new(format!("{t}({})", a.s), &[&a])
                    }
                    _ => {
                        // float to int, clamped into range first (WGSL saturates anyway)
                        let f = if self.feat.f16 && self.r.chance(30) {
                            Sc::F16
                        } else {
                            Sc::F32
                        };
                        let a = self.scalar(f, d - 1, cx);
                        let a = self.unfold(f, a, &[], cx);
                        let fs = f.suffix();
                        let (lo, hi) = match (s, f) {
                            (Sc::I32, Sc::F32) => ("-2147483520.0", "2147483520.0"),
                            (Sc::U32, Sc::F32) => ("-5.0", "4294967040.0"),
                            (Sc::I32, _) => ("-65504.0", "65504.0"),
                            _ => ("-5.0", "65504.0"),
                        };
                        E::new(format!("{t}(clamp({}, {lo}{fs}, {hi}{fs}))", a.s), &[&a])
                    }
                }
            }
            11 => {
                // dot products of integer vectors, packed dot products, packs
                match self.r.below(3) {
                    0 => {
                        let n = self.r.range(2, 4) as u8;
                        let a = self.vector(n, s, d - 1, cx);
                        let b = self.vector(n, s, d - 1, cx);
                        let b = self.unfold_v(n, s, b, &[&a], cx);
                        E::new(format!("dot({}, {})", a.s, b.s), &[&a, &b]).product()
                    }
                    1 => {
                        let a = self.scalar(Sc::U32, d - 1, cx);
                        let b = self.scalar(Sc::U32, d - 1, cx);
                        let b = self.unfold(Sc::U32, b, &[&a], cx);
                        let f = if s == Sc::I32 {
                            "dot4I8Packed"
                        } else {
                            "dot4U8Packed"
                        };
                        E::new(format!("{f}({}, {})", a.s, b.s), &[&a, &b])
                    }
                    _ if s == Sc::U32 => self.pack(d, cx),
                    _ => {
                        let a = self.scalar(Sc::F32, d - 1, cx);
                        let a = self.unfold(Sc::F32, a, &[], cx);
                        let part = if self.r.chance(50) {
                            "exp"
                        } else {
                            return E::new(
                                format!("i32(clamp(modf({}).whole, -1e9f, 1e9f))", a.s),
                                &[&a],
                            );
                        };
                        E::new(format!("frexp({}).{part}", a.s), &[&a])
                    }
                }
            }
            12 if self.helpers.iter().any(|h| h.ret == Ty::S(s)) => {
                self.call(&Ty::S(s), d, cx).unwrap()
            }
            _ => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let op = self.r.pick(&["+", "-", "*", "&", "^"]);
                let _ = sfx;
                E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
        }
    }

    /// The pack family (u32 results). The normalised packs round `0.5 + 127 * v` down in
    /// WGSL, to even on lavapipe (GLSL's `packSnorm4x8`): their operands get `+ 2^-10`, which
    /// keeps a value of few significant bits off the halfway points (`127 * (k / 2^m + 2^-10)`
    /// never lies halfway between two integers).
    fn pack(&mut self, d: u32, cx: Cx) -> E {
        match self.r.below(4) {
            0 => {
                let f = *self.r.pick(&["pack4x8snorm", "pack4x8unorm"]);
                let v = self.vector(4, Sc::F32, d - 1, cx);
                let v = self.unfold_v(4, Sc::F32, v, &[], cx);
                let v = self.unmul(Sc::F32, v);
                E::new(format!("{f}({} + (0.0009765625f + fz))", v.s), &[&v])
            }
            1 => {
                let fs: &[&str] = if self.half_ok() {
                    &["pack2x16snorm", "pack2x16unorm", "pack2x16float"]
                } else {
                    &["pack2x16snorm", "pack2x16unorm"]
                };
                let f = *self.r.pick(fs);
                let v = self.vector(2, Sc::F32, d - 1, cx);
                let v = self.unfold_v(2, Sc::F32, v, &[], cx);
                if f == "pack2x16float" {
                    // outside f16's finite range the result is indeterminate; a subnormal f16
                    // may be flushed to zero, and the sign of a zero ignored: operands below
                    // f16's smallest normal (zeros too) become 0.5
                    let c = format!("clamp({}, vec2(-65504.0f), vec2(65504.0f))", v.s);
                    return E::new(
                        format!("{f}(select({c}, vec2(0.5f), abs({c}) < vec2({F16_NORMAL})) + fz)"),
                        &[&v],
                    );
                }
                let v = self.unmul(Sc::F32, v);
                E::new(format!("{f}({} + (0.0009765625f + fz))", v.s), &[&v])
            }
            _ => {
                let (f, s) = *self.r.pick(&[
                    ("pack4xI8", Sc::I32),
                    ("pack4xU8", Sc::U32),
                    ("pack4xI8Clamp", Sc::I32),
                    ("pack4xU8Clamp", Sc::U32),
                ]);
                let v = self.vector(4, s, d - 1, cx);
                let v = self.unfold_v(4, s, v, &[], cx);
                let z = if s == Sc::I32 {
                    format!("bitcast<i32>({UZ})")
                } else {
                    UZ.to_string()
                };
                E::new(format!("{f}(({}) ^ vec4({z}))", v.s), &[&v])
            }
        }
    }

    fn float(&mut self, s: Sc, d: u32, cx: Cx) -> E {
        let t = s.name();
        let fs = s.suffix();
        match self.r.below(17) {
            0..=3 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let ops: &[&str] = if self.feat.exact_div {
                    &["+", "-", "*", "/", "+", "-", "*"]
                } else {
                    &["+", "-", "*"]
                };
                let op = *self.r.pick(ops);
                self.fbin(s, op, a, b, 1, cx)
            }
            4 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                E::new(format!("(-{})", a.s), &[&a]).sum_of(&[&a])
            }
            5 | 6 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                let mut fs = vec![
                    "abs", "floor", "ceil", "trunc", "round", "fract", "sign", "saturate",
                ];
                if self.feat.exact_div {
                    fs.push("sqrt");
                }
                let f = *self.r.pick(&fs);
                if f == "sqrt" {
                    // a compiler rewrites `x / sqrt(y)` as `x * inverseSqrt(y)` and
                    // `sqrt(y) * sqrt(y)` as `y` (lavapipe does): the root passes `+ fz`
                    let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
                    return E::new(format!("(sqrt(abs({})) + {z})", a.s), &[&a]);
                }
                // `fract(x)` is `x - floor(x)`: a subtraction
                let a = if f == "fract" { self.unmul(s, a) } else { a };
                E::new(format!("{f}({})", a.s), &[&a])
            }
            7 => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                match self.r.below(4) {
                    0 => E::new(format!("min({}, {})", a.s, b.s), &[&a, &b]),
                    1 => E::new(format!("max({}, {})", a.s, b.s), &[&a, &b]),
                    2 => E::new(format!("step({}, {})", a.s, b.s), &[&a, &b]),
                    _ => {
                        let c = self.scalar(s, d - 1, cx);
                        E::new(format!("clamp({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                    }
                }
            }
            8 | 9 => {
                // conversions
                match self.r.below(5) {
                    0 => {
                        let i = *self.r.pick(&[Sc::I32, Sc::U32]);
                        let a = self.scalar(i, d - 1, cx);
                        let a = self.unfold(i, a, &[], cx);
                        if s == Sc::F16 {
                            let (lo, hi) = if i == Sc::I32 {
                                ("-2048i", "2048i")
                            } else {
                                ("0u", "2048u")
                            };
                            return E::new(
                                format!("(f16(clamp({}, {lo}, {hi})) + f16(fz))", a.s),
                                &[&a],
                            );
                        }
                        // a converted integer literal is a float constant a compiler may
                        // reassociate with (`9.0 + (x - y)` as `(9.0 + x) - y`): `+ fz`
                        E::new(format!("({t}({}) + fz)", a.s), &[&a])
                    }
                    1 => {
                        let a = self.scalar(Sc::Bool, d - 1, cx);
                        let a = self.unfold(Sc::Bool, a, &[], cx);
                        let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
                        E::new(format!("({t}({}) + {z})", a.s), &[&a])
                    }
                    2 if self.feat.f16 => {
                        if s == Sc::F32 {
                            let a = self.scalar(Sc::F16, d - 1, cx);
                            let a = self.unfold(Sc::F16, a, &[], cx);
                            E::new(format!("f32({})", a.s), &[&a])
                        } else {
                            let a = self.scalar(Sc::F32, d - 1, cx);
                            let a = self.unfold(Sc::F32, a, &[], cx);
                            E::new(format!("f16(clamp({}, -65504.0f, 65504.0f))", a.s), &[&a])
                        }
                    }
                    3 if s == Sc::F32 && self.half_ok() => {
                        let a = self.scalar(Sc::F32, d - 1, cx);
                        let a = self.unfold(Sc::F32, a, &[], cx);
                        // the f16 may be flushed to zero where it is subnormal: none is made
                        let c = format!("clamp({}, -65504.0f, 65504.0f)", a.s);
                        E::new(
                            format!("quantizeToF16(select({c}, 0.5f, abs({c}) < {F16_NORMAL}))"),
                            &[&a],
                        )
                    }
                    _ => {
                        let a = self.scalar(s, d - 1, cx);
                        let a = self.unfold(s, a, &[], cx);
                        let e = self.scalar(Sc::I32, d - 1, cx);
                        E::new(
                            format!("ldexp({}, clamp({}, -12i, 12i))", a.s, e.s),
                            &[&a, &e],
                        )
                    }
                }
            }
            10 => {
                let a = self.scalar(s, d - 1, cx);
                let a = self.unfold(s, a, &[], cx);
                // naga types frexp(f16).exp as i16, which WGSL has not
                let fs: &[&str] = if s == Sc::F32 {
                    &["frexp({}).fract", "modf({}).fract", "modf({}).whole"]
                } else {
                    &["modf({}).fract", "modf({}).whole"]
                };
                let f = *self.r.pick(fs);
                let a = self.unmul(s, a);
                E::new(f.replace("{}", &a.s), &[&a])
            }
            11 if s == Sc::F32 => {
                // a sum of products of quantised operands: exact in any order
                let n = self.r.range(2, 4) as u8;
                let a = self.quantised(n, d, cx);
                let b = self.quantised(n, d, cx);
                E::new(format!("dot({}, {})", a.s, b.s), &[&a, &b]).product()
            }
            12 if s == Sc::F32 => {
                // the determinant of a small-integer matrix: exact
                let n = self.r.range(2, 4) as u8;
                let cols: Vec<E> = (0..n).map(|_| self.small_int_vec(n, d, cx)).collect();
                let refs: Vec<&E> = cols.iter().collect();
                let list: Vec<&str> = cols.iter().map(|c| c.s.as_str()).collect();
                E::new(
                    format!("determinant(mat{n}x{n}<f32>({}))", list.join(", ")),
                    &refs,
                )
                .product()
            }
            _ => {
                let a = self.scalar(s, d - 1, cx);
                let b = self.scalar(s, d - 1, cx);
                let b = self.unfold(s, b, &[&a], cx);
                let op = *self.r.pick(&["+", "-", "*"]);
                let _ = fs;
                self.fbin(s, op, a, b, 1, cx)
            }
        }
    }

    /// `a op b` for floats (scalars or vectors of `s`, `b` possibly a scalar): the operands
    /// of an addition or subtraction and a divisor are freed of products first; a product or
    /// quotient is one itself.
    /// `b` has `bn` components (1: a scalar). Operands of an addition or subtraction that
    /// share a term ([`E::terms`]) get a fresh `b`.
    fn fbin(&mut self, s: Sc, op: &str, a: E, b: E, bn: u8, cx: Cx) -> E {
        match op {
            "+" | "-" => {
                let b = if a.shares(&b) {
                    self.fresh_float(s, bn, &a, cx)
                } else {
                    b
                };
                let (a, b) = (self.unmul(s, a), self.unmul(s, b));
                let mut e = E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]).sum_of(&[&a, &b]);
                e.mulf = false;
                e
            }
            "/" => {
                let b = self.unmul(s, b);
                E::new(format!("({} / {})", a.s, b.s), &[&a, &b]).product()
            }
            _ => E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]).product(),
        }
    }

    /// A per-invocation input of `s` (a scalar, or splat to `n` components) that shares no
    /// term with `avoid`.
    fn fresh_float(&mut self, s: Sc, n: u8, avoid: &E, _cx: Cx) -> E {
        let mut e = self.input(s);
        for _ in 0..16 {
            if !avoid.shares(&e) {
                break;
            }
            e = self.input(s);
        }
        if n > 1 {
            E::new(format!("vec{n}<{}>({})", s.name(), e.s), &[&e]).sum_of(&[&e])
        } else {
            e
        }
    }

    /// An f32 vector of multiples of 1/16 in [-8, 8]: products of two have at most 14
    /// significant bits, sums of four at most 17, so any order of evaluation is exact.
    /// No subgroup operation inside: lavapipe's LLVM (Mesa 22.3) aborts on some geometry
    /// builtins (`faceForward`, `refract`) of subgroup broadcasts.
    fn quantised(&mut self, n: u8, d: u32, cx: Cx) -> E {
        let mut cx = cx;
        cx.uni = false;
        let v = self.vector(n, Sc::F32, d.saturating_sub(1), cx);
        let v = self.unfold_v(n, Sc::F32, v, &[], cx);
        E::new(
            format!(
                "(floor(clamp({}, vec{n}(-8.0f), vec{n}(8.0f)) * 16.0f) * 0.0625f)",
                v.s
            ),
            &[&v],
        )
    }

    /// An f32 vector of integers in [-3, 3].
    fn small_int_vec(&mut self, n: u8, d: u32, cx: Cx) -> E {
        let mut cx = cx;
        cx.uni = false;
        let v = self.vector(n, Sc::F32, d.saturating_sub(2), cx);
        let v = self.unfold_v(n, Sc::F32, v, &[], cx);
        E::new(
            format!("floor(clamp({}, vec{n}(-3.0f), vec{n}(3.0f)))", v.s),
            &[&v],
        )
    }

    fn unfold_v(&mut self, n: u8, s: Sc, e: E, others: &[&E], cx: Cx) -> E {
        if e.cnst && others.iter().all(|o| o.cnst) {
            let a = self.nonconst_leaf(s, cx);
            E::new(format!("vec{n}<{}>({})", s.name(), a.s), &[&a])
        } else {
            e
        }
    }

    fn vector(&mut self, n: u8, s: Sc, d: u32, cx: Cx) -> E {
        let ty = Ty::V(n, s);
        let vt = self.ty_name(&ty);
        if d == 0 || self.r.chance(15) {
            if let Some(p) = self.read_place(&ty, cx, 50) {
                return p;
            }
            if self.r.chance(50) {
                let a = self.leaf(s, cx);
                return E::new(format!("{vt}({})", a.s), &[&a]).sum_of(&[&a]);
            }
            let parts: Vec<E> = (0..n).map(|_| self.leaf(s, cx)).collect();
            let refs: Vec<&E> = parts.iter().collect();
            let list: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
            return E::new(format!("{vt}({})", list.join(", ")), &refs).sum_of(&refs);
        }
        match self.r.below(14) {
            0 => {
                // from parts of mixed sizes
                let first = self.r.range(1, n as i32 - 1) as u8;
                let a = if first == 1 {
                    self.scalar(s, d - 1, cx)
                } else {
                    self.vector(first, s, d - 1, cx)
                };
                let rest = n - first;
                let b = if rest == 1 {
                    self.scalar(s, d - 1, cx)
                } else {
                    self.vector(rest, s, d - 1, cx)
                };
                E::new(format!("{vt}({}, {})", a.s, b.s), &[&a, &b]).sum_of(&[&a, &b])
            }
            1 => {
                // a swizzle of another vector
                let m = self.r.range(2, 4) as u8;
                let v = self.vector(m, s, d - 1, cx);
                let sw: String = (0..n)
                    .map(|_| XYZW[self.r.below(m as u32) as usize])
                    .collect();
                E::new(format!("({}).{sw}", v.s), &[&v]).sum_of(&[&v])
            }
            2 => {
                let c = if self.r.chance(50) {
                    self.scalar(Sc::Bool, d - 1, cx)
                } else {
                    self.vector(n, Sc::Bool, d - 1, cx)
                };
                let a = self.vector(n, s, d - 1, cx);
                let b = self.vector(n, s, d - 1, cx);
                // either operand is its value: `(x + y) - select(x, x, c)` is `(x + y) - x`
                E::new(format!("select({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                    .sum_of(&[&a, &b])
            }
            3 if cx.uni && !cx.helper && self.feat.subgroups && s != Sc::F16 => {
                self.subgroup(&ty, d, cx)
            }
            4 if self.helpers.iter().any(|h| h.ret == ty) => self.call(&ty, d, cx).unwrap(),
            5 if s == Sc::F32 && n == 3 && self.r.chance(50) => {
                let a = self.quantised(3, d, cx);
                let b = self.quantised(3, d, cx);
                E::new(format!("cross({}, {})", a.s, b.s), &[&a, &b]).product()
            }
            5 if s == Sc::F32 => {
                // a matrix-vector product of quantised operands: exact in any order
                let k = self.r.range(2, 4) as u8;
                let cols: Vec<E> = (0..k).map(|_| self.quantised(n, d.min(2), cx)).collect();
                let refs: Vec<&E> = cols.iter().collect();
                let list: Vec<&str> = cols.iter().map(|c| c.s.as_str()).collect();
                let m = format!("mat{k}x{n}<f32>({})", list.join(", "));
                let v = self.quantised(k, d.min(2), cx);
                let mut e = E::new(format!("({m} * {})", v.s), &refs);
                e.uni &= v.uni;
                e.mulf = true;
                e
            }
            6 if s == Sc::F32 && self.r.chance(60) => {
                let (f, m) = *self.r.pick(&[
                    ("unpack4x8snorm", 4),
                    ("unpack4x8unorm", 4),
                    ("unpack2x16snorm", 2),
                    ("unpack2x16unorm", 2),
                    ("unpack2x16float", 2),
                ]);
                if m != n || (f == "unpack2x16float" && !self.half_ok()) {
                    return self.vector(n, s, d - 1, cx);
                }
                let a = self.scalar(Sc::U32, d - 1, cx);
                let a = self.unfold(Sc::U32, a, &[], cx);
                // `^ UZ`: lavapipe (Mesa 22.3) folds a constant operand wrongly ([`UZ`])
                if f == "unpack2x16float" {
                    // f16 denormals, infinities and NaNs: clear the exponent's top bit
                    return E::new(
                        format!("{f}(((({}) & 0xbfffbfffu) | 0x04000400u) ^ {UZ})", a.s),
                        &[&a],
                    );
                }
                E::new(format!("{f}(({}) ^ {UZ})", a.s), &[&a])
            }
            6 if s.int() && n == 4 => {
                let a = self.scalar(Sc::U32, d - 1, cx);
                let a = self.unfold(Sc::U32, a, &[], cx);
                let f = if s == Sc::I32 {
                    "unpack4xI8"
                } else {
                    "unpack4xU8"
                };
                E::new(format!("{f}(({}) ^ {UZ})", a.s), &[&a])
            }
            7 if s == Sc::F32 && self.r.chance(30) => {
                let a = self.quantised(n, d, cx);
                let b = self.quantised(n, d, cx);
                let c = self.quantised(n, d, cx);
                if self.r.chance(50) {
                    E::new(
                        format!("faceForward({}, {}, {})", a.s, b.s, c.s),
                        &[&a, &b, &c],
                    )
                    .product()
                } else {
                    // mix(a, b, t) with t in [0, 1] a multiple of 1/16
                    E::new(
                        format!("mix({}, {}, abs({}) * 0.125f)", a.s, b.s, c.s),
                        &[&a, &b, &c],
                    )
                    .product()
                }
            }
            8 => {
                // conversion from another scalar type
                let o = self.scalar_ty();
                if o == s
                    || o == Sc::Bool
                    || (s == Sc::F16 || o == Sc::F16)
                    || (s.int() && o.float())
                {
                    let a = self.vector(n, s, d - 1, cx);
                    let b = self.vector(n, s, d - 1, cx);
                    return self.vbin(n, s, a, b, false, cx);
                }
                let a = self.vector(n, o, d - 1, cx);
                let a = self.unfold_v(n, o, a, &[], cx);
                if s.float() {
                    // converted integer literals are float constants: `+ fz`
                    return E::new(format!("({vt}({}) + fz)", a.s), &[&a]);
                }
                E::new(format!("{vt}({})", a.s), &[&a])
            }
            _ => match s {
                Sc::Bool => {
                    if self.r.chance(70) {
                        let t = *self.r.pick(&[Sc::I32, Sc::U32, Sc::F32]);
                        let a = self.vector(n, t, d - 1, cx);
                        let b = self.vector(n, t, d - 1, cx);
                        let b = self.unfold_v(n, t, b, &[&a], cx);
                        let b = if t.float() && a.shares(&b) {
                            self.fresh_float(t, n, &a, cx)
                        } else {
                            b
                        };
                        let op = self.r.pick(&["==", "!=", "<", "<=", ">", ">="]);
                        E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
                    } else {
                        let a = self.vector(n, Sc::Bool, d - 1, cx);
                        E::new(format!("!({})", a.s), &[&a])
                    }
                }
                _ => {
                    if self.r.chance(30) {
                        // componentwise builtins
                        let a = self.vector(n, s, d - 1, cx);
                        let a = self.unfold_v(n, s, a, &[], cx);
                        let f = if s.float() {
                            *self
                                .r
                                .pick(&["abs", "floor", "ceil", "trunc", "round", "fract", "sign"])
                        } else {
                            *self
                                .r
                                .pick(&["abs", "countOneBits", "reverseBits", "firstLeadingBit"])
                        };
                        return E::new(format!("{f}({})", a.s), &[&a]);
                    }
                    let a = self.vector(n, s, d - 1, cx);
                    let b_scalar = self.r.chance(25);
                    let b = if b_scalar {
                        self.scalar(s, d - 1, cx)
                    } else {
                        self.vector(n, s, d - 1, cx)
                    };
                    self.vbin(n, s, a, b, b_scalar, cx)
                }
            },
        }
    }

    /// A componentwise binary operation (`b` may be a scalar: `b_scalar`).
    fn vbin(&mut self, n: u8, s: Sc, a: E, b: E, b_scalar: bool, cx: Cx) -> E {
        let a = self.unfold_v(n, s, a, &[&b], cx);
        if s == Sc::Bool {
            let b = if b_scalar {
                E::new(format!("vec{n}<bool>({})", b.s), &[&b])
            } else {
                b
            };
            let op = self.r.pick(&["&", "|", "!=", "=="]);
            return E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]);
        }
        let ops: &[&str] = match s {
            Sc::I32 | Sc::U32 if b_scalar => &["+", "-", "*", "/", "%"],
            Sc::I32 | Sc::U32 => &["+", "-", "*", "/", "%", "&", "|", "^"],
            _ if self.feat.exact_div => &["+", "-", "*", "/"],
            _ => &["+", "-", "*"],
        };
        let op = *self.r.pick(ops);
        if s.float() {
            let bn = if b_scalar { 1 } else { n };
            return self.fbin(s, op, a, b, bn, cx);
        }
        let b = if op == "/" || op == "%" {
            self.divisor(s, (!b_scalar).then_some(n), b, cx)
        } else {
            b
        };
        E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b])
    }

    /// An integer divisor naga accepts: not a constant, and not a vector naga could see a
    /// literal zero in (`vec2(0u, x)`: naga rejects it, though WGSL does not).
    fn divisor(&mut self, s: Sc, n: Option<u8>, e: E, cx: Cx) -> E {
        let e = if e.cnst {
            let a = self.nonconst_leaf(s, cx);
            match n {
                Some(n) => E::new(format!("vec{n}<{}>({})", s.name(), a.s), &[&a]),
                None => a,
            }
        } else {
            e
        };
        match n {
            Some(n) => E::new(format!("({} ^ vec{n}<{}>())", e.s, s.name()), &[&e]),
            None => e,
        }
    }

    fn matrix(&mut self, c: u8, r: u8, d: u32, cx: Cx) -> E {
        let ty = Ty::M(c, r);
        if d == 0 || self.r.chance(20) {
            if let Some(p) = self.read_place(&ty, cx, 60) {
                return p;
            }
        }
        let d1 = d.saturating_sub(1);
        match self.r.below(5) {
            0 => {
                let a = self.matrix(c, r, d1, cx);
                let b = self.matrix(c, r, d1, cx);
                let b = self.unfold_m(c, r, b, &[&a], cx);
                let b = if a.shares(&b) {
                    let x = self.fresh_float(Sc::F32, r, &a, cx);
                    let cols = vec![x.s.clone(); c as usize];
                    E::new(format!("mat{c}x{r}<f32>({})", cols.join(", ")), &[&x]).sum_of(&[&x])
                } else {
                    b
                };
                let (a, b) = (self.unmul_m(c, r, a), self.unmul_m(c, r, b));
                let op = self.r.pick(&["+", "-"]);
                let mut e = E::new(format!("({} {op} {})", a.s, b.s), &[&a, &b]).sum_of(&[&a, &b]);
                e.mulf = false;
                e
            }
            1 => {
                let a = self.matrix(c, r, d1, cx);
                let s = self.scalar(Sc::F32, d1, cx);
                let s = self.unfold(Sc::F32, s, &[&a], cx);
                E::new(format!("({} * {})", a.s, s.s), &[&a, &s]).product()
            }
            2 => {
                let a = self.matrix(r, c, d1, cx);
                E::new(format!("transpose({})", a.s), &[&a]).sum_of(&[&a])
            }
            _ => {
                let cols: Vec<E> = (0..c).map(|_| self.vector(r, Sc::F32, d1, cx)).collect();
                let refs: Vec<&E> = cols.iter().collect();
                let list: Vec<&str> = cols.iter().map(|c| c.s.as_str()).collect();
                E::new(format!("mat{c}x{r}<f32>({})", list.join(", ")), &refs).sum_of(&refs)
            }
        }
    }

    fn unfold_m(&mut self, c: u8, r: u8, e: E, others: &[&E], cx: Cx) -> E {
        if e.cnst && others.iter().all(|o| o.cnst) {
            let a = self.nonconst_leaf(Sc::F32, cx);
            let col = format!("vec{r}<f32>({})", a.s);
            let cols = vec![col; c as usize];
            E::new(format!("mat{c}x{r}<f32>({})", cols.join(", ")), &[&a])
        } else {
            e
        }
    }

    /// A subgroup operation on a value of `ty` (subgroup-uniform control flow only).
    fn subgroup(&mut self, ty: &Ty, d: u32, cx: Cx) -> E {
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

    // ---- statements

    fn stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        self.budget -= 1;
        let d = self.r.range(1, 3) as u32;
        let k = self.r.below(100);
        let block_ok = cx.nest < 3 && self.budget > 2;
        match k {
            0..=17 => self.decl(cx, d, out),
            18..=33 => self.assign(cx, d, out),
            34..=40 if block_ok => self.if_stmt(cx, out),
            41..=44 if block_ok => self.switch_stmt(cx, out),
            45..=51 if block_ok && cx.loops < 2 => self.loop_stmt(cx, out),
            52..=55 if cx.loops > 0 && cx.nest > 0 => self.jump(cx, out),
            56..=69 if !cx.helper => {
                let ty = self.rand_ty(true);
                let e = self.expr(&ty, d, cx);
                self.out(&ty, e, out);
            }
            70..=77 if !cx.helper => self.approx(cx, out),
            78..=81 if cx.top && !cx.helper => self.workgroup(cx, out),
            82..=84 if !cx.helper => self.storage_atomic(cx, out),
            85..=88 if !self.mutators.is_empty() => self.mutate(cx, out),
            _ => self.decl(cx, d, out),
        }
    }

    fn push_var(&mut self, v: Var) {
        self.scopes.last_mut().unwrap().push(v);
    }

    fn decl(&mut self, cx: Cx, d: u32, out: &mut Vec<Stmt>) {
        let ty = self.rand_ty(true);
        let e = self.expr(&ty, d, cx);
        let tn = self.ty_name(&ty);
        let mutable = self.r.chance(60);
        let name = self.fresh("v");
        // a variable written in non-uniform control flow is not uniform
        let uni = e.uni && (cx.uni || !mutable) && self.r.chance(70);
        if mutable {
            out.push(Stmt::Line(format!("var {name}: {tn} = {};", e.s)));
        } else {
            out.push(Stmt::Line(format!("let {name}: {tn} = {};", e.s)));
        }
        self.push_var(Var {
            name,
            ty,
            mutable,
            uni: uni || (!mutable && e.uni),
            cnst: !mutable && e.cnst,
            mulf: e.mulf,
            terms: e.atoms(),
        });
    }

    /// Variable `name` holds `e` (or a product, `product`) from here on, besides what it held.
    fn stored(&mut self, name: &str, e: &E, product: bool) {
        for v in self.scopes.iter_mut().flatten().rev() {
            if v.name == name {
                v.mulf |= e.mulf || product;
                v.terms.extend(e.atoms());
                v.terms.sort();
                v.terms.dedup();
                return;
            }
        }
    }

    fn assign(&mut self, cx: Cx, d: u32, out: &mut Vec<Stmt>) {
        // pick a variable, then a place inside it
        let vars: Vec<Var> = self
            .scopes
            .iter()
            .flatten()
            .filter(|v| v.mutable && (!v.uni || cx.uni))
            .cloned()
            .collect();
        if vars.is_empty() {
            return self.decl(cx, d, out);
        }
        let v = self.r.pick(&vars).clone();
        let mut sub = Vec::new();
        self.sub_places(&v.name, &v.ty, 2, &mut sub);
        let (p, ty) = self.r.pick(&sub).clone();
        let (p, pu) = self.fill_index(&p, true, cx);
        if v.uni && !pu {
            return self.decl(cx, d, out);
        }
        let e = self.expr(&ty, d, cx);
        if v.uni && !e.uni {
            return self.decl(cx, d, out);
        }
        let compound = match &ty {
            Ty::S(s) | Ty::V(_, s) => Some(*s),
            _ => None,
        };
        if let (Some(s), true) = (compound, self.r.chance(40)) {
            let ops: &[&str] = match s {
                Sc::Bool => &["&=", "|="],
                Sc::I32 | Sc::U32 => {
                    &["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]
                }
                _ if self.feat.exact_div => &["+=", "-=", "*=", "/="],
                _ => &["+=", "-=", "*="],
            };
            let op = *self.r.pick(ops);
            if op == "<<=" || op == ">>=" {
                let amount = match &ty {
                    Ty::V(n, _) => {
                        // naga rejects a literal component of 32 or more, WGSL does not
                        let a = self.vector(*n, Sc::U32, 1, cx);
                        let a = self.unfold_v(*n, Sc::U32, a, &[], cx);
                        E::new(format!("({} ^ vec{n}<u32>())", a.s), &[&a])
                    }
                    _ => {
                        let a = self.scalar(Sc::U32, 1, cx);
                        self.unfold(Sc::U32, a, &[], cx)
                    }
                };
                if v.uni && !amount.uni {
                    return;
                }
                out.push(Stmt::Line(format!("{p} {op} {};", amount.s)));
                return;
            }
            if s.int() && self.r.chance(20) {
                if let Ty::S(_) = ty {
                    let op = self.r.pick(&["++", "--"]);
                    out.push(Stmt::Line(format!("{p}{op};")));
                    return;
                }
            }
            let e = if s.int() && (op == "/=" || op == "%=") {
                let n = match &ty {
                    Ty::V(n, _) => Some(*n),
                    _ => None,
                };
                self.divisor(s, n, e, cx)
            } else {
                e
            };
            if v.uni && !e.uni {
                return;
            }
            if s.float() {
                // `p += e` adds `p` and `e`; `p *= e` makes `p` a product
                let n = match &ty {
                    Ty::V(n, _) => *n,
                    _ => 1,
                };
                let cur = E {
                    s: v.name.clone(),
                    uni: v.uni,
                    cnst: false,
                    mulf: v.mulf,
                    terms: v.terms.iter().cloned().chain([v.name.clone()]).collect(),
                };
                let additive = op == "+=" || op == "-=";
                let e = if additive && cur.shares(&e) {
                    self.fresh_float(s, n, &cur, cx)
                } else {
                    e
                };
                let e = if op == "*=" { e } else { self.unmul(s, e) };
                self.stored(&v.name, &e, !additive);
                if v.mulf && additive {
                    let z = if s == Sc::F16 { "f16(fz)" } else { "fz" };
                    out.push(Stmt::Line(format!(
                        "{p} = ({p} + {z}) {} {};",
                        &op[..1],
                        e.s
                    )));
                    return;
                }
                out.push(Stmt::Line(format!("{p} {op} {};", e.s)));
                return;
            }
            out.push(Stmt::Line(format!("{p} {op} {};", e.s)));
            return;
        }
        self.stored(&v.name, &e, false);
        out.push(Stmt::Line(format!("{p} = {};", e.s)));
    }

    fn block(&mut self, cx: Cx, n: i32) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut body = Vec::new();
        let mut cx = cx;
        cx.top = false;
        cx.nest += 1;
        let n = n.min(self.budget.max(1));
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.stmt(cx, &mut body);
        }
        self.scopes.pop();
        body
    }

    /// A loop's body, generated with what its variables hold at the end of an iteration known
    /// at its start (a value stored late in one iteration is read early in the next): the body
    /// is generated again from the same state until no variable holds anything new.
    fn loop_body(&mut self, cx: Cx, n: i32) -> Vec<Stmt> {
        for _ in 0..4 {
            let mut trial = self.clone();
            let body = trial.block(cx, n);
            let mut grew = false;
            for (scope, done) in self.scopes.iter_mut().zip(&trial.scopes) {
                for (v, w) in scope.iter_mut().zip(done) {
                    if (w.mulf && !v.mulf) || w.terms.iter().any(|t| !v.terms.contains(t)) {
                        grew = true;
                        v.mulf |= w.mulf;
                        v.terms.extend(w.terms.iter().cloned());
                        v.terms.sort();
                        v.terms.dedup();
                    }
                }
            }
            if !grew {
                *self = trial;
                return body;
            }
        }
        self.block(cx, n)
    }

    fn cond(&mut self, cx: Cx) -> E {
        let c = self.scalar(Sc::Bool, 2, cx);
        self.unfold(Sc::Bool, c, &[], cx)
    }

    fn if_stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let c = self.cond(cx);
        let mut inner = cx;
        inner.uni = cx.uni && c.uni;
        let n = self.r.range(1, 4);
        let mut segs = vec![Seg {
            open: format!("if {} {{", c.s),
            body: self.block(inner, n),
            close: "}".into(),
        }];
        if self.r.chance(30) {
            // evaluated only where the first condition is false
            let c2 = self.cond(inner);
            let mut inner2 = inner;
            inner2.uni = inner.uni && c2.uni;
            let n = self.r.range(1, 3);
            segs.push(Seg {
                open: format!("else if {} {{", c2.s),
                body: self.block(inner2, n),
                close: "}".into(),
            });
            inner = inner2;
        }
        if self.r.chance(50) {
            let n = self.r.range(1, 3);
            segs.push(Seg {
                open: "else {".into(),
                body: self.block(inner, n),
                close: "}".into(),
            });
        }
        out.push(Stmt::Block(segs));
    }

    fn switch_stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let s = if self.r.chance(50) { Sc::I32 } else { Sc::U32 };
        let sel = self.scalar(s, 1, cx);
        let sel = self.unfold(s, sel, &[], cx);
        let sel_s = if self.r.chance(50) {
            format!("({} & 7{})", sel.s, s.suffix())
        } else {
            sel.s.clone()
        };
        let mut inner = cx;
        inner.uni = cx.uni && sel.uni;
        let mut values: Vec<i32> = (0..8).collect();
        if s == Sc::I32 {
            values.push(-1);
        }
        let mut cases = Vec::new();
        let ncases = self.r.range(1, 3);
        for i in 0..ncases {
            let k = self.r.range(1, 2);
            let mut sel_vals = Vec::new();
            for _ in 0..k {
                if values.is_empty() {
                    break;
                }
                let j = self.r.below(values.len() as u32) as usize;
                sel_vals.push(format!("{}{}", values.remove(j), s.suffix()));
            }
            if sel_vals.is_empty() {
                break;
            }
            let with_default = i == ncases - 1 && self.r.chance(30);
            let label = if with_default {
                format!("case {}, default: {{", sel_vals.join(", "))
            } else {
                format!("case {}: {{", sel_vals.join(", "))
            };
            let n = self.r.range(1, 3);
            cases.push(Stmt::Block(vec![Seg {
                open: label,
                body: self.block(inner, n),
                close: "}".into(),
            }]));
            if with_default {
                out.push(Stmt::Block(vec![Seg {
                    open: format!("switch {sel_s} {{"),
                    body: cases,
                    close: "}".into(),
                }]));
                return;
            }
        }
        let n = self.r.range(0, 2);
        cases.push(Stmt::Block(vec![Seg {
            open: "default: {".into(),
            body: self.block(inner, n),
            close: "}".into(),
        }]));
        out.push(Stmt::Block(vec![Seg {
            open: format!("switch {sel_s} {{"),
            body: cases,
            close: "}".into(),
        }]));
    }

    fn loop_stmt(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let i = self.fresh("i");
        let (bound, uni) = if self.r.chance(60) {
            (format!("{}u", self.r.range(0, 4)), true)
        } else {
            let b = self.nonconst_leaf(Sc::U32, cx);
            (format!("({} & 3u)", b.s), b.uni)
        };
        let mut inner = cx;
        inner.divergent = self.r.chance(40);
        inner.uni = cx.uni && uni && !inner.divergent;
        inner.loop_uni = inner.uni;
        inner.loops += 1;
        let n = self.r.range(1, 4);
        self.loop_vars.push(i.clone());
        match self.r.below(3) {
            0 => {
                self.scopes.push(vec![Var {
                    name: i.clone(),
                    ty: Ty::S(Sc::U32),
                    mutable: false,
                    uni: inner.uni,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                }]);
                inner.in_while = false;
                let body = self.loop_body(inner, n);
                self.scopes.pop();
                out.push(Stmt::Block(vec![Seg {
                    open: format!("for (var {i} = 0u; {i} < {bound}; {i}++) {{"),
                    body,
                    close: "}".into(),
                }]));
            }
            1 => {
                // loop with a continuing block
                self.scopes.push(vec![Var {
                    name: i.clone(),
                    ty: Ty::S(Sc::U32),
                    mutable: false,
                    uni: inner.uni,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                }]);
                inner.in_while = false;
                let mut body = vec![Stmt::Line(format!("if {i} >= {bound} {{ break; }} {LOOP}"))];
                body.extend(self.loop_body(inner, n));
                self.scopes.pop();
                let extra = self.r.range(1, 4);
                out.push(Stmt::Line(format!("var {i} = 0u; {LOOP}")));
                out.push(Stmt::Block(vec![
                    Seg {
                        open: "loop {".into(),
                        body,
                        close: String::new(),
                    },
                    Seg {
                        open: "continuing {".into(),
                        body: vec![
                            Stmt::Line(format!("{i} += 1u; {LOOP}")),
                            Stmt::Line(format!("break if {i} >= {extra}u; {LOOP}")),
                        ],
                        close: "}".into(),
                    },
                    Seg {
                        open: String::new(),
                        body: Vec::new(),
                        close: "}".into(),
                    },
                ]));
            }
            _ => {
                // while; no `continue` (it would skip the increment)
                self.scopes.push(vec![Var {
                    name: i.clone(),
                    ty: Ty::S(Sc::U32),
                    mutable: false,
                    uni: inner.uni,
                    cnst: false,
                    mulf: false,
                    terms: Vec::new(),
                }]);
                inner.in_while = true;
                let mut body = self.loop_body(inner, n);
                self.scopes.pop();
                body.push(Stmt::Line(format!("{i} += 1u; {LOOP}")));
                out.push(Stmt::Line(format!("var {i} = 0u; {LOOP}")));
                out.push(Stmt::Block(vec![Seg {
                    open: format!("while {i} < {bound} {{"),
                    body,
                    close: "}".into(),
                }]));
            }
        }
        self.loop_vars.pop();
    }

    /// `if c { break; }` or `continue`: on any condition in a divergent loop, else on the
    /// loop's counter.
    fn jump(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        if cx.loop_uni && !cx.uni {
            // a jump here would make the loop's uniform body divergent
            return;
        }
        let c = if cx.divergent {
            self.cond(cx)
        } else {
            let i = self.loop_vars.last().unwrap().clone();
            E::lit(format!("{i} >= {}u", self.r.range(0, 3)))
        };
        let what = if cx.in_while || self.r.chance(60) {
            "break"
        } else {
            "continue"
        };
        out.push(Stmt::Block(vec![Seg {
            open: format!("if {} {{", c.s),
            body: vec![Stmt::Line(format!("{what};"))],
            close: "}".into(),
        }]));
    }

    /// Writes `e` of `ty` to fresh output words.
    fn out(&mut self, ty: &Ty, e: E, out: &mut Vec<Stmt>) {
        let mut words = Vec::new();
        self.words(ty, "t", &mut words);
        if words.is_empty() {
            return;
        }
        let mut s = format!("{{ let t = {};", e.s);
        for (w, cmp) in words {
            let k = self.outs.len();
            let _ = write!(s, " out[o + {k}u] = {w};");
            self.outs.push(cmp);
        }
        s.push_str(" }");
        out.push(Stmt::Line(s));
    }

    /// The u32 words of a value `v` of `ty`, and how each is compared.
    fn words(&self, ty: &Ty, v: &str, out: &mut Vec<(String, Cmp)>) {
        match ty {
            Ty::S(s) => out.push(match s {
                Sc::Bool => (format!("select(0u, 1u, {v})"), Cmp::Bits),
                Sc::U32 => (v.to_string(), Cmp::Bits),
                Sc::I32 => (format!("bitcast<u32>({v})"), Cmp::Bits),
                Sc::F32 => (format!("bitcast<u32>({v})"), Cmp::F32),
                Sc::F16 => (format!("bitcast<u32>(f32({v}))"), Cmp::F16),
            }),
            Ty::V(n, s) => {
                for c in &XYZW[..*n as usize] {
                    self.words(&Ty::S(*s), &format!("{v}.{c}"), out);
                }
            }
            Ty::M(c, r) => {
                for i in 0..*c {
                    self.words(&Ty::V(*r, Sc::F32), &format!("{v}[{i}]"), out);
                }
            }
            Ty::A(e, n) => {
                for i in 0..*n {
                    self.words(e, &format!("{v}[{i}]"), out);
                }
            }
            Ty::St(i) => {
                for (f, t) in &self.structs[*i] {
                    self.words(t, &format!("{v}.{f}"), out);
                }
            }
        }
    }

    /// An operation WGSL does not require to be correctly rounded, its result written straight
    /// out and compared within the error WGSL's accuracy table allows at the operands generated
    /// (the bounds of "inherited" accuracies worked out for the clamped ranges below), plus
    /// the simulator's own rounding (host libm in f32: one ulp; an f16 result is that, rounded
    /// to f16). `docs/simulator.md` ("Conformance") tabulates them.
    fn approx(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        // no subgroup operations in these operands: lavapipe's LLVM (Mesa 22.3) aborts on
        // some (`refract` of a `subgroupBroadcastFirst`)
        let mut cx = cx;
        cx.uni = false;
        let s = if self.feat.f16 && self.r.chance(25) {
            Sc::F16
        } else {
            Sc::F32
        };
        let h = s == Sc::F16;
        let x = self.scalar(s, 2, cx);
        let x = self.unfold(s, x, &[], cx);
        let x = self.unmul(s, x);
        let y = self.scalar(s, 1, cx);
        let y = self.unmul(s, y);
        let fs = s.suffix();
        let c = |lo: f32, hi: f32, e: &str| format!("clamp({e}, {lo:?}{fs}, {hi:?}{fs})");
        // 2^-k
        let p = |k: i32| (-k as f32).exp2();
        // (text, f32 (ulps, abs), f16 (ulps, abs)): within `abs` or within `ulps`
        let (text, t32, t16): (String, (u32, f32), (u32, f32)) = match self.r.below(19) {
            // absolute error 2^-11 (f16: 2^-7) on [-pi, pi]
            0 => (
                format!("sin({})", c(-3.0, 3.0, &x.s)),
                (0, p(11) + p(23)),
                (0, p(7) + p(10)),
            ),
            1 => (
                format!("cos({})", c(-3.0, 3.0, &x.s)),
                (0, p(11) + p(23)),
                (0, p(7) + p(10)),
            ),
            // sin(x) / cos(x): (e + |tan x| e) / (cos x - e) + 2.5 ulp at x = 1, e the
            // absolute error of sin and cos
            2 => (
                format!("tan({})", c(-1.0, 1.0, &x.s)),
                (0, 2.32e-3),
                (0, 0.0405),
            ),
            // 3 + 2|x| ulp (f16: 1 + 2|x|)
            3 => (format!("exp({})", c(-8.0, 8.0, &x.s)), (20, 0.0), (18, 0.0)),
            4 => (
                format!("exp2({})", c(-10.0, 10.0, &x.s)),
                (24, 0.0),
                (22, 0.0),
            ),
            // absolute error 2^-21 (f16: 2^-7) on [0.5, 2], 3 ulp outside
            5 => {
                let f = *self.r.pick(&["log", "log2"]);
                (
                    format!("{f}({})", c(0.5, 2.0, &x.s)),
                    (0, p(21) + p(23)),
                    (0, p(7) + p(10)),
                )
            }
            6 => {
                let f = *self.r.pick(&["log", "log2"]);
                (format!("{f}(abs({}) + 2.5{fs})", x.s), (4, 0.0), (4, 0.0))
            }
            // exp2(y * log2(x)): log2's error (3 ulp of |log2 x| <= 3, f16: 2^-7) times |y| <= 3,
            // the product's rounding, then exp2's 3 + 2 * 9 ulp (f16: 1 + 2 * 9) of a result
            // already off by ln 2 times that: 21 + 31 (f16: 19 + 39) ulp
            7 => (
                format!(
                    "pow({}, {})",
                    c(0.25, 8.0, &format!("abs({})", x.s)),
                    c(-3.0, 3.0, &y.s)
                ),
                (53, 0.0),
                (59, 0.0),
            ),
            // 2 ulp
            8 => (
                format!("inverseSqrt(abs({}) + 0.125{fs})", x.s),
                (3, 0.0),
                (3, 0.0),
            ),
            // 4096 ulp (f16: 5 ulp); asin and acos: or absolute error 6.81e-5 and 6.77e-5
            // (f16: 3.91e-3)
            9 => match self.r.below(3) {
                0 => (format!("atan({})", x.s), (4097, 0.0), (6, 0.0)),
                1 => (
                    format!("asin({})", c(-1.0, 1.0, &x.s)),
                    (4097, 6.81e-5 + p(23)),
                    (6, 3.91e-3 + p(10)),
                ),
                _ => (
                    format!("acos({})", c(-1.0, 1.0, &x.s)),
                    (4097, 6.77e-5 + p(22)),
                    (6, 3.91e-3 + p(9)),
                ),
            },
            // 4096 ulp (f16: 5) for a normal `y` (not zero)
            10 => (
                format!(
                    "atan2(select({}, 0.5{fs}, {} == 0.0{fs}), abs({}) + 0.125{fs})",
                    y.s, y.s, x.s
                ),
                (4097, 0.0),
                (6, 0.0),
            ),
            // (exp(x) -+ exp(-x)) * 0.5 on [-2, 2]: the exps' 3 + 2|x| ulp (f16: 1 + 2|x|),
            // the sum's rounding
            11 => {
                let f = *self.r.pick(&["sinh", "cosh"]);
                (
                    format!("{f}({})", c(-2.0, 2.0, &x.s)),
                    (0, 2.1e-6),
                    (0, 0.0121),
                )
            }
            // absolute error 1e-5, or sinh(x) / cosh(x) (f16: 7.0e-3 at x = 2)
            12 => (
                format!("tanh({})", c(-2.0, 2.0, &x.s)),
                (0, 1e-5 + p(24)),
                (0, 7.5e-3),
            ),
            // log(x + sqrt(x * x + 1)) on [-2, 2]: at x = -2, sqrt's error (inverseSqrt's
            // 2 ulp, the division's 2.5) relative to x + sqrt(5) = 0.236
            13 => (
                format!("asinh({})", c(-2.0, 2.0, &x.s)),
                (0, 4.7e-6),
                (0, 0.0365),
            ),
            // log(x + sqrt(x * x - 1)) on [1.25, 201]: largest at 201, log's 3 ulp of 6
            14 => (
                format!(
                    "acosh({} + 1.0{fs})",
                    c(0.25, 200.0, &format!("abs({})", x.s))
                ),
                (0, 2.2e-6),
                (0, 0.016),
            ),
            // log((1 + x) / (1 - x)) * 0.5 on [-0.875, 0.875]: the division's 2.5 ulp, log's
            // 3 ulp of <= 2.71 (f16: absolute 2^-7)
            15 => (
                format!("atanh({})", c(-0.875, 0.875, &x.s)),
                (0, 6.6e-7),
                (0, 5.9e-3),
            ),
            // x times the constant rounded to the type: within an ulp
            16 => {
                let f = *self.r.pick(&["degrees", "radians"]);
                (format!("{f}({})", x.s), (2, 0.0), (2, 0.0))
            }
            // x - y * trunc(x / y): with `/` correctly rounded (as the device's is: see
            // `Features::exact_div`), the one freedom left is fusing the multiply and the
            // subtraction, which moves the result by at most an ulp of |x| <= 64 (f16: 16)
            17 => {
                let big = if h {
                    c(-16.0, 16.0, &x.s)
                } else {
                    c(-64.0, 64.0, &x.s)
                };
                (
                    format!("({big} % select({}, 1.0{fs}, {} == 0.0{fs}))", y.s, y.s),
                    (0, p(17)),
                    (0, p(6)),
                )
            }
            // `/` 2.5 ulp; sqrt is 1 / inverseSqrt: 2 + 2.5 ulp
            _ if !self.feat.exact_div => {
                if self.r.chance(50) {
                    (format!("sqrt(abs({}))", x.s), (5, 0.0), (5, 0.0))
                } else {
                    (format!("({} / {})", x.s, y.s), (3, 0.0), (3, 0.0))
                }
            }
            _ => {
                // vector geometry on quantised operands (f32)
                let n = self.r.range(2, 4) as u8;
                let a = self.quantised(n, 2, cx);
                let b = self.quantised(n, 2, cx);
                let f = self.r.below(4);
                // length: sqrt (1 / inverseSqrt: 4 ulp of the root, 2.5 of the division) of
                // an exact sum of squares; normalize: x / length(x), a component off by
                // length's relative error (up to 9 of its ulps) and the division's 2.5;
                // refract (eta <= 7/8, so k >= 15/64): the absolute error of
                // eta * x - (eta * dot(y, x) + sqrt(k)) * y with x, y normalised
                let (t, cmp) = match f {
                    0 => (
                        format!("length({})", a.s),
                        Cmp::F32Near { ulps: 7, abs: 0.0 },
                    ),
                    1 => (
                        format!("distance({}, {})", a.s, b.s),
                        Cmp::F32Near { ulps: 7, abs: 0.0 },
                    ),
                    2 => (
                        format!("normalize({} + vec{n}(0.03125f))", a.s),
                        Cmp::F32Near { ulps: 13, abs: 0.0 },
                    ),
                    _ => {
                        let eta = self.r.range(1, 7) as f32 / 8.0;
                        (
                            format!("refract(normalize({} + vec{n}(0.03125f)), normalize({} + vec{n}(0.03125f)), {eta:?}f)", a.s, b.s),
                            Cmp::F32Near { ulps: 0, abs: 2.2e-5 },
                        )
                    }
                };
                if f < 2 {
                    let k = self.outs.len();
                    out.push(Stmt::Line(format!("out[o + {k}u] = bitcast<u32>({t});")));
                    self.outs.push(cmp);
                } else {
                    let mut words = Vec::new();
                    self.words(&Ty::V(n, Sc::F32), "t", &mut words);
                    let mut s = format!("{{ let t = {t};");
                    for (w, _) in words {
                        let k = self.outs.len();
                        let _ = write!(s, " out[o + {k}u] = {w};");
                        self.outs.push(cmp);
                    }
                    s.push_str(" }");
                    out.push(Stmt::Line(s));
                }
                return;
            }
        };
        let k = self.outs.len();
        if h {
            out.push(Stmt::Line(format!(
                "out[o + {k}u] = bitcast<u32>(f32({text}));"
            )));
            self.outs.push(Cmp::F16Near {
                ulps: t16.0,
                abs: t16.1,
            });
        } else {
            out.push(Stmt::Line(format!("out[o + {k}u] = bitcast<u32>({text});")));
            self.outs.push(Cmp::F32Near {
                ulps: t32.0,
                abs: t32.1,
            });
        }
    }

    /// Workgroup memory between barriers: every invocation writes its word, reads another's.
    fn workgroup(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
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
    fn storage_atomic(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let k = self.r.below(STORAGE_ATOMICS);
        let f = SAT_OPS[k as usize % SAT_OPS.len()];
        let e = self.scalar(Sc::U32, 2, cx);
        out.push(Stmt::Line(format!("{f}(&sat[{k}], {});", e.s)));
    }

    /// A helper function returning a value.
    fn helper(&mut self) {
        let name = format!("{}_h{}", self.name, self.helpers.len());
        let np = self.r.range(1, 3);
        let params: Vec<Ty> = (0..np)
            .map(|_| {
                let composite = self.r.chance(30);
                self.rand_ty(composite)
            })
            .collect();
        let composite = self.r.chance(30);
        let ret = self.rand_ty(composite);
        let saved = self.enter_helper();
        let mut sig = Vec::new();
        let mut scope = Vec::new();
        for (i, p) in params.iter().enumerate() {
            sig.push(format!("a{i}: {}", self.ty_name(p)));
            // a caller may pass a product
            scope.push(Var {
                name: format!("a{i}"),
                ty: p.clone(),
                mutable: false,
                uni: false,
                cnst: false,
                mulf: true,
                terms: Vec::new(),
            });
        }
        self.scopes.push(scope);
        let cx = Cx {
            uni: false,
            helper: true,
            top: false,
            loops: 0,
            nest: 1,
            in_while: false,
            divergent: false,
            loop_uni: false,
        };
        self.budget = self.r.range(1, 4);
        let mut body = Vec::new();
        while self.budget > 0 {
            self.stmt(cx, &mut body);
        }
        let r = self.expr(&ret, 2, cx);
        body.push(Stmt::Line(format!("return {};", r.s)));
        let reads = self.leave_helper(saved);
        let mut text = format!(
            "fn {name}({}) -> {} {{\n",
            sig.join(", "),
            self.ty_name(&ret)
        );
        print_stmts(&body, 1, &mut text);
        text.push('}');
        self.decls.push(text);
        self.helpers.push(Helper {
            name,
            params,
            ret,
            reads,
        });
    }

    /// A helper updating a `function` variable through a pointer.
    fn mutator(&mut self) {
        let name = format!("{}_m{}", self.name, self.mutators.len());
        let target = self.rand_ty(true);
        let arg = Ty::S(self.scalar_ty());
        let saved = self.enter_helper();
        self.scopes.push(vec![
            // the caller's variable and argument may hold products
            Var {
                name: "(*p)".into(),
                ty: target.clone(),
                mutable: true,
                uni: false,
                cnst: false,
                mulf: true,
                terms: Vec::new(),
            },
            Var {
                name: "a".into(),
                ty: arg.clone(),
                mutable: false,
                uni: false,
                cnst: false,
                mulf: true,
                terms: Vec::new(),
            },
        ]);
        let cx = Cx {
            uni: false,
            helper: true,
            top: false,
            loops: 0,
            nest: 1,
            in_while: false,
            divergent: false,
            loop_uni: false,
        };
        self.budget = self.r.range(1, 4);
        let mut body = Vec::new();
        while self.budget > 0 {
            self.assign(cx, 2, &mut body);
            self.budget -= 1;
        }
        let reads = self.leave_helper(saved);
        let mut text = format!(
            "fn {name}(p: ptr<function, {}>, a: {}) {{\n",
            self.ty_name(&target),
            self.ty_name(&arg)
        );
        print_stmts(&body, 1, &mut text);
        text.push('}');
        self.decls.push(text);
        self.mutators.push(Mutator {
            name,
            target,
            arg,
            reads,
        });
    }

    /// Starts a helper's body: only the private variables in scope, each taken to hold a
    /// product (a caller may have stored one), and its reads noted; the scopes to restore.
    fn enter_helper(&mut self) -> Vec<Vec<Var>> {
        let mut globals = self.scopes[0].clone();
        for g in &mut globals {
            g.mulf = true;
        }
        self.reads = Some(Vec::new());
        std::mem::replace(&mut self.scopes, vec![globals])
    }

    /// Ends a helper's body: the caller's scopes back, its private variables taken to hold
    /// what the helper may have stored in them (any product, any leaf it read); its reads.
    fn leave_helper(&mut self, saved: Vec<Vec<Var>>) -> Vec<String> {
        let mut reads = self.reads.take().unwrap_or_default();
        reads.sort();
        reads.dedup();
        self.scopes = saved;
        for g in &mut self.scopes[0] {
            g.mulf = true;
            g.terms.extend(reads.iter().cloned());
            g.terms.sort();
            g.terms.dedup();
        }
        reads
    }

    /// The leaves of the private variables: what a helper's result may be made of besides
    /// its arguments.
    fn global_terms(&self) -> Vec<String> {
        self.scopes[0]
            .iter()
            .flat_map(|g| g.terms.iter().cloned().chain([g.name.clone()]))
            .collect()
    }

    /// A call of a mutator on a local `var`.
    fn mutate(&mut self, cx: Cx, out: &mut Vec<Stmt>) {
        let m = self.r.pick(&self.mutators.clone()).clone();
        let vars: Vec<Var> = self
            .scopes
            .iter()
            .skip(1)
            .flatten()
            .filter(|v| v.mutable && !v.uni && v.ty == m.target && !v.name.contains('('))
            .cloned()
            .collect();
        if vars.is_empty() {
            let e = self.expr(&m.target, 1, cx);
            let name = self.fresh("v");
            out.push(Stmt::Line(format!(
                "var {name}: {} = {};",
                self.ty_name(&m.target),
                e.s
            )));
            self.push_var(Var {
                name,
                ty: m.target.clone(),
                mutable: true,
                uni: false,
                cnst: false,
                mulf: false,
                terms: Vec::new(),
            });
            return;
        }
        let v = self.r.pick(&vars).clone();
        let a = self.expr(&m.arg, 2, cx);
        out.push(Stmt::Line(format!("{}(&{}, {});", m.name, v.name, a.s)));
        // `v` may now hold a product of anything the mutator read, and `a`
        let mut e = E::new(String::new(), &[&a]);
        e.terms.extend(m.reads.iter().cloned());
        e.terms.extend(self.global_terms());
        self.stored(&v.name, &e, true);
    }
}
