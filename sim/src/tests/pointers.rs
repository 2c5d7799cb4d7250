//! Pointer parameters of the workgroup and storage spaces (`crate::pointers`): kernels that pass
//! whole variables load and compute what WGSL says, with a note; a pointer into a variable is
//! still refused with naga's message; a race through a pointer parameter is still found.

use super::{run, run_with};
use crate::finding::FindingKind;

/// A helper that reads a workgroup array through its parameter, called for two arrays, and one
/// that writes through a pointer it was passed on to.
const TWO_TILES: &str = "
var<workgroup> a: array<u32, 64>;
var<workgroup> b: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

fn mirror(p: ptr<workgroup, array<u32, 64>>, i: u32) -> u32 {
    return (*p)[i] + (*p)[63u - i];
}

fn put(p: ptr<workgroup, array<u32, 64>>, i: u32, v: u32) {
    (*p)[i] = v;
}

fn fill(p: ptr<workgroup, array<u32, 64>>, i: u32, v: u32) {
    put(p, i, v);
}

fn bump(x: ptr<function, u32>) {
    *x += 1u;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    fill(&a, lid, lid);
    fill(&b, lid, 1000u * lid);
    workgroupBarrier();
    var v = mirror(&a, lid) + mirror(&b, lid);
    bump(&v);
    out[lid] = v;
}";

#[test]
fn whole_variables_passed_by_pointer_load_and_compute() {
    for s in [4, 32] {
        let r = run_with(TWO_TILES, s, Some(3), &["0=u32:uninit:64"]);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        // lid + (63 - lid) from a, 1000 * 63 from b, plus one
        assert_eq!(r.buffers[&0].1, vec![63 + 63_000 + 1; 64]);
        let note = r
            .stripped
            .iter()
            .find(|n| n.text.starts_with("pointer parameters"))
            .expect("a note");
        assert_eq!(
            note.text,
            "pointer parameters of the workgroup, storage or uniform space (in fill, mirror, put)"
        );
    }
}

#[test]
fn a_storage_buffer_passed_by_pointer() {
    let src = "
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
fn twice(p: ptr<storage, array<u32>, read_write>, i: u32) { (*p)[i] = 2u * (*p)[i]; }
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) lid: u32) { twice(&data, lid); }";
    let r = run(src, 8, &["0=u32:iota:8"]).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.buffers[&0].1, [0, 2, 4, 6, 8, 10, 12, 14]);
}

#[test]
fn a_race_through_a_pointer_parameter_is_found() {
    // looks like each invocation writes its own word, but every one writes word 0 of the tile
    // that another reads without a barrier
    let src = "
var<workgroup> tile: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn put(p: ptr<workgroup, array<u32, 64>>, i: u32) { (*p)[0] = i; }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    put(&tile, lid);
    out[lid] = tile[0];
}";
    let r = run_with(src, 32, None, &["0=u32:uninit:64"]);
    assert!(
        r.findings
            .iter()
            .any(|f| f.kind == FindingKind::WorkgroupRace),
        "{:?}",
        r.findings
    );
}

#[test]
fn a_pointer_into_a_variable_is_still_refused() {
    let src = "
var<workgroup> tile: array<vec4<u32>, 4>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn first(p: ptr<workgroup, vec4<u32>>) -> u32 { return (*p).x; }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) lid: u32) { out[lid] = first(&tile[lid]); }";
    let Err(err) = run(src, 4, &["0=u32:uninit:4"]) else {
        panic!("loaded");
    };
    let err = err.to_string();
    assert!(err.contains("can't be passed into functions"), "{err}");
}
