//! Prefix sums against the CPU reference, exclusive and inclusive, through the host-slice
//! function and through recordings buffer to buffer at offsets (nothing past the count
//! written), with host and GPU counts.

use wgsimd::reference::scan::scan_u32;
use wgsimd::reference::sort::first_difference;
use wgsimd::scan::{scan, Scanner};
use wgsimd::Count;

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

/// Around one, two and three tiles (the tile read from the kernel), where the tile sums carry.
fn across_tiles(t: &Target) {
    let tile = wgsimd::kernel::load("scan/scan_tiles", t.caps().flavor())
        .unwrap()
        .const_u32("TILE")
        .unwrap() as usize;
    for n in [tile - 1, tile, tile + 1, 2 * tile + 3, 3 * tile - 2] {
        check(t, &data::random_u32(n, 3), &format!("{n} (tile {tile})"));
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
                input.clone(),
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
    let ctx = &t.ctx;
    let n = if t.is_sim() { 2001 } else { 300_001 };
    let d = data::random_u32(n, 2);
    let s = Scanner::new(ctx, false, n as u64).unwrap();
    let input = ctx.upload("input", &d).unwrap();
    let count = ctx.upload("count", &[0u32; 4]).unwrap();
    for (c, want) in [(n / 3, n / 3), (n + 9, n), (1, 1)] {
        let out = ctx.uninit("output", want.max(1) as u64 * 4).unwrap();
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
/// chunks scanned together (a simulated device whose bindings hold 32 KiB).
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
    // the reference check the tests use fails on a perturbed output
    let want = scan_u32(&[1, 2, 3], false);
    assert!(first_difference("scan", &[0, 1, 4], &want).is_err());
}
