//! Prefix sums against the CPU reference, exclusive and inclusive, through the host-slice
//! function and through recordings buffer to buffer at offsets (nothing past the count
//! written), with host and GPU counts; every tile size, tiles from tickets, runs of one
//! scanner at different counts, and the decoupled fallback under schedules that run tiles
//! before their predecessors.

use wgsimd::reference::scan::scan_u32;
use wgsimd::reference::sort::first_difference;
use wgsimd::scan::{scan, ScanPolicy, Scanner};
use wgsimd::sim::{Scheduler, SimConfig};
use wgsimd::{Caps, Context, Count};

use crate::data::{self, SIM_MAX, SIZES};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "scan::random_at_every_size",
            On::Every,
            random_at_every_size,
        ),
        Test::new("scan::across_tiles", On::Every, across_tiles),
        Test::new("scan::every_tile_size", On::Every, every_tile_size),
        Test::new(
            "scan::the_other_tile_order",
            On::Every,
            the_other_tile_order,
        ),
        Test::new(
            "scan::runs_share_the_state",
            On::Every,
            runs_share_the_state,
        ),
        Test::new("scan::decoupled_fallback", On::Once, decoupled_fallback),
        Test::new("scan::adversarial", On::Every, adversarial),
        Test::new("scan::recorded_at_offsets", On::Every, recorded_at_offsets),
        Test::new("scan::count_from_the_gpu", On::Every, count_from_the_gpu),
        Test::new("scan::chunked_input", On::Once, chunked_input),
        Test::new("scan::bad_input", On::Once, bad_input),
    ]
}

fn check(t: &Target, data: &[u32], what: &str) {
    for inclusive in [false, true] {
        let got = scan(&t.ctx, data, inclusive).unwrap_or_else(|e| panic!("{what}: {e}"));
        let want = scan_u32(data, inclusive);
        if let Err(e) = first_difference("scan", &got, &want) {
            panic!("{what}, inclusive {inclusive}: {e}");
        }
    }
}

fn random_at_every_size(t: &Target) {
    for n in t.sizes(SIZES, SIM_MAX) {
        check(
            t,
            &data::random_u32(n, n as u64),
            &format!("{n} random u32"),
        );
    }
}

/// Scans `data` both ways through a scanner with `policy` on `ctx`, recorded into poisoned
/// outputs, against the reference.
fn check_policy(ctx: &Context, data: &[u32], policy: ScanPolicy, what: &str) {
    for inclusive in [false, true] {
        let n = data.len();
        let s = Scanner::with_policy(ctx, inclusive, n as u64, policy)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let input = ctx.upload("input", data).unwrap();
        let out = ctx.uninit("output", n.max(1) as u64 * 4).unwrap();
        let mut enc = ctx.encoder();
        s.record(&mut enc, &input, &out, Count::Host(n as u32))
            .unwrap();
        let report = ctx.submit(enc).unwrap();
        if let Some(f) = report.findings.first() {
            panic!("{what}, inclusive {inclusive}: {f}");
        }
        let got = ctx.read::<u32>(&out).unwrap();
        if let Err(e) = first_difference("scan", &got[..n], &scan_u32(data, inclusive)) {
            panic!("{what}, inclusive {inclusive}: {e}");
        }
    }
}

/// The default policy with tiles of `tile` elements at every size.
fn tiles_of(tile: u32) -> ScanPolicy {
    ScanPolicy {
        tile,
        small_tile: tile,
        ..ScanPolicy::default()
    }
}

/// The policy of `t`'s device ([`ScanPolicy::for_caps`]) with tiles of `tile` elements.
fn device_tiles_of(t: &Target, tile: u32) -> ScanPolicy {
    ScanPolicy {
        tile,
        small_tile: tile,
        ..ScanPolicy::for_caps(t.caps())
    }
}

/// Around one, two, three and five tiles of the default policy at these sizes (odd workgroup
/// counts), where the look-back carries.
fn across_tiles(t: &Target) {
    let tile = ScanPolicy::for_caps(t.caps())
        .tile_for(1, t.caps().flavor())
        .unwrap() as usize;
    for n in [
        tile - 1,
        tile,
        tile + 1,
        2 * tile + 3,
        3 * tile - 2,
        5 * tile + 1,
    ] {
        check(t, &data::random_u32(n, 3), &format!("{n} (tile {tile})"));
    }
}

/// Every tile the scan pass takes (4 to 16 rows of vec4s per invocation), around one and two
/// tiles.
fn every_tile_size(t: &Target) {
    for tile in [4096usize, 12288, 16384] {
        let policy = device_tiles_of(t, tile as u32);
        for n in [tile - 1, tile + 1, 2 * tile + 5] {
            let what = format!("{n} (tile {tile})");
            check_policy(&t.ctx, &data::random_u32(n, 5), policy, &what);
        }
    }
}

/// Tiles from tickets where the device's policy takes workgroup order, and the other way
/// round (`ScanPolicy::tickets`), at a few tiles (workgroup order on a device that starts
/// workgroups out of order makes a fallback of every tile whose predecessors have not started).
fn the_other_tile_order(t: &Target) {
    let tickets = !ScanPolicy::for_caps(t.caps()).tickets;
    for tile in [4096, 12288] {
        let policy = ScanPolicy {
            tickets,
            ..tiles_of(tile)
        };
        let tile = tile as usize;
        for n in [1, tile + 1, 3 * tile - 2] {
            let what = format!("tickets {tickets}, tile {tile}, {n}");
            check_policy(&t.ctx, &data::random_u32(n, 6), policy, &what);
        }
        let what = format!("tickets {tickets}, tile {tile}, u32::MAX");
        check_policy(&t.ctx, &vec![u32::MAX; 2 * tile + 3], policy, &what);
    }
}

/// Runs of one scanner with counts of more, fewer and no tiles, in one encoder and in
/// submissions of their own: each run publishes into the status words the run before cleared.
/// The tiles of each count (the default policy's) and one past: a status left from an earlier
/// run would hand a later run a wrong prefix (on the simulator only where a tile looks back
/// before its predecessor publishes, which `decoupled_fallback` runs).
fn runs_share_the_state(t: &Target) {
    runs_of_counts(&t.ctx, ScanPolicy::for_caps(t.caps()), "");
}

fn runs_of_counts(ctx: &Context, policy: ScanPolicy, what: &str) {
    let tile = policy.tile_for(1, ctx.caps().flavor()).unwrap() as usize;
    let counts = [
        3 * tile + 1,
        tile,
        0,
        1,
        4 * tile - 3,
        2 * tile + 7,
        4 * tile,
    ];
    let max = *counts.iter().max().unwrap();
    let d = data::random_u32(max, 11);
    let input = ctx.upload("input", &d).unwrap();
    for inclusive in [false, true] {
        let s = Scanner::with_policy(ctx, inclusive, max as u64, policy).unwrap();
        for together in [false, true] {
            // (a count of 0 writes nothing: its output is not read back uninitialized)
            let outs: Vec<_> = counts
                .iter()
                .map(|&c| match c {
                    0 => ctx.zeroed("output", 4).unwrap(),
                    _ => ctx.uninit("output", c as u64 * 4).unwrap(),
                })
                .collect();
            let mut enc = ctx.encoder();
            for (&c, out) in counts.iter().zip(&outs) {
                s.record(&mut enc, &input, out, Count::Host(c as u32))
                    .unwrap();
                if !together {
                    let done = std::mem::replace(&mut enc, ctx.encoder());
                    let report = ctx.submit(done).unwrap();
                    if let Some(f) = report.findings.first() {
                        panic!("{what}count {c}, inclusive {inclusive}: {f}");
                    }
                }
            }
            let report = ctx.submit(enc).unwrap();
            if let Some(f) = report.findings.first() {
                panic!("{what}inclusive {inclusive}: {f}");
            }
            for (&c, out) in counts.iter().zip(&outs) {
                let got = ctx.read::<u32>(out).unwrap();
                let want = scan_u32(&d[..c], inclusive);
                if let Err(e) = first_difference("scan", &got[..c], &want) {
                    panic!("{what}count {c} of {counts:?}, inclusive {inclusive}, one encoder {together}: {e}");
                }
            }
        }
    }
}

/// The decoupled fallback: tiles tied to workgroup indices (no tickets) and workgroups run
/// out of order, the first ones starved, so tiles look back before their predecessors have
/// published anything and must reduce those tiles' input themselves (a tile whose
/// predecessor never publishes cannot finish otherwise: the simulator runs one workgroup at a
/// time, and a wait on another ends in `step-limit`). With and without subgroups, at several
/// subgroup sizes, with and without polls first; repeated runs of one scanner, so stale
/// statuses of an earlier run would show.
fn decoupled_fallback(_: &Target) {
    let profiles = [
        ("h100", Caps::h100(), 4),
        ("h100", Caps::h100(), 32),
        ("h100", Caps::h100(), 128),
        ("portable", Caps::lavapipe().without_subgroups(), 32),
    ];
    let schedulers = [
        Scheduler::Unfair { starved: vec![0] },
        Scheduler::Unfair {
            starved: vec![0, 1, 2],
        },
        Scheduler::Unfair {
            starved: vec![1, 3],
        },
        Scheduler::Shuffled(5),
    ];
    for (name, caps, sg) in profiles {
        for (k, scheduler) in schedulers.iter().enumerate() {
            let mut config = SimConfig::for_profile(caps.clone());
            config.subgroup_size = sg;
            config.scheduler = scheduler.clone();
            config.fail_on_step_limit = true;
            let ctx = Context::simulator(config).unwrap();
            let policy = ScanPolicy {
                spin: [0, 3][k % 2],
                tickets: false,
                ..tiles_of(4096)
            };
            let what = format!("{name} at {sg} lanes, {scheduler:?}: ");
            for n in [2 * 4096 + 1, 5 * 4096 - 3] {
                check_policy(&ctx, &data::random_u32(n, 9), policy, &format!("{what}{n}"));
            }
            if k == 0 {
                let wrap = vec![u32::MAX; 3 * 4096 + 2];
                check_policy(&ctx, &wrap, policy, &format!("{what}u32::MAX"));
            }
            if k == 3 {
                runs_of_counts(&ctx, policy, &what);
            }
        }
    }
}

fn adversarial(t: &Target) {
    let n = if t.is_sim() { 3001 } else { 1_000_001 };
    let mut one_at_end = vec![0u32; n];
    one_at_end[n - 1] = 1;
    let cases: Vec<(&str, Vec<u32>)> = vec![
        ("all u32::MAX (wrapping)", vec![u32::MAX; n]),
        ("zeros", vec![0; n]),
        ("a one at the end", one_at_end),
        (
            "alternating 0 and 2^31",
            (0..n).map(|i| (i as u32 & 1) << 31).collect(),
        ),
    ];
    for (what, d) in &cases {
        check(t, d, what);
    }
}

/// Input at an offset in a buffer that ends with it (an odd count: the last elements sit
/// inside a vec4); outputs at offsets in a poisoned buffer, two scans with different host
/// counts in one encoder: every word outside the outputs stays poisoned.
fn recorded_at_offsets(t: &Target) {
    let ctx = &t.ctx;
    let n = if t.is_sim() { 3001 } else { 1_000_003 };
    let align = wgsimd::context::binding_alignment(t.caps()) as usize;
    let d = data::random_u32(n, 8);
    let mut host = vec![7u32; align / 4];
    host.extend(&d);
    let input = ctx.upload("input", &host).unwrap();
    let input = input.slice(align as u64, n as u64 * 4);
    let at = [align, (4 * n).div_ceil(align) * align + 2 * align];
    let counts = [n, n / 2 + 1];
    let out_words = (at[1] + 4 * counts[1]) / 4 + 8;
    // poisoned by hand: the words around the outputs are meant to stay unwritten
    let out = ctx
        .upload("outputs", &vec![wgsimd::plan::POISON_WORD; out_words])
        .unwrap();
    for inclusive in [false, true] {
        let s = Scanner::new(ctx, inclusive, n as u64).unwrap();
        let mut enc = ctx.encoder();
        for (&a, &c) in at.iter().zip(&counts) {
            s.record(
                &mut enc,
                input,
                out.slice(a as u64, c as u64 * 4),
                Count::Host(c as u32),
            )
            .unwrap();
        }
        util::submit(t, enc);
        let words = util::words(t, &out);
        let mut inside = vec![false; words.len()];
        for (&a, &c) in at.iter().zip(&counts) {
            let first = a / 4;
            let want = scan_u32(&d[..c], inclusive);
            if let Err(e) = first_difference("scan", &words[first..first + c], &want) {
                panic!("{c} elements into byte {a}, inclusive {inclusive}: {e}");
            }
            inside[first..first + c].fill(true);
        }
        if let Some(i) =
            (0..words.len()).find(|&i| !inside[i] && words[i] != wgsimd::plan::POISON_WORD)
        {
            panic!(
                "inclusive {inclusive}: word {i} outside the outputs was written ({:#x})",
                words[i]
            );
        }
    }
}

/// The count read from a GPU word; one above the maximum is clamped to it.
fn count_from_the_gpu(t: &Target) {
    gpu_counts(t, if t.is_sim() { 2001 } else { 300_001 });
}

/// Scans of up to `n` elements by counts read from a GPU word: below the maximum, above it (then
/// clamped), 0 (nothing written) and 1.
fn gpu_counts(t: &Target, n: usize) {
    let ctx = &t.ctx;
    let d = data::random_u32(n, 2);
    let s = Scanner::new(ctx, false, n as u64).unwrap();
    let input = ctx.upload("input", &d).unwrap();
    let count = ctx.upload("count", &[0u32; 4]).unwrap();
    for (c, want) in [(n / 3, n / 3), (n + 9, n), (0, 0), (1, 1)] {
        // (a count of 0 writes nothing: its output is not read back uninitialized)
        let out = match want {
            0 => ctx.zeroed("output", 4).unwrap(),
            _ => ctx.uninit("output", want as u64 * 4).unwrap(),
        };
        ctx.write_buffer(&count.slice(4, 4), bytemuck::bytes_of(&(c as u32)))
            .unwrap();
        let mut enc = ctx.encoder();
        s.record(&mut enc, &input, &out, Count::Gpu(count.slice(4, 4)))
            .unwrap();
        util::submit(t, enc);
        let got = util::words(t, &out);
        if let Err(e) = first_difference("scan", &got[..want], &scan_u32(&d[..want], false)) {
            panic!("GPU count {c} (maximum {n}): {e}");
        }
    }
}

/// Input longer than one storage binding: one dispatch per chunk, the tile sums of all
/// chunks scanned together (a simulated device whose bindings hold 32 KiB), with host and GPU
/// counts.
fn chunked_input(_: &Target) {
    let mut config = wgsimd::sim::SimConfig::default();
    config.profile.max_storage_binding = 32 << 10;
    let t = Target::new(
        "sim-32k-bindings",
        wgsimd::Context::simulator(config).unwrap(),
    );
    for n in [8192, 8193, 20_001] {
        check(
            &t,
            &data::random_u32(n, 4),
            &format!("{n} in 32 KiB chunks"),
        );
    }
    gpu_counts(&t, 20_001);
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    let s = Scanner::new(ctx, false, 100).unwrap();
    let input = ctx.upload("input", &[1u32; 10]).unwrap();
    let out = ctx.uninit("output", 64).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "11 of 10 elements",
        s.record(&mut enc, &input, &out, Count::Host(11)),
    );
    util::refused(
        "an output too short",
        s.record(&mut enc, &input, out.slice(0, 32), Count::Host(10)),
    );
    util::refused(
        "past the maximum",
        s.record(&mut enc, &input, &out, Count::Host(101)),
    );
    util::refused(
        "an unaligned output",
        s.record(&mut enc, &input, out.slice(4, 40), Count::Host(10)),
    );
    util::refused(
        "a scan past the device's buffers",
        Scanner::new(ctx, false, 1 << 40).map(|_| ()),
    );
    for tile in [0, 1000, 8192 + 4096 + 1, 32768] {
        let policy = tiles_of(tile);
        util::refused(
            &format!("a tile of {tile}"),
            Scanner::with_policy(ctx, false, 100, policy).map(|_| ()),
        );
    }
    // the reference check the tests use fails on a perturbed output
    let want = scan_u32(&[1, 2, 3], false);
    assert!(first_difference("scan", &[0, 1, 4], &want).is_err());
}
