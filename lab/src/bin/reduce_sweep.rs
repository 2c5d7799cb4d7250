//! Reduction tuning sweep (a lab tool, not a test): the one tunable `ReducePolicy` keeps,
//! the workgroups per binding-sized chunk (`max_workgroups`, `mid_workgroups` and `small_workgroups` alike), for
//! sum u32 and sum f32 (and max f32 with `--ops`) at 2^28 elements or `--size`. Each variant
//! is a `Reducer` recorded with timestamps (the CLI's timing method, `wgsimd_timing`), then
//! run once more into a poisoned result and checked against `wgsimd::reference::reduce` (the exact u64 sum; f32 sums within the
//! tolerance `SumF32` holds every device to; the f32 maximum exactly) before its figure is
//! printed.
//!
//! `cargo run --release -p wgsimd-lab --bin reduce_sweep -- [--size 28] [--ops sum-u32,sum-f32]
//! [--workgroups 264,528,1056,2112,3168,4096,8192] [--repeats N]` (`--size`: an exponent).
//! `LAB_SIM=h100` runs on the simulator (host-timed; `--size 12`).

use wgsimd::dtype::Dtype;
use wgsimd::reduce::{ReduceOp, ReducePolicy, Reducer, Scalar};
use wgsimd::reference::reduce::{minmax, sum_u64, SumF32};
use wgsimd::{Buffer, Context, Count};
use wgsimd_lab::timing::{self, Job};

/// An input and the check of a result.
struct Case {
    name: &'static str,
    op: ReduceOp,
    dtype: Dtype,
    input: Buffer,
    check: Box<dyn Fn(Scalar) -> Result<(), String>>,
}

fn cases(ctx: &Context, n: usize, ops: &[String]) -> wgsimd::Result<Vec<Case>> {
    let u = wgsimd_lab::random_u32(n, 7);
    let f = wgsimd_lab::random_f32(n, 8);
    let mut out = Vec::new();
    for op in ops {
        out.push(match op.as_str() {
            "sum-u32" => {
                let want = sum_u64(&u);
                Case {
                    name: "sum u32",
                    op: ReduceOp::Sum,
                    dtype: Dtype::U32,
                    input: ctx.upload("u32", &u)?,
                    check: Box::new(move |s| match s {
                        Scalar::U64(v) if v == want => Ok(()),
                        other => Err(format!("got {other}, want {want}")),
                    }),
                }
            }
            "sum-f32" => {
                let want = SumF32::of(&f);
                Case {
                    name: "sum f32",
                    op: ReduceOp::Sum,
                    dtype: Dtype::F32,
                    input: ctx.upload("f32", &f)?,
                    check: Box::new(move |s| match s {
                        Scalar::F32(v) => want.check(v),
                        other => Err(format!("got {other}, an f32 sum expected")),
                    }),
                }
            }
            "max-f32" => {
                let want = minmax(&f, true);
                Case {
                    name: "max f32",
                    op: ReduceOp::Max,
                    dtype: Dtype::F32,
                    input: ctx.upload("f32", &f)?,
                    check: Box::new(move |s| match (s, want) {
                        (Scalar::F32(v), Some(w)) if v.to_bits() == w.to_bits() => Ok(()),
                        (other, w) => Err(format!("got {other}, want {w:?}")),
                    }),
                }
            }
            other => panic!("--ops {other}: sum-u32, sum-f32, max-f32"),
        });
    }
    Ok(out)
}

/// Times and verifies one case at one policy; prints its line.
fn run(ctx: &Context, c: &Case, n: usize, wg: u32, repeats: usize) {
    let label = format!("{} wg {wg}", c.name);
    let fail = |what: &str, e: &dyn std::fmt::Display| println!("{label}: FAIL {what}: {e}");
    // the cap at every size: the small-run cap too
    let policy = ReducePolicy {
        max_workgroups: wg,
        small_workgroups: wg,
        mid_workgroups: wg,
        ..ReducePolicy::default()
    };
    let r = match Reducer::with_policy(ctx, c.op, c.dtype, n as u64, policy) {
        Ok(r) => r,
        Err(e) => return println!("{label}: skipped: {e}"),
    };
    let out = match ctx.uninit("result", r.result_bytes()) {
        Ok(b) => b,
        Err(e) => return fail("buffers", &e),
    };
    let job = Job {
        passes: r.passes(),
        setup: None,
        record: Box::new(|enc, stamps| {
            r.record_timed(enc, &c.input, &out, Count::Host(n as u32), stamps)
        }),
    };
    let t = match timing::time_then_verified_run(ctx, &job, &out, repeats, "the reduction") {
        Ok(t) => t,
        Err(e) => return println!("{label}: FAIL {e}"),
    };
    let got = ctx.read::<u32>(&out).and_then(|w| r.decode(&w));
    match got.map_err(|e| e.to_string()).and_then(|s| (c.check)(s)) {
        Ok(()) => println!(
            "{label}: median {:.1} GB/s best {:.1} GB/s ({:.3} ms, {:?}) [{}] ok",
            4.0 * n as f64 / t.median_ns(),
            4.0 * n as f64 / t.min_ns(),
            t.median_ns() / 1e6,
            t.source,
            timing::passes_text(&t)
        ),
        Err(e) => println!("{label}: FAIL (not the reference's result): {e}"),
    }
}

fn main() {
    let args = wgsimd_lab::args();
    let e: f64 = wgsimd_lab::flag_value(&args, "--size")
        .map(|s| s.parse().expect("--size EXPONENT"))
        .unwrap_or(28.0);
    let n = wgsimd_lab::pow2(e) as usize;
    let ops: Vec<String> = wgsimd_lab::list_flag(
        &args,
        "--ops",
        &["sum-u32".to_string(), "sum-f32".to_string()],
    );
    let wgs: Vec<u32> = wgsimd_lab::list_flag(
        &args,
        "--workgroups",
        &[264, 528, 1056, 2112, 3168, 4096, 8192],
    );
    let repeats: usize = wgsimd_lab::flag_value(&args, "--repeats")
        .map(|r| r.parse().expect("--repeats N"))
        .unwrap_or(20);
    let ctx = wgsimd_lab::open().expect("a device");
    println!("# {}; {n} elements", wgsimd_lab::describe(&ctx));
    let cases = cases(&ctx, n, &ops).expect("the inputs");
    for wg in wgs {
        for c in &cases {
            run(&ctx, c, n, wg, repeats);
        }
    }
}
