//! f16 in storage and uniform buffers (`crate::halves`): the host's bytes are WGSL's layout
//! (`array<f16>` of stride 2, `vec3<f16>` elements of 8 bytes, struct members at their
//! offsets), stores write two bytes and round to f16, `arrayLength` counts real elements, and
//! the race and initialization checkers tell the two halves of a word apart.

use std::sync::Arc;

use super::{findings_at, only};
use crate::finding::FindingKind;
use crate::kernel::{Flavor, Kernel};
use crate::ops::{f16_to_f32, f32_to_f16};
use crate::plan::{BufferInit, Plan, Workgroups};
use crate::{SimConfig, Simulator};

/// `v` rounded to f16.
fn r(v: f32) -> f32 {
    f16_to_f32(f32_to_f16(v))
}

/// Halves packed two to a word, low half first (the host's little-endian bytes).
fn pack(halves: &[u16]) -> Vec<u32> {
    halves
        .chunks(2)
        .map(|c| c[0] as u32 | (*c.get(1).unwrap_or(&0) as u32) << 16)
        .collect()
}

/// The halves of `words`, low half first.
fn unpack(words: &[u32]) -> Vec<u16> {
    words
        .iter()
        .flat_map(|&w| [w as u16, (w >> 16) as u16])
        .collect()
}

/// The bind spec `I=u32:[..]` of `words`.
fn list(binding: u32, words: &[u32]) -> String {
    super::list(binding, words)
}

/// Runs `main` of `src` (after `enable f16;`) in `groups` workgroups, subgroups of 4.
fn run(src: &str, groups: u32, binds: &[String]) -> crate::check::CheckReport {
    let binds: Vec<&str> = binds.iter().map(String::as_str).collect();
    let src = format!("enable f16;\n{src}");
    crate::check::check(&super::request(&src, 4, None, [groups, 1, 1], &binds))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The kinds of the findings of `src` in `groups` workgroups.
fn kinds(src: &str, groups: u32, binds: &[String]) -> Vec<String> {
    let binds: Vec<&str> = binds.iter().map(String::as_str).collect();
    let src = format!("enable f16;\n{src}");
    findings_at(&src, 4, None, [groups, 1, 1], &binds)
        .iter()
        .map(|f| f.kind.name().to_string())
        .collect()
}

#[test]
fn an_f16_array_is_read_and_written_two_bytes_an_element() {
    let src = "
@group(0) @binding(0) var<storage, read> src: array<f16>;
@group(0) @binding(1) var<storage, read_write> dst: array<f16>;
@compute @workgroup_size(7)
fn main(@builtin(local_invocation_index) i: u32) {
    dst[i] = src[i] * 3.0h + 0.1h;
}";
    let x = [1.0, -2.5, 0.333, 1000.0, 21834.0, 1e-5, -0.0];
    let host: Vec<u16> = x.iter().map(|&v| f32_to_f16(v)).collect();
    // eight halves out: the last (bytes 14..16) no invocation writes
    let sentinel = [0xBEEFu16; 8];
    let rep = run(src, 1, &[list(0, &pack(&host)), list(1, &pack(&sentinel))]);
    assert!(rep.findings.is_empty(), "{:?}", rep.findings);
    let out = unpack(&rep.buffers[&1].1);
    for (i, &v) in x.iter().enumerate() {
        let want = f32_to_f16(r(r(r(v) * 3.0) + r(0.1)));
        assert_eq!(out[i], want, "element {i}: {v}");
    }
    assert_eq!(out[7], 0xBEEF, "the half no invocation wrote");
}

#[test]
fn struct_members_sit_at_their_wgsl_offsets() {
    // a at 0, b at 2, c at 4, d at 8, e at 12; 16 bytes (bytes 14..16 padding)
    let src = "
struct S { a: f16, b: f16, c: f32, d: vec2<f16>, e: f16, }
@group(0) @binding(0) var<storage, read> src: S;
@group(0) @binding(1) var<storage, read_write> dst: S;
@compute @workgroup_size(1)
fn main() {
    dst.a = src.b;
    dst.b = src.a;
    dst.c = src.c + f32(src.a);
    dst.d = src.d.yx;
    dst.e = src.e * 2.0h;
}";
    let h = f32_to_f16;
    let host = [
        h(1.5) as u32 | (h(-4.0) as u32) << 16,
        0.25f32.to_bits(),
        h(10.0) as u32 | (h(20.0) as u32) << 16,
        h(3.0) as u32 | 0x7777 << 16,
    ];
    let rep = run(src, 1, &[list(0, &host), list(1, &[0xDEAD_BEEF; 4])]);
    assert!(rep.findings.is_empty(), "{:?}", rep.findings);
    assert_eq!(
        rep.buffers[&1].1,
        [
            h(-4.0) as u32 | (h(1.5) as u32) << 16,
            1.75f32.to_bits(),
            h(20.0) as u32 | (h(10.0) as u32) << 16,
            h(6.0) as u32 | 0xDEAD << 16,
        ]
    );
}

#[test]
fn vec3_elements_are_eight_bytes_apart() {
    let src = "
@group(0) @binding(0) var<storage, read_write> v: array<vec3<f16>>;
@group(0) @binding(1) var<storage, read_write> n: array<u32>;
@compute @workgroup_size(3)
fn main(@builtin(local_invocation_index) i: u32) {
    v[i] = v[i].zxy + vec3<f16>(1.0h);
    if i == 0u { n[0] = arrayLength(&v); }
}";
    let h = |v: f32| f32_to_f16(v);
    // three elements of x, y, z and a padding half (0x7777)
    let mut host = Vec::new();
    for e in 0..3 {
        let b = e as f32 * 10.0;
        host.extend([h(b + 1.0), h(b + 2.0), h(b + 3.0), 0x7777]);
    }
    let rep = run(src, 1, &[list(0, &pack(&host)), list(1, &[0])]);
    assert!(rep.findings.is_empty(), "{:?}", rep.findings);
    let mut want = Vec::new();
    for e in 0..3 {
        let b = e as f32 * 10.0;
        want.extend([h(b + 4.0), h(b + 2.0), h(b + 3.0), 0x7777]);
    }
    assert_eq!(unpack(&rep.buffers[&0].1), want);
    assert_eq!(rep.buffers[&1].1, [3]);
}

#[test]
fn a_uniform_struct_holds_f16_members() {
    // scale at 0, bias at 2, n at 4, v at 8: 16 bytes
    let src = "
struct U { scale: f16, bias: f16, n: u32, v: vec4<f16>, }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = f32(u.scale);
    out[1] = f32(u.bias);
    out[2] = f32(u.n);
    for (var k = 0u; k < 4u; k++) { out[3u + k] = f32(u.v[k]); }
    out[7] = f32(u.scale * u.v.w + u.bias);
}";
    let h = f32_to_f16;
    let host = [
        h(0.5) as u32 | (h(-1.25) as u32) << 16,
        9,
        h(1.0) as u32 | (h(2.0) as u32) << 16,
        h(3.0) as u32 | (h(1000.5) as u32) << 16,
    ];
    let rep = run(src, 1, &[list(0, &host), list(1, &[0; 8])]);
    assert!(rep.findings.is_empty(), "{:?}", rep.findings);
    let want = [
        0.5,
        -1.25,
        9.0,
        1.0,
        2.0,
        3.0,
        1000.5,
        r(r(0.5 * 1000.5) - 1.25),
    ];
    let got: Vec<f32> = rep.buffers[&1]
        .1
        .iter()
        .map(|&w| f32::from_bits(w))
        .collect();
    assert_eq!(got, want);
}

/// `arrayLength` counts elements of the real stride: an `array<f16>` after an f16 member, in
/// a 12-byte binding, has 5; the element past them is out of bounds.
#[test]
fn array_length_counts_f16_elements() {
    let src = "
struct T { n: f16, data: array<f16>, }
@group(0) @binding(0) var<storage, read> t: T;
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = arrayLength(&t.data);
    out[1] = arrayLength(&a);
    out[2] = u32(t.data[4]);
    out[3] = u32(t.n);
    out[4] = u32(t.data[LAST]);
}";
    let halves: Vec<u16> = (0..6).map(|i| f32_to_f16(i as f32 + 1.0)).collect();
    let binds = [
        list(0, &pack(&halves)),
        list(1, &pack(&halves)),
        list(2, &[0; 5]),
    ];
    let rep = run(&src.replace("LAST", "4"), 1, &binds);
    assert!(rep.findings.is_empty(), "{:?}", rep.findings);
    assert_eq!(rep.buffers[&2].1, [5, 6, 6, 1, 6]);
    let past = kinds(&src.replace("LAST", "5"), 1, &binds);
    assert_eq!(past, ["out-of-bounds"]);
}

#[test]
fn two_halves_of_a_word_do_not_race_one_half_does() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<f16>;
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) g: vec3<u32>) {
    out[INDEX] = f16(i) + 1.0h;
}";
    let case = |wg: &str, index: &str, groups: u32| {
        let src = src.replace("WG", wg).replace("INDEX", index);
        kinds(&src, groups, &[list(0, &[0])])
    };
    // invocations of a workgroup, then workgroups, on the two halves of word 0
    assert!(case("2", "i", 1).is_empty());
    assert!(case("1", "g.x", 2).is_empty());
    assert_eq!(case("2", "0u", 1), ["storage-race"]);
    assert_eq!(case("1", "0u", 2), ["cross-workgroup-race"]);
    let one = case("2", "1u", 1);
    assert_eq!(one, ["storage-race"]);
    let src = src.replace("WG", "2").replace("INDEX", "1u");
    let f = findings_at(
        &format!("enable f16;\n{src}"),
        4,
        None,
        [1, 1, 1],
        &[&list(0, &[0])],
    );
    let f = only(&f, FindingKind::StorageRace);
    assert!(f.message.contains("bytes 2..4 of word 0"), "{}", f.message);
}

#[test]
fn a_half_never_written_is_uninitialized() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<f16>;
@compute @workgroup_size(1)
fn main() {
    out[0] = 1.0h;
    WRITE
    out[0] = out[1];
}";
    let binds = ["0=u32:uninit:1".to_string()];
    let rep = run(&src.replace("WRITE", ""), 1, &binds);
    let read = only(&rep.findings, FindingKind::UninitializedRead);
    assert!(
        read.message.contains("bytes 2..4 of word 0"),
        "{}",
        read.message
    );
    let unwritten = only(&rep.findings, FindingKind::UnwrittenOutput);
    assert!(
        unwritten
            .message
            .contains("1 of them written in one f16 half only"),
        "{}",
        unwritten.message
    );
    // both halves written: nothing to find
    let rep = run(&src.replace("WRITE", "out[1] = 2.0h;"), 1, &binds);
    assert!(rep.findings.is_empty(), "{:?}", rep.findings);
    assert_eq!(
        unpack(&rep.buffers[&0].1),
        [f32_to_f16(2.0), f32_to_f16(2.0)]
    );
}

/// One buffer bound as `array<f16>` and as `array<u32>` in one pass: a store to its word 0
/// through the u32 view races an f16 store to either half, not one to the next word.
#[test]
fn a_word_view_of_an_f16_buffer_races_its_halves() -> crate::Result<()> {
    let src = "enable f16;
@group(0) @binding(0) var<storage, read_write> h: array<f16>;
@group(0) @binding(1) var<storage, read_write> w: array<u32>;
@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u { h[HALF] = 1.0h; } else { w[WORD] = 7u; }
}";
    let case = |half: &str, word: &str| -> crate::Result<Vec<String>> {
        let src = src.replace("HALF", half).replace("WORD", word);
        let kernel = Arc::new(Kernel::from_source("alias", Flavor::Subgroup, src)?);
        let mut plan = Plan::new("alias");
        let buf = plan.buffer("buf", 8, BufferInit::Zeroed);
        plan.read_back(buf);
        plan.pass_named(
            "alias",
            &kernel,
            "main",
            &[],
            &[("h", buf), ("w", buf)],
            Workgroups::Direct([1, 1, 1]),
        )?;
        let (words, report) = Simulator::new(SimConfig::default())?.run_plan(&plan)?;
        if report.findings.is_empty() {
            let mut want = vec![0u32; 2];
            let at: usize = word.trim_end_matches('u').parse().unwrap();
            want[at] = 7;
            let half: usize = half.trim_end_matches('u').parse().unwrap();
            want[half / 2] |= (f32_to_f16(1.0) as u32) << (16 * (half % 2));
            assert_eq!(words[&buf], want);
        }
        Ok(report
            .findings
            .iter()
            .map(|f| f.kind.name().to_string())
            .collect())
    };
    assert_eq!(case("0u", "0u")?, ["storage-race"]);
    assert_eq!(case("1u", "0u")?, ["storage-race"]);
    assert!(case("2u", "0u")?.is_empty());
    assert!(case("1u", "1u")?.is_empty());
    Ok(())
}

/// A uniform `vec3<f16>` bound to its 6 bytes (WebGPU takes a uniform binding of any size at
/// least the type's; only storage bindings are whole words): its third half, in the word the
/// binding ends inside, is read, not reported out of bounds.
#[test]
fn a_uniform_binding_may_end_inside_a_word() -> crate::Result<()> {
    let src = "enable f16;
@group(0) @binding(0) var<uniform> u: vec3<f16>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = f32(u.x);
    out[1] = f32(u.y);
    out[2] = f32(u.z);
}";
    let kernel = Arc::new(Kernel::from_source(
        "six bytes",
        Flavor::Subgroup,
        src.into(),
    )?);
    let mut plan = Plan::new("six bytes");
    let h = f32_to_f16;
    let u = plan.upload(
        "u",
        &[
            h(1.5) as u32 | (h(-2.0) as u32) << 16,
            h(0.25) as u32 | 0xabcd << 16,
        ],
    );
    let out = plan.buffer("out", 12, BufferInit::Zeroed);
    plan.read_back(out);
    plan.pass_named(
        "six bytes",
        &kernel,
        "main",
        &[],
        &[("u", u), ("out", out)],
        Workgroups::Direct([1, 1, 1]),
    )?
    .range_named("u", 0, 6)?;
    let (words, report) = Simulator::new(SimConfig::default())?.run_plan(&plan)?;
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let got: Vec<f32> = words[&out].iter().map(|&w| f32::from_bits(w)).collect();
    assert_eq!(got, [1.5, -2.0, 0.25]);
    // one half short of the type: refused as WebGPU refuses it
    plan.passes[0].range_named("u", 0, 4)?;
    let (_, report) = Simulator::new(SimConfig::default())?.run_plan(&plan)?;
    let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind.name()).collect();
    assert!(kinds.contains(&"binding-too-small"), "{kinds:?}");
    Ok(())
}
