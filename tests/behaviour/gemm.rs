//! GEMM against the f64 reference (relative Frobenius error): f32 and f16 inputs, int4
//! weights with and without zero points, every kernel the target runs (register-tiled,
//! few-rows, cooperative matrices where offered, split K), f16 output bit for bit as the host
//! rounds, shapes with partial tiles on every edge; recorded on the caller's buffers. On the
//! simulator C starts undefined, so an element no workgroup writes is a finding: the coverage
//! proof for every policy the host uses.

use rand::Rng;
use wgsimd::gemm::{
    self, coop_offered, execute, execute_int4, Format, Gemm, GemmOptions, GemmOutput, GemmPolicy,
    Int4Weights, Operand, OutFormat, Path, PathChoice,
};
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, rel_frobenius, tiled, Int4};
use wgsimd::sim::SimConfig;
use wgsimd::{BufferRef, Context};

use crate::data;
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new("gemm::shapes", On::Every, shapes),
        Test::new("gemm::every_path", On::Every, every_path),
        Test::new(
            "gemm::f16_output_rounds_like_the_host",
            On::Every,
            f16_output,
        ),
        Test::new("gemm::int4_weights", On::Every, int4_weights),
        Test::new("gemm::recorded_on_caller_buffers", On::Every, recorded),
        Test::new(
            "gemm::grids_past_the_dispatch_limit",
            On::Once,
            folded_grids,
        ),
        Test::new("gemm::bad_input", On::Once, bad_input),
        Test::new("gemm::the_check_can_fail", On::Once, the_check_can_fail),
    ]
}

/// f32 inputs, f32 accumulation.
const TOL_F32: f64 = 1e-5;
/// f16 (or int4) inputs, C in f32: the reference multiplies the very f16 values, so only the
/// f32 accumulation errs; twice the f32 bound for tensor cores, whose additions need not round
/// to nearest. A C rounded to f16 (2.8e-4 typical) fails it.
const TOL_F16_IN: f64 = 2e-5;

/// Shapes (M, N, K) with partial tiles on every edge, a single element, a column, a row.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (33, 128, 17),
    (64, 64, 64),
    (65, 63, 129),
    (127, 1, 255),
    (7, 300, 5),
    (1, 257, 130),
    (257, 129, 384),
];

/// Random operands in [-1, 1): A M×K and B K×N.
fn operands(m: usize, n: usize, k: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut r = data::rng(seed);
    let a = (0..m * k).map(|_| r.random_range(-1.0f32..1.0)).collect();
    let b = (0..k * n).map(|_| r.random_range(-1.0f32..1.0)).collect();
    (a, b)
}

fn f32_of(c: GemmOutput) -> Vec<f32> {
    match c {
        GemmOutput::F32(c) => c,
        GemmOutput::F16(c) => f16_to_f32(&c),
    }
}

/// Runs C = A·B in `fmt` with `opts` and checks it against the f64 product of the very
/// inputs the kernel saw; returns the kernel that ran.
fn check(t: &Target, fmt: Format, (m, n, k): (usize, usize, usize), opts: GemmOptions) -> Path {
    let (a, b) = operands(m, n, k, (m * 31 + n * 7 + k) as u64);
    let what = format!("{fmt:?} {m}x{n}x{k} {opts:?}");
    let (c, path, want, tol) = match fmt {
        Format::F32 => {
            let (c, path) = execute(&t.ctx, Operand::F32(&a), Operand::F32(&b), m, n, k, opts)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (c, path, tiled(&a, &b, m, n, k), TOL_F32)
        }
        _ => {
            let (a16, b16) = (f32_to_f16(&a), f32_to_f16(&b));
            let (c, path) = execute(
                &t.ctx,
                Operand::F16(&a16),
                Operand::F16(&b16),
                m,
                n,
                k,
                opts,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let want = tiled(&f16_to_f32(&a16), &f16_to_f32(&b16), m, n, k);
            (c, path, want, TOL_F16_IN)
        }
    };
    let e = rel_frobenius(&f32_of(c), &want);
    assert!(
        e <= tol,
        "{what} by {path:?}: relative error {e:e} > {tol:e}"
    );
    path
}

fn shapes(t: &Target) {
    let mut shapes = SHAPES.to_vec();
    if !t.is_sim() {
        shapes.extend([(512, 384, 320), (4, 2048, 1536)]);
    }
    for &s in &shapes {
        for fmt in [Format::F32, Format::F16] {
            check(t, fmt, s, GemmOptions::default());
        }
    }
}

/// Each kernel by name, and the portable ones with K split three ways; cooperative matrices
/// where the target offers them (and then they must be what `Auto` takes for f16 from its
/// minimum rows).
fn every_path(t: &Target) {
    let caps = t.caps();
    let mut choices = vec![(PathChoice::Tiled, None), (PathChoice::Gemv, None)];
    choices.extend([(PathChoice::Tiled, Some(3)), (PathChoice::Gemv, Some(3))]);
    let shapes: &[(usize, usize, usize)] = &[(1, 33, 40), (9, 70, 257), (65, 63, 129)];
    for &(path, split) in &choices {
        for &s in shapes {
            for fmt in [Format::F32, Format::F16] {
                let opts = GemmOptions {
                    path,
                    split,
                    ..GemmOptions::default()
                };
                check(t, fmt, s, opts);
            }
        }
    }
    if coop_offered(caps) {
        let coop = GemmOptions {
            path: PathChoice::Coop,
            ..GemmOptions::default()
        };
        for &s in SHAPES {
            let path = check(t, Format::F16, s, coop);
            assert!(
                matches!(path, Path::Coop16 | Path::Coop8),
                "{s:?} ran {path:?}"
            );
        }
        let auto = check(
            t,
            Format::F16,
            (gemm::COOP_MIN_M, 64, 64),
            GemmOptions::default(),
        );
        assert!(
            matches!(auto, Path::Coop16 | Path::Coop8),
            "Auto took {auto:?}"
        );
    } else {
        let coop = GemmOptions {
            path: PathChoice::Coop,
            ..GemmOptions::default()
        };
        let (a, b) = (vec![0u16; 64 * 64], vec![0u16; 64 * 64]);
        util::refused(
            "cooperative matrices where none are offered",
            execute(&t.ctx, Operand::F16(&a), Operand::F16(&b), 64, 64, 64, coop),
        );
    }
}

/// f16 C from every path (N even: rounded by the kernels' own stores; N odd: by a pass after
/// them; split K: by the split sum) holds exactly the host's rounding of the f32 C.
fn f16_output(t: &Target) {
    let mut choices = vec![
        (PathChoice::Auto, None),
        (PathChoice::Tiled, None),
        (PathChoice::Gemv, None),
        (PathChoice::Tiled, Some(2)),
    ];
    if coop_offered(t.caps()) {
        choices.push((PathChoice::Coop, None));
    }
    for (path, split) in choices {
        for &(m, n, k) in &[(3, 64, 96), (70, 66, 40), (33, 65, 17), (1, 5, 300)] {
            let (a, b) = operands(m, n, k, 7);
            let (a16, b16) = (f32_to_f16(&a), f32_to_f16(&b));
            let run = |out| {
                let opts = GemmOptions {
                    path,
                    split,
                    out,
                    ..GemmOptions::default()
                };
                execute(
                    &t.ctx,
                    Operand::F16(&a16),
                    Operand::F16(&b16),
                    m,
                    n,
                    k,
                    opts,
                )
                .unwrap_or_else(|e| panic!("{path:?} {m}x{n}x{k}: {e}"))
            };
            let (GemmOutput::F32(c32), p32) = run(OutFormat::F32) else {
                panic!("f32 output expected")
            };
            let (GemmOutput::F16(c16), p16) = run(OutFormat::F16) else {
                panic!("f16 output expected")
            };
            assert_eq!(p32, p16, "{path:?}: both outputs by one kernel");
            let host = f32_to_f16(&c32);
            if let Some(i) = (0..host.len()).find(|&i| host[i] != c16[i]) {
                panic!(
                    "{path:?} split {split:?} {m}x{n}x{k}: C[{i}] is {:#06x}, the host rounds {} to {:#06x}",
                    c16[i], c32[i], host[i]
                );
            }
        }
    }
}

fn int4_weights(t: &Target) {
    for &(m, n, k) in &[(1, 64, 128), (3, 33, 300), (17, 48, 129), (70, 40, 256)] {
        let (a, w) = operands(m, n, k, 5);
        let a16 = f32_to_f16(&a);
        let mut weights = Int4Weights::quantize(&w, k, n).unwrap();
        for zeros in [false, true] {
            if zeros {
                // zero points 5..=11, varying along K as well as across columns
                let g = weights.groups() * n;
                weights.zeros = Some(
                    (0..g as u64)
                        .map(|j| {
                            let z = ((j.wrapping_mul(2_654_435_761) >> 13) % 7) as f32 + 5.0;
                            half::f16::from_f32(z).to_bits()
                        })
                        .collect(),
                );
            }
            let oracle = Int4 {
                k,
                n,
                packed: &weights.packed,
                scales: &weights.scales,
                zeros: weights.zeros.as_deref(),
            };
            let want = wgsimd::reference::gemm::int4(&a16, &oracle, m);
            for path in [PathChoice::Auto, PathChoice::Tiled, PathChoice::Gemv] {
                let opts = GemmOptions {
                    path,
                    ..GemmOptions::default()
                };
                let (c, ran) = execute_int4(&t.ctx, &a16, &weights, m, opts)
                    .unwrap_or_else(|e| panic!("int4 {m}x{n}x{k} {path:?}: {e}"));
                let e = rel_frobenius(&f32_of(c), &want);
                assert!(
                    e <= TOL_F16_IN,
                    "int4 {m}x{n}x{k}, zeros {zeros}, {path:?} ran {ran:?}: error {e:e}"
                );
            }
        }
    }
}

/// Rows padded to the layout's widths, as bytes.
fn padded<T: bytemuck::Pod + Default>(x: &[T], rows: usize, cols: usize, width: usize) -> Vec<u8> {
    let mut v = vec![T::default(); rows * width];
    for r in 0..rows {
        v[r * width..r * width + cols].copy_from_slice(&x[r * cols..(r + 1) * cols]);
    }
    bytemuck::cast_slice(&v).to_vec()
}

/// A GEMM recorded on the caller's buffers at offsets, twice (two "frames" with new contents
/// written through the queue); the words around C keep their values.
fn recorded(t: &Target) {
    let ctx = &t.ctx;
    let align = wgsimd::context::binding_alignment(t.caps());
    for (fmt, (m, n, k)) in [
        (Format::F32, (33, 70, 45)),
        (Format::F16, (66, 40, 100)),
        (Format::F32, (2, 90, 64)),
    ] {
        let g = Gemm::new(ctx, fmt, m, n, k, GemmOptions::default()).unwrap();
        let l = g.layout();
        let a_bytes = (m * l.a_row) as u64 * if fmt == Format::F32 { 4 } else { 2 };
        let b_bytes = (k * l.b_row) as u64 * if fmt == Format::F32 { 4 } else { 2 };
        let a_at = align;
        let b_at = align * (2 + a_bytes.div_ceil(align));
        let operands_buf = ctx.zeroed("operands", b_at + b_bytes + align).unwrap();
        let c_at = 2 * align;
        let c_words = ((c_at + l.c_bytes) / 4 + 16) as usize;
        let cbuf = ctx.upload("c", &vec![0x1234_5678u32; c_words]).unwrap();
        for frame in 0..2u64 {
            let (a, b) = operands(m, n, k, frame);
            let (pa, pb, want) = match fmt {
                Format::F32 => (
                    padded(&a, m, k, l.a_row),
                    padded(&b, k, n, l.b_row),
                    tiled(&a, &b, m, n, k),
                ),
                _ => {
                    let (a16, b16) = (f32_to_f16(&a), f32_to_f16(&b));
                    let want = tiled(&f16_to_f32(&a16), &f16_to_f32(&b16), m, n, k);
                    (
                        padded(&a16, m, k, l.a_row),
                        padded(&b16, k, n, l.b_row),
                        want,
                    )
                }
            };
            let whole = BufferRef::from(&operands_buf);
            let a_ref = whole.clone().range(a_at, a_bytes);
            let b_ref = whole.range(b_at, b_bytes);
            ctx.write_buffer(&a_ref, &pa).unwrap();
            ctx.write_buffer(&b_ref, &pb).unwrap();
            let mut enc = ctx.encoder();
            g.record(&mut enc, &[a_ref, b_ref], cbuf.slice(c_at, l.c_bytes))
                .unwrap();
            util::submit(t, enc);
            let words = util::words(t, &cbuf);
            let first = (c_at / 4) as usize;
            let c: Vec<f32> = bytemuck::cast_slice(&words[first..first + m * n]).to_vec();
            let e = rel_frobenius(&c, &want);
            assert!(
                e <= TOL_F16_IN,
                "{fmt:?} {m}x{n}x{k} frame {frame}: error {e:e}"
            );
            let last = first + (l.c_bytes / 4) as usize;
            assert!(
                words[..first]
                    .iter()
                    .chain(&words[last..])
                    .all(|&w| w == 0x1234_5678),
                "{fmt:?}: words around C written"
            );
        }
    }
}

/// A device that allows 4 workgroups per dimension: every kernel's grid folds into more rows
/// of the dispatch (checked on its plan) and still computes every tile once (the simulator
/// reports any unwritten element of C).
fn folded_grids(_: &Target) {
    let mut config = SimConfig::default();
    config.profile.max_workgroups_per_dim = 4;
    let t = Target::new("sim-4-workgroups", Context::simulator(config).unwrap());
    for (path, s) in [
        (PathChoice::Tiled, (130, 600, 20)),
        (PathChoice::Coop, (130, 600, 20)),
        (PathChoice::Gemv, (9, 70, 8)),
    ] {
        let opts = GemmOptions {
            path,
            split: Some(1),
            ..GemmOptions::default()
        };
        let built = gemm::plan(t.caps(), Format::F16, s.0, s.1, s.2, opts).unwrap();
        let folded = built.plan.passes.iter().any(|p| {
            matches!(p.workgroups, wgsimd::plan::Workgroups::Direct([x, y, _]) if x == 4 && y > 1)
        });
        let grids: Vec<_> = built.plan.passes.iter().map(|p| p.workgroups).collect();
        assert!(folded, "{path:?} {s:?}: no grid folded: {grids:?}");
        check(&t, Format::F16, s, opts);
    }
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    let x = vec![0f32; 64];
    let h = vec![0u16; 64];
    util::refused(
        "A too short",
        execute(
            ctx,
            Operand::F32(&x),
            Operand::F32(&x),
            8,
            8,
            9,
            GemmOptions::default(),
        ),
    );
    util::refused(
        "M = 0",
        execute(
            ctx,
            Operand::F32(&[]),
            Operand::F32(&x),
            0,
            8,
            8,
            GemmOptions::default(),
        ),
    );
    util::refused(
        "f32 × f16",
        execute(
            ctx,
            Operand::F32(&x),
            Operand::F16(&h),
            8,
            8,
            8,
            GemmOptions::default(),
        ),
    );
    util::refused(
        "a policy off the kernel's block",
        Gemm::new(
            ctx,
            Format::F32,
            64,
            64,
            64,
            GemmOptions {
                path: PathChoice::Tiled,
                policy: Some(GemmPolicy::tile(60, 128, 8, 0)),
                ..GemmOptions::default()
            },
        )
        .map(|_| ()),
    );
    let bad_w = Int4Weights {
        k: 8,
        n: 2,
        packed: vec![0],
        scales: vec![0; 2],
        zeros: None,
    };
    util::refused(
        "int4 weights of the wrong length",
        execute_int4(ctx, &h[..8], &bad_w, 1, GemmOptions::default()),
    );
    let g = Gemm::new(ctx, Format::F32, 8, 8, 8, GemmOptions::default()).unwrap();
    let a = ctx.zeroed("a", 256).unwrap();
    let c = ctx.uninit("c", g.layout().c_bytes).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "one operand",
        g.record(&mut enc, &[BufferRef::from(&a)], &c),
    );
    util::refused(
        "C too small",
        g.record(
            &mut enc,
            &[BufferRef::from(&a), BufferRef::from(&a)],
            c.slice(0, 16),
        ),
    );
    util::refused(
        "B too small",
        g.record(&mut enc, &[BufferRef::from(&a), a.slice(0, 16)], &c),
    );
}

/// The error measure rejects a product one element off, and any NaN.
fn the_check_can_fail(_: &Target) {
    let (a, b) = operands(16, 16, 16, 1);
    let want = tiled(&a, &b, 16, 16, 16);
    let mut got: Vec<f32> = want.iter().map(|&x| x as f32).collect();
    assert!(rel_frobenius(&got, &want) <= TOL_F32);
    got[37] += 0.01;
    assert!(rel_frobenius(&got, &want) > TOL_F32);
    got[37] = f32::NAN;
    assert!(rel_frobenius(&got, &want).is_infinite());
}
