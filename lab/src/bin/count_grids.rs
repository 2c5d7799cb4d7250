//! The grids of a GPU count on this machine's adapter (a lab tool, not a test): objects made for
//! a large maximum run on a smaller live count, once with a host count, once with a GPU count
//! as the device's policy dispatches it (`wgsimd::record::gpu_counts_indirect`: indirect grids
//! sized by the count on CPU devices, the limit's grids elsewhere). Wall-clock per submission
//! (submit and wait), median and range of `--repeats`, host and GPU counts alternating; every
//! result is checked against the CPU before the figures are printed.
//!
//! `cargo run --release -p wgsimd-lab --bin count_grids -- [--max 20] [--count 100000]
//! [--repeats 7]` (max is an exponent). The policy's evidence on lavapipe comes from here.

use std::time::Instant;

use wgsimd::dtype::Dtype;
use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
use wgsimd::reference::sort::{check_pairs, Order};
use wgsimd::scan::Scanner;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Context, Count};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Median, min and max of `times` (ms).
fn spread(mut times: Vec<f64>) -> (f64, f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let max = 1u64 << arg("--max", 20);
    let n = arg("--count", 100_000).min(max) as u32;
    let repeats = arg("--repeats", 7).max(1) as usize;
    let ctx = Context::open_gpu()?;
    println!(
        "{} ({:?}): objects for {max}, live count {n}, GPU counts indirect: {}",
        ctx.caps().name,
        ctx.caps().kind,
        wgsimd::record::gpu_counts_indirect(ctx.caps())
    );
    let keys: Vec<u32> = (0..max as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x5bd1_e995)
        .collect();
    let values: Vec<u32> = (0..max as u32).collect();
    let count = ctx.upload("count", &[n])?;
    let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::U32, max).with_values())?;
    let reducer = Reducer::new(&ctx, ReduceOp::Sum, Dtype::U32, max)?;
    let scanner = Scanner::new(&ctx, false, max)?;
    let (kb, vb) = (ctx.upload("keys", &keys)?, ctx.upload("values", &values)?);
    // the reduction's and the scan's input (the sort's keys change in place)
    let input = ctx.upload("input", &keys)?;
    let total = ctx.zeroed("total", 8)?;
    let sums = ctx.zeroed("sums", max * 4)?;
    type Run<'a> = Box<dyn Fn(Count) -> Result<(), Box<dyn std::error::Error>> + 'a>;
    let cases: Vec<(&str, Run)> = vec![
        (
            "sort pairs",
            Box::new(|c| {
                ctx.write_buffer(&BufferRef::from(&kb), bytemuck::cast_slice(&keys))?;
                ctx.write_buffer(&BufferRef::from(&vb), bytemuck::cast_slice(&values))?;
                let mut enc = ctx.encoder();
                sorter.record(&mut enc, &kb, Some(BufferRef::from(&vb)), c)?;
                ctx.submit(enc)?;
                Ok(())
            }),
        ),
        (
            "reduce sum u32",
            Box::new(|c| {
                let mut enc = ctx.encoder();
                reducer.record(&mut enc, &input, &total, c)?;
                ctx.submit(enc)?;
                Ok(())
            }),
        ),
        (
            "scan exclusive u32",
            Box::new(|c| {
                let mut enc = ctx.encoder();
                scanner.record(&mut enc, &input, &sums, c)?;
                ctx.submit(enc)?;
                Ok(())
            }),
        ),
    ];
    for (name, run) in &cases {
        let mut host = Vec::new();
        let mut gpu = Vec::new();
        for _ in 0..repeats + 1 {
            for (times, c) in [
                (&mut host, Count::Host(n)),
                (&mut gpu, Count::Gpu(BufferRef::from(&count))),
            ] {
                let t = Instant::now();
                run(c)?;
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        // the first of each warms the pipelines up
        host.remove(0);
        gpu.remove(0);
        // the last run (a GPU count) checked against the CPU
        let ok = match *name {
            "sort pairs" => {
                let (k, v) = (ctx.read::<u32>(&kb)?, ctx.read::<u32>(&vb)?);
                let n = n as usize;
                check_pairs(&keys[..n], &values[..n], &k[..n], &v[..n], Order::default()).is_ok()
                    && k[n..] == keys[n..]
            }
            "reduce sum u32" => {
                let want: u64 = keys[..n as usize].iter().map(|&k| k as u64).sum();
                reducer.decode(&ctx.read::<u32>(&total)?)? == Scalar::U64(want)
            }
            _ => {
                let got = ctx.read::<u32>(&sums)?;
                got[..n as usize] == wgsimd::reference::scan::scan_u32(&keys[..n as usize], false)
            }
        };
        let (hm, hl, hh) = spread(host);
        let (gm, gl, gh) = spread(gpu);
        println!(
            "{name}: host count {hm:.2} ms ({hl:.2}-{hh:.2}), GPU count {gm:.2} ms \
             ({gl:.2}-{gh:.2}), GPU / host {:.2} [{}]",
            gm / hm,
            if ok { "verified" } else { "WRONG" }
        );
    }
    Ok(())
}
