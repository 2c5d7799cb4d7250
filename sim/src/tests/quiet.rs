//! Quiet on correct code: reads a `select` discards, WGSL's zero-filled workgroup memory,
//! padding and initialized buffers in unwritten output — each with the flagged case beside it.

use std::collections::BTreeSet;

use super::{line_of, only, request};
use crate::check::{check, CheckOptions};
use crate::finding::{Finding, FindingKind};

/// The findings at subgroup size 32 (linear lanes), after checking that size 4 and shuffled
/// lanes find the same kinds.
fn findings(
    src: &str,
    workgroups: [u32; 3],
    binds: &[&str],
    options: CheckOptions,
) -> Vec<Finding> {
    let run = |s: u32, shuffle: Option<u64>| {
        let mut req = request(src, s, shuffle, workgroups, binds);
        req.config.checks = options;
        check(&req).unwrap_or_else(|e| panic!("{e}")).findings
    };
    let kinds = |f: &[Finding]| f.iter().map(|f| f.kind).collect::<BTreeSet<_>>();
    let main = run(32, None);
    for (s, shuffle) in [(4, None), (32, Some(9))] {
        assert_eq!(kinds(&run(s, shuffle)), kinds(&main), "sg{s} {shuffle:?}");
    }
    main
}

const DISCARD: CheckOptions = CheckOptions {
    discarded_read: true,
    uninit_workgroup: false,
    non_finite: false,
};

/// `select(0u, input[i], i < limit)` over 128 invocations, `input` 100 words long.
fn guarded(limit: &str) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {{
    let i = wid.x * 64u + lid;
    let v = input[i];
    output[i] = select(0u, v, i < {limit});
}}"
    )
}

const BINDS: &[&str] = &["0=u32:iota:100", "1=u32:uninit:128"];

#[test]
fn a_read_out_of_bounds_that_the_select_discards_is_not_reported() {
    let src = guarded("arrayLength(&input)");
    assert!(findings(&src, [2, 1, 1], BINDS, CheckOptions::default()).is_empty());
    // asked for, it is a discarded read at the read, naming the select
    let f = findings(&src, [2, 1, 1], BINDS, DISCARD);
    let f = only(&f, FindingKind::DiscardedRead);
    assert_eq!(
        f.loc.as_ref().unwrap().line,
        line_of(&src, "input[i]"),
        "{f}"
    );
    assert!(f.message.contains("index 100 past the end"), "{f}");
    assert!(
        f.message
            .contains(&format!(":{}:", line_of(&src, "select("))),
        "{f}"
    );
}

#[test]
fn a_read_out_of_bounds_that_the_select_keeps_is_reported() {
    // the guard lets 8 lanes past the end keep their read; the others are discarded
    let src = guarded("arrayLength(&input) + 8u");
    let f = findings(&src, [2, 1, 1], BINDS, CheckOptions::default());
    let f = only(&f, FindingKind::OutOfBounds);
    assert_eq!(
        f.loc.as_ref().unwrap().line,
        line_of(&src, "input[i]"),
        "{f}"
    );
    let f = findings(&src, [2, 1, 1], BINDS, DISCARD);
    assert_eq!(f.len(), 2, "{f:#?}");
    assert!(f.iter().any(|f| f.kind == FindingKind::DiscardedRead));
    // the read used elsewhere too is not discarded
    let src = src.replace("select(0u, v, ", "v + select(0u, v, ");
    let f = findings(&src, [2, 1, 1], BINDS, CheckOptions::default());
    only(&f, FindingKind::OutOfBounds);
}

#[test]
fn an_uninitialized_read_that_the_select_discards_is_not_reported() {
    let src = "@group(0) @binding(0) var<storage, read_write> scratch: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < 32u { scratch[lid] = lid; }
    output[lid] = select(scratch[lid], 7u, lid >= 32u);
    if lid >= 32u { scratch[lid] = 0u; }
}";
    let binds = &["0=u32:uninit:64", "1=u32:uninit:64"];
    assert!(findings(src, [1, 1, 1], binds, CheckOptions::default()).is_empty());
    let f = findings(src, [1, 1, 1], binds, DISCARD);
    let f = only(&f, FindingKind::DiscardedRead);
    assert!(
        f.message.contains("word 32 of host-uninitialized buffer"),
        "{f}"
    );
    // kept where unwritten: reported
    let kept = src.replace("lid >= 32u);", "lid >= 48u);");
    let f = findings(&kept, [1, 1, 1], binds, CheckOptions::default());
    only(&f, FindingKind::UninitializedRead);
}

const WORKGROUP_READ: &str = "@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> tile: array<u32, 64>;
var<workgroup> count: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    atomicAdd(&count, 1u);
    if lid < 32u { tile[lid] = lid; }
    workgroupBarrier();
    output[wid.x * 64u + lid] = tile[63u - lid] + atomicLoad(&count);
}";

#[test]
fn zero_filled_workgroup_memory_is_read_freely() {
    let binds = &["0=u32:uninit:128"];
    let f = findings(WORKGROUP_READ, [2, 1, 1], binds, CheckOptions::default());
    assert!(f.is_empty(), "{f:#?}");
    // each workgroup starts from zeros
    let r = crate::check::check(&request(WORKGROUP_READ, 32, None, [2, 1, 1], binds)).unwrap();
    let want: Vec<u32> = (0..128)
        .map(|i| i % 64)
        .map(|l| if l >= 32 { 63 - l + 64 } else { 64 })
        .collect();
    assert_eq!(r.buffers[&0].1, want);
}

#[test]
fn workgroup_memory_of_a_port_is_read_before_written() {
    let port = CheckOptions {
        uninit_workgroup: true,
        ..Default::default()
    };
    let f = findings(WORKGROUP_READ, [2, 1, 1], &["0=u32:uninit:128"], port);
    let lines: Vec<u32> = f.iter().map(|f| f.loc.as_ref().unwrap().line).collect();
    assert!(f.iter().all(|f| f.kind == FindingKind::UninitializedRead));
    // the counter's first add, and the tile's unwritten half
    assert_eq!(
        lines,
        [
            line_of(WORKGROUP_READ, "atomicAdd"),
            line_of(WORKGROUP_READ, "tile[63u - lid]")
        ],
        "{f:#?}"
    );
}

const CELLS: &str = "struct Cell { count: u32, center: vec3<f32>, id: u32 }
@group(0) @binding(0) var<storage, read_write> points: array<vec3<f32>>;
@group(0) @binding(1) var<storage, read_write> cells: array<Cell>;
@group(0) @binding(2) var<storage, read_write> header: Header;
struct Header { n: u32, bounds: mat3x3<f32>, items: array<vec2<u32>> }
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) lid: u32) {
    points[lid] = vec3<f32>(f32(lid));
    cells[lid] = Cell(lid, vec3<f32>(0.5), SKIP);
    header.items[lid] = vec2<u32>(lid);
    if lid == 0u {
        header.n = 16u;
        header.bounds = mat3x3<f32>(vec3<f32>(1.0), vec3<f32>(2.0), vec3<f32>(3.0));
    }
}";

/// Words of `Header` with 16 items: n (1), padding (3), 3 columns of 4 (3 data each), items.
const CELL_BINDS: &[&str] = &["0=f32:uninit:64", "1=u32:uninit:128", "2=u32:uninit:48"];

#[test]
fn padding_is_not_unwritten_output() {
    let src = CELLS.replace("SKIP", "lid + 1u");
    let f = findings(&src, [1, 1, 1], CELL_BINDS, CheckOptions::default());
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn data_words_beside_padding_are_unwritten_output() {
    // `id` written only by the first 15 cells; the header's last item never
    let src = CELLS
        .replace("cells[lid] = Cell(lid, vec3<f32>(0.5), SKIP);", "cells[lid].count = lid; cells[lid].center = vec3<f32>(0.5); if lid < 15u { cells[lid].id = 1u; }")
        .replace("header.items[lid] = vec2<u32>(lid);", "if lid < 15u { header.items[lid] = vec2<u32>(lid); }");
    let f = findings(&src, [1, 1, 1], CELL_BINDS, CheckOptions::default());
    let msgs: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "buffer 1 `binding 1`: 1 of its 128 words never written (words 127..=127; 32-bit words)",
            "buffer 2 `binding 2`: 2 of its 48 words never written (words 46..=47; 32-bit words)",
        ]
    );
}

#[test]
fn only_uninit_buffers_can_be_unwritten_output() {
    let src = "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < 8u { a[lid] = 1u; b[lid] = 1u; c[lid] = 1u; }
}";
    let binds = &["0=u32:zeros:16", "1=u32:random:16", "2=u32:uninit:16"];
    let f = findings(src, [1, 1, 1], binds, CheckOptions::default());
    let f = only(&f, FindingKind::UnwrittenOutput);
    assert!(
        f.message.starts_with("buffer 2 `binding 2`: 8 of its 16"),
        "{f}"
    );
}

/// Where the words a kernel leaves unwritten depend on the schedule (invocation 0 publishes
/// the slot the others write with no barrier between), each buffer is still reported once:
/// the first schedule's count, beside the divergence and the race that explain it.
#[test]
fn an_unwritten_buffer_is_reported_once_across_schedules() {
    let src = "var<workgroup> slot: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> untouched: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u { slot = 5u; }
    out[slot] = i;
}";
    let binds = &["0=u32:uninit:8", "1=u32:uninit:4"];
    let r = check(&request(src, 4, None, [1, 1, 1], binds)).unwrap();
    let unwritten: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::UnwrittenOutput)
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(unwritten.len(), 2, "{:#?}", r.findings);
    assert!(
        unwritten[0].starts_with("buffer 0 `binding 0`: "),
        "{unwritten:?}"
    );
    assert!(
        unwritten[1].starts_with("buffer 1 `binding 1`: 4 of its 4"),
        "{unwritten:?}"
    );
    assert!(
        r.findings
            .iter()
            .any(|f| f.kind == FindingKind::ScheduleDivergence),
        "{:#?}",
        r.findings
    );
}
