//! Reductions against the CPU reference (exact integer sums, f32 sums within the reference's
//! bound of the f64 sum, min/max with NaN winning), through the host-slice function and
//! through recordings into the caller's buffers at offsets, with host and GPU counts.

use rand::Rng;
use wgsimd::dtype::Dtype;
use wgsimd::reduce::{reduce, ReduceOp, ReducePolicy, Reducer, Scalar};
use wgsimd::reference::reduce::{minmax, sum_i64, sum_u64, SumF32};
use wgsimd::{BufferRef, Count};

use crate::data::{self, SIM_MAX, SIZES};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "reduce::random_at_every_size",
            On::Every,
            random_at_every_size,
        ),
        Test::new("reduce::adversarial", On::Every, adversarial),
        Test::new(
            "reduce::recorded_at_offsets",
            On::Every,
            recorded_at_offsets,
        ),
        Test::new("reduce::count_from_the_gpu", On::Every, count_from_the_gpu),
        Test::new(
            "reduce::odd_workgroup_counts",
            On::Every,
            odd_workgroup_counts,
        ),
        Test::new("reduce::workgroup_tiers", On::Every, workgroup_tiers),
        Test::new("reduce::chunked_input", On::Once, chunked_input),
        Test::new("reduce::bad_input", On::Once, bad_input),
        Test::new("reduce::the_check_can_fail", On::Once, the_check_can_fail),
    ]
}

const OPS: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max];

/// An input of one of the three element types.
#[derive(Clone, Debug)]
pub enum Data {
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
}

impl Data {
    fn random(dtype: Dtype, n: usize, seed: u64) -> Data {
        let u = data::random_u32(n, seed);
        match dtype {
            Dtype::U32 => Data::U32(u),
            Dtype::I32 => Data::I32(u.into_iter().map(|x| x as i32).collect()),
            _ => Data::F32(data::random_f32(n, seed)),
        }
    }

    fn all(n: usize, seed: u64) -> Vec<Data> {
        [Dtype::U32, Dtype::I32, Dtype::F32]
            .into_iter()
            .map(|d| Data::random(d, n, seed))
            .collect()
    }

    fn len(&self) -> usize {
        match self {
            Data::U32(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::F32(v) => v.len(),
        }
    }

    fn dtype(&self) -> Dtype {
        match self {
            Data::U32(_) => Dtype::U32,
            Data::I32(_) => Dtype::I32,
            Data::F32(_) => Dtype::F32,
        }
    }

    fn bits(&self) -> Vec<u32> {
        match self {
            Data::U32(v) => v.clone(),
            Data::I32(v) => bytemuck::cast_slice(v).to_vec(),
            Data::F32(v) => bytemuck::cast_slice(v).to_vec(),
        }
    }

    fn reduce(&self, t: &Target, op: ReduceOp) -> wgsimd::Result<Scalar> {
        match self {
            Data::U32(v) => reduce(&t.ctx, v, op),
            Data::I32(v) => reduce(&t.ctx, v, op),
            Data::F32(v) => reduce(&t.ctx, v, op),
        }
    }

    /// Whether `got` is the reduction of this input by `op`.
    pub fn check(&self, op: ReduceOp, got: Scalar) -> Result<(), String> {
        let max = op == ReduceOp::Max;
        let same = |want: Scalar| {
            let eq = match (got, want) {
                (Scalar::F32(g), Scalar::F32(w)) => {
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())
                }
                _ => got == want,
            };
            if eq {
                Ok(())
            } else {
                Err(format!("got {got}, want {want}"))
            }
        };
        match (self, op) {
            (Data::U32(v), ReduceOp::Sum) => same(Scalar::U64(sum_u64(v))),
            (Data::I32(v), ReduceOp::Sum) => same(Scalar::I64(sum_i64(v))),
            (Data::F32(v), ReduceOp::Sum) => match got {
                Scalar::F32(g) => SumF32::of(v).check(g),
                other => Err(format!("an f32 sum came back as {other:?}")),
            },
            (Data::U32(v), _) => same(Scalar::U32(minmax(v, max).expect("non-empty"))),
            (Data::I32(v), _) => same(Scalar::I32(minmax(v, max).expect("non-empty"))),
            (Data::F32(v), _) => same(Scalar::F32(minmax(v, max).expect("non-empty"))),
        }
    }

    fn run(&self, t: &Target, op: ReduceOp, what: &str) {
        if self.len() == 0 && op != ReduceOp::Sum {
            util::refused(what, self.reduce(t, op));
            return;
        }
        let got = self.reduce(t, op).unwrap_or_else(|e| panic!("{what}: {e}"));
        if let Err(e) = self.check(op, got) {
            panic!("{what}: {e}");
        }
    }
}

fn random_at_every_size(t: &Target) {
    for n in t.sizes(SIZES, SIM_MAX) {
        for d in Data::all(n, n as u64) {
            for op in OPS {
                d.run(t, op, &format!("{op:?} of {n} {:?}", d.dtype()));
            }
        }
    }
}

/// Inputs a shortcut would get wrong: u32 sums past 2^32, i32 sums that cancel, f32 sums that
/// cancel or overflow f32 on the way, ±0, subnormals, infinities and NaNs.
fn adversarial(t: &Target) {
    let n = if t.is_sim() { 3000 } else { 100_003 };
    let mut r = data::rng(9);
    let f = |v: Vec<f32>| Data::F32(v);
    let cases: Vec<(&str, Data)> = vec![
        ("u32 max", Data::U32(vec![u32::MAX; n])),
        (
            "i32 extremes",
            Data::I32(
                (0..n)
                    .map(|i| if i % 3 == 0 { i32::MIN } else { i32::MAX })
                    .collect(),
            ),
        ),
        (
            "f32 cancelling",
            f((0..n)
                .map(|i| match i % 3 {
                    0 => 1e30,
                    1 => 1.0,
                    _ => -1e30,
                })
                .collect()),
        ),
        (
            "f32 running sums past f32::MAX",
            f((0..n)
                .map(|i| if i < n / 2 { f32::MAX } else { -f32::MAX })
                .collect()),
        ),
        ("f32 negative zeros", f(vec![-0.0; n])),
        (
            "f32 subnormals",
            f((0..n).map(|i| f32::from_bits(1 + i as u32)).collect()),
        ),
        (
            "f32 with an infinity",
            f((0..n)
                .map(|i| {
                    if i == n / 2 {
                        f32::INFINITY
                    } else {
                        r.random()
                    }
                })
                .collect()),
        ),
        (
            "f32 with both infinities",
            f((0..n)
                .map(|i| match i {
                    1 => f32::INFINITY,
                    _ if i == n - 1 => f32::NEG_INFINITY,
                    _ => 1.0,
                })
                .collect()),
        ),
        (
            "f32 with a NaN",
            f((0..n)
                .map(|i| {
                    if i == n - 2 {
                        f32::NAN
                    } else {
                        r.random_range(-5.0..5.0)
                    }
                })
                .collect()),
        ),
        (
            "f32 all -inf but one +0",
            f((0..n)
                .map(|i| if i == 7 { 0.0 } else { f32::NEG_INFINITY })
                .collect()),
        ),
    ];
    for (what, d) in &cases {
        for op in OPS {
            d.run(t, op, &format!("{what}: {op:?}"));
        }
    }
}

/// The reduction recorded into a caller's buffer at offsets: one aligned for binding, two
/// that are not (the result is copied into place), three recordings in one encoder each with
/// its own host count. The words around each result stay poisoned.
fn recorded_at_offsets(t: &Target) {
    let ctx = &t.ctx;
    let n = if t.is_sim() { 2500 } else { 1_000_003 };
    for d in Data::all(n, 17) {
        for op in OPS {
            let r = Reducer::new(ctx, op, d.dtype(), n as u64).unwrap();
            let input = ctx.upload("input", &d.bits()).unwrap();
            // poisoned by hand: the words around the results are meant to stay unwritten
            let out = ctx
                .upload("results", &[wgsimd::plan::POISON_WORD; 256])
                .unwrap();
            let offsets = [256u64, 4, 520];
            let counts = [n, 1, n / 3];
            let mut enc = ctx.encoder();
            for (&at, &c) in offsets.iter().zip(&counts) {
                r.record(
                    &mut enc,
                    &input,
                    out.slice(at, r.result_bytes()),
                    Count::Host(c as u32),
                )
                .unwrap();
            }
            util::submit(t, enc);
            let words = util::words(t, &out);
            let mut written = vec![false; words.len()];
            for (&at, &c) in offsets.iter().zip(&counts) {
                let at = (at / 4) as usize;
                let got = r
                    .decode(&words[at..at + r.result_bytes() as usize / 4])
                    .unwrap();
                let part = match &d {
                    Data::U32(v) => Data::U32(v[..c].to_vec()),
                    Data::I32(v) => Data::I32(v[..c].to_vec()),
                    Data::F32(v) => Data::F32(v[..c].to_vec()),
                };
                if let Err(e) = part.check(op, got) {
                    panic!(
                        "{op:?} of {:?}, {c} elements at byte {}: {e}",
                        d.dtype(),
                        at * 4
                    );
                }
                for w in &mut written[at..at + (r.result_bytes() / 4) as usize] {
                    *w = true;
                }
            }
            for (i, (&w, &done)) in words.iter().zip(&written).enumerate() {
                assert!(
                    done || w == wgsimd::plan::POISON_WORD,
                    "{op:?} {:?}: word {i} outside the results was written ({w:#x})",
                    d.dtype()
                );
            }
        }
    }
}

/// The count read from a word the GPU holds (at an offset), recorded before the buffer is
/// written by the queue; a count above the reducer's maximum is clamped to it.
fn count_from_the_gpu(t: &Target) {
    gpu_counts(t, if t.is_sim() { 3000 } else { 500_000 });
}

/// Sums of the first n / 2 + 1, 0 and all n of n random u32 by GPU counts (the last given as
/// n + 100).
fn gpu_counts(t: &Target, n: usize) {
    let ctx = &t.ctx;
    let d = Data::random(Dtype::U32, n, 5);
    let r = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, n as u64).unwrap();
    let input = ctx.upload("input", &d.bits()).unwrap();
    let counts = ctx.upload("counts", &[0u32, 0, 0, 0]).unwrap();
    let out = ctx.uninit("result", r.result_bytes()).unwrap();
    for (count, want) in [(n / 2 + 1, n / 2 + 1), (0, 0), (n + 100, n)] {
        ctx.write_buffer(&counts.slice(8, 4), bytemuck::bytes_of(&(count as u32)))
            .unwrap();
        let mut enc = ctx.encoder();
        r.record(&mut enc, &input, &out, Count::Gpu(counts.slice(8, 4)))
            .unwrap();
        util::submit(t, enc);
        let got = r
            .decode(&util::words(t, &out)[..r.result_bytes() as usize / 4])
            .unwrap();
        let Data::U32(v) = &d else { unreachable!() };
        assert_eq!(
            got,
            Scalar::U64(sum_u64(&v[..want])),
            "GPU count {count} (the reducer's maximum is {n})"
        );
    }
}

/// Grids of 1, 3 and 7 workgroups, each taking several steps, fold their partials right.
fn odd_workgroup_counts(t: &Target) {
    let n = if t.is_sim() { 9000 } else { 1_500_007 };
    for workgroups in [1, 3, 7] {
        let policy = ReducePolicy {
            max_workgroups: workgroups,
            small_workgroups: workgroups,
            mid_workgroups: workgroups,
            ..ReducePolicy::default()
        };
        for d in Data::all(n, workgroups as u64) {
            for op in OPS {
                let r = Reducer::with_policy(&t.ctx, op, d.dtype(), n as u64, policy).unwrap();
                let input = t.ctx.upload("input", &d.bits()).unwrap();
                let out = t.ctx.uninit("result", r.result_bytes()).unwrap();
                let mut enc = t.ctx.encoder();
                r.record(&mut enc, &input, &out, Count::Host(n as u32))
                    .unwrap();
                util::submit(t, enc);
                let got = r
                    .decode(&util::words(t, &out)[..r.result_bytes() as usize / 4])
                    .unwrap();
                if let Err(e) = d.check(op, got) {
                    panic!("{op:?} {:?} on {workgroups} workgroups: {e}", d.dtype());
                }
            }
        }
    }
}

/// The workgroup caps by count (small, mid, the rest) with host and GPU counts in each tier:
/// a GPU count's grid is the maximum count's, so each tier's grid must hold the smaller ones'.
fn workgroup_tiers(t: &Target) {
    let n = 9000;
    let policy = ReducePolicy {
        max_workgroups: 7,
        mid_workgroups: 3,
        small_workgroups: 2,
        small_count: 2000,
        mid_count: 8500,
    };
    let d = Data::random(Dtype::U32, n, 13);
    let Data::U32(v) = &d else { unreachable!() };
    let r = Reducer::with_policy(&t.ctx, ReduceOp::Sum, Dtype::U32, n as u64, policy).unwrap();
    let input = t.ctx.upload("input", &d.bits()).unwrap();
    let counts = t.ctx.upload("counts", &[0u32; 4]).unwrap();
    for c in [1999, 2000, 2001, 5000, 8500, 8501, 9000] {
        t.ctx
            .write_buffer(&counts.slice(4, 4), bytemuck::bytes_of(&(c as u32)))
            .unwrap();
        for count in [Count::Host(c as u32), Count::Gpu(counts.slice(4, 4))] {
            let out = t.ctx.uninit("result", r.result_bytes()).unwrap();
            let mut enc = t.ctx.encoder();
            r.record(&mut enc, &input, &out, count).unwrap();
            util::submit(t, enc);
            let got = r
                .decode(&util::words(t, &out)[..r.result_bytes() as usize / 4])
                .unwrap();
            assert_eq!(got, Scalar::U64(sum_u64(&v[..c])), "{count:?}");
        }
    }
}

/// Input longer than one storage binding runs one dispatch per binding-sized chunk (a
/// simulated device whose bindings hold 4 KiB).
fn chunked_input(_: &Target) {
    let mut config = wgsimd::sim::SimConfig::default();
    config.profile.max_storage_binding = 4096;
    let ctx = wgsimd::Context::simulator(config).unwrap();
    let t = Target::new("sim-4k-bindings", ctx);
    for n in [1024, 1025, 5000] {
        for d in Data::all(n, 3) {
            for op in OPS {
                d.run(
                    &t,
                    op,
                    &format!("{op:?} of {n} {:?} in 4 KiB chunks", d.dtype()),
                );
            }
        }
    }
    // three chunks, each stage computing its chunk's params from the count word
    gpu_counts(&t, 3000);
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    util::refused("min of nothing", reduce::<u32>(ctx, &[], ReduceOp::Min));
    util::refused(
        "a u16 reduction",
        Reducer::new(ctx, ReduceOp::Sum, Dtype::F16, 10).map(|_| ()),
    );
    let r = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, 100).unwrap();
    let input = ctx.upload("input", &[1u32; 10]).unwrap();
    let out = ctx.uninit("result", 64).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "11 elements of a 10-element input",
        r.record(&mut enc, &input, &out, Count::Host(11)),
    );
    util::refused(
        "a result at an odd offset",
        r.record(
            &mut enc,
            &input,
            BufferRef::from(&out).range(2, 8),
            Count::Host(10),
        ),
    );
    util::refused(
        "a 4-byte result buffer for a sum",
        r.record(&mut enc, &input, out.slice(0, 4), Count::Host(10)),
    );
    util::refused(
        "a count above the maximum",
        r.record(&mut enc, &input, &out, Count::Host(101)),
    );
}

/// The checks reject results a little off: a sum one ulp of its scale away, a wrong min.
fn the_check_can_fail(_: &Target) {
    let d = Data::random(Dtype::F32, 1000, 1);
    let Data::F32(v) = &d else { unreachable!() };
    let (want, abs) = wgsimd::reference::reduce::sum_f32(v);
    assert!(d.check(ReduceOp::Sum, Scalar::F32(want as f32)).is_ok());
    let off = (want + 2e-6 * abs) as f32;
    assert!(
        d.check(ReduceOp::Sum, Scalar::F32(off)).is_err(),
        "{off} passed"
    );
    assert!(d.check(ReduceOp::Sum, Scalar::F32(f32::NAN)).is_err());
    let u = Data::U32(vec![3, 1, 2]);
    assert!(u.check(ReduceOp::Min, Scalar::U32(1)).is_ok());
    assert!(u.check(ReduceOp::Min, Scalar::U32(2)).is_err());
    assert!(u.check(ReduceOp::Sum, Scalar::U64(7)).is_err());
    let z = Data::F32(vec![0.0, -0.0]);
    assert!(
        z.check(ReduceOp::Min, Scalar::F32(0.0)).is_err(),
        "+0 as the min of ±0"
    );
}
