//! Textures: `textureLoad`, `textureStore` and `textureDimensions` on storage and sampled
//! textures of 1, 2 and 3 dimensions, texels checked word for word against CPU conversions;
//! coordinates and levels out of range, races and unwritten texels as findings; and the
//! errors of a texture that does not fit its variable.

use super::*;
use crate::check::BindSpec;
use crate::error::Error;
use crate::finding::FindingKind;
use crate::plan::{BufferInit, Plan, Workgroups};
use crate::texture::{TexelFormat, TextureDesc};
use crate::{Kernel, Simulator};

/// Runs `main` of `source` in `workgroups` at subgroups of 8 with buffer `binds` and texture
/// `textures` (`--texture` specs).
fn run_tex(
    source: &str,
    workgroups: [u32; 3],
    binds: &[&str],
    textures: &[&str],
) -> crate::error::Result<CheckReport> {
    let mut req = request(source, 8, None, workgroups, binds);
    for t in textures {
        req.binds.push(BindSpec::parse_texture(t)?);
    }
    check(&req)
}

fn clean(r: &CheckReport) {
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
}

fn unorm8(v: f32) -> u32 {
    ((v.clamp(0.0, 1.0) * 255.0).round() / 255.0).to_bits()
}

/// A 4×3 rgba8unorm storage texture written by a 4×3 workgroup: each texel's channels are the
/// invocation's coordinates over the size (`textureDimensions`), rounded to the nearest 255th.
#[test]
fn store_rgba8unorm_2d_rounds_to_the_format() {
    let src = "
@group(0) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(4, 3)
fn main(@builtin(local_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(img);
    let v = vec4<f32>(f32(id.x) / f32(size.x), f32(id.y) / f32(size.y), 0.3, 1.7);
    textureStore(img, vec2<i32>(id.xy), v);
}";
    let r = run_tex(src, [1, 1, 1], &[], &["0=rgba8unorm:4x3:uninit"]).unwrap();
    clean(&r);
    let mut want = Vec::new();
    for y in 0..3 {
        for x in 0..4 {
            for v in [x as f32 / 4.0, y as f32 / 3.0, 0.3, 1.7] {
                want.push(unorm8(v));
            }
        }
    }
    assert_eq!(r.buffers[&0], (crate::check::ElemType::F32, want));
}

/// Sampled textures of each sample type and dimensionality read with `textureLoad` at level 0:
/// a 2D r32float, a 1D rgba8sint (host values clamped to the channel's range), a 3D rg32uint
/// (missing channels 0 and 1) and a 2D rgba16float (rounded to f16), copied to buffers.
#[test]
fn sampled_textures_load_their_texels() {
    let src = "
@group(0) @binding(0) var a: texture_2d<f32>;
@group(0) @binding(1) var b: texture_1d<i32>;
@group(0) @binding(2) var c: texture_3d<u32>;
@group(0) @binding(3) var d: texture_2d<f32>;
@group(1) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(2, 2, 2)
fn main(@builtin(local_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    out[i] = bitcast<u32>(textureLoad(a, id.xy, 0).x);
    out[8u + i] = bitcast<u32>(textureLoad(b, i32(i % 4u), 0)[i / 4u]);
    let t = textureLoad(c, id, 0u);
    out[16u + i * 4u] = t.x;
    out[17u + i * 4u] = t.y;
    out[18u + i * 4u] = t.z;
    out[19u + i * 4u] = t.w;
    out[48u + i] = bitcast<u32>(textureLoad(d, vec2<u32>(id.x, 0u), 0).y);
}";
    let r = run_tex(
        src,
        [1, 1, 1],
        &["1:0=u32:uninit:56"],
        &[
            "0=r32float:2x2:[0.5,-1.25,3,7.5]",
            "1=rgba8sint:4:[1,-2,300,-300,5,6,7,8,9,10,11,12,13,14,15,16]",
            "2=rg32uint:2x2x2:iota",
            "3=rgba16float:2x1:[0,0.1,0,0,0,70000,0,0]",
        ],
    )
    .unwrap();
    clean(&r);
    let out = &r.other_groups[&(1, 0)].1;
    let a = [0.5f32, -1.25, 3.0, 7.5];
    let b: [i32; 16] = [1, -2, 127, -128, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
    for i in 0..8usize {
        let (x, y, z) = (i % 2, i / 2 % 2, i / 4);
        assert_eq!(out[i], a[y * 2 + x].to_bits(), "a at {i}");
        assert_eq!(out[8 + i], b[(i % 4) * 4 + i / 4] as u32, "b at {i}");
        let texel = ((z * 2 + y) * 2 + x) as u32;
        assert_eq!(
            out[16 + i * 4..20 + i * 4],
            [texel * 2, texel * 2 + 1, 0, 1]
        );
    }
    let f16 = |v: f32| crate::ops::f16_to_f32(crate::ops::f32_to_f16(v)).to_bits();
    assert_eq!(out[48], f16(0.1));
    assert_eq!(f32::from_bits(out[49]), f32::INFINITY);
}

/// A read_write rgba32sint 3D storage texture updated in place, and an rgba8uint one whose
/// stores clamp to 255: read, add, write back.
#[test]
fn read_write_storage_textures_update_in_place() {
    let src = "
@group(0) @binding(0) var t: texture_storage_3d<rgba32sint, read_write>;
@group(0) @binding(1) var u: texture_storage_1d<rgba8uint, read_write>;
@compute @workgroup_size(2, 2, 2)
fn main(@builtin(local_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    textureStore(t, id, textureLoad(t, id) * vec4<i32>(1, -1, 2, 0) + vec4<i32>(i32(i)));
    if i < 2u { textureStore(u, i, textureLoad(u, i) + vec4<u32>(100u)); }
}";
    let r = run_tex(
        src,
        [1, 1, 1],
        &[],
        &[
            "0=rgba32sint:2x2x2:iota",
            "1=rgba8uint:2:[1,2,3,200,5,6,7,255]",
        ],
    )
    .unwrap();
    clean(&r);
    let t: Vec<u32> = (0..8i32)
        .flat_map(|i| {
            let v = [i * 4, i * 4 + 1, i * 4 + 2, i * 4 + 3];
            [v[0] + i, -v[1] + i, 2 * v[2] + i, i].map(|x| x as u32)
        })
        .collect();
    assert_eq!(r.buffers[&0].1, t);
    assert_eq!(r.buffers[&1].1, [101, 102, 103, 255, 105, 106, 107, 255]);
}

/// Coordinates past a side, negative ones and a level past the one level are out of bounds:
/// the load gives 0, the store writes nothing, `textureDimensions` at that level gives 0.
#[test]
fn out_of_range_coordinates_and_levels_are_findings() {
    let src = "
@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32uint, write>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureLoad(src, vec2<i32>(2, 0), 0).x;
    out[1] = textureLoad(src, vec2<i32>(0, -1), 0).x;
    out[2] = textureLoad(src, vec2<i32>(1, 1), 1).x;
    out[3] = textureDimensions(src, 1u).x;
    out[4] = textureLoad(src, vec2<i32>(1, 1), 0).x + textureNumLevels(src);
    textureStore(dst, vec2<i32>(0, 2), vec4<u32>(9u));
}";
    let r = run_tex(
        src,
        [1, 1, 1],
        &["2=u32:zeros:5"],
        &["0=r32uint:2x2:[5,6,7,8]", "1=r32uint:2x2:zeros"],
    )
    .unwrap();
    assert_eq!(r.buffers[&2].1, [0, 0, 0, 0, 9]);
    assert_eq!(r.buffers[&1].1, [0; 4]);
    let oob: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::OutOfBounds)
        .collect();
    assert_eq!(oob.len(), 5, "{:#?}", r.findings);
    let lines: BTreeSet<u32> = oob.iter().map(|f| f.loc.as_ref().unwrap().line).collect();
    assert_eq!(lines, (7..=10).chain([12]).collect());
    let text: Vec<&str> = oob.iter().map(|f| f.message.as_str()).collect();
    assert!(
        text.iter()
            .any(|m| m
                .contains("index 2 past the end of the x coordinates of texture `src` (length 2)")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|m| m.contains("a negative index past the end of the y coordinates")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|m| m
                .contains("index 1 past the end of the mip levels of texture `src` (length 1)")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|m| m.contains("the y coordinates of texture `dst`")),
        "{text:?}"
    );
}

/// Texel words are storage words to the checkers: every invocation storing texel (0, 0) of a
/// workgroup is a storage race, two workgroups storing it a cross-workgroup race, and texels
/// of an uninit texture nobody wrote an unwritten output; a read-only texture read by all is
/// none of these.
#[test]
fn texels_are_checked_like_storage_words() {
    let src = "
@group(0) @binding(0) var dst: texture_storage_2d<r32float, write>;
@group(0) @binding(1) var src: texture_2d<f32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    textureStore(dst, vec2<u32>(0u, 0u), textureLoad(src, vec2<u32>(0u, 0u), 0) + f32(i));
}";
    let kinds = |wg: u32| -> BTreeSet<String> {
        let r = run_tex(
            src,
            [wg, 1, 1],
            &[],
            &["0=r32float:2x1:uninit", "1=r32float:1x1:[1]"],
        )
        .unwrap();
        r.findings
            .iter()
            .map(|f| f.kind.name().to_string())
            .collect()
    };
    let one = kinds(1);
    assert!(
        one.contains("storage-race") && one.contains("unwritten-output"),
        "{one:?}"
    );
    assert!(!one.contains("uninitialized-read"), "{one:?}");
    assert!(kinds(2).contains("cross-workgroup-race"));
}

/// A texture that does not fit its variable, a texture left unbound, contents that do not
/// cover the texels, and a texture where a buffer goes (or the reverse) are errors before
/// anything runs; samplers are refused.
#[test]
fn textures_that_do_not_fit_are_errors() {
    let src = "
@group(0) @binding(0) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(1) var src: texture_2d<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureLoad(src, vec2<i32>(0), 0).x;
    textureStore(dst, vec2<i32>(0), vec4<f32>(1.0));
}";
    let err = |binds: &[&str], textures: &[&str]| match run_tex(src, [1, 1, 1], binds, textures) {
        Err(e) => e.to_string(),
        Ok(r) => panic!("ran: {:?}", r.findings),
    };
    let out = "2=u32:zeros:1";
    let m = err(&[out], &["0=rgba8uint:2x2:zeros", "1=r32uint:1x1:zeros"]);
    assert!(
        m.contains(
            "`dst` is a texture_storage_2d<rgba8unorm, write>; the texture bound is rgba8uint"
        ),
        "{m}"
    );
    let m = err(
        &[out],
        &["0=rgba8unorm:2x2:zeros", "1=rgba8unorm:1x1:zeros"],
    );
    assert!(m.contains("`src` is a texture_2d<u32>; the texture bound is rgba8unorm, whose texels are read as f32"), "{m}");
    let m = err(&[out], &["0=rgba8unorm:2x2x2:zeros", "1=r32uint:1x1:zeros"]);
    assert!(m.contains("the texture bound is 3d (2x2x2)"), "{m}");
    // random texels past the device's largest buffer: refused before they are made (2^30
    // words, 4 GiB)
    let m = err(
        &[out],
        &[
            "0=rgba8unorm:2x2:zeros",
            "1=rgba32uint:1024x1024x256:random",
        ],
    );
    assert!(m.contains("largest buffer"), "{m}");
    let m = err(&[out], &["0=rgba8unorm:2x2:zeros"]);
    assert!(
        m.contains("@group(0) @binding(1) `src` (texture_2d<u32>) used by main is not bound"),
        "{m}"
    );
    let m = err(&[out], &["0=rgba8unorm:2x2:[1,2,3]", "1=r32uint:1x1:zeros"]);
    assert!(
        m.contains("3 texel words given; a rgba8unorm 2d texture of 2x2 holds 16 (4 a texel)"),
        "{m}"
    );
    let m = err(
        &[out],
        &["0=rgba8unorm:2x2:zeros:15", "1=r32uint:1x1:zeros"],
    );
    assert!(m.contains("15 texel words given"), "{m}");
    let m = err(&["1=u32:zeros:1", out], &["0=rgba8unorm:2x2:zeros"]);
    assert!(
        m.contains("`src` is a texture variable; binding 1 is a buffer"),
        "{m}"
    );
    let m = err(
        &[],
        &[
            "0=rgba8unorm:2x2:zeros",
            "1=r32uint:1x1:zeros",
            "2=r32uint:1:zeros",
        ],
    );
    assert!(
        m.contains("`out` is not a texture variable; binding 2 is a texture"),
        "{m}"
    );
    for bad in [
        "0=rgba9unorm:2x2:zeros",
        "0=rgba8unorm:0x2:zeros",
        "0=rgba8unorm:2x:zeros",
        "0=r8uint:9000:zeros",
        "0=r8uint:4",
    ] {
        let e = BindSpec::parse_texture(bad).unwrap_err().to_string();
        assert!(e.contains(&format!("--texture {bad:?}: ")), "{e}");
    }
    let sampler = "
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() { out[0] = textureSampleLevel(t, s, vec2<f32>(0.5), 0.0).x; }";
    match run_tex(
        sampler,
        [1, 1, 1],
        &["2=f32:zeros:1"],
        &["0=r32float:1x1:zeros"],
    ) {
        Err(Error::Sim(m)) => {
            assert!(m.contains("does not support samplers (global `s`)"), "{m}")
        }
        other => panic!("{:?}", other.map(|r| r.findings)),
    }
}

/// The Rust API: a plan of one pass that writes an r16float texture declared with
/// `Plan::texture` from a texture of host values, the output read back.
#[test]
fn plans_bind_textures_by_name() -> crate::Result<()> {
    let kernel = std::sync::Arc::new(Kernel::from_source(
        "halve",
        crate::Flavor::Subgroup,
        "
@group(0) @binding(0) var src: texture_1d<f32>;
@group(0) @binding(1) var dst: texture_storage_1d<r16float, write>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    textureStore(dst, i, textureLoad(src, i, 0) / 3.0);
}"
        .into(),
    )?);
    let rgba32 = TexelFormat::from_name("rgba32float").unwrap();
    let r16 = TexelFormat::from_name("r16float").unwrap();
    let host: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let mut plan = Plan::new("halve");
    let src = plan.texture(
        "src",
        TextureDesc::d1(rgba32, 4),
        BufferInit::Bytes(bytemuck::cast_slice(&host).to_vec()),
    );
    let dst = plan.texture("dst", TextureDesc::d1(r16, 4), BufferInit::Poison);
    plan.read_back(dst);
    plan.pass_named(
        "halve",
        &kernel,
        "main",
        &[],
        &[("src", src), ("dst", dst)],
        Workgroups::Direct([1, 1, 1]),
    )?;
    let (words, report) = Simulator::new(crate::SimConfig::default())?.run_plan(&plan)?;
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let f16 = |v: f32| crate::ops::f16_to_f32(crate::ops::f32_to_f16(v)).to_bits();
    let want: Vec<u32> = (0..4).map(|i| f16((i * 4) as f32 / 3.0)).collect();
    assert_eq!(words[&dst], want);
    // a texture of the wrong size for its contents, and one bound to a buffer variable
    let mut bad = plan.clone();
    bad.buffers[src.0].init = BufferInit::Bytes(vec![0; 12]);
    let e = Simulator::new(crate::SimConfig::default())?
        .run_plan(&bad)
        .unwrap_err();
    assert!(
        matches!(e, Error::Plan(ref m) if m.contains("12 bytes of texels given")),
        "{e}"
    );
    Ok(())
}

/// Each conversion of the formats: unorm and snorm rounding and clamping, NaN to 0, integer
/// clamping, f16 rounding, and the channels a format lacks read as 0, 0, 1.
#[test]
fn formats_convert_as_wgsl_says() {
    let f = |name: &str| TexelFormat::from_name(name).unwrap();
    let enc = |name: &str, v: f32| f32::from_bits(f(name).encode(v.to_bits()));
    assert_eq!(enc("rgba8unorm", 0.3), 77.0 / 255.0);
    assert_eq!(enc("rgba8unorm", -2.0), 0.0);
    assert_eq!(enc("bgra8unorm", f32::NAN), 0.0);
    assert_eq!(enc("rgba8snorm", -1.5), -1.0);
    // a code of 0 is +0, whatever the sign of what rounded to it
    assert_eq!(f("rgba8snorm").encode((-0.001f32).to_bits()), 0);
    assert_eq!(f("rgba8unorm").encode((-0.0f32).to_bits()), 0);
    assert_eq!(f("r16snorm").encode((-0.0f32).to_bits()), 0);
    assert_eq!(enc("rgba8snorm", 0.5), 64.0 / 127.0);
    assert_eq!(enc("r16unorm", 0.5), 32768.0 / 65535.0);
    assert_eq!(enc("r16float", 1.0 / 3.0), 0.33325195);
    assert_eq!(enc("rgba32float", 0.1), 0.1);
    assert_eq!(f("rgba8uint").encode(300), 255);
    assert_eq!(f("rg16uint").encode(70000), 65535);
    assert_eq!(f("rgba8sint").encode(-200i32 as u32), -128i32 as u32);
    assert_eq!(f("r16sint").encode(40000), 32767);
    assert_eq!(f("r32uint").encode(u32::MAX), u32::MAX);
    assert_eq!(f("r32float").decode(&[5]), [5, 0, 0, 1f32.to_bits()]);
    assert_eq!(f("rg32sint").decode(&[5, 6]), [5, 6, 0, 1]);
    assert!(TexelFormat::from_name("rgb10a2unorm").is_none());
    for name in TexelFormat::names() {
        let desc = TextureDesc::d1(f(name), 64);
        let words = desc.random_words(desc.words() as usize, 3);
        let again: Vec<u32> = words.iter().map(|&w| f(name).encode(w)).collect();
        assert_eq!(words, again, "{name}: random values the format holds");
    }
}
