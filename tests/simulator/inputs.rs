//! What `wgsimd check` takes from real pipelines without edits: WGSL with directives naga 30
//! refuses (blanked, lines kept), pipeline-overridable constants, bindings in groups other than
//! 0, and buffers read from raw files; and the errors for each.

use std::path::PathBuf;

use wgsimd::finding::FindingKind;
use wgsimd::sim::SimConfig;
use wgsimd::Error;
use wgsimd_sim::check::{check, BindSpec, CheckRequest, InitSpec};

fn request(src: &str, binds: &[&str], overrides: &[(&str, f64)]) -> CheckRequest {
    CheckRequest {
        name: "app.wgsl".into(),
        source: src.into(),
        entry: "main".into(),
        workgroups: [1, 1, 1],
        binds: binds.iter().map(|b| b.parse().unwrap()).collect(),
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        immediates: None,
        config: SimConfig {
            subgroup_size: 16,
            ..Default::default()
        },
    }
}

/// A file of this test process in the temporary folder.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wgsimd-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A browser's WGSL: `enable subgroups;` and a refused `requires` are blanked, the kernel runs,
/// the notes say what went and where, and a finding points at the author's line and column.
#[test]
fn directives_naga_refuses_are_blanked_in_place() {
    let src = "enable subgroups;\nrequires unrestricted_pointer_parameters;\n\
               @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
               @compute @workgroup_size(32)\n\
               fn main(@builtin(local_invocation_index) i: u32) {\n    \
                   out[i] = subgroupAdd(1u);\n    \
                   out[i + 1u] = 0u;\n\
               }\n";
    let r = check(&request(src, &["0=u32:uninit:32"], &[])).unwrap();
    let notes: Vec<(u32, u32, &str)> = r
        .stripped
        .iter()
        .map(|s| (s.line, s.col, s.text.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (1, 8, "subgroups"),
            (2, 10, "unrestricted_pointer_parameters")
        ]
    );
    // the last invocation writes one past the end: line 7 of the file as written
    let oob = r
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::OutOfBounds)
        .unwrap_or_else(|| panic!("{:#?}", r.findings));
    let loc = oob.loc.as_ref().unwrap();
    assert_eq!((loc.file.as_str(), loc.line), ("app.wgsl", 7));
    // without the pre-pass naga refuses the text
    assert!(naga::front::wgsl::parse_str(src).is_err());
}

const OVERRIDES: &str = "
override WG: u32 = 8u;
@id(7) override SCALE: f32 = 1.0;
override ON: bool = false;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = select(0.0, SCALE * f32(i), ON);
}
";

/// Overrides by name and by `@id`, a bool as 1: the workgroup size follows `WG` (a 16-element
/// output left half unwritten at the default 8 is clean at 16).
#[test]
fn overrides_by_name_and_id() {
    let r = check(&request(OVERRIDES, &["0=f32:uninit:16"], &[])).unwrap();
    assert!(
        r.findings
            .iter()
            .any(|f| f.kind == FindingKind::UnwrittenOutput),
        "{:#?}",
        r.findings
    );
    let r = check(&request(
        OVERRIDES,
        &["0=f32:uninit:16"],
        &[("WG", 16.0), ("7", 2.5), ("ON", 1.0)],
    ))
    .unwrap();
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    let want: Vec<u32> = (0..16).map(|i| (2.5 * i as f32).to_bits()).collect();
    assert_eq!(r.buffers[&0].1, want);
}

/// An unknown override, one given twice, a value that does not fit the type, and one that
/// makes the module invalid (a zero workgroup size) are errors naming the problem.
#[test]
fn bad_overrides_are_errors() {
    for (overrides, want) in [
        (
            vec![("NOPE", 1.0)],
            "declares no override `NOPE` (overrides: WG, SCALE, ON)",
        ),
        (vec![("WG", 16.0), ("WG", 8.0)], "override `WG` given twice"),
        (vec![("WG", -1.0)], "doesn't fit"),
        (
            vec![("WG", 0.0)],
            "workgroup_size override isn't strictly positive",
        ),
        (vec![("SCALE", f64::INFINITY)], "not a finite number"),
        (vec![("WG", 4096.0)], "simulator limit"),
    ] {
        let e = check(&request(OVERRIDES, &["0=f32:uninit:16"], &overrides))
            .err()
            .unwrap_or_else(|| panic!("{overrides:?} ran"))
            .to_string();
        assert!(e.contains(want), "{overrides:?}: {e}");
    }
}

const GROUPS: &str = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(2) @binding(0) var<uniform> k: vec4<u32>;
@group(2) @binding(3) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = a[i] * k.x;
}
";

/// Bindings of groups 0 and 2 (`G:I`), a uniform among them; each group's results come back
/// by group and binding.
#[test]
fn bindings_in_other_groups() {
    let r = check(&request(
        GROUPS,
        &["0=u32:iota:8", "2:0=u32:[3,0,0,0]", "2:3=u32:uninit:8"],
        &[],
    ))
    .unwrap();
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    let want: Vec<u32> = (0..8).map(|i| 3 * i).collect();
    assert_eq!(r.binding(2, 3).unwrap().1, want);
    assert_eq!(r.other_groups[&(2, 3)].1, want);
    assert!(r.binding(0, 3).is_none());
    let spec: BindSpec = "2:3=u32:zeros:4".parse().unwrap();
    assert_eq!((spec.group, spec.binding), (2, 3));
    // a slot the shader does not declare, the same slot twice, and an unbound slot it uses
    for (binds, want) in [
        (
            vec![
                "0=u32:iota:8",
                "2:0=u32:[3,0,0,0]",
                "2:3=u32:uninit:8",
                "1:3=u32:zeros:1",
            ],
            "declares no @group(1) @binding(3)",
        ),
        (
            vec![
                "0=u32:iota:8",
                "2:0=u32:[3,0,0,0]",
                "2:3=u32:uninit:8",
                "2:3=u32:zeros:1",
            ],
            "binding 2:3 given twice",
        ),
        (
            vec!["0=u32:iota:8", "2:0=u32:[3,0,0,0]"],
            "@group(2) @binding(3) `out` used by main is not bound",
        ),
    ] {
        let e = check(&request(GROUPS, &binds, &[]))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(want), "{binds:?}: {e}");
    }
}

/// `file:PATH`: a raw file of little-endian words is a buffer's contents; empty files, sizes
/// that are not whole words, missing files, folders and `.npy` files (which the CLI reads) are
/// errors, sizes checked before reading.
#[test]
fn raw_file_contents() {
    let words: Vec<u32> = (0..8).map(|i| i * 10).collect();
    let raw = temp_file("a.bin", bytemuck::cast_slice(&words));
    let bind = format!("0=u32:file:{}", raw.display());
    let spec: BindSpec = bind.parse().unwrap();
    assert_eq!(spec.init, InitSpec::File(raw.clone()));
    assert_eq!(spec.elements(), None);
    let r = check(&request(
        GROUPS,
        &[&bind, "2:0=u32:[2,0,0,0]", "2:3=u32:uninit:8"],
        &[],
    ))
    .unwrap();
    assert_eq!(
        r.binding(2, 3).unwrap().1,
        words.iter().map(|w| w * 2).collect::<Vec<_>>()
    );
    let empty = temp_file("empty.bin", &[]);
    let odd = temp_file("odd.bin", &[1, 2, 3, 4, 5]);
    let npy = temp_file("a.npy", b"\x93NUMPY");
    let folder = std::env::temp_dir();
    for (path, want) in [
        (
            empty,
            "not a whole number (at least one) of 4-byte elements",
        ),
        (odd, "holds 5 bytes"),
        (PathBuf::from("/nonexistent/x.bin"), "No such file"),
        (folder, "is not a file"),
        (npy, "is a .npy file"),
    ] {
        let bind = format!("0=u32:file:{}", path.display());
        let e = check(&request(
            GROUPS,
            &[&bind, "2:0=u32:[2,0,0,0]", "2:3=u32:uninit:8"],
            &[],
        ))
        .err()
        .unwrap();
        assert!(matches!(e, Error::InvalidInput(_)), "{e}");
        assert!(e.to_string().contains(want), "{path:?}: {e}");
    }
    assert!("0=u32:file:".parse::<BindSpec>().is_err());
}
