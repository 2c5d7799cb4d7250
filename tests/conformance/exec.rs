//! Running one generated module on a device, and comparing two runs word by word.
//!
//! A module reads `inp` (binding 0: the uniform words, then `IN_STRIDE` words per invocation,
//! seeded), writes `out` (binding 1: `out.len()` words per invocation, each with its
//! [`Cmp`]) and `sat` (binding 2: storage atomics, zeroed, compared bit-exactly once the
//! dispatch is done).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use wgsimd::finding::{Finding, FindingKind};
use wgsimd::kernel::{Flavor, Kernel};
use wgsimd::plan::{Plan, Workgroups};
use wgsimd::{BufferRef, Context};

use crate::generate::{
    Rng, F16_WORDS, F32_WORDS, INT_WORDS, IN_STRIDE, UNI_F16, UNI_F32, UNI_INT, UNI_WORDS,
    ZERO_WORD,
};

/// The word `out` holds where nothing wrote.
pub const OUT_INIT: u32 = 0x5EED_0BAD;

/// How one output word is compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmp {
    /// Equal bits (integers, bools, ballots).
    Bits,
    /// An f32 from correctly rounded operations: equal bits after [`canon`] (any NaN equals any
    /// NaN, zeros of either sign and denormals are equal).
    F32,
    /// An f16 (as the f32 bits of the half): likewise, with f16's denormals.
    F16,
    /// An f32 within `ulps` units in the last place of each other, or within `abs`.
    F32Near { ulps: u32, abs: f32 },
    /// An f16 within `ulps` f16 units in the last place, or within `abs`.
    F16Near { ulps: u32, abs: f32 },
}

impl fmt::Display for Cmp {
    /// The token regression files use: `b`, `f`, `h`, `f~ULPS/ABS`, `h~ULPS/ABS`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cmp::Bits => write!(f, "b"),
            Cmp::F32 => write!(f, "f"),
            Cmp::F16 => write!(f, "h"),
            Cmp::F32Near { ulps, abs } => write!(f, "f~{ulps}/{abs:e}"),
            Cmp::F16Near { ulps, abs } => write!(f, "h~{ulps}/{abs:e}"),
        }
    }
}

impl std::str::FromStr for Cmp {
    type Err = String;
    fn from_str(s: &str) -> Result<Cmp, String> {
        let near = |rest: &str| -> Result<(u32, f32), String> {
            let (u, a) = rest
                .split_once('/')
                .ok_or(format!("bad comparison `{s}`"))?;
            Ok((
                u.parse().map_err(|_| format!("bad ulps in `{s}`"))?,
                a.parse().map_err(|_| format!("bad abs in `{s}`"))?,
            ))
        };
        match s {
            "b" => Ok(Cmp::Bits),
            "f" => Ok(Cmp::F32),
            "h" => Ok(Cmp::F16),
            _ if s.starts_with("f~") => near(&s[2..]).map(|(ulps, abs)| Cmp::F32Near { ulps, abs }),
            _ if s.starts_with("h~") => near(&s[2..]).map(|(ulps, abs)| Cmp::F16Near { ulps, abs }),
            _ => Err(format!("bad comparison `{s}`")),
        }
    }
}

/// Smallest normal f16, as f32.
const F16_MIN_NORMAL: f32 = 6.103_515_6e-5;

/// An f32 word made comparable: NaNs become one NaN; zeros and denormals (of f32, or of f16
/// for `half`) become +0 (WGSL lets an implementation ignore the sign of a zero, and flush
/// denormals).
pub fn canon(x: u32, half: bool) -> u32 {
    let f = f32::from_bits(x);
    let min = if half {
        F16_MIN_NORMAL
    } else {
        f32::MIN_POSITIVE
    };
    if f.is_nan() {
        0x7fc0_0000
    } else if f.abs() < min {
        0
    } else {
        x
    }
}

/// Distance in units in the last place between two finite floats of the same format, through
/// their ordered integer images (f16 through the half's bits).
fn ulp_distance(a: f32, b: f32, half: bool) -> u64 {
    let ord = |x: f32| -> i64 {
        let bits = if half {
            half::f16::from_f32(x).to_bits() as i64
        } else {
            x.to_bits() as i64
        };
        let sign = if half { 0x8000 } else { 0x8000_0000 };
        if bits & sign != 0 {
            -(bits & (sign - 1))
        } else {
            bits
        }
    };
    (ord(a) - ord(b)).unsigned_abs()
}

/// How far a float word computed by correctly rounded operations may move when a compiler
/// reassociates and contracts the expression, as WGSL allows (the H200 does, lavapipe does
/// not): reordering a sum or fusing a product moves a result by a few units in the last place
/// of its operands, so the bound is a relative one, or an absolute one where the result
/// cancels. On the H200 the largest moves seen in 22,000 programs were 8 ulps and, where a
/// result cancelled, 3501 ulps of a value below 2^-9 (docs/conformance.md).
pub const REASSOCIATED_F32: Cmp = Cmp::F32Near {
    ulps: 16,
    abs: 1.0 / 512.0,
};
/// The same for f16 (operands within about ±2^8).
pub const REASSOCIATED_F16: Cmp = Cmp::F16Near {
    ulps: 4,
    abs: 1.0 / 8.0,
};

impl Cmp {
    /// This comparison on a device that reassociates and contracts float expressions: an
    /// exact float comparison becomes [`REASSOCIATED_F32`] or [`REASSOCIATED_F16`]; the others
    /// are unchanged (integers keep their bits, and a bound of WGSL's accuracy table already
    /// covers its operation's operands, which the generator keeps exact).
    pub fn reassociated(self) -> Cmp {
        match self {
            Cmp::F32 => REASSOCIATED_F32,
            Cmp::F16 => REASSOCIATED_F16,
            c => c,
        }
    }

    /// This comparison on a device that evaluates float expressions as written (`fixed_order`),
    /// or [`Cmp::reassociated`] on one that may reorder them.
    pub fn on(self, fixed_order: bool) -> Cmp {
        if fixed_order {
            self
        } else {
            self.reassociated()
        }
    }

    /// Whether `sim` and `gpu` agree under this comparison.
    pub fn agrees(self, sim: u32, gpu: u32) -> bool {
        match self {
            Cmp::Bits => sim == gpu,
            Cmp::F32 => canon(sim, false) == canon(gpu, false),
            Cmp::F16 => canon(sim, true) == canon(gpu, true),
            Cmp::F32Near { ulps, abs } | Cmp::F16Near { ulps, abs } => {
                let half = matches!(self, Cmp::F16Near { .. });
                let (a, b) = (
                    f32::from_bits(canon(sim, half)),
                    f32::from_bits(canon(gpu, half)),
                );
                if a.is_nan() || b.is_nan() {
                    return a.is_nan() && b.is_nan();
                }
                if a.is_infinite() || b.is_infinite() {
                    return a == b;
                }
                (a - b).abs() <= abs || ulp_distance(a, b, half) <= ulps as u64
            }
        }
    }
}

/// The shape of a module's run.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Invocations per workgroup (`@workgroup_size(wg)`).
    pub wg: u32,
    /// Workgroups dispatched.
    pub groups: u32,
    /// The comparison of each output word of one invocation.
    pub out: Vec<Cmp>,
    /// Storage atomic words.
    pub atomics: u32,
    /// Seed of the input words.
    pub seed: u64,
}

impl Shape {
    /// All invocations.
    pub fn invocations(&self) -> u32 {
        self.wg * self.groups
    }

    /// The input buffer: the uniform words, then each invocation's words.
    pub fn inputs(&self) -> Vec<u32> {
        let mut r = Rng::new(self.seed ^ 0x1A7E_5EED);
        let mut v = Vec::with_capacity((UNI_WORDS + IN_STRIDE * self.invocations()) as usize);
        let section = |r: &mut Rng, v: &mut Vec<u32>, ints: u32, f32s: u32, f16s: u32| {
            v.extend((0..ints).map(|_| r.int_input()));
            v.extend((0..f32s).map(|_| r.f32_input().to_bits()));
            v.extend((0..f16s).map(|_| r.f16_input().to_bits()));
        };
        section(&mut r, &mut v, UNI_INT, UNI_F32, UNI_F16);
        debug_assert_eq!(v.len(), ZERO_WORD as usize);
        v.push(0);
        for _ in 0..self.invocations() {
            section(&mut r, &mut v, INT_WORDS, F32_WORDS, F16_WORDS);
        }
        v
    }
}

/// What one run gave.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// `out`, `shape.out.len()` words per invocation.
    pub out: Vec<u32>,
    /// The storage atomics.
    pub atomics: Vec<u32>,
    /// The simulator's findings that make a program ill defined in WGSL (none on a GPU):
    /// the portability reports (`shift-overflow`, `lane-layout-assumption`,
    /// `ballot-high-lanes`) are about what other languages leave undefined, and are left out.
    pub findings: Vec<Finding>,
}

/// Parses and validates `source`; naga's message on failure. The kernel's name is `name` and
/// a number of its own: a GPU context caches pipelines by kernel name.
pub fn kernel(name: &str, source: &str) -> Result<Arc<Kernel>, String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!("{name}#{}", NEXT.fetch_add(1, Ordering::Relaxed));
    Kernel::from_source(&name, Flavor::Subgroup, source.to_string())
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// Runs entry point `main` of `kernel` on `ctx` in `shape`; a panic is an `Error::Sim`. Runs
/// on a GPU take turns: lavapipe compiling two large pipelines at once is many times slower
/// than one after the other.
pub fn run(ctx: &Context, kernel: &Arc<Kernel>, shape: &Shape) -> wgsimd::Result<Outcome> {
    static GPU: Mutex<()> = Mutex::new(());
    let _turn = (!ctx.is_simulator()).then(|| GPU.lock().unwrap_or_else(|p| p.into_inner()));
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_inner(ctx, kernel, shape)
    }))
    .unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(wgsimd::Error::Sim(format!("panicked: {msg}")))
    })
}

fn run_inner(ctx: &Context, kernel: &Arc<Kernel>, shape: &Shape) -> wgsimd::Result<Outcome> {
    let inv = shape.invocations() as usize;
    let input = shape.inputs();
    let out_words = (shape.out.len() * inv).max(1);
    let atomics = (shape.atomics as usize).max(1);
    let mut plan = Plan::new("conformance");
    let bi = plan.arg("inp", input.len() as u64 * 4);
    let bo = plan.arg("out", out_words as u64 * 4);
    let ba = plan.arg("sat", atomics as u64 * 4);
    let mut bindings = vec![("inp", bi), ("out", bo)];
    let uses_sat = kernel
        .entry("main")
        .is_some_and(|e| e.bindings.iter().any(|b| b.name == "sat"));
    if uses_sat {
        bindings.push(("sat", ba));
    }
    plan.pass_named(
        "program",
        kernel,
        "main",
        &[],
        &bindings,
        Workgroups::Direct([shape.groups, 1, 1]),
    )?;
    let prepared = ctx.prepare(plan)?;
    let inb = ctx.upload("inp", &input)?;
    let outb = ctx.upload("out", &vec![OUT_INIT; out_words])?;
    let atb = ctx.zeroed("sat", atomics as u64 * 4)?;
    let mut enc = ctx.encoder();
    prepared.record(
        (&mut enc).into(),
        &[
            (bi, BufferRef::from(&inb)),
            (bo, BufferRef::from(&outb)),
            (ba, BufferRef::from(&atb)),
        ],
        None,
    )?;
    let report = ctx.submit(enc)?;
    let mut out: Vec<u32> = ctx.read(&outb)?;
    out.truncate(shape.out.len() * inv);
    let mut at: Vec<u32> = ctx.read(&atb)?;
    at.truncate(shape.atomics as usize);
    Ok(Outcome {
        out,
        atomics: at,
        findings: report
            .findings
            .into_iter()
            .filter(|f| {
                !matches!(
                    f.kind,
                    FindingKind::ShiftOverflow
                        | FindingKind::LaneLayoutAssumption
                        | FindingKind::BallotHighLanes
                )
            })
            .collect(),
    })
}

/// One disagreement.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The invocation (global index), or `None` for a storage atomic.
    pub invocation: Option<u32>,
    /// The word of the invocation's outputs, or the atomic's index.
    pub word: usize,
    /// What the simulator gave.
    pub sim: u32,
    /// What the GPU gave.
    pub gpu: u32,
    /// How it was compared.
    pub cmp: Cmp,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |x: u32| match self.cmp {
            Cmp::Bits => format!("{x:#010x} ({})", x as i32),
            _ => format!("{x:#010x} ({:e})", f32::from_bits(x)),
        };
        match self.invocation {
            Some(i) => write!(f, "invocation {i} word {}", self.word)?,
            None => write!(f, "storage atomic {}", self.word)?,
        }
        write!(
            f,
            " [{}]: simulator {}, GPU {}",
            self.cmp,
            show(self.sim),
            show(self.gpu)
        )
    }
}

/// Every word on which `sim` and `gpu` disagree under `shape`'s comparisons, each
/// [`Cmp::reassociated`] unless the device evaluates float expressions as written
/// (`fixed_order`).
pub fn compare(shape: &Shape, sim: &Outcome, gpu: &Outcome, fixed_order: bool) -> Vec<Mismatch> {
    let per = shape.out.len();
    let mut bad = Vec::new();
    for (i, (&s, &g)) in sim.out.iter().zip(&gpu.out).enumerate() {
        let cmp = shape.out[i % per].on(fixed_order);
        if !cmp.agrees(s, g) {
            bad.push(Mismatch {
                invocation: Some((i / per) as u32),
                word: i % per,
                sim: s,
                gpu: g,
                cmp,
            });
        }
    }
    for (i, (&s, &g)) in sim.atomics.iter().zip(&gpu.atomics).enumerate() {
        if s != g {
            bad.push(Mismatch {
                invocation: None,
                word: i,
                sim: s,
                gpu: g,
                cmp: Cmp::Bits,
            });
        }
    }
    bad
}

/// Float words compared exactly where the device evaluates as written that differ here but
/// within [`Cmp::reassociated`]'s bound: how many, their largest distance in ulps of their
/// format and their largest absolute difference. What a reassociating device moved.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reordered {
    pub words: usize,
    pub ulps: u64,
    pub abs: f32,
}

impl Reordered {
    /// `shape`'s exact float words of `sim` and `gpu` that differ within the bound.
    pub fn of(shape: &Shape, sim: &Outcome, gpu: &Outcome) -> Reordered {
        let per = shape.out.len();
        let mut r = Reordered::default();
        for (i, (&s, &g)) in sim.out.iter().zip(&gpu.out).enumerate() {
            let cmp = shape.out[i % per];
            let half = cmp == Cmp::F16;
            if !matches!(cmp, Cmp::F32 | Cmp::F16)
                || cmp.agrees(s, g)
                || !cmp.reassociated().agrees(s, g)
            {
                continue;
            }
            let (a, b) = (
                f32::from_bits(canon(s, half)),
                f32::from_bits(canon(g, half)),
            );
            r.add(Reordered {
                words: 1,
                ulps: ulp_distance(a, b, half),
                abs: (a - b).abs(),
            });
        }
        r
    }

    /// Both counts together.
    pub fn add(&mut self, o: Reordered) {
        self.words += o.words;
        self.ulps = self.ulps.max(o.ulps);
        self.abs = self.abs.max(o.abs);
    }
}
