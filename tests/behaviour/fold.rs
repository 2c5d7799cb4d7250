//! Scans and reductions by an operator: built-in sums, minima and maxima over u32, i32 and f32,
//! and two operators of the caller's (the last nonzero element: associative, not commutative;
//! the larger magnitude of f32), inclusive and exclusive, against references written from the
//! definition (each prefix folded in order), with host and GPU counts, outputs poisoned; both
//! paths of a scan (chained, where the target has subgroups, and two passes), each also with a
//! small policy (chained tiles of 4096; two passes over chunks of many tiles, 2 workgroups of
//! one element an invocation); the chained path's decoupled fallback under schedules that
//! starve tiles; what is refused.

use wgsimd::dtype::Dtype;
use wgsimd::fold::{ChunkPolicy, Operator};
use wgsimd::plan::POISON_WORD;
use wgsimd::reduce::Reducer;
use wgsimd::scan::{OperatorPolicy, ScanPolicy, Scanner};
use wgsimd::sim::{Scheduler, SimConfig};
use wgsimd::{BufferRef, Caps, Context, Count};

use crate::data::{self, Dist};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new("fold::every_operator", On::Every, every_operator),
        Test::new("fold::chained_fallback", On::Once, chained_fallback),
        Test::new("fold::bad_input", On::Once, bad_input),
    ]
}

const LAST_NONZERO: &str =
    "fn op(a: T, b: T) -> T { return select(a, b, b != 0u); }\nconst IDENTITY: T = 0u;";
const ABS_MAX: &str = "fn op(a: T, b: T) -> T { return select(a, b, abs(b) > abs(a)); }";
// an identity on the left only: put on the right of a value, it shows
const RIGHT: &str = "fn op(a: T, b: T) -> T { return b; }\nconst IDENTITY: T = 0x1234567u;";

/// An operator under test: its name, the operator, its definition on words, and whether f32
/// results are compared with a tolerance (sums).
struct Case {
    name: &'static str,
    op: Operator,
    f: fn(u32, u32) -> u32,
    identity: Option<u32>,
    f32_sum: bool,
}

fn f32_first(a: u32, b: u32, lesser: bool) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x.is_nan() {
        return a;
    }
    if y.is_nan() {
        return b;
    }
    let key = |w: u32| w ^ if w >> 31 == 1 { u32::MAX } else { 1 << 31 };
    let a_first = if lesser {
        key(a) <= key(b)
    } else {
        key(a) >= key(b)
    };
    if a_first {
        a
    } else {
        b
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "sum u32",
            op: Operator::sum(Dtype::U32).unwrap(),
            f: |a, b| a.wrapping_add(b),
            identity: Some(0),
            f32_sum: false,
        },
        Case {
            name: "min i32",
            op: Operator::min(Dtype::I32).unwrap(),
            f: |a, b| (a as i32).min(b as i32) as u32,
            identity: Some(i32::MAX as u32),
            f32_sum: false,
        },
        Case {
            name: "max f32",
            op: Operator::max(Dtype::F32).unwrap(),
            f: |a, b| f32_first(a, b, false),
            identity: Some(f32::NEG_INFINITY.to_bits()),
            f32_sum: false,
        },
        Case {
            name: "min f32",
            op: Operator::min(Dtype::F32).unwrap(),
            f: |a, b| f32_first(a, b, true),
            identity: Some(f32::INFINITY.to_bits()),
            f32_sum: false,
        },
        Case {
            name: "sum f32",
            op: Operator::sum(Dtype::F32).unwrap(),
            f: |a, b| (f32::from_bits(a) + f32::from_bits(b)).to_bits(),
            identity: Some((-0.0f32).to_bits()),
            f32_sum: true,
        },
        Case {
            name: "last nonzero (WGSL)",
            op: Operator::wgsl(Dtype::U32, LAST_NONZERO).unwrap(),
            f: |a, b| if b != 0 { b } else { a },
            identity: Some(0),
            f32_sum: false,
        },
        Case {
            name: "the right one (WGSL, identity on the left only)",
            op: Operator::wgsl(Dtype::U32, RIGHT).unwrap(),
            f: |_, b| b,
            identity: Some(0x1234567),
            f32_sum: false,
        },
        Case {
            name: "larger magnitude (WGSL, no identity)",
            op: Operator::wgsl(Dtype::F32, ABS_MAX).unwrap(),
            f: |a, b| {
                if f32::from_bits(b).abs() > f32::from_bits(a).abs() {
                    b
                } else {
                    a
                }
            },
            identity: None,
            f32_sum: false,
        },
    ]
}

fn input_for(case: &Case, n: usize, seed: u64) -> Vec<u32> {
    let mut words: Vec<u32> = match case.op.dtype() {
        Dtype::F32 if case.f32_sum || case.identity.is_none() => data::random_f32(n, seed)
            .iter()
            .map(|x| x.to_bits())
            .collect(),
        Dtype::F32 => data::keys::<f32>(Dist::Extremes, n, seed)
            .iter()
            .map(|x| x.to_bits())
            .collect(),
        _ => data::keys::<u32>(Dist::Extremes, n, seed),
    };
    if case.name.starts_with("last") {
        // mostly zeros, so the last nonzero is often far back, and the others all different,
        // so a combination out of order shows
        for (i, w) in words.iter_mut().enumerate() {
            *w = if (i * 7919 + seed as usize).is_multiple_of(5) {
                (i as u32).wrapping_mul(0x9e37_79b9) | 1
            } else {
                0
            };
        }
    }
    words
}

/// Whether `got` is the reference `want` for element `i` (f32 sums: within n·2^-24 of Σ|x|
/// over the prefix, the bound of any order of additions).
fn same(case: &Case, got: u32, want: u32, abs_prefix: f64, n: usize) -> bool {
    if !case.f32_sum {
        return got == want;
    }
    let (g, w) = (f32::from_bits(got) as f64, f32::from_bits(want) as f64);
    (g - w).abs() <= n as f64 * 2f64.powi(-24) * abs_prefix + f32::MIN_POSITIVE as f64
}

fn check_scan(t: &Target, case: &Case, s: &Scanner, inclusive: bool, input: &[u32]) {
    check_scan_on(&t.ctx, case, s, inclusive, input, "");
}

fn check_scan_on(
    ctx: &Context,
    case: &Case,
    s: &Scanner,
    inclusive: bool,
    input: &[u32],
    what: &str,
) {
    let n = input.len();
    let buf = ctx.upload("input", &util_nonempty(input)).unwrap();
    let count = ctx.upload("count", &[n as u32]).unwrap();
    for (how, c) in [
        ("host count", Count::Host(n as u32)),
        ("GPU count", Count::Gpu(BufferRef::from(&count))),
    ] {
        let out = ctx.upload("output", &vec![POISON_WORD; n + 1]).unwrap();
        let mut enc = ctx.encoder();
        s.record(&mut enc, &buf, &out, c).unwrap();
        let report = ctx.submit(enc).unwrap();
        if let Some(f) = report.findings.first() {
            panic!("{what}{}, {how}: {f}", case.name);
        }
        let got: Vec<u32> = ctx.read(&out).unwrap();
        let mut acc: Option<u32> = None;
        let mut abs = 0.0f64;
        for i in 0..n {
            let before = acc.or(case.identity);
            acc = Some(acc.map_or(input[i], |a| (case.f)(a, input[i])));
            abs += (f32::from_bits(input[i]) as f64).abs();
            let want = if inclusive { acc } else { before }.unwrap();
            assert!(
                same(case, got[i], want, abs, n),
                "{what}{}, {} scan, {n} elements, {how}: element {i} is {:#010x}, want {want:#010x}",
                case.name,
                if inclusive { "inclusive" } else { "exclusive" },
                got[i]
            );
        }
        assert_eq!(got[n], POISON_WORD, "{}: written past the count", case.name);
    }
}

fn check_reduce(t: &Target, case: &Case, r: &Reducer, input: &[u32]) {
    let ctx = &t.ctx;
    let n = input.len();
    let buf = ctx.upload("input", &util_nonempty(input)).unwrap();
    let out = ctx.upload("result", &[POISON_WORD; 4]).unwrap();
    let mut enc = ctx.encoder();
    r.record(&mut enc, &buf, out.slice(0, 4), Count::Host(n as u32))
        .unwrap();
    util::submit(t, enc);
    let got = util::words(t, &out)[0];
    let want = input
        .iter()
        .copied()
        .reduce(case.f)
        .or(case.identity)
        .unwrap();
    let abs: f64 = input
        .iter()
        .map(|&w| (f32::from_bits(w) as f64).abs())
        .sum();
    assert!(
        same(case, got, want, abs, n),
        "{}, reduction of {n}: {got:#010x}, want {want:#010x}",
        case.name
    );
    assert_eq!(util::words(t, &out)[1], POISON_WORD);
}

fn util_nonempty(x: &[u32]) -> Vec<u32> {
    if x.is_empty() {
        vec![0]
    } else {
        x.to_vec()
    }
}

fn every_operator(t: &Target) {
    let ctx = &t.ctx;
    let sizes = t.sizes(&[0, 1, 2, 257, 2049, 4097, (1 << 20) + 3], 4097);
    let max = *sizes.last().unwrap() as u64;
    let small = ChunkPolicy {
        items: 1,
        max_workgroups: 2,
        ..ChunkPolicy::default()
    };
    // the device's scan path (chained where it has subgroups), two passes by the default grid
    // and by the small one, and the chained path with tiles of 4096
    let mut policies = vec![
        (OperatorPolicy::for_caps(t.caps()), ChunkPolicy::default()),
        (
            OperatorPolicy::TwoPass(ChunkPolicy::default()),
            ChunkPolicy::default(),
        ),
        (OperatorPolicy::TwoPass(small), small),
    ];
    if t.caps().subgroups {
        policies.push((OperatorPolicy::Chained(small_tiles(t.caps())), small));
    }
    policies.dedup_by_key(|p| p.0);
    for (k, case) in cases().iter().enumerate() {
        for (policy, grid) in policies.iter().copied() {
            let small =
                grid == small || matches!(policy, OperatorPolicy::Chained(p) if p.tile == 4096);
            let mut scans = vec![(
                true,
                Scanner::with_operator_policy(ctx, &case.op, true, max, policy).unwrap(),
            )];
            let mut reducer = None;
            if case.identity.is_some() {
                scans.push((
                    false,
                    Scanner::with_operator_policy(ctx, &case.op, false, max, policy).unwrap(),
                ));
                reducer = Some(Reducer::with_operator_policy(ctx, &case.op, max, grid).unwrap());
            }
            for &n in &sizes {
                // (the small policies where they give many tiles, at the simulator's sizes;
                // from 2049 a sum, a float minimum and the operators that do not commute; the
                // GPU's large size for the last nonzero alone)
                if (small && n < 2049)
                    || (n >= 2049 && !matches!(k, 0 | 3 | 5 | 6))
                    || (n > 4097 && (small || k != 5))
                {
                    continue;
                }
                let input = input_for(case, n, (n * 13 + k) as u64);
                for (inclusive, s) in &scans {
                    check_scan(t, case, s, *inclusive, &input);
                }
                if let Some(r) = &reducer {
                    check_reduce(t, case, r, &input);
                }
            }
        }
    }
}

/// The chained path's policy of `caps` with tiles of 4096 elements.
fn small_tiles(caps: &Caps) -> ScanPolicy {
    ScanPolicy {
        tile: 4096,
        small_tile: 4096,
        ..ScanPolicy::for_caps(caps)
    }
}

/// The chained scan by an operator that does not commute, its tiles tied to workgroup indices
/// and workgroups run out of order, the first ones starved: tiles look back before their
/// predecessors publish and fold those tiles' input themselves, in order (at 4, 32 and 128
/// lanes, with and without polls first), and one scanner's runs repeated (stale statuses);
/// then input in chunks of 32 KiB bindings, the look-back running on across dispatches.
fn chained_fallback(_: &Target) {
    let schedulers = [
        Scheduler::Unfair { starved: vec![0] },
        Scheduler::Unfair {
            starved: vec![1, 3],
        },
    ];
    let cases = cases();
    let by = |name: &str| cases.iter().find(|c| c.name.starts_with(name)).unwrap();
    for (sg, (k, scheduler)) in [4, 32, 128]
        .into_iter()
        .zip(schedulers.iter().enumerate().cycle())
    {
        let mut config = SimConfig::for_profile(Caps::h100());
        config.subgroup_size = sg;
        config.scheduler = scheduler.clone();
        config.fail_on_step_limit = true;
        let ctx = Context::simulator(config).unwrap();
        let policy = ScanPolicy {
            spin: [0, 3][k],
            tickets: false,
            ..small_tiles(ctx.caps())
        };
        let what = format!("{sg} lanes, {scheduler:?}: ");
        let n = 5 * 4096 - 3;
        for (case, inclusive) in [
            (by("last"), true),
            (by("the right"), false),
            (by("max f32"), false),
        ] {
            let s = Scanner::with_operator_policy(
                &ctx,
                &case.op,
                inclusive,
                n as u64,
                OperatorPolicy::Chained(policy),
            )
            .unwrap();
            check_scan_on(
                &ctx,
                case,
                &s,
                inclusive,
                &input_for(case, n, sg as u64),
                &what,
            );
        }
    }
    let mut config = SimConfig::for_profile(Caps::h100());
    config.profile.max_storage_binding = 32 << 10;
    let ctx = Context::simulator(config).unwrap();
    let policy = OperatorPolicy::Chained(small_tiles(ctx.caps()));
    let n = 20_001;
    for (case, inclusive) in [(by("last"), true), (by("the right"), false)] {
        let s = Scanner::with_operator_policy(&ctx, &case.op, inclusive, n as u64, policy).unwrap();
        assert!(s.passes().len() > 2, "{:?}", s.passes());
        check_scan_on(
            &ctx,
            case,
            &s,
            inclusive,
            &input_for(case, n, 7),
            "32 KiB chunks: ",
        );
    }
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    let no_identity = Operator::wgsl(Dtype::F32, ABS_MAX).unwrap();
    util::refused(
        "an exclusive scan without an identity",
        Scanner::with_operator(ctx, &no_identity, false, 10).map(|_| ()),
    );
    util::refused(
        "a reduction without an identity",
        Reducer::with_operator(ctx, &no_identity, 10).map(|_| ()),
    );
    for (what, text) in [
        ("no op", "fn f(a: T) -> T { return a; }"),
        ("a syntax error", "fn op(a: T, b: T) -> T { return a + }"),
        (
            "a clash with a stage's name",
            "fn op(a: T, b: T) -> T { return a; }\nfn then() {}",
        ),
    ] {
        assert!(
            matches!(
                Operator::wgsl(Dtype::U32, text),
                Err(wgsimd::Error::Shader { .. })
            ),
            "{what}"
        );
    }
    util::refused("u8 values", Operator::sum(Dtype::U8).map(|_| ()));
    let portable = SimConfig::for_profile(Caps::lavapipe().without_subgroups());
    let portable = Context::simulator(portable).unwrap();
    let max = Operator::max(Dtype::U32).unwrap();
    util::refused(
        "the chained scan by an operator without subgroups",
        Scanner::with_operator_policy(
            &portable,
            &max,
            true,
            10,
            OperatorPolicy::Chained(ScanPolicy::default()),
        )
        .map(|_| ()),
    );
}
