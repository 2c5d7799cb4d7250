//! What the kernel's author declared: a `subgroup_uniformity` diagnostic filter makes a
//! subgroup operation run with lanes missing a note, not a finding; a binding smaller than its
//! variable's type is a finding (`binding-too-small`). Each with a flagged kernel and a
//! looks-bad-but-fine twin.

use std::sync::Arc;

use super::{line_of, only, run_with};
use crate::finding::FindingKind;
use crate::pipeline::{self, BindingSpec, BufferSpec, Grid, PassSpec, PipelineRequest};
use crate::plan::{BufferInit, Workgroups};
use crate::{Flavor, Kernel, Plan, SimConfig, Simulator};

/// A shuffle in a branch the last three of 64 lanes skip (61 elements), with `FILTER` before
/// the entry point and `BRANCH` before the `if`.
const PARTIAL: &str = "
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
fn shuffled(x: u32) -> u32 {
    return subgroupShuffleXor(x, 1u);
}
FILTER
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < arrayLength(&input) {
        let x = input[lid];
        output[lid] = x + subgroupShuffleXor(x, 1u);
    }
    BRANCH if lid < arrayLength(&input) {
        output[lid] += subgroupAdd(1u) + shuffled(lid);
    }
}";

const BINDS: &[&str] = &["0=u32:iota:61", "1=u32:uninit:61"];

/// A finding's kind and line.
type Place = (String, u32);

/// `PARTIAL` with its placeholders filled; the kinds of its findings and of its notes, each
/// with the line it names.
fn partial(head: &str, filter: &str, branch: &str) -> (Vec<Place>, Vec<Place>) {
    let src = format!(
        "{head}{}",
        PARTIAL.replace("FILTER", filter).replace("BRANCH", branch)
    );
    let r = run_with(&src, 8, None, BINDS);
    let of = |v: &[crate::finding::Finding]| {
        v.iter()
            .map(|f| {
                (
                    f.kind.name().to_string(),
                    f.loc.as_ref().map_or(0, |l| l.line),
                )
            })
            .collect::<Vec<_>>()
    };
    (of(&r.findings), of(&r.notes))
}

fn at(kind: &str, line: u32) -> Place {
    (kind.to_string(), line)
}

#[test]
fn subgroup_ops_out_of_uniform_control_flow_are_findings_without_a_filter() {
    let src = PARTIAL.replace("FILTER", "").replace("BRANCH", "");
    let (findings, notes) = partial("", "", "");
    let k = "non-uniform-subgroup-op";
    assert_eq!(
        findings,
        [
            at(k, line_of(&src, "x + subgroupShuffleXor")),
            at(k, line_of(&src, "subgroupAdd")),
            at(k, line_of(&src, "return subgroupShuffleXor"))
        ]
    );
    assert!(notes.is_empty());
}

#[test]
fn a_module_filter_of_any_severity_but_error_makes_them_notes() {
    for severity in ["off", "info", "warning"] {
        let head = format!("diagnostic({severity}, subgroup_uniformity);\n");
        let (findings, notes) = partial(&head, "", "");
        assert!(findings.is_empty(), "{severity}: {findings:?}");
        assert_eq!(notes.len(), 3, "{severity}: {notes:?}");
    }
    let (findings, notes) = partial("diagnostic(error, subgroup_uniformity);\n", "", "");
    assert_eq!((findings.len(), notes.len()), (3, 0));
    // the note names the filter and where it is
    let src = format!("diagnostic(off, subgroup_uniformity);\n{PARTIAL}")
        .replace("FILTER", "")
        .replace("BRANCH", "");
    let r = run_with(&src, 8, None, BINDS);
    let n = &r.notes[0];
    assert_eq!(n.kind, FindingKind::NonUniformSubgroupOp);
    assert!(
        n.message.contains(
            "a note, not a finding: `diagnostic(off, subgroup_uniformity)` at test.wgsl:1:1 is \
             in force here"
        ),
        "{n}"
    );
    assert_eq!(n.parties.len(), 2, "{n}");
}

#[test]
fn a_filter_covers_where_it_stands_and_the_innermost_wins() {
    let src = PARTIAL.replace("FILTER", "").replace("BRANCH", "");
    let (first, add, helper) = (
        line_of(&src, "x + subgroupShuffleXor"),
        line_of(&src, "subgroupAdd"),
        line_of(&src, "return subgroupShuffleXor"),
    );
    let k = "non-uniform-subgroup-op";
    // on the entry point: its own operations, not the helper's (the filter where the operation
    // is written decides)
    let (findings, notes) = partial("", "@diagnostic(off, subgroup_uniformity)", "");
    assert_eq!(findings, [at(k, helper)]);
    assert_eq!(notes, [at(k, first), at(k, add)]);
    // on the second `if` alone
    let (findings, notes) = partial("", "", "@diagnostic(info, subgroup_uniformity)");
    assert_eq!(findings, [at(k, first), at(k, helper)]);
    assert_eq!(notes, [at(k, add)]);
    // off for the module, back to error for the second `if`
    let (findings, notes) = partial(
        "diagnostic(off, subgroup_uniformity);\n",
        "",
        "@diagnostic(error, subgroup_uniformity)",
    );
    assert_eq!(findings, [at(k, add + 1)]);
    assert_eq!(notes, [at(k, first + 1), at(k, helper + 1)]);
    // another rule's filter is not this one's
    let (findings, notes) = partial("", "@diagnostic(off, derivative_uniformity)", "");
    assert_eq!((findings.len(), notes.len()), (3, 0));
}

#[test]
fn notes_leave_a_report_clean() {
    let src = format!("diagnostic(off, subgroup_uniformity);\n{PARTIAL}")
        .replace("FILTER", "")
        .replace("BRANCH", "");
    let kernel = Arc::new(Kernel::from_source("partial", Flavor::Subgroup, src).unwrap());
    let mut plan = Plan::new("partial");
    let input = plan.upload("input", &(0..61u32).collect::<Vec<_>>());
    let output = plan.buffer("output", 61 * 4, BufferInit::Zeroed);
    plan.read_back(output);
    let one = Workgroups::Direct([1, 1, 1]);
    let bind = [("input", input), ("output", output)];
    plan.pass_named("partial", &kernel, "main", &[], &bind, one)
        .unwrap();
    let sim = Simulator::new(SimConfig {
        subgroup_size: 8,
        ..Default::default()
    })
    .unwrap();
    let (_, report) = sim.run_plan(&plan).unwrap();
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(report.notes.len(), 3, "{:?}", report.notes);
    assert!(report.clean("partial").is_ok());
}

/// `data`, a fixed-size array, and `rows`, a struct ending in a runtime-sized array.
const SIZED: &str = "
struct Rows {
    count: u32,
    rows: array<u32>,
}
@group(0) @binding(0) var<storage, read_write> data: array<u32, 64>;
@group(0) @binding(1) var<storage, read> table: Rows;
@group(0) @binding(2) var<storage, read> unused: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < min(table.count, arrayLength(&table.rows)) {
        data[lid] = table.rows[lid];
    }
}";

fn too_small(binds: &[&str]) -> Vec<String> {
    run_with(SIZED, 8, None, binds)
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::BindingTooSmall)
        .map(|f| f.message.clone())
        .collect()
}

#[test]
fn a_binding_smaller_than_its_type_is_flagged() {
    // a word short of the fixed-size array
    let r = run_with(SIZED, 8, None, &["0=u32:zeros:63", "1=u32:[0,0]"]);
    let f = only(&r.findings, FindingKind::BindingTooSmall);
    assert_eq!(
        f.message,
        "`data` (@group(0) @binding(0)) is bound to 252 bytes of `binding 0` from byte 0, less \
         than the 256 bytes of its type: WebGPU refuses the binding"
    );
    assert_eq!(
        f.loc.as_ref().unwrap().line,
        line_of(SIZED, "var<storage, read_write> data")
    );
    assert_eq!((f.pass, f.invocations), (Some(0), None));
    // the runtime-sized array without its one element
    let got = too_small(&["0=u32:zeros:64", "1=u32:[0]"]);
    assert_eq!(
        got,
        [
            "`table` (@group(0) @binding(1)) is bound to 4 bytes of `binding 1` from byte 0, less \
          than the 8 bytes of its type (its fixed part and one element of its runtime-sized \
          array): WebGPU refuses the binding"
        ]
    );
}

#[test]
fn a_binding_of_exactly_its_type_is_fine() {
    // the array's 256 bytes, the struct's fixed part and one element; a binding the entry point
    // does not use is not the pipeline's
    let r = run_with(
        SIZED,
        8,
        None,
        &["0=u32:zeros:64", "1=u32:[1,7]", "2=u32:zeros:1"],
    );
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.buffers[&0].1[0], 7);
}

#[test]
fn a_range_of_a_buffer_too_small_names_the_buffer() {
    let buffer = |name: &str, words: usize| BufferSpec {
        name: name.into(),
        ty: crate::check::ElemType::U32,
        init: crate::check::InitSpec::Zeros(words),
        seed: 0,
        texture: None,
    };
    let bind = |binding: u32, buffer: &str, offset: u64, size: Option<u64>| BindingSpec {
        group: 0,
        binding,
        buffer: buffer.into(),
        offset,
        size,
    };
    let request = |size: u64| PipelineRequest {
        buffers: vec![buffer("arena", 256), buffer("table", 2)],
        passes: vec![PassSpec {
            label: "copy".into(),
            file: "sized.wgsl".into(),
            source: SIZED.into(),
            entry: "main".into(),
            workgroups: Grid::Direct([1, 1, 1]),
            overrides: vec![],
            bindings: vec![bind(0, "arena", 512, Some(size)), bind(1, "table", 0, None)],
            immediates: None,
        }],
        config: SimConfig::default(),
    };
    let r = pipeline::run(&request(255)).unwrap();
    let f = only(&r.findings, FindingKind::BindingTooSmall);
    assert!(
        f.message
            .starts_with("`data` (@group(0) @binding(0)) is bound to 255 bytes of `arena` from byte 512, less than the 256 bytes"),
        "{f}"
    );
    let r = pipeline::run(&request(256)).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
}

#[test]
fn a_callers_range_is_bound_in_whole_elements_or_as_the_filler() {
    use crate::plan::arg_binding_bytes;
    // a vec4 array: 20 bytes hold one element, 12 none (the filler), a binding's size caps it
    assert_eq!(arg_binding_bytes(20, None, (0, 16)), 16);
    assert_eq!(arg_binding_bytes(12, None, (0, 16)), 0);
    assert_eq!(arg_binding_bytes(64, Some(40), (0, 16)), 32);
    // a struct of 48 fixed bytes and 8-byte items: the fixed part and whole items, none without
    // an item
    assert_eq!(arg_binding_bytes(192, None, (48, 8)), 192);
    assert_eq!(arg_binding_bytes(60, None, (48, 8)), 56);
    assert_eq!(arg_binding_bytes(52, None, (48, 8)), 0);
    assert_eq!(arg_binding_bytes(40, None, (48, 8)), 0);
}
