//! Scan tuning sweep (a lab tool, not a test): the elements per tile of the chained scan
//! (`ScanPolicy::tile`, and `small_tile` alike) at each size, exclusive u32. Each variant is a
//! `Scanner` recorded with timestamps (the CLI's timing method, `wgsimd_timing`), then run
//! once more into a poisoned output and compared word for word with
//! `wgsimd::reference::scan::scan_u32` before its figure is printed.
//!
//! `cargo run --release -p wgsimd-lab --bin scan_sweep -- [--sizes 24,28]
//! [--tiles 4096,8192,12288,16384] [--repeats N]` (sizes are exponents). `LAB_SIM=h100` runs on
//! the simulator (host-timed; `--sizes 14`).

use wgsimd::reference::scan::scan_u32;
use wgsimd::scan::{ScanPolicy, Scanner};
use wgsimd::{Buffer, Context, Count};
use wgsimd_lab::timing::{self, Job};

/// Times and verifies the scan of `input` (`n` elements) with `tile`-element tiles; prints its
/// line.
fn run(ctx: &Context, input: (&Buffer, &[u32]), n: usize, tile: u32, repeats: usize) {
    let label = format!("exclusive u32 2^{} tile {tile}", n.trailing_zeros());
    let fail = |what: &str, e: &dyn std::fmt::Display| println!("{label}: FAIL {what}: {e}");
    let policy = ScanPolicy {
        tile,
        small_tile: tile,
        ..ScanPolicy::for_caps(ctx.caps())
    };
    let s = match Scanner::with_policy(ctx, false, n as u64, policy) {
        Ok(s) => s,
        Err(e) => return println!("{label}: skipped: {e}"),
    };
    let out = match ctx.uninit("output", 4 * n as u64) {
        Ok(b) => b,
        Err(e) => return fail("buffers", &e),
    };
    let job = Job {
        passes: s.passes(),
        setup: None,
        record: Box::new(|enc, stamps| {
            s.record_timed(enc, input.0, &out, Count::Host(n as u32), stamps)
        }),
    };
    let t = match timing::time_then_verified_run(ctx, &job, &out, repeats, "the scan") {
        Ok(t) => t,
        Err(e) => return println!("{label}: FAIL {e}"),
    };
    let got = match ctx.read::<u32>(&out) {
        Ok(g) => g,
        Err(e) => return fail("read back", &e),
    };
    if got != scan_u32(input.1, false) {
        return println!("{label}: FAIL (not the reference's result)");
    }
    println!(
        "{label}: median {:.1} GB/s best {:.1} GB/s ({:.4} ms, {:?}) [{}] ok",
        8.0 * n as f64 / t.median_ns(),
        8.0 * n as f64 / t.min_ns(),
        t.median_ns() / 1e6,
        t.source,
        timing::passes_text(&t)
    );
}

fn main() {
    let args = wgsimd_lab::args();
    let sizes: Vec<f64> = wgsimd_lab::list_flag(&args, "--sizes", &[24.0, 28.0]);
    let tiles: Vec<u32> = wgsimd_lab::list_flag(&args, "--tiles", &[4096, 8192, 12288, 16384]);
    let repeats: usize = wgsimd_lab::flag_value(&args, "--repeats")
        .map(|r| r.parse().expect("--repeats N"))
        .unwrap_or(20);
    let ctx = wgsimd_lab::open().expect("a device");
    println!("# {}", wgsimd_lab::describe(&ctx));
    for e in sizes {
        let n = wgsimd_lab::pow2(e) as usize;
        let data = wgsimd_lab::random_u32(n, 5);
        let input = ctx.upload("input", &data).expect("the input");
        for &tile in &tiles {
            run(&ctx, (&input, &data), n, tile, repeats);
        }
    }
}
