//! Replaying a wgpu 30 API trace (`wgsimd_sim::replay`, the engine of `wgsimd replay`):
//! tests/fixtures/replay/reduce_scan, recorded by wgpu 30 itself from the lab's `trace_app`
//! (lavapipe), and hand-written traces for each way a trace can be wrong.

use std::path::{Path, PathBuf};

use wgsimd::finding::FindingKind;
use wgsimd::sim::SimConfig;
use wgsimd_sim::replay::{replay, DispatchSize};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay/reduce_scan")
}

fn at(sg: u32) -> SimConfig {
    SimConfig {
        subgroup_size: sg,
        ..Default::default()
    }
}

/// The sums of 128-element chunks of 0..1000, doubled (the pipeline constants WG = 128,
/// SCALE = 2), and their exclusive scan with the total.
fn expected() -> (Vec<u32>, Vec<u32>) {
    let sums: Vec<u32> = (0..8u32)
        .map(|g| (g * 128..((g + 1) * 128).min(1000)).sum::<u32>() * 2)
        .collect();
    let mut scan = vec![0];
    for s in &sums {
        scan.push(scan.last().unwrap() + s);
    }
    (sums, scan)
}

/// Both dispatches run, in order, across two submissions: the reduction with its pipeline
/// constants, a dynamic offset and a bind group in group 1, then the scan dispatched indirectly
/// from arguments a queue write put at byte 16, after a clear. At 32 lanes the results are what
/// the application meant, and nothing is found.
#[test]
fn the_fixture_replays_clean_at_32_lanes() {
    let dump = ["partials".to_string(), "offsets".to_string()];
    let r = replay(&fixture(), at(32), &dump).unwrap();
    assert_eq!(r.stopped, None);
    assert_eq!(r.findings().count(), 0, "{:#?}", r.dispatches);
    let d: Vec<(&str, &str, u64)> = r
        .dispatches
        .iter()
        .map(|d| (d.pipeline.as_str(), d.entry.as_str(), d.submission))
        .collect();
    assert_eq!(d, [("partial sums", "partial", 1), ("scan", "scan", 2)]);
    assert_eq!(r.dispatches[0].size, DispatchSize::Direct([8, 1, 1]));
    assert_eq!(
        r.dispatches[1].size,
        DispatchSize::Indirect {
            buffer: "args".into(),
            offset: 16
        }
    );
    assert_eq!(r.dispatches[0].pass.as_deref(), Some("reduce"));
    assert_eq!(r.dispatches[0].module.as_deref(), Some("reduce"));
    assert!(r.dispatches[0].file.ends_with("data1.wgsl"));
    let (sums, scan) = expected();
    let partials = &r.dumps.iter().find(|(l, _)| l == "partials").unwrap().1;
    assert_eq!(partials.len(), 128);
    assert_eq!(partials[64..72], sums[..]);
    assert!(partials[..64]
        .iter()
        .chain(&partials[72..])
        .all(|&w| w == 0));
    let offsets = &r.dumps.iter().find(|(l, _)| l == "offsets").unwrap().1;
    assert_eq!(offsets, &scan);
}

/// Below 32 lanes (lavapipe has 8, and the application computed zeros there) the reduction's
/// butterfly reaches past the subgroup: `shuffle-out-of-range` at the lines of the application's
/// own shader file whose masks are not below the subgroup size, in the first dispatch only.
#[test]
fn the_fixture_finds_the_subgroup_bug_below_32_lanes() {
    for sg in [4, 8, 16] {
        let r = replay(&fixture(), at(sg), &[]).unwrap();
        assert_eq!(r.stopped, None);
        assert!(r.dispatches[1].findings.is_empty());
        let lines: Vec<(FindingKind, u32)> = r.dispatches[0]
            .findings
            .iter()
            .map(|f| (f.kind, f.loc.as_ref().unwrap().line))
            .collect();
        // masks 16, 8 and 4 on lines 33, 34, 35: those not below the subgroup size
        let want: Vec<(FindingKind, u32)> = [(16, 33), (8, 34), (4, 35)]
            .into_iter()
            .filter(|&(mask, _)| mask >= sg)
            .map(|(_, line)| (FindingKind::ShuffleOutOfRange, line))
            .collect();
        assert_eq!(lines, want, "{sg}");
        let file = &r.dispatches[0].findings[0].loc.as_ref().unwrap().file;
        assert!(file.ends_with("reduce_scan/data1.wgsl"), "{file}");
        let line = std::fs::read_to_string(fixture().join("data1.wgsl")).unwrap();
        assert!(line
            .lines()
            .nth(32)
            .unwrap()
            .contains("subgroupShuffleXor(s, 16u)"));
    }
}

/// A folder of this test process holding `trace.ron` with `text` and the data files given.
fn trace_dir(name: &str, text: &str, data: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("wgsimd-replay-{}", std::process::id()))
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("trace.ron"), text).unwrap();
    for (file, bytes) in data {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir
}

const SHADER: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) { out[i] = i; }
";

/// A trace of one module, buffer, pipeline and bind group, then `submit` (commands of one
/// submission, RON text).
fn one_dispatch(binding: &str, submit: &str) -> String {
    format!(
        r#"[
CreateShaderModule(id: PointerId(1), desc: (label: Some("m")), data: File("data1.wgsl")),
CreateBuffer(PointerId(2), (label: Some("out"), size: 16, usage: "STORAGE", mapped_at_creation: false)),
CreateComputePipeline(id: PointerId(3), desc: (label: Some("p"), layout: None, stage: (module: PointerId(1), entry_point: Some("main"), constants: {{}}))),
GetComputePipelineBindGroupLayout(id: PointerId(4), pipeline: PointerId(3), index: 0),
CreateBindGroup(PointerId(5), (label: None, layout: PointerId(4), entries: [(binding: 0, resource: {binding})])),
Submit(1, [{submit}]),
]"#
    )
}

const BUFFER: &str = "Buffer((buffer: PointerId(2), offset: 0, size: None))";

fn pass(commands: &str) -> String {
    format!(
        "RunComputePass(pass: (label: None, commands: [SetPipeline(PointerId(3)), \
         SetBindGroup(index: 0, num_dynamic_offsets: 0, bind_group: Some(PointerId(5))), \
         {commands}], dynamic_offsets: [], string_data: [], immediates_data: []), \
         timestamp_writes: None)"
    )
}

/// A hand-written trace of the same shape as wgpu's replays; render passes and texture copies
/// are left out with a note, and a trace without its closing `]` (the application still
/// running) replays what it has.
#[test]
fn hand_written_traces() {
    let text = one_dispatch(
        BUFFER,
        &format!(
            "{}, RunRenderPass(pass: (label: None, commands: []), color_attachments: []), \
             CopyTextureToBuffer(src: (), dst: (), size: ())",
            pass("DispatchWorkgroups((1, 1, 1))")
        ),
    );
    let dir = trace_dir("ok", &text, &[("data1.wgsl", SHADER.as_bytes())]);
    let r = replay(&dir, at(4), &["out".into()]).unwrap();
    assert_eq!(r.stopped, None);
    assert_eq!(r.dispatches.len(), 1);
    assert_eq!(r.dumps, [("out".to_string(), vec![0, 1, 2, 3])]);
    assert_eq!(r.notes.len(), 2, "{:?}", r.notes);
    let open = text.trim_end().trim_end_matches(']');
    let dir = trace_dir("open", open, &[("data1.wgsl", SHADER.as_bytes())]);
    let r = replay(&dir, at(4), &[]).unwrap();
    assert_eq!(r.dispatches.len(), 1);
    assert!(
        r.notes.iter().any(|n| n.contains("ends without `]`")),
        "{:?}",
        r.notes
    );
}

/// Immediate data: `SetImmediate` commands write the pass's immediates from its
/// `immediates_data` (two commands, the second over part of the first), and the dispatch reads
/// them; a shader that reads immediates no command set stops the replay with the reason, as do
/// immediates past what the pass recorded.
#[test]
fn immediates_set_in_the_pass_reach_the_dispatch() {
    let shader = "var<immediate> k: vec2<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) { out[i] = i * k.x + k.y; }
";
    let immediate_pass = |commands: &str, data: &str| {
        format!(
            "RunComputePass(pass: (label: None, commands: [SetPipeline(PointerId(3)), \
             SetBindGroup(index: 0, num_dynamic_offsets: 0, bind_group: Some(PointerId(5))), \
             {commands}, DispatchWorkgroups((1, 1, 1))], dynamic_offsets: [], string_data: [], \
             immediates_data: [{data}]), timestamp_writes: None)"
        )
    };
    let files = [("data1.wgsl", shader.as_bytes())];
    let set = "SetImmediate(offset: 0, size_bytes: 8, values_offset: 0), \
               SetImmediate(offset: 4, size_bytes: 4, values_offset: 2)";
    let text = one_dispatch(BUFFER, &immediate_pass(set, "3, 1, 10"));
    let r = replay(
        &trace_dir("immediates", &text, &files),
        at(4),
        &["out".into()],
    )
    .unwrap();
    assert_eq!(r.stopped, None);
    assert_eq!(r.dumps, [("out".to_string(), vec![10, 13, 16, 19])]);
    let unset = one_dispatch(BUFFER, &pass("DispatchWorkgroups((1, 1, 1))"));
    let r = replay(&trace_dir("immediates-unset", &unset, &files), at(4), &[]).unwrap();
    let why = r.stopped.expect("a stop");
    assert!(why.contains("reads immediate data `k` (8 bytes)"), "{why}");
    let past = "SetImmediate(offset: 0, size_bytes: 8, values_offset: 2)";
    let text = one_dispatch(BUFFER, &immediate_pass(past, "3, 1, 10"));
    let r = replay(&trace_dir("immediates-past", &text, &files), at(4), &[]);
    let why = match r {
        Ok(r) => r.stopped.expect("a stop"),
        Err(e) => e.to_string(),
    };
    assert!(why.contains("past the pass's immediate data"), "{why}");
}

/// What cannot be read is an error; what cannot be run stops the replay with the reason and
/// the dispatches before it.
#[test]
fn bad_traces_are_errors_or_stop_with_a_reason() {
    let shader = [("data1.wgsl", SHADER.as_bytes())];
    let e = replay(Path::new("/nonexistent/trace"), at(32), &[]).unwrap_err();
    assert!(e.to_string().contains("trace.ron"), "{e}");
    for (name, text, want) in [
        (
            "not-a-list",
            "Init()".to_string(),
            "a wgpu trace is a list of actions",
        ),
        ("malformed", "[ CreateBuffer(".to_string(), "trace.ron:1:"),
        ("after", "[] x".to_string(), "text after the action list"),
        ("deep", format!("[{}", "(".repeat(1000)), "nested deeper"),
    ] {
        let dir = trace_dir(name, &text, &[]);
        let e = replay(&dir, at(32), &[]).unwrap_err().to_string();
        assert!(e.contains(want), "{name}: {e}");
    }
    let dispatch = pass("DispatchWorkgroups((1, 1, 1))");
    for (name, text, data, want) in [
        (
            "texture",
            one_dispatch("TextureView(PointerId(9))", &dispatch),
            &shader[..],
            "bound to a TextureView",
        ),
        (
            "spirv",
            one_dispatch(BUFFER, &dispatch).replace("data1.wgsl", "data1.spv"),
            &[("data1.spv", &[3u8, 2, 35, 7][..])][..],
            "its source is spv",
        ),
        (
            "outside",
            one_dispatch(BUFFER, &dispatch).replace("data1.wgsl", "../data1.wgsl"),
            &shader[..],
            "is not a file of the trace",
        ),
        (
            "missing-data",
            one_dispatch(BUFFER, &dispatch),
            &[][..],
            "data1.wgsl",
        ),
        (
            "naga-refuses",
            one_dispatch(BUFFER, &dispatch),
            &[("data1.wgsl", &b"fn main( {"[..])][..],
            "shader module m",
        ),
        (
            "no-pipeline",
            one_dispatch(BUFFER, &dispatch).replace("SetPipeline(PointerId(3)), ", ""),
            &shader[..],
            "no pipeline set",
        ),
        (
            "too-many-workgroups",
            one_dispatch(BUFFER, &pass("DispatchWorkgroups((4294967295, 1, 1))")),
            &shader[..],
            "exceeds",
        ),
        (
            "indirect-past-end",
            one_dispatch(
                BUFFER,
                &pass("DispatchWorkgroupsIndirect(buffer: PointerId(2), offset: 8)"),
            ),
            &shader[..],
            "indirect args outside",
        ),
        (
            "write-past-end",
            one_dispatch(BUFFER, &dispatch).replace(
                "Submit(1",
                "WriteBuffer(id: PointerId(2), data: File(\"data2.bin\"), offset: 18446744073709551612, size: 4, queued: true),\nSubmit(1",
            ),
            &[shader[0], ("data2.bin", &[1u8, 0, 0, 0][..])][..],
            "is not whole words inside it",
        ),
        (
            "huge-buffer",
            one_dispatch(BUFFER, &dispatch).replace("size: 16,", "size: 18446744073709551615,"),
            &shader[..],
            "largest buffer",
        ),
        (
            "unknown-buffer",
            one_dispatch("Buffer((buffer: PointerId(77), offset: 0, size: None))", &dispatch),
            &shader[..],
            "buffer 77 was not created",
        ),
        (
            "malformed-later",
            one_dispatch(BUFFER, &dispatch).replace("Submit(1, [", "Submit(1, [ ] ] ,"),
            &shader[..],
            "trace.ron:",
        ),
    ] {
        let dir = trace_dir(name, &text, data);
        let r = replay(&dir, at(32), &[])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let why = r.stopped.unwrap_or_else(|| panic!("{name}: not stopped"));
        assert!(why.contains(want), "{name}: {why}");
    }
}
