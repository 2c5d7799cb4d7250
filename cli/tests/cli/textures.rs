//! Textures through `wgsimd check --texture` and a pipeline file's textures: texels from
//! lists and `.npy` files, dumped after the run and checked against CPU conversions;
//! out-of-range stores as findings; formats, sizes, shapes and bindings that do not fit as
//! one-line errors (exit 2).

use std::path::Path;

use crate::common;

/// `wgsimd ARGS`: exit code, stdout, stderr.
fn wgsimd(args: &[&str]) -> (i32, String, String) {
    let out = common::command().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The values after `PREFIX` on a stdout line.
fn dumped(out: &str, prefix: &str) -> Vec<f64> {
    let line = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in {out}"));
    line[prefix.len()..]
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect()
}

/// Inverts an rgba8unorm image into a storage texture and writes its size to a buffer.
const INVERT: &str = "
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(2) var<storage, read_write> size: array<u32>;
@compute @workgroup_size(4, 2)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let s = textureDimensions(src);
    if g.x == 0u && g.y == 0u { size[0] = s.x; size[1] = s.y; }
    textureStore(dst, g.xy, vec4<f32>(1.0) - textureLoad(src, g.xy, 0) * 0.5);
}";

fn unorm8(v: f32) -> f32 {
    (v.clamp(0.0, 1.0) * 255.0).round() / 255.0
}

/// A 4×2 rgba8unorm image from a float32 `.npy` of shape (2, 4, 4), inverted: the dump of the
/// output texture is the CPU's `1 − v/2` of the quantized input, rounded to the format again.
#[test]
fn check_reads_and_dumps_textures() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("invert.wgsl");
    std::fs::write(&shader, INVERT).unwrap();
    let image: Vec<f32> = (0..32).map(|i| i as f32 / 40.0).collect();
    let npy = common::write_npy_shaped(dir.path(), "img.npy", &[2, 4, 4], &image);
    let texture = format!("0=rgba8unorm:4x2:file:{}", common::s(&npy));
    let (code, out, err) = wgsimd(&[
        "check",
        common::s(&shader),
        "--entry",
        "main",
        "--workgroups",
        "1",
        "--texture",
        &texture,
        "--texture",
        "1=rgba8unorm:4x2:uninit",
        "--bind",
        "2=u32:uninit:2",
        "--dump",
        "1",
        "--dump",
        "2",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let want: Vec<f64> = image
        .iter()
        .map(|&v| unorm8(1.0 - unorm8(v) * 0.5) as f64)
        .collect();
    let got = dumped(&out, "binding 1: ");
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-6, "{got:?} against {want:?}");
    }
    assert_eq!(dumped(&out, "binding 2: "), [4.0, 2.0]);
}

/// A store past the texture's side is an out-of-bounds finding (exit 1) and writes nothing.
#[test]
fn check_reports_stores_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("past.wgsl");
    std::fs::write(
        &shader,
        "@group(0) @binding(0) var dst: texture_storage_1d<r32uint, write>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) { textureStore(dst, i + 1u, vec4<u32>(7u)); }",
    )
    .unwrap();
    let (code, out, err) = wgsimd(&[
        "check",
        common::s(&shader),
        "--entry",
        "main",
        "--workgroups",
        "1",
        "--texture",
        "0=r32uint:4:zeros",
        "--dump",
        "0",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "out-of-bounds: index 4 past the end of the x coordinates of texture `dst` (length 4)"
        ),
        "{out}"
    );
    assert_eq!(dumped(&out, "binding 0: "), [0.0, 7.0, 7.0, 7.0]);
}

/// Textures that do not fit: a format the variable does not declare, a used texture left
/// unbound, contents of the wrong size, a `.npy` of the wrong shape or dtype, a texture given
/// to a buffer variable, an unknown format: each a one-line error, exit 2.
#[test]
fn check_texture_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("invert.wgsl");
    std::fs::write(&shader, INVERT).unwrap();
    let flat = common::write_npy_shaped(dir.path(), "flat.npy", &[32], &[0f32; 32]);
    let ints = common::write_npy_shaped(dir.path(), "ints.npy", &[2, 4, 4], &[0u32; 32]);
    let file = |p: &Path| format!("0=rgba8unorm:4x2:file:{}", common::s(p));
    let (flat, ints) = (file(&flat), file(&ints));
    let size = "2=u32:zeros:2";
    for (textures, binds, want) in [
        (
            vec!["0=rgba8unorm:4x2:zeros", "1=rgba8uint:4x2:zeros"],
            vec![size],
            "`dst` is a texture_storage_2d<rgba8unorm, write>; the texture bound is rgba8uint",
        ),
        (
            vec!["0=rgba8unorm:4x2:zeros"],
            vec![size],
            "`dst` (texture_storage_2d<rgba8unorm, write>) used by main is not bound",
        ),
        (
            vec!["0=rgba8unorm:4x2:[1,2,3]", "1=rgba8unorm:4x2:zeros"],
            vec![size],
            "3 texel words given; a rgba8unorm 2d texture of 4x2 holds 32",
        ),
        (
            vec![flat.as_str(), "1=rgba8unorm:4x2:zeros"],
            vec![size],
            "has shape [32]; a rgba8unorm 2d texture of 4x2 is [2, 4, 4]",
        ),
        (
            vec![ints.as_str(), "1=rgba8unorm:4x2:zeros"],
            vec![size],
            "holds uint32, not f32",
        ),
        (
            vec![
                "0=rgba8unorm:4x2:zeros",
                "1=rgba8unorm:4x2:zeros",
                "2=r32uint:2:zeros",
            ],
            vec![],
            "`size` is not a texture variable; binding 2 is a texture",
        ),
        (
            vec!["0=rgb8unorm:4x2:zeros"],
            vec![size],
            "unknown texel format \"rgb8unorm\"",
        ),
    ] {
        let mut args = vec![
            "check",
            common::s(&shader),
            "--entry",
            "main",
            "--workgroups",
            "1",
        ];
        for t in &textures {
            args.extend(["--texture", t]);
        }
        for b in &binds {
            args.extend(["--bind", b]);
        }
        let (code, out, err) = wgsimd(&args);
        assert_eq!(code, 2, "{want}: {out}{err}");
        assert!(!err.contains("panicked"), "{err}");
        let line = err.trim_end();
        assert!(
            line.starts_with("wgsimd check: ") && !line.contains('\n'),
            "{line}"
        );
        assert!(line.contains(want), "{want}: {line}");
    }
}

/// A pipeline whose first pass writes an r32uint texture and whose second reads it as a
/// sampled texture and sums each row into a buffer; a texture given a `type` too is an error.
#[test]
fn pipeline_passes_share_textures() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("fill.wgsl"),
        "@group(0) @binding(0) var img: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(3, 2)
fn main(@builtin(local_invocation_id) id: vec3<u32>) {
    textureStore(img, id.xy, vec4<u32>(id.y * 10u + id.x + 1u));
}",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("rows.wgsl"),
        "@group(0) @binding(0) var img: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> rows: array<u32>;
@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) y: u32) {
    var s = 0u;
    for (var x = 0u; x < textureDimensions(img).x; x++) { s += textureLoad(img, vec2(x, y), 0).x; }
    rows[y] = s;
}",
    )
    .unwrap();
    let json = |img: &str| {
        format!(
            r#"{{
  "buffers": {{
    "img": {img},
    "rows": {{ "type": "u32", "init": "uninit:2" }}
  }},
  "passes": [
    {{ "shader": "fill.wgsl", "entry": "main", "workgroups": [1], "bind": {{ "0": "img" }} }},
    {{ "shader": "rows.wgsl", "entry": "main", "workgroups": [1],
      "bind": {{ "0": "img", "1": "rows" }} }}
  ],
  "dump": ["img", "rows"]
}}"#
        )
    };
    let file = dir.path().join("p.json");
    std::fs::write(
        &file,
        json(r#"{ "format": "r32uint", "size": [3, 2], "init": "uninit" }"#),
    )
    .unwrap();
    let (code, out, err) = wgsimd(&["pipeline", common::s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        dumped(&out, "buffer img: "),
        [1.0, 2.0, 3.0, 11.0, 12.0, 13.0]
    );
    assert_eq!(dumped(&out, "buffer rows: "), [6.0, 36.0]);
    std::fs::write(
        &file,
        json(r#"{ "type": "u32", "format": "r32uint", "size": [3, 2], "init": "zeros" }"#),
    )
    .unwrap();
    let (code, _, err) = wgsimd(&["pipeline", common::s(&file)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("buffer `img`: give `type` (a buffer) or `format` and `size` (a texture)"),
        "{err}"
    );
}
