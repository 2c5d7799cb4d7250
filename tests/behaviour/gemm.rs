//! GEMM against the f64 reference (relative Frobenius error): f32 and f16 inputs, int4
//! weights with and without zero points, every kernel the target runs (register-tiled,
//! few-rows, cooperative matrices where offered, split K), f16 output bit for bit as the host
//! rounds, shapes with partial tiles on every edge; recorded on the caller's buffers. On the
//! simulator C starts undefined, so an element no workgroup writes is a finding: the coverage
//! proof for every policy the host uses.

use rand::Rng;
use wgsimd::gemm::{
    self, coop_offered, execute, execute_int4, Format, Gemm, GemmOptions, GemmOutput, GemmPolicy,
    GemmShape, Int4Weights, MatrixLayout, Operand, OutFormat, Path, PathChoice,
};
use wgsimd::plan::Workgroups;
use wgsimd::reference::gemm::{f16_to_f32, f32_to_f16, rel_frobenius, tiled, Int4};
use wgsimd::sim::{Schedule, SimConfig};
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
        Test::new(
            "gemm::int4_weights_past_f16",
            On::Every,
            int4_weights_past_f16,
        ),
        Test::new(
            "gemm::int4_few_rows_in_one_long_k_slice",
            On::Every,
            int4_long_k_slice,
        ),
        Test::new(
            "gemm::few_rows_a_chunk_in_six_loads",
            On::Every,
            few_rows_a_in_six_loads,
        ),
        Test::new("gemm::recorded_on_caller_buffers", On::Every, recorded),
        Test::new("gemm::caller_layouts", On::Every, layouts),
        Test::new("gemm::int4_caller_layouts", On::Every, int4_layouts),
        Test::new("gemm::bad_layouts", On::Once, bad_layouts),
        Test::new(
            "gemm::grids_past_the_dispatch_limit",
            On::Once,
            folded_grids,
        ),
        Test::new("gemm::bad_input", On::Once, bad_input),
        Test::new("gemm::the_check_can_fail", On::Once, the_check_can_fail),
    ]
}

/// The schedules the GEMM cases run under on the simulator: lockstep and round-robin, whose
/// independent subgroups meet at the tile loads' barriers; not the whole default exploration,
/// which the sort, scan, reduction and queue cases run (a GEMM workgroup waits on no other,
/// so the preemptive schedules have little more to find, and the suite's time doubles). Every
/// case on every target starts by pinning its target to them (`Target::with_schedules`).
const SCHEDULES: [Schedule; 2] = [Schedule::Lockstep, Schedule::RoundRobin];

/// f32 inputs, f32 accumulation.
const TOL_F32: f64 = 1e-5;
/// f16 (or int4) inputs, C in f32: the reference multiplies the very f16 values, so only the
/// f32 accumulation errs; twice the f32 bound for tensor cores, whose additions need not round
/// to nearest. A C rounded to f16 (2.8e-4 typical) fails it.
const TOL_F16_IN: f64 = 2e-5;
/// int4 weights on cooperative matrices, against the product with each weight rounded to
/// nearest f16 (the kernel stages them as f16): WGSL lets an f32 → f16 conversion round either
/// way, so a weight may sit one f16 step (2^-10 relative) from the reference's, about 3e-4 on
/// C's norm where every weight does. A wrong nibble, scale or zero point costs O(0.1).
const TOL_INT4_COOP: f64 = 1e-3;

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
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
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
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
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
        // few tiles and a long K: K in slices, their partial products (C's rows padded to
        // whole tiles) summed by the split-K sum
        // (coop16's few-rows tiles, `coop::rows_tile`: 16 rows, 32 rows across C's right edge
        // and not, 64 rows)
        for s in [
            (20, 130, 1000),
            (gemm::COOP_MIN_M, 64, 1024),
            (16, 264, 1024),
            (40, 256, 1024),
        ] {
            let built = gemm::plan(caps, Format::F16, s.0, s.1, s.2, coop).unwrap();
            assert_eq!(
                built.plan.pass_labels().last().map(String::as_str),
                Some("split-k sum"),
                "{s:?}: K not split"
            );
            check(t, Format::F16, s, coop);
        }
        // a split asked for is the one planned (3 slices of 11, 11 and 10 K steps)
        let forced = GemmOptions {
            split: Some(3),
            ..coop
        };
        let built = gemm::plan(caps, Format::F16, 16, 264, 1000, forced).unwrap();
        let slices = built.plan.passes.iter().find_map(|p| match p.workgroups {
            Workgroups::Direct([_, _, z]) if p.kernel.name.starts_with("gemm/coop") => Some(z),
            _ => None,
        });
        assert_eq!(slices, Some(3), "the product pass's K slices");
        check(t, Format::F16, (16, 264, 1000), forced);
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
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
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
        // (cooperative matrices split K from a few tiles and a long K: the sum rounds)
        let split_coop: &[(usize, usize, usize)] = match path {
            PathChoice::Coop => &[(20, 66, 1024)],
            _ => &[],
        };
        let shapes = [(3, 64, 96), (70, 66, 40), (33, 65, 17), (1, 5, 300)];
        for &(m, n, k) in shapes.iter().chain(split_coop) {
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

/// The paths int4 weights take on `t`: the portable ones, and cooperative matrices where they
/// are offered.
fn int4_paths(t: &Target) -> Vec<PathChoice> {
    let mut paths = vec![PathChoice::Auto, PathChoice::Tiled, PathChoice::Gemv];
    if coop_offered(t.caps()) {
        paths.push(PathChoice::Coop);
    }
    paths
}

fn int4_weights(t: &Target) {
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
    // (3×260×521 and 16×66×1024 on coop16: K in slices, the partial products summed; 521 ends
    // in a part of a packed word, of a K step and of a group; 260 and 256 take a second column
    // tile of int4's 16-row tile, 256 without the edge path)
    let shapes = [
        (1, 64, 128),
        (3, 260, 521),
        (17, 48, 129),
        (70, 40, 256),
        (16, 66, 1024),
        (16, 256, 200),
    ];
    for &(m, n, k) in &shapes {
        let (a, w) = operands(m, n, k, 5);
        let a16 = f32_to_f16(&a);
        let mut weights = Int4Weights::quantize(&w, k, n).unwrap();
        for zeros in [false, true] {
            if zeros {
                set_zero_points(&mut weights, n);
            }
            let oracle = Int4 {
                k,
                n,
                packed: &weights.packed,
                scales: &weights.scales,
                zeros: weights.zeros.as_deref(),
            };
            let want = wgsimd::reference::gemm::int4(&a16, &oracle, m);
            // (the cooperative path's reference: every weight rounded to f16)
            let w16 = f16_to_f32(&f32_to_f16(&weights.dequantize().unwrap()));
            let want16 = tiled(&f16_to_f32(&a16), &w16, m, n, k);
            for path in int4_paths(t) {
                let opts = GemmOptions {
                    path,
                    ..GemmOptions::default()
                };
                let (c, ran) = execute_int4(&t.ctx, &a16, &weights, m, opts)
                    .unwrap_or_else(|e| panic!("int4 {m}x{n}x{k} {path:?}: {e}"));
                let (want, tol) = match ran {
                    Path::Coop16 | Path::Coop8 => (&want16, TOL_INT4_COOP),
                    _ => (&want, TOL_F16_IN),
                };
                let e = rel_frobenius(&f32_of(c), want);
                assert!(
                    e <= tol,
                    "int4 {m}x{n}x{k}, zeros {zeros}, {path:?} ran {ran:?}: error {e:e}"
                );
                if path == PathChoice::Coop {
                    assert!(
                        matches!(ran, Path::Coop16 | Path::Coop8),
                        "int4 {m}x{n}x{k}"
                    );
                    // (K split where it has 2 slices of 4 steps or more: K = 521 and 1024
                    // on the few-rows tiles, steps of 64 (int4's 16-row tile) or 32; 129 and
                    // 256 are 5 and 4 steps of 32, 200 fewer than 8 of either)
                    let built = gemm::plan_int4(t.caps(), m, k, n, zeros, opts).unwrap();
                    let last = built.plan.pass_labels().last().cloned();
                    assert_eq!(
                        last.as_deref() == Some("split-k sum"),
                        k >= 521,
                        "int4 {m}x{n}x{k}: passes {:?}",
                        built.plan.pass_labels()
                    );
                }
            }
        }
    }
}

/// Zero points from 5 to below 12, integers and fractions (exact in f16), for `n`-column
/// weights, varying along K as well as across columns.
fn set_zero_points(weights: &mut Int4Weights, n: usize) {
    let g = weights.groups() * n;
    weights.zeros = Some(
        (0..g as u64)
            .map(|j| {
                // (fractions down to the f16 step at 8..12, 2^-7: the few-rows kernel subtracts
                // them exactly)
                let h = j.wrapping_mul(2_654_435_761) >> 13;
                let frac = [0.0, 0.3125, 0.6875, 0.0078125][(h / 7 % 4) as usize];
                let z = (h % 7) as f32 + 5.0 + frac;
                half::f16::from_f32(z).to_bits()
            })
            .collect(),
    );
}

/// Two rows of int4 weights 2048 wide with K = 9000: the few-rows kernel takes all of K in one
/// workgroup slice (policy `GEMV_INT4_LONG_SLICE`: K in chunks that fit A's copy in workgroup
/// memory and its loads in registers, the slice rounded past K, the last chunk ragged), no
/// split-K sum, with and without zero points (the simulator, which proves the kernel's accesses
/// in bounds, runs the zero points only: each product takes it seconds).
fn int4_long_k_slice(t: &Target) {
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
    let (m, n, k) = (2, 2048, 9000);
    let (a, w) = operands(m, n, k, 11);
    let a16 = f32_to_f16(&a);
    let mut weights = Int4Weights::quantize(&w, k, n).unwrap();
    let zero_points: &[bool] = if t.is_sim() { &[true] } else { &[false, true] };
    for &zeros in zero_points {
        if zeros {
            set_zero_points(&mut weights, n);
        }
        let built = gemm::plan_int4(t.caps(), m, k, n, zeros, GemmOptions::default()).unwrap();
        assert_eq!(built.plan.pass_labels(), ["gemv"], "int4 {m}x{n}x{k}");
        let oracle = Int4 {
            k,
            n,
            packed: &weights.packed,
            scales: &weights.scales,
            zeros: weights.zeros.as_deref(),
        };
        let want = wgsimd::reference::gemm::int4(&a16, &oracle, m);
        let (c, ran) = execute_int4(&t.ctx, &a16, &weights, m, GemmOptions::default()).unwrap();
        assert_eq!(ran, Path::Gemv);
        let e = rel_frobenius(&f32_of(c), &want);
        assert!(
            e <= TOL_F16_IN,
            "int4 {m}x{n}x{k}, zeros {zeros}: error {e:e}"
        );
    }
}

/// Four rows of f32 on the few-rows kernel in one K slice of 3000: chunks of 1536 of K, where
/// 32 or 48 KiB of workgroup memory would hold more, so that a chunk's 1536 loads of A are the
/// six an invocation holds in registers (`A_LOADS`), every one used, the second chunk ragged.
fn few_rows_a_in_six_loads(t: &Target) {
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
    let (m, n, k) = (4, 40, 3000);
    let opts = GemmOptions {
        path: PathChoice::Gemv,
        split: Some(1),
        ..GemmOptions::default()
    };
    let built = gemm::plan(t.caps(), Format::F32, m, n, k, opts).unwrap();
    let pass = built
        .plan
        .passes
        .iter()
        .find(|p| p.label == "gemv")
        .unwrap();
    let knob = |name: &str| pass.override_value(name).unwrap();
    assert_eq!(
        knob("ROWS") * knob("CHUNK") / 4.0,
        6.0 * 256.0,
        "{:?}",
        pass.overrides
    );
    assert_eq!(check(t, Format::F32, (m, n, k), opts), Path::Gemv);
}

/// int4 weights whose codes dequantize past f16's 65504 (a group of max |w| 300000: scale
/// about 43000): `Auto` multiplies them in f32 on the portable kernels where cooperative
/// matrices would take them as f16 (inf), and a forced `Coop` is a typed error.
fn int4_weights_past_f16(t: &Target) {
    let (m, n, k) = (20, 16, 256);
    let (a, mut w) = operands(m, n, k, 11);
    w[3 * n + 5] = 300_000.0;
    let a16 = f32_to_f16(&a);
    let weights = Int4Weights::quantize(&w, k, n).unwrap();
    assert!(weights.beyond_f16().is_some());
    let oracle = Int4 {
        k,
        n,
        packed: &weights.packed,
        scales: &weights.scales,
        zeros: None,
    };
    let want = wgsimd::reference::gemm::int4(&a16, &oracle, m);
    let (c, ran) = execute_int4(&t.ctx, &a16, &weights, m, GemmOptions::default())
        .unwrap_or_else(|e| panic!("Auto: {e}"));
    assert!(matches!(ran, Path::Tiled | Path::Gemv), "{ran:?}");
    let e = rel_frobenius(&f32_of(c), &want);
    assert!(e <= TOL_F16_IN, "Auto ran {ran:?}: error {e:e}");
    if int4_paths(t).contains(&PathChoice::Coop) {
        let coop = GemmOptions {
            path: PathChoice::Coop,
            ..GemmOptions::default()
        };
        util::refused(
            "int4 weights past f16 on cooperative matrices",
            execute_int4(&t.ctx, &a16, &weights, m, coop),
        );
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
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
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
            let a_ref = whole.range(a_at, a_bytes);
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

/// A GEMM on the caller's layout: row strides past the row length (by `pad` loads for A and B,
/// `pad` elements for C), offsets (`off`, the same units), a batch with gaps between the
/// matrices (`gap`, the same units; B's `None` gap: matrix stride 0, one B for the batch), B
/// stored transposed.
#[derive(Clone, Copy, Debug)]
struct LayoutCase {
    what: &'static str,
    fmt: Format,
    out: OutFormat,
    mnk: (usize, usize, usize),
    batch: usize,
    bt: bool,
    pad: [usize; 3],
    off: [usize; 3],
    gap: [Option<usize>; 3],
}

const fn lc(what: &'static str, fmt: Format, mnk: (usize, usize, usize)) -> LayoutCase {
    LayoutCase {
        what,
        fmt,
        out: OutFormat::F32,
        mnk,
        batch: 1,
        bt: false,
        pad: [1, 1, 3],
        off: [0, 0, 0],
        gap: [Some(0); 3],
    }
}

/// The layout cases: strided A, B, C (padding poisoned: NaN in A and B, a pattern in C that must
/// stay), transposed B, a batch of 3 with matrix strides, offsets, M, N, K of 1, a tile ±1, odd
/// shapes, f16 C with N odd (the last word of each row shared with the padding).
fn layout_cases() -> Vec<LayoutCase> {
    use Format::{F16, F32};
    let batch = |c: LayoutCase, gap: [Option<usize>; 3]| LayoutCase { batch: 3, gap, ..c };
    let at = |c: LayoutCase, off: [usize; 3]| LayoutCase { off, ..c };
    let bt = |c: LayoutCase| LayoutCase { bt: true, ..c };
    let f16c = |c: LayoutCase| LayoutCase {
        out: OutFormat::F16,
        ..c
    };
    vec![
        lc("strided", F32, (33, 70, 45)),
        lc("strided", F16, (20, 40, 27)),
        bt(lc("transposed B", F32, (9, 33, 21))),
        bt(lc("transposed B", F16, (40, 17, 30))),
        batch(
            at(lc("batch, offsets", F32, (17, 20, 13)), [1, 2, 7]),
            [Some(1), Some(2), Some(5)],
        ),
        f16c(batch(
            bt(lc("batch, transposed B", F16, (5, 18, 40))),
            [Some(0), Some(1), Some(2)],
        )),
        batch(
            lc("batch, one B", F16, (6, 12, 9)),
            [Some(1), None, Some(0)],
        ),
        at(lc("1x1x1", F32, (1, 1, 1)), [1, 3, 5]),
        f16c(at(lc("1x1x1", F16, (1, 1, 1)), [1, 1, 1])),
        lc("tile - 1, + 1", F16, (63, 129, 9)),
        bt(lc("tile + 1, - 1", F32, (65, 127, 7))),
        f16c(lc("odd, f16 C", F16, (7, 13, 11))),
        f16c(bt(lc("odd, f16 C", F16, (19, 9, 5)))),
    ]
}

/// f32 NaN and f16 NaN: the padding of A and B, never to be read as data.
const NAN32: u32 = 0x7fc0_0000;
const NAN16: u16 = 0x7e00;
/// C's padding: must keep its bits.
const C_POISON: u32 = 0xdead_beef;

/// A matrix's strides in elements: (offset, row stride, matrix stride), from `c`'s units.
fn strides(
    (rows, cols): (usize, usize),
    unit: usize,
    pad: usize,
    off: usize,
    gap: Option<usize>,
) -> (usize, usize, usize) {
    let row = cols.div_ceil(unit) * unit + pad * unit;
    let mat = gap.map_or(0, |g| rows * row + g * unit);
    (off * unit, row, mat)
}

/// `x` (`batch` matrices of rows × cols, row-major, one after the other; or one, when the matrix
/// stride is 0) placed into `buf` at (offset, row stride, matrix stride).
fn place<T: Copy>(
    buf: &mut [T],
    x: &[T],
    (rows, cols): (usize, usize),
    (off, row, mat): (usize, usize, usize),
    batch: usize,
) {
    for b in 0..batch {
        let src = if mat == 0 { 0 } else { b * rows * cols };
        for r in 0..rows {
            let at = off + b * mat + r * row;
            buf[at..at + cols].copy_from_slice(&x[src + r * cols..src + (r + 1) * cols]);
        }
    }
}

/// Elements to one past the last load of a strided operand (loads of `unit`).
fn extent(
    (rows, cols): (usize, usize),
    (off, row, mat): (usize, usize, usize),
    batch: usize,
    unit: usize,
) -> usize {
    off + (batch - 1) * mat + (rows - 1) * row + cols.div_ceil(unit) * unit
}

/// Runs one layout case with `opts` (its buffers exactly the size its layout needs), checks
/// every matrix of C against the f64 product and every other element of C's buffer against its
/// poison; returns the kernel that ran.
fn layout_check(t: &Target, c: &LayoutCase, opts: GemmOptions) -> Path {
    let (m, n, k) = c.mnk;
    let opts = GemmOptions { out: c.out, ..opts };
    let what = format!("{} {:?} {c:?} {opts:?}", c.what, c.fmt);
    let unit = c.fmt.per_load() as usize;
    let (b_rows, b_cols) = if c.bt { (n, k) } else { (k, n) };
    let sa = strides((m, k), unit, c.pad[0], c.off[0], c.gap[0]);
    let sb = strides((b_rows, b_cols), unit, c.pad[1], c.off[1], c.gap[1]);
    let mut sc = strides((m, n), 1, c.pad[2], c.off[2], c.gap[2]);
    if c.out == OutFormat::F16 {
        // f16 C: even strides and offset (words of two)
        let even = |x: usize| x + x % 2;
        sc = (
            even(sc.0),
            even(sc.1),
            even(m * even(sc.1) + c.gap[2].unwrap_or(0)),
        );
    }
    let layout =
        |(off, row, mat): (usize, usize, usize)| MatrixLayout::rows(row).at(off).matrices(mat);
    let mut shape = GemmShape::new(m, n, k)
        .a(layout(sa))
        .b(layout(sb))
        .c(layout(sc))
        .batch(c.batch);
    if c.bt {
        shape = shape.transposed_b();
    }
    let g = Gemm::with_shape(&t.ctx, c.fmt, shape, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    // every matrix's A and B (one B where its matrix stride is 0), f16-rounded for f16
    let mut r = data::rng((m * 131 + n * 17 + k + c.batch) as u64);
    let mut rand = |len: usize| -> Vec<f32> {
        let x: Vec<f32> = (0..len).map(|_| r.random_range(-1.0f32..1.0)).collect();
        match c.fmt {
            Format::F32 => x,
            _ => f16_to_f32(&f32_to_f16(&x)),
        }
    };
    let b_count = if sb.2 == 0 { 1 } else { c.batch };
    let a = rand(c.batch * m * k);
    let b = rand(b_count * k * n);
    let (a_len, b_len) = (
        extent((m, k), sa, c.batch, unit),
        extent((b_rows, b_cols), sb, c.batch, unit),
    );
    let bytes = |x: usize| x * if c.fmt == Format::F32 { 4 } else { 2 };
    assert_eq!(g.layout().a_bytes, bytes(a_len) as u64, "{what}: A's bytes");
    assert_eq!(g.layout().b_bytes, bytes(b_len) as u64, "{what}: B's bytes");
    let upload = |x: &[f32], (rows, cols): (usize, usize), s, len: usize, label| match c.fmt {
        Format::F32 => {
            let mut buf = vec![NAN32; len];
            place(
                &mut buf,
                bytemuck::cast_slice::<f32, u32>(x),
                (rows, cols),
                s,
                c.batch,
            );
            t.ctx.upload(label, &buf).unwrap()
        }
        _ => {
            let mut buf = vec![NAN16; len.next_multiple_of(2)];
            place(&mut buf, &f32_to_f16(x), (rows, cols), s, c.batch);
            t.ctx.upload(label, &buf).unwrap()
        }
    };
    // B stored transposed: its N×K storage
    let b_stored: Vec<f32> = if c.bt {
        (0..b_count)
            .flat_map(|i| {
                let b = &b[i * k * n..(i + 1) * k * n];
                (0..n).flat_map(move |j| (0..k).map(move |p| b[p * n + j]))
            })
            .collect()
    } else {
        b.clone()
    };
    let a_buf = upload(&a, (m, k), sa, a_len, "a");
    let b_buf = upload(&b_stored, (b_rows, b_cols), sb, b_len, "b");
    // C: exactly its extent, poisoned
    let c_len = extent((m, n), sc, c.batch, 1);
    let c_words = match c.out {
        OutFormat::F32 => c_len,
        OutFormat::F16 => c_len.div_ceil(2),
    };
    assert_eq!(g.layout().c_bytes, c_words as u64 * 4, "{what}: C's bytes");
    let c_buf = t.ctx.upload("c", &vec![C_POISON; c_words]).unwrap();
    let mut enc = t.ctx.encoder();
    g.record(
        &mut enc,
        &[BufferRef::from(&a_buf), BufferRef::from(&b_buf)],
        &c_buf,
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    util::submit(t, enc);
    let words = util::words(t, &c_buf);
    // every element: C's, or poison
    let (off, row, mat) = sc;
    let mut inside = vec![false; c_len];
    let mut got = Vec::with_capacity(c.batch * m * n);
    for bi in 0..c.batch {
        for i in 0..m {
            for j in 0..n {
                let e = off + bi * mat + i * row + j;
                inside[e] = true;
                got.push(match c.out {
                    OutFormat::F32 => f32::from_bits(words[e]),
                    OutFormat::F16 => {
                        half::f16::from_bits((words[e / 2] >> (16 * (e % 2))) as u16).to_f32()
                    }
                });
            }
        }
    }
    for (e, _) in inside.iter().enumerate().filter(|(_, x)| !**x) {
        let poison = match c.out {
            OutFormat::F32 => words[e] == C_POISON,
            OutFormat::F16 => {
                (words[e / 2] >> (16 * (e % 2))) & 0xffff == (C_POISON >> (16 * (e % 2))) & 0xffff
            }
        };
        assert!(
            poison,
            "{what}: C's element {e}, outside its matrices, was written"
        );
    }
    let want: Vec<f64> = (0..c.batch)
        .flat_map(|bi| {
            let a = &a[bi * m * k..(bi + 1) * m * k];
            let bo = if b_count == 1 { 0 } else { bi * k * n };
            tiled(a, &b[bo..bo + k * n], m, n, k)
        })
        .collect();
    let tol = match (c.out, c.fmt) {
        (OutFormat::F16, _) => 1e-3,
        (_, Format::F32) => TOL_F32,
        _ => TOL_F16_IN,
    };
    let e = rel_frobenius(&got, &want);
    let path = g.path();
    assert!(
        e <= tol,
        "{what} by {path:?}: relative error {e:e} > {tol:e}"
    );
    path
}

/// Every layout case on every kernel the target runs: register-tiled, few-rows, each with K
/// split, `Auto`, and cooperative matrices where offered (f16).
fn layouts(t: &Target) {
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
    let coop = coop_offered(t.caps());
    for c in layout_cases() {
        let mut choices = vec![
            (PathChoice::Auto, None),
            (PathChoice::Tiled, None),
            (PathChoice::Gemv, None),
            (PathChoice::Tiled, Some(2)),
            (PathChoice::Gemv, Some(2)),
        ];
        if coop && c.fmt == Format::F16 {
            choices.push((PathChoice::Coop, None));
        }
        for (path, split) in choices {
            let opts = GemmOptions {
                path,
                split,
                ..GemmOptions::default()
            };
            let ran = layout_check(t, &c, opts);
            if path == PathChoice::Coop {
                assert!(matches!(ran, Path::Coop16 | Path::Coop8), "{c:?}: {ran:?}");
            }
        }
    }
}

/// int4 weights with A and C at the caller's layout: strided, at offsets, a batch of 3 sharing
/// the weights, f32 and f16 C, on each portable kernel.
fn int4_layouts(t: &Target) {
    let pinned = t.with_schedules(&SCHEDULES);
    let t = &pinned;
    for &(m, n, k, batch, out) in &[
        (3, 33, 300, 3, OutFormat::F32),
        (17, 48, 129, 1, OutFormat::F16),
        (2, 7, 20, 3, OutFormat::F16),
    ] {
        let (a, w) = operands(batch * m, n, k, 9);
        let a16 = f32_to_f16(&a);
        let weights = Int4Weights::quantize(&w[..k * n], k, n).unwrap();
        let oracle = Int4 {
            k,
            n,
            packed: &weights.packed,
            scales: &weights.scales,
            zeros: None,
        };
        let want = wgsimd::reference::gemm::int4(&a16, &oracle, batch * m);
        // (the cooperative path's reference: every weight rounded to f16, `int4_weights`)
        let w16 = f16_to_f32(&f32_to_f16(&weights.dequantize().unwrap()));
        let want16 = tiled(&f16_to_f32(&a16), &w16, batch * m, n, k);
        let sa = strides((m, k), 8, 1, 2, Some(1));
        // (even: f16 C is written in words of two)
        let sc = strides((m, n), 1, 5 + (n + 5) % 2, 4, Some(2));
        let sa = if batch == 1 { (sa.0, sa.1, 0) } else { sa };
        let shape = GemmShape::new(m, n, k)
            .a(MatrixLayout::rows(sa.1).at(sa.0).matrices(sa.2))
            .c(MatrixLayout::rows(sc.1).at(sc.0).matrices(sc.2))
            .batch(batch);
        let a_len = extent((m, k), sa, batch, 8);
        let mut abuf = vec![NAN16; a_len.next_multiple_of(2)];
        place(&mut abuf, &a16, (m, k), sa, batch);
        let c_len = extent((m, n), sc, batch, 1);
        let c_words = if out == OutFormat::F32 {
            c_len
        } else {
            c_len.div_ceil(2)
        };
        let half = |h: &[u16]| {
            let mut v = h.to_vec();
            v.resize(h.len().next_multiple_of(8), 0);
            t.ctx.upload("h", &v).unwrap()
        };
        let mut packed = weights.packed.clone();
        packed.resize(packed.len().next_multiple_of(4), 0);
        let (abuf, wbuf, sbuf) = (
            t.ctx.upload("a", &abuf).unwrap(),
            t.ctx.upload("w", &packed).unwrap(),
            half(&weights.scales),
        );
        for path in int4_paths(t) {
            let opts = GemmOptions {
                path,
                out,
                ..GemmOptions::default()
            };
            let what = format!("int4 {batch}x{m}x{n}x{k} {opts:?}");
            let g = Gemm::int4_with_shape(&t.ctx, shape, false, opts)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let cbuf = t.ctx.upload("c", &vec![C_POISON; c_words]).unwrap();
            let mut enc = t.ctx.encoder();
            let inputs = [
                BufferRef::from(&abuf),
                BufferRef::from(&wbuf),
                BufferRef::from(&sbuf),
            ];
            g.record(&mut enc, &inputs, &cbuf)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            util::submit(t, enc);
            let words = util::words(t, &cbuf);
            let mut got = Vec::new();
            let mut inside = vec![false; c_len];
            for bi in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let e = sc.0 + bi * sc.2 + i * sc.1 + j;
                        inside[e] = true;
                        got.push(match out {
                            OutFormat::F32 => f32::from_bits(words[e]),
                            OutFormat::F16 => {
                                half::f16::from_bits((words[e / 2] >> (16 * (e % 2))) as u16)
                                    .to_f32()
                            }
                        });
                    }
                }
            }
            for e in (0..c_len).filter(|&e| !inside[e]) {
                let ok = match out {
                    OutFormat::F32 => words[e] == C_POISON,
                    OutFormat::F16 => {
                        (words[e / 2] >> (16 * (e % 2))) & 0xffff
                            == (C_POISON >> (16 * (e % 2))) & 0xffff
                    }
                };
                assert!(
                    ok,
                    "{what}: C's element {e}, outside its matrices, was written"
                );
            }
            let (want, tol) = match (g.path(), out) {
                (Path::Coop16 | Path::Coop8, _) => (&want16, TOL_INT4_COOP),
                (_, OutFormat::F16) => (&want, 1e-3),
                _ => (&want, TOL_F16_IN),
            };
            let e = rel_frobenius(&got, want);
            assert!(e <= tol, "{what} ran {:?}: error {e:e}", g.path());
        }
    }
}

/// Layouts the kernels cannot take, and buffers too small for a layout: typed errors naming
/// the operand.
fn bad_layouts(t: &Target) {
    let ctx = &t.ctx;
    let opts = GemmOptions::default();
    let names = |what: &str, r: wgsimd::Result<Gemm>, operand: &str| match r {
        Err(wgsimd::Error::Layout {
            operand: o,
            message,
        }) => {
            assert_eq!(o, operand, "{what}: {message}")
        }
        Err(e) => panic!("{what}: expected a layout error naming {operand}, got {e:?}"),
        Ok(_) => panic!("{what}: accepted"),
    };
    let s = GemmShape::new(8, 12, 10);
    let f32 = Format::F32;
    names(
        "A's stride below K",
        Gemm::with_shape(ctx, f32, s.a(MatrixLayout::rows(8)), opts),
        "A",
    );
    names(
        "B's stride below N",
        Gemm::with_shape(ctx, f32, s.b(MatrixLayout::rows(8)), opts),
        "B",
    );
    names(
        "transposed B's stride below K",
        Gemm::with_shape(ctx, f32, s.b(MatrixLayout::rows(8)).transposed_b(), opts),
        "B",
    );
    names(
        "C's stride below N",
        Gemm::with_shape(ctx, f32, s.c(MatrixLayout::rows(11)), opts),
        "C",
    );
    names(
        "A's stride off the f32 loads",
        Gemm::with_shape(ctx, f32, s.a(MatrixLayout::rows(13)), opts),
        "A",
    );
    names(
        "A's offset off the f16 loads",
        Gemm::with_shape(ctx, Format::F16, s.a(MatrixLayout::rows(16).at(4)), opts),
        "A",
    );
    names(
        "B's matrix stride off the loads",
        Gemm::with_shape(
            ctx,
            f32,
            s.b(MatrixLayout::default().matrices(6)).batch(2),
            opts,
        ),
        "B",
    );
    let f16c = GemmOptions {
        out: OutFormat::F16,
        ..opts
    };
    names(
        "f16 C at an odd stride",
        Gemm::with_shape(ctx, f32, s.c(MatrixLayout::rows(13)), f16c),
        "C",
    );
    names(
        "C's matrices overlapping",
        Gemm::with_shape(
            ctx,
            f32,
            s.c(MatrixLayout::rows(12).matrices(90)).batch(2),
            opts,
        ),
        "C",
    );
    names(
        "int4 weights with a layout",
        Gemm::int4_with_shape(ctx, s.b(MatrixLayout::rows(16)), false, opts),
        "B",
    );
    util::refused(
        "a batch of 0",
        Gemm::with_shape(ctx, f32, s.batch(0), opts).map(|_| ()),
    );
    // buffers too small for batch × stride
    let shape = s
        .a(MatrixLayout::rows(12).matrices(100))
        .c(MatrixLayout::rows(16).matrices(130))
        .batch(3);
    let g = Gemm::with_shape(ctx, f32, shape, opts).unwrap();
    let l = g.layout();
    // A: 2 · 100 + 7 · 12 + 12 elements; C: 2 · 130 + 7 · 16 + 12
    assert_eq!(l.a_bytes, (200 + 84 + 12) * 4);
    assert_eq!(l.c_bytes, (260 + 112 + 12) * 4);
    let big = ctx.zeroed("big", 4096).unwrap();
    let mut enc = ctx.encoder();
    let too_small = |r: wgsimd::Result<()>, operand: &str| match r {
        Err(wgsimd::Error::Layout { operand: o, .. }) => assert_eq!(o, operand),
        other => panic!("{operand} too small: {other:?}"),
    };
    let whole = BufferRef::from(&big);
    too_small(
        g.record(&mut enc, &[big.slice(0, l.a_bytes - 16), whole], &big),
        "A",
    );
    too_small(
        g.record(&mut enc, &[whole, big.slice(0, l.b_bytes - 4)], &big),
        "B",
    );
    too_small(
        g.record(&mut enc, &[whole, whole], big.slice(0, l.c_bytes - 4)),
        "C",
    );
}
