//! The finding kinds that point at a kernel's assumption about its subgroups or its integer
//! widths, each with a flagged kernel and a looks-bad-but-fine twin, at several subgroup sizes
//! with linear and shuffled lanes, and with the line the report names.

use super::{findings_at, kinds, line_of, only, set};
use crate::finding::FindingKind;

const NONE: &[&str] = &[];

/// A reduction written for subgroups of 32: the xor masks 16 and 8 leave smaller subgroups.
const XOR_FOR_32: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var s = lid;
    s += subgroupShuffleXor(s, 16u);
    s += subgroupShuffleXor(s, 8u);
    s += subgroupShuffleXor(s, 4u);
    out[lid] = s;
}";

#[test]
fn shuffle_xor_past_the_subgroup_is_flagged() {
    let got = kinds(XOR_FOR_32, &[4, 8, 16, 32, 64], &["0=u32:zeros:64"]);
    let flagged = set(&["shuffle-out-of-range"]);
    assert_eq!(
        got,
        [
            flagged.clone(),
            flagged.clone(),
            flagged,
            set(NONE),
            set(NONE)
        ]
    );
    let f = only(
        &findings_at(XOR_FOR_32, 16, None, [1, 1, 1], &["0=u32:zeros:64"]),
        FindingKind::ShuffleOutOfRange,
    );
    assert_eq!(
        f.loc.as_ref().unwrap().line,
        line_of(XOR_FOR_32, "16u)"),
        "{f}"
    );
    assert!(
        f.message
            .contains("has mask 16, not below the subgroup size 16"),
        "{f}"
    );
    // at 8, the mask 8 too
    let f = findings_at(XOR_FOR_32, 8, None, [1, 1, 1], &["0=u32:zeros:64"]);
    let lines: Vec<u32> = f.iter().map(|f| f.loc.as_ref().unwrap().line).collect();
    assert_eq!(
        lines,
        [line_of(XOR_FOR_32, "16u)"), line_of(XOR_FOR_32, "8u)")]
    );
}

#[test]
fn broadcast_shuffle_and_shift_past_the_subgroup_are_flagged() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    let a = subgroupBroadcast(lid, 31u);
    let b = subgroupShuffle(lid, lane + 16u);
    let c = subgroupShuffleDown(lid, 16u);
    out[lid] = a + b + c;
}";
    for s in [4, 8, 16] {
        let f = findings_at(src, s, None, [1, 1, 1], &["0=u32:zeros:64"]);
        let lines: Vec<u32> = f.iter().map(|f| f.loc.as_ref().unwrap().line).collect();
        assert_eq!(lines, [6, 7, 8], "sg{s}: {f:#?}");
        assert!(f.iter().all(|f| f.kind == FindingKind::ShuffleOutOfRange));
    }
    // at 32, lanes 16..31 still shuffle past the end; broadcast and shift are in range
    let f = findings_at(src, 32, None, [1, 1, 1], &["0=u32:zeros:64"]);
    let f = only(&f, FindingKind::ShuffleOutOfRange);
    assert_eq!(f.loc.as_ref().unwrap().line, 7);
    assert_eq!(f.parties[0].lane, 16);
}

#[test]
fn butterfly_and_scan_over_the_subgroup_size_are_fine() {
    // masks and deltas below the size; shuffleUp's edge lanes read off the subgroup but their
    // results are dropped (the scan idiom)
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    var total = lane;
    for (var m = size / 2u; m > 0u; m >>= 1u) {
        total += subgroupShuffleXor(total, m);
    }
    var scan = 1u;
    for (var d = 1u; d < size; d <<= 1u) {
        let y = subgroupShuffleUp(scan, d);
        if lane >= d { scan += y; }
    }
    out[3u * lid] = total;
    out[3u * lid + 1u] = scan;
    out[3u * lid + 2u] = lane;
}";
    for s in [4, 8, 16, 32, 64] {
        for shuffle in [None, Some(3)] {
            let r = super::run_with(src, s, shuffle, &["0=u32:zeros:192"]);
            assert!(r.findings.is_empty(), "sg{s}: {:#?}", r.findings);
            for (lid, v) in r.buffers[&0].1.chunks(3).enumerate() {
                // the lanes' sum, and the inclusive scan of ones
                assert_eq!(v[0], s * (s - 1) / 2, "sg{s} lid {lid}");
                assert_eq!(v[1], v[2] + 1, "sg{s} lid {lid}");
            }
        }
    }
}

/// Counts the voters of a subgroup from the ballot's first word only.
const BALLOT_X: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    let b = subgroupBallot(lid < 1000u);
    out[lid] = countOneBits(b.x);
}";

#[test]
fn ballot_read_through_x_only_is_flagged_past_32_lanes() {
    let got = kinds(BALLOT_X, &[8, 32, 64, 128], &["0=u32:zeros:128"]);
    let flagged = set(&["ballot-high-lanes"]);
    assert_eq!(got, [set(NONE), set(NONE), flagged.clone(), flagged]);
    let f = findings_at(BALLOT_X, 64, None, [1, 1, 1], &["0=u32:zeros:128"]);
    let f = only(&f, FindingKind::BallotHighLanes);
    // reported at the `.x`, the ballot named in the message, a lane >= 32 as the party
    assert_eq!(
        f.loc.as_ref().unwrap().line,
        line_of(BALLOT_X, "b.x"),
        "{f}"
    );
    assert!(f.message.contains("reads only x"), "{f}");
    assert!(f.parties[0].lane >= 32, "{f}");
}

#[test]
fn ballot_in_a_variable_read_through_x_is_flagged() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32) {
    var b = subgroupBallot(true);
    b.y = 0u;
    out[lid] = countOneBits(b.x) + countOneBits(b.y);
}";
    let got = kinds(src, &[32, 64, 128], &["0=u32:zeros:128"]);
    // x and y are read: 64 lanes are seen, 128 are not
    assert_eq!(got, [set(NONE), set(NONE), set(&["ballot-high-lanes"])]);
}

#[test]
fn ballot_read_whole_or_with_high_lanes_silent_is_fine() {
    let all_words = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32) {
    let b = subgroupBallot(lid < 1000u);
    let c = countOneBits(b.x) + countOneBits(b.y) + countOneBits(b.z) + countOneBits(b.w);
    let d = countOneBits(b);
    out[lid] = c + d.x + d.y + d.z + d.w;
}";
    let low_lanes_vote = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    let b = subgroupBallot(lane < 32u);
    out[lid] = countOneBits(b.x);
}";
    for src in [all_words, low_lanes_vote] {
        let got = kinds(src, &[8, 32, 64, 128], &["0=u32:zeros:128"]);
        assert!(got.iter().all(|k| k.is_empty()), "{got:?}\n{src}");
    }
    let r = super::run_with(all_words, 128, None, &["0=u32:zeros:128"]);
    assert!(r.buffers[&0].1.iter().all(|&c| c == 256));
}

#[test]
fn shift_by_the_width_or_more_is_flagged() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let x = 0x80000001u;
    let s = lid + 1u;
    out[lid] = (x << s) | (x >> (s & 31u)) | (x >> 4u);
    let v = vec2<i32>(-8, 8) >> vec2<u32>(s % 32u, s);
    out[lid] += bitcast<u32>(v.x + v.y);
}";
    let f = findings_at(src, 32, None, [1, 1, 1], &["0=u32:zeros:64"]);
    let lines: Vec<u32> = f.iter().map(|f| f.loc.as_ref().unwrap().line).collect();
    assert_eq!(lines, [7, 8], "{f:#?}");
    assert!(f.iter().all(|f| f.kind == FindingKind::ShiftOverflow));
    assert!(f[0].message.contains("`<<` by 32"), "{}", f[0]);
    assert!(f[0].message.contains("mod 32 = 0"), "{}", f[0]);
    assert!(f[1].message.contains("i32"), "{}", f[1]);
    // the values are WGSL's: the amount modulo 32
    let r = super::run_with(src, 32, None, &["0=u32:zeros:64"]);
    for lid in 0..64u32 {
        let (x, s) = (0x8000_0001u32, lid + 1);
        let v = (-8i32 >> (s % 32)) + (8i32 >> (s % 32));
        let want = ((x << (s % 32)) | (x >> (s & 31)) | (x >> 4)).wrapping_add(v as u32);
        assert_eq!(r.buffers[&0].1[lid as usize], want, "lid {lid}");
    }
}

#[test]
fn masked_and_constant_shifts_are_fine() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let x = 0x80000001u;
    let s = lid * 7u;
    let t = min(lid, 31u);
    out[lid] = (x << (s & 31u)) | (x >> (s % 32u)) | (x << 31u) | (x >> t);
}";
    let got = kinds(src, &[4, 32, 64], &["0=u32:zeros:64"]);
    assert!(got.iter().all(|k| k.is_empty()), "{got:?}");
}

#[test]
fn subgroup_and_lane_from_the_local_index_are_flagged() {
    // through a struct of builtins, a helper's arguments, a conversion and a private variable
    let src = "
struct Inv {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_size) size: u32,
}
var<private> local_index: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn lane_of(i: u32, s: u32) -> u32 {
    return i % s;
}
@compute @workgroup_size(64)
fn main(inv: Inv) {
    local_index = inv.lid;
    let sg = i32(local_index) / i32(inv.size);
    out[inv.lid] = u32(sg) * 1000u + lane_of(inv.lid, inv.size);
}";
    for s in [4, 16, 64] {
        for shuffle in [None, Some(5)] {
            let mut f = findings_at(src, s, shuffle, [1, 1, 1], &["0=u32:zeros:64"]);
            f.sort_by_key(|f| f.loc.as_ref().unwrap().line);
            let lines: Vec<u32> = f.iter().map(|f| f.loc.as_ref().unwrap().line).collect();
            assert_eq!(lines, [9, 14], "sg{s}: {f:#?}");
            assert!(f
                .iter()
                .all(|f| f.kind == FindingKind::LaneLayoutAssumption));
            assert!(f[0].message.contains("subgroup_invocation_id"), "{}", f[0]);
            assert!(f[1].message.contains("`subgroup_id`"), "{}", f[1]);
        }
    }
}

#[test]
fn subgroup_builtins_and_other_divisions_are_fine() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_id) sg: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    let subgroups = 64u / size;
    let warp = lid / 32u;
    let row = (lid + size) / size;
    out[lid] = sg * 1000u + lane + subgroups + warp + row % size;
}";
    let got = kinds(src, &[4, 32, 64], &["0=u32:zeros:64"]);
    assert!(got.iter().all(|k| k.is_empty()), "{got:?}");
}

#[test]
fn shifts_and_shuffles_past_the_end_that_a_select_drops_are_fine() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    let s = lid % 40u;
    let mask = select((1u << s) - 1u, 0xffffffffu, s >= LIMIT);
    let next = select(0u, subgroupShuffle(lid, lane + 1u), lane + 1u < size + EXTRA);
    out[lid] = mask ^ next;
}";
    let fine = src.replace("LIMIT", "32u").replace("EXTRA", "0u");
    let got = kinds(&fine, &[4, 32, 64], &["0=u32:zeros:64"]);
    assert!(got.iter().all(|k| k.is_empty()), "{got:?}");
    // guards one off: the lanes they let through keep the shift and the shuffle
    let off = src.replace("LIMIT", "33u").replace("EXTRA", "1u");
    let f = findings_at(&off, 32, None, [1, 1, 1], &["0=u32:zeros:64"]);
    let mut got: Vec<(FindingKind, u32)> = f
        .iter()
        .map(|f| (f.kind, f.loc.as_ref().unwrap().line))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (
                FindingKind::ShuffleOutOfRange,
                line_of(src, "subgroupShuffle")
            ),
            (FindingKind::ShiftOverflow, line_of(src, "1u << s")),
        ],
        "{f:#?}"
    );
    // the lane that kept the shuffle past the end is the subgroup's last
    let shuffle = only(&f, FindingKind::ShuffleOutOfRange);
    assert_eq!(shuffle.parties[0].lane, 31, "{shuffle}");
}
