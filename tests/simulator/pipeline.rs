//! Pipelines of several passes over shared buffers (`wgsimd_sim::pipeline`, the engine of
//! `wgsimd pipeline`): the reduce-then-scan of tests/fixtures/pipeline/reduce_scan, three passes
//! in plain WGSL keeping their state in buffers between passes, at every subgroup size; and its
//! findings attributed to the pass they happen in.

use wgsimd::finding::FindingKind;
use wgsimd::sim::SimConfig;
use wgsimd_sim::check::{ElemType, InitSpec};
use wgsimd_sim::pipeline::{run, BindingSpec, BufferSpec, Grid, PassSpec, PipelineRequest};

const N: u32 = 1000;

fn fixture(name: &str) -> (String, String) {
    let path = format!(
        "{}/tests/fixtures/pipeline/reduce_scan/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let source = std::fs::read_to_string(&path).unwrap();
    (name.to_string(), source)
}

fn bind(slot: (u32, u32), buffer: &str) -> BindingSpec {
    BindingSpec {
        group: slot.0,
        binding: slot.1,
        buffer: buffer.into(),
        offset: 0,
        size: None,
    }
}

/// What tests/fixtures/pipeline/reduce_scan/pipeline.json says, built by hand: `n` elements of
/// input in workgroups of 128.
fn reduce_scan(n: u32, sg: u32) -> PipelineRequest {
    let groups = n.div_ceil(128);
    let buf = |name: &str, init| BufferSpec {
        name: name.into(),
        ty: ElemType::U32,
        init,
        seed: 1,
        texture: None,
    };
    let pass = |label: &str, (file, source): (String, String), entry: &str, wg, binds| PassSpec {
        label: label.into(),
        file,
        source,
        entry: entry.into(),
        workgroups: Grid::Direct([wg, 1, 1]),
        overrides: if entry == "scan_partials" {
            vec![]
        } else {
            vec![("WG".into(), 128.0)]
        },
        bindings: binds,
        immediates: None,
    };
    PipelineRequest {
        buffers: vec![
            buf("input", InitSpec::Iota(N as usize)),
            buf("params", InitSpec::Values(vec![n, groups, 0, 0])),
            buf("partials", InitSpec::Zeros(groups as usize)),
            buf("total", InitSpec::Uninit(1)),
            buf("output", InitSpec::Uninit(n as usize)),
        ],
        passes: vec![
            pass(
                "reduce",
                fixture("reduce.wgsl"),
                "reduce",
                groups,
                vec![
                    bind((0, 0), "input"),
                    bind((0, 1), "params"),
                    bind((1, 0), "partials"),
                ],
            ),
            pass(
                "scan",
                fixture("scan.wgsl"),
                "scan_partials",
                1,
                vec![
                    bind((0, 1), "params"),
                    bind((1, 0), "partials"),
                    bind((1, 1), "total"),
                ],
            ),
            pass(
                "downsweep",
                fixture("scan.wgsl"),
                "downsweep",
                groups,
                vec![
                    bind((0, 0), "input"),
                    bind((0, 1), "params"),
                    bind((1, 0), "partials"),
                    bind((2, 0), "output"),
                ],
            ),
        ],
        config: SimConfig {
            subgroup_size: sg,
            ..Default::default()
        },
    }
}

/// Three passes, the second reading what the first wrote and the third what both wrote: the
/// exclusive scan of 0..1000 and its total, clean at every subgroup size; both shaders start
/// with `enable subgroups;`, blanked once per file.
#[test]
fn reduce_then_scan_keeps_state_between_passes() {
    let mut want = Vec::new();
    let mut sum = 0;
    for i in 0..N {
        want.push(sum);
        sum += i;
    }
    for sg in [4, 8, 16, 32, 64, 128] {
        let r = run(&reduce_scan(N, sg)).unwrap();
        assert!(r.findings.is_empty(), "{sg}: {:#?}", r.findings);
        assert_eq!(r.buffers[3].1, [sum], "{sg}");
        assert_eq!(r.buffers[4].1, want, "{sg}");
        let files: Vec<&str> = r.stripped.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(files, ["reduce.wgsl", "scan.wgsl"]);
    }
}

/// Findings carry the index of their pass: a length past the input makes the first and last
/// passes read past it (each reported in its own pass, though both are in one run); a
/// downsweep over too few workgroups leaves output unwritten, a finding of the whole run.
#[test]
fn findings_name_their_pass() {
    // params.n = 1100 over 1000 input elements and an output of 1100
    let r = run(&reduce_scan(1100, 32)).unwrap();
    let oob: Vec<Option<usize>> = r
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::OutOfBounds)
        .map(|f| f.pass)
        .collect();
    assert_eq!(oob, [Some(0), Some(2)], "{:#?}", r.findings);
    let mut req = reduce_scan(N, 32);
    req.passes[2].workgroups = Grid::Direct([7, 1, 1]);
    let r = run(&req).unwrap();
    assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
    assert_eq!(r.findings[0].kind, FindingKind::UnwrittenOutput);
    assert_eq!(r.findings[0].pass, None);
}
