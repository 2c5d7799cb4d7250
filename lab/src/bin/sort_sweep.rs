//! Sort tuning sweep (a lab tool, not a test): the tunables `SortPolicy` keeps, all of them
//! OneSweep's, each swept on its own against the default policy:
//!
//! - `spin`: polls of a predecessor's status before the decoupled fallback;
//! - `histogram_workgroups`: workgroups of the global histogram pass;
//! - `onesweep_small_keys_max` / `onesweep_small_pairs_max`: up to which count the small stage
//!   (4096-key tiles) runs instead of the 8192-key tiles. The sweep times both stages at each
//!   size (the maximum at 0: large tiles; at the size: small tiles); the threshold belongs
//!   where they cross.
//!
//! Each variant is a `Sorter` (OneSweep forced, u32 keys, values = input indices with `--pairs`)
//! recorded with timestamps on the sort's own buffers, the pristine input copied in by an
//! untimed setup before each run (the CLI's timing method, `wgsimd_timing`), then run once
//! more and compared word for word with `wgsimd::reference::sort::radix_sort_u32` (keys, and with
//! pairs the indices: the stable order is unique) before its figure is printed.
//!
//! `cargo run --release -p wgsimd-lab --bin sort_sweep -- [--sizes 24,28] [--pairs]
//! [--keys random|equal|sorted] [--knobs spin,hist,small] [--spin 0,8,64,512]
//! [--hist 132,264,528,1056,2112,4224] [--repeats N]`. Sizes are exponents (fractional ones
//! between powers of two: 20.585 ≈ 1.5 · 2^20). A line per variant: Gkeys/s median, ms, the
//! per-pass breakdown, ok (or FAIL and no figure). `LAB_SIM=h100` runs on the simulator
//! (host-timed; `--sizes 12`).

use wgsimd::dtype::Dtype;
use wgsimd::reference::sort::radix_sort_u32;
use wgsimd::sort::{SortConfig, SortPolicy, Sorter, Strategy};
use wgsimd::{BufferRef, Context, Count};
use wgsimd_lab::timing::{self, Job};

/// One size's input, its reference and the buffers every variant sorts.
struct Input {
    n: u64,
    keys: Vec<u32>,
    want_keys: Vec<u32>,
    want_order: Vec<u32>,
}

fn input(n: u64, seed: u64, kind: &str) -> Input {
    let keys: Vec<u32> = match kind {
        "equal" => vec![0x5a5a_5a5a; n as usize],
        "sorted" => (0..n as u32).collect(),
        "random" => wgsimd_lab::random_u32(n as usize, seed),
        other => panic!("--keys {other}: random, equal or sorted"),
    };
    let index: Vec<u32> = (0..n as u32).collect();
    let (want_keys, want_order) = radix_sort_u32(&keys, &index);
    Input {
        n,
        keys,
        want_keys,
        want_order,
    }
}

/// Times and verifies one policy; prints its line.
fn run(ctx: &Context, x: &Input, pairs: bool, name: &str, policy: SortPolicy, repeats: usize) {
    let n = x.n;
    let size = if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    };
    let label = format!("{size} {} {name}", if pairs { "pairs" } else { "keys" });
    let fail = |what: &str, e: &dyn std::fmt::Display| println!("{label}: FAIL {what}: {e}");
    let mut config = SortConfig::keys(Dtype::U32, n)
        .strategy(Strategy::OneSweep)
        .policy(policy);
    if pairs {
        config = config.with_values();
    }
    let sorter = match Sorter::new(ctx, config) {
        Ok(s) => s,
        Err(e) => return println!("{label}: skipped: {e}"),
    };
    let bytes = n * 4;
    let index: Vec<u32> = (0..n as u32).collect();
    let bufs = (|| {
        Ok::<_, wgsimd::Error>((
            ctx.upload("keys", &x.keys)?,
            ctx.uninit("sorted keys", bytes)?,
            ctx.upload("values", &index)?,
            ctx.uninit("sorted values", bytes)?,
        ))
    })();
    let (src_k, keys, src_v, vals) = match bufs {
        Ok(b) => b,
        Err(e) => return fail("buffers", &e),
    };
    let job = Job {
        passes: sorter.passes(),
        setup: Some(Box::new(|mut enc| {
            enc.copy(&(&src_k).into(), &(&keys).into(), bytes)?;
            if pairs {
                enc.copy(&(&src_v).into(), &(&vals).into(), bytes)?;
            }
            Ok(())
        })),
        record: Box::new(|enc, stamps| {
            let v = pairs.then(|| BufferRef::from(&vals));
            sorter.record_timed(enc, &keys, v, Count::Host(n as u32), stamps)
        }),
    };
    let t = match timing::time(ctx, &job, 3, repeats) {
        Ok(t) => t,
        Err(e) => return fail("run", &e),
    };
    // the verified run (in place: its setup refills the buffers from the pristine input)
    let report = match timing::run_once(ctx, &job) {
        Ok(r) => r,
        Err(e) => return fail("verified run", &e),
    };
    if let Err(e) = report.clean("the sort") {
        return fail("simulator", &e);
    }
    let check = || -> Result<(), String> {
        let got: Vec<u32> = ctx.read(&keys).map_err(|e| e.to_string())?;
        wgsimd::reference::sort::first_difference("keys", &got[..n as usize], &x.want_keys)?;
        if pairs {
            let got: Vec<u32> = ctx.read(&vals).map_err(|e| e.to_string())?;
            wgsimd::reference::sort::first_difference("values", &got[..n as usize], &x.want_order)?;
        }
        Ok(())
    };
    if let Err(e) = check() {
        return println!("{label}: FAIL (not the stable sort): {e}");
    }
    println!(
        "{label}: {:.3} Gkeys/s median ({:.3} ms, best {:.3}, {:?}) [{}] ok",
        n as f64 / t.median_ns(),
        t.median_ns() / 1e6,
        t.min_ns() / 1e6,
        t.source,
        timing::passes_text(&t)
    );
}

fn main() {
    let args = wgsimd_lab::args();
    let sizes: Vec<f64> = wgsimd_lab::list_flag(&args, "--sizes", &[24.0, 28.0]);
    let pairs = wgsimd_lab::has_flag(&args, "--pairs");
    let kind = wgsimd_lab::flag_value(&args, "--keys").unwrap_or_else(|| "random".into());
    let knobs: Vec<String> = wgsimd_lab::list_flag(
        &args,
        "--knobs",
        &["spin".to_string(), "hist".into(), "small".into()],
    );
    let spins: Vec<u32> = wgsimd_lab::list_flag(&args, "--spin", &[0, 8, 64, 512]);
    let hists: Vec<u32> =
        wgsimd_lab::list_flag(&args, "--hist", &[132, 264, 528, 1056, 2112, 4224]);
    let repeats: usize = wgsimd_lab::flag_value(&args, "--repeats")
        .map(|r| r.parse().expect("--repeats N"))
        .unwrap_or(10);
    let ctx = wgsimd_lab::open().expect("a device");
    println!("# {}", wgsimd_lab::describe(&ctx));
    if !ctx.caps().subgroups {
        println!("# no subgroups: OneSweep, whose knobs these are, does not run here");
        return;
    }
    let base = SortPolicy::default();
    for e in sizes {
        let n = wgsimd_lab::pow2(e);
        // (whole exponents keep their seeds from one call to the next)
        let seed = if e.fract() == 0.0 {
            e as u64
        } else {
            e.to_bits()
        };
        let x = input(n, seed, &kind);
        let mut variants: Vec<(String, SortPolicy)> = vec![("default policy".into(), base)];
        if knobs.iter().any(|k| k == "spin") {
            variants.extend(
                spins
                    .iter()
                    .map(|&spin| (format!("spin {spin}"), SortPolicy { spin, ..base })),
            );
        }
        if knobs.iter().any(|k| k == "hist") {
            variants.extend(hists.iter().map(|&h| {
                (
                    format!("histogram_workgroups {h}"),
                    SortPolicy {
                        histogram_workgroups: h,
                        ..base
                    },
                )
            }));
        }
        if knobs.iter().any(|k| k == "small") {
            let field = if pairs {
                "onesweep_small_pairs_max"
            } else {
                "onesweep_small_keys_max"
            };
            for (max, what) in [(0, "large tiles"), (n, "small tiles")] {
                let p = if pairs {
                    SortPolicy {
                        onesweep_small_pairs_max: max,
                        ..base
                    }
                } else {
                    SortPolicy {
                        onesweep_small_keys_max: max,
                        ..base
                    }
                };
                variants.push((format!("{field} {max} ({what})"), p));
            }
        }
        for (name, policy) in variants {
            run(&ctx, &x, pairs, &name, policy, repeats);
        }
    }
}
