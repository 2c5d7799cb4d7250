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

mod collective;
mod expr;
mod helper;
mod output;
mod scalar;
mod stmt;
mod vector;

use std::fmt::Write as _;
use std::ops::Range;

use crate::exec::{Cmp, Shape};
use expr::E;
use helper::{Helper, Mutator};

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
/// A `u32` zero the compiler cannot see. The pack and unpack family take their operand through
/// it (floats through `+ fz`): lavapipe (Mesa 22.3) folds a constant operand wrongly, the high
/// half of `unpack2x16float` to 0 and a negative byte of `pack4x8snorm` over the bytes above.
const UZ: &str = "bitcast<u32>(fz)";
/// Workgroup atomic words (of each of `wg_a`, `wg_i`).
const WG_ATOMICS: u32 = 8;

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
    /// Whether the device evaluates float expressions as written, unreassociated and unfused
    /// (lavapipe, a CPU adapter). Elsewhere (WGSL lets a compiler reassociate and contract)
    /// exact float words are compared within [`crate::exec::Cmp::reassociated`]'s bound, and
    /// the operations compared within WGSL's accuracy table take inputs as their operands:
    /// an operand moved by reordering would move their results past the table's bound.
    pub fixed_order: bool,
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

impl Cx {
    /// The top of a helper function's body.
    fn helper_body() -> Cx {
        Cx {
            uni: false,
            helper: true,
            top: false,
            loops: 0,
            nest: 1,
            in_while: false,
            divergent: false,
            loop_uni: false,
        }
    }
}

impl Var {
    /// A loop's counter `name`, uniform where the loop is.
    fn counter(name: &str, uni: bool) -> Var {
        Var {
            name: name.to_string(),
            ty: Ty::S(Sc::U32),
            mutable: false,
            uni,
            cnst: false,
            mulf: false,
            terms: Vec::new(),
        }
    }
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
}
