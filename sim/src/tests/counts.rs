//! The count a finding carries (`Finding::invocations`, and ` (in N invocations)` in its
//! message) is one unit for every kind: the lanes that did the bad thing, summed over the
//! executions of the statement. Kinds found per lane of an access (races) and kinds found per
//! evaluation of an expression or subgroup operation (non-finite, shift, uniformity) agree.

use super::{line_of, only, request};
use crate::check::{check, CheckOptions};
use crate::finding::{Finding, FindingKind};

/// The findings of `main` of `src` in one workgroup of 8 lanes, one subgroup of 8, every
/// checker on; the same counts with shuffled lanes.
fn findings(src: &str) -> Vec<Finding> {
    let run = |shuffle: Option<u64>| {
        let mut req = request(src, 8, shuffle, [1, 1, 1], &["0=u32:zeros:8"]);
        req.config.checks = CheckOptions {
            discarded_read: true,
            uninit_workgroup: false,
            non_finite: true,
        };
        check(&req).unwrap_or_else(|e| panic!("{e}")).findings
    };
    let linear = run(None);
    let counts = |f: &[Finding]| -> Vec<_> { f.iter().map(|f| (f.kind, f.invocations)).collect() };
    assert_eq!(counts(&run(Some(5))), counts(&linear), "{linear:#?}");
    linear
}

/// The one finding of `kind` in `src`, at the line holding `at`, with its invocation count.
fn count(src: &str, kind: FindingKind, at: &str) -> u64 {
    let f = only(&findings(src), kind);
    assert_eq!(f.loc.as_ref().unwrap().line, line_of(src, at), "{f}");
    let n = f.invocations.unwrap_or_else(|| panic!("no count: {f}"));
    let suffix = format!(" (in {n} invocations)");
    assert_eq!(f.message.ends_with(&suffix), n > 1, "{f}");
    n
}

/// Lanes 0..5 divide by zero (5 of the 8 lanes of one execution).
const DIVIDE_IN_5: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    let d = f32(lid / 5u);
    out[lid] = 1.0 / d;
}";

/// Lanes 0..5 shift by 40.
const SHIFT_IN_5: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    let amount = select(3u, 40u, lid < 5u);
    out[lid] = lid << amount;
}";

/// Lane 7 writes a workgroup vector, then lanes 0..5 read its four words with no barrier
/// between: 5 lanes race, 20 words.
const RACE_IN_5: &str = "
var<workgroup> cell: vec4<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 7u { cell = vec4<u32>(lid); }
    if lid < 5u {
        let v = cell;
        out[lid] = v.x + v.w;
    }
}";

/// A subgroup operation run by lanes 0..5 of the 8.
const SHUFFLE_IN_5: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < 5u {
        out[lid] = subgroupShuffleXor(lid, 1u);
    }
}";

#[test]
fn a_finding_in_five_lanes_of_one_execution_counts_five_invocations_whatever_its_kind() {
    let nonfinite = count(DIVIDE_IN_5, FindingKind::NonFinite, "1.0 / d");
    let shift = count(SHIFT_IN_5, FindingKind::ShiftOverflow, "<< amount");
    let race = count(RACE_IN_5, FindingKind::WorkgroupRace, "let v = cell");
    let uniformity = count(
        SHUFFLE_IN_5,
        FindingKind::NonUniformSubgroupOp,
        "subgroupShuffleXor",
    );
    assert_eq!([nonfinite, shift, race, uniformity], [5; 4]);
}

/// Lanes 0..3 divide by zero in each of 4 iterations.
const DIVIDE_IN_A_LOOP: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = 0.0;
    for (var i = 0u; i < 4u; i++) {
        let d = f32(lid / 3u);
        acc += 1.0 / d;
    }
    out[lid] = acc;
}";

#[test]
fn each_execution_adds_the_lanes_it_happened_in() {
    assert_eq!(
        count(DIVIDE_IN_A_LOOP, FindingKind::NonFinite, "1.0 / d"),
        3 * 4
    );
}

/// A read of one lane out of range counts one (no ` (in 1 invocations)`).
const ONE_LANE_PAST_THE_END: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) {
    var a = array<u32, 8>(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
    let i = select(lid, 8u, lid == 2u);
    out[lid] = a[i];
}";

#[test]
fn a_finding_in_one_lane_counts_one_and_says_nothing() {
    assert_eq!(
        count(ONE_LANE_PAST_THE_END, FindingKind::OutOfBounds, "a[i]"),
        1
    );
}
