//! f16 and cooperative-matrix semantics on small kernels: f16 arithmetic rounds after every
//! operation; a cooperative load reads f16 from a storage buffer; a cooperative multiply-add matches
//! the CPU and is flagged where part of the subgroup skips it; a `vec4<f16>`-staged cooperative
//! load reads the right halves, and a short array, a missing barrier, and (where unwritten
//! workgroup memory is reported) an unwritten stage are each found while unwritten padding
//! between rows is fine; accumulators kept in a struct are held across the subgroup, outside
//! an invocation's 8 KiB of function variables.

use wgsimd::finding::FindingKind;
use wgsimd::sim::SimConfig;
use wgsimd_sim::check::{check, CheckReport, CheckRequest};

use super::{assert_finds, check_src};

const F16_KERNEL: &str = r#"
enable f16;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> h: array<f16, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    h[lid] = f16(f32(lid) * 0.1 + 1000.0);
    workgroupBarrier();
    let a = h[lid];
    let b = h[63u - lid] * 0.001h;
    var v = vec2<f16>(a, b);
    v = v * 3.0h;
    out[lid * 4u] = bitcast<u32>(f32(a + b));
    out[lid * 4u + 1u] = bitcast<u32>(f32(a * b));
    out[lid * 4u + 2u] = bitcast<u32>(f32(v.x - v.y));
    out[lid * 4u + 3u] = u32(a + b);
}
"#;

#[test]
fn f16_arithmetic_rounds_after_every_operation() {
    use half::f16;
    let r = check_src(F16_KERNEL, 256, 32).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    let h = |x: f32| f16::from_f32(x);
    for lid in 0..64u32 {
        let a = h(lid as f32 * 0.1 + 1000.0);
        let b = h(h((63 - lid) as f32 * 0.1 + 1000.0).to_f32() * h(0.001).to_f32());
        let (vx, vy) = (h(a.to_f32() * 3.0), h(b.to_f32() * 3.0));
        let s = h(a.to_f32() + b.to_f32());
        let want = [
            s.to_f32().to_bits(),
            h(a.to_f32() * b.to_f32()).to_f32().to_bits(),
            h(vx.to_f32() - vy.to_f32()).to_f32().to_bits(),
            s.to_f32() as u32,
        ];
        let got = &out[lid as usize * 4..lid as usize * 4 + 4];
        assert_eq!(got, want, "lid {lid}");
    }
    // the f32 path would differ: 1000 + 0.1·lid is not an f16 for most lanes
    assert_ne!(out[4], (1000.1f32 + 1.0031f32).to_bits());
}

/// A and B loaded straight from a storage `array<f16>` (two bytes an element, as the host
/// gives them): C = A·B, as when staged in workgroup memory.
#[test]
fn a_cooperative_load_reads_f16_from_a_storage_buffer() {
    let src = r#"
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> t: array<f16>;
@compute @workgroup_size(32)
fn main() {
    let a = coopLoadT<coop_mat8x8<f16, A>>(&t[0], 8u);
    let b = coopLoad<coop_mat8x8<f16, B>>(&t[64], 8u);
    var c = coop_mat8x8<f32, C>();
    c = coopMultiplyAdd(a, b, c);
    coopStoreT(c, &out[0], 8u);
}
"#;
    let t: Vec<f32> = (0..128).map(|i| (i % 13) as f32 - 6.0).collect();
    let list: Vec<String> = t.iter().map(f32::to_string).collect();
    let r = check(&CheckRequest {
        name: "inline.wgsl".into(),
        source: src.into(),
        entry: "main".into(),
        workgroups: [1, 1, 1],
        binds: vec![
            "0=u32:uninit:64".parse().unwrap(),
            format!("1=f16:[{}]", list.join(",")).parse().unwrap(),
        ],
        overrides: vec![],
        immediates: None,
        config: SimConfig {
            subgroup_size: 32,
            ..Default::default()
        },
    })
    .unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    for i in 0..8 {
        for j in 0..8 {
            let want: f32 = (0..8).map(|k| t[i * 8 + k] * t[64 + j * 8 + k]).sum();
            assert_eq!(f32::from_bits(out[i * 8 + j]), want, "({i}, {j})");
        }
    }
}

/// One subgroup of 32 (at subgroup size 32): C = A·B for 8×8 f16 A, B staged in workgroup
/// memory, stored row-major; `guard` (of `x` = the lane's index) wraps the cooperative
/// operations.
fn coop_kernel(guard: &str) -> String {
    format!(
        r#"
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<workgroup> t: array<f16, 128>;
var<workgroup> flag: array<u32, 32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {{
    for (var i = lid; i < 128u; i += 32u) {{ t[i] = f16(f32(i % 13u) - 6.0); }}
    flag[lid] = lid;
    // naga rejects a cooperative operation under a visibly non-uniform condition; a
    // workgroupUniformLoad result counts as uniform whatever the pointer, which lets a test
    // hand it per-lane values
    let x = workgroupUniformLoad(&flag[lid]);
    if {guard} {{
        let a = coopLoadT<coop_mat8x8<f16, A>>(&t[0], 8u);
        let b = coopLoad<coop_mat8x8<f16, B>>(&t[64], 8u);
        var c = coop_mat8x8<f32, C>();
        c = coopMultiplyAdd(a, b, c);
        coopStoreT(c, &out[0], 8u);
    }}
}}
"#
    )
}

#[test]
fn a_cooperative_multiply_add_matches_the_cpu_and_needs_the_whole_subgroup() {
    let r = check_src(&coop_kernel("true"), 64, 32).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let t: Vec<f32> = (0..128).map(|i| (i % 13) as f32 - 6.0).collect();
    let out = &r.buffers[&0].1;
    for i in 0..8 {
        for j in 0..8 {
            // A row-major at t[0..64]; B column-major at t[64..128]: B(k, j) = t[64 + j·8 + k]
            let want: f32 = (0..8).map(|k| t[i * 8 + k] * t[64 + j * 8 + k]).sum();
            assert_eq!(f32::from_bits(out[i * 8 + j]), want, "({i}, {j})");
        }
    }
    // inside a branch half the subgroup skips: flagged at each cooperative operation
    let r = check_src(&coop_kernel("x < 16u"), 64, 32).unwrap();
    assert!(
        r.findings
            .iter()
            .any(|f| f.kind == FindingKind::NonUniformSubgroupOp
                && f.message.contains("coopMultiplyAdd")),
        "{:?}",
        r.findings
    );
    // a store past the end of `out` is reported, not performed
    let r = check_src(&coop_kernel("true"), 60, 32).unwrap();
    assert_finds(&r.findings, FindingKind::OutOfBounds);
}

/// One subgroup of 32: C = A·B for 8×8 f16 A, B staged in a `vec4<f16>` workgroup array (a
/// cooperative load's stride then counts vec4s, not f16s): A row-major with stride 3
/// (a vec4 of padding per row, never written), B column-major with stride 2, ending exactly at
/// the array's end. `len`: the array's length (40 fits); `skip`: a staged vec4 left unwritten;
/// `barrier`: the barrier between staging and the loads.
fn vec4_kernel(len: u32, skip: u32, barrier: bool) -> String {
    let barrier = if barrier { "workgroupBarrier();" } else { "" };
    format!(
        r#"
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<workgroup> t: array<vec4<f16>, {len}>;
fn val(i: u32) -> vec4<f16> {{
    return vec4<f16>(f16(i % 13u), f16(i % 7u), -f16(i % 5u), f16(i % 3u)) - 2.0h;
}}
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {{
    // A: rows r at t[3r], t[3r + 1] (t[3r + 2] is padding); B: t[24..40]
    for (var i = lid; i < 40u; i += 32u) {{
        if i != {skip}u && (i >= 24u || i % 3u != 2u) && i < {len}u {{
            t[i] = val(i);
        }}
    }}
    {barrier}
    let a = coopLoadT<coop_mat8x8<f16, A>>(&t[0], 3u);
    let b = coopLoad<coop_mat8x8<f16, B>>(&t[24], 2u);
    var c = coop_mat8x8<f32, C>();
    c = coopMultiplyAdd(a, b, c);
    coopStoreT(c, &out[0], 8u);
}}
"#
    )
}

/// [`check_src`] of a [`vec4_kernel`] at subgroup size 32 with reads of unwritten workgroup
/// memory reported.
fn check_strict(src: &str) -> wgsimd::Result<CheckReport> {
    let mut config = SimConfig::default();
    config.checks.uninit_workgroup = true;
    check(&CheckRequest {
        name: "inline.wgsl".into(),
        source: src.into(),
        entry: "main".into(),
        workgroups: [1, 1, 1],
        binds: vec!["0=u32:uninit:64".parse().unwrap()],
        overrides: vec![],
        immediates: None,
        config,
    })
}

/// The f16 value of element `e` of `val(i)` in [`vec4_kernel`].
fn vec4_val(i: usize, e: usize) -> f32 {
    [
        (i % 13) as f32,
        (i % 7) as f32,
        -((i % 5) as f32),
        (i % 3) as f32,
    ][e] - 2.0
}

#[test]
fn a_vec4_staged_cooperative_load_reads_the_right_halves_and_is_checked() {
    // looks bad but is fine: unwritten padding between A's rows (clean even where reading
    // unwritten workgroup memory is reported), and B's last element the array's last (a stride
    // counted in f16 instead of vec4s would read padding or run past)
    let r = check_strict(&vec4_kernel(40, 99, true)).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    for i in 0..8 {
        for j in 0..8 {
            // A(i, k) = half k of row i: vec4 3i + k / 4; B(k, j) = vec4 24 + 2j + k / 4
            let want: f32 = (0..8)
                .map(|k| vec4_val(3 * i + k / 4, k % 4) * vec4_val(24 + 2 * j + k / 4, k % 4))
                .sum();
            assert_eq!(f32::from_bits(out[i * 8 + j]), want, "({i}, {j})");
        }
    }
    // one vec4 short: B's last column runs past the array
    let r = check_src(&vec4_kernel(39, 99, true), 64, 32).unwrap();
    assert_finds(&r.findings, FindingKind::OutOfBounds);
    // a staged vec4 never written (A's row 7, second half): WGSL's zero fill, unless unwritten
    // workgroup memory is reported (a kernel ported from where it starts undefined)
    let r = check_src(&vec4_kernel(40, 22, true), 64, 32).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let r = check_strict(&vec4_kernel(40, 22, true)).unwrap();
    assert_finds(&r.findings, FindingKind::UninitializedRead);
    // no barrier between the staging stores of other lanes and the subgroup's load
    let r = check_src(&vec4_kernel(40, 99, false), 64, 32).unwrap();
    assert_finds(&r.findings, FindingKind::WorkgroupRace);
}

/// A struct of cooperative accumulators (8 KiB as laid out) in a function's variables, passed
/// by value through a helper that adds to two of them: two products C += A·B of 16×16
/// fragments; with `extra` words of a per-invocation array beside them in the helper.
fn acc_kernel(extra: u32) -> String {
    format!(
        r#"
enable f16;
enable wgpu_cooperative_matrix;
alias F = coop_mat16x16<f32, C>;
struct Acc {{ c0: F, c1: F, c2: F, c3: F, c4: F, c5: F, c6: F, c7: F }}
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<workgroup> t: array<f16, 512>;
fn add(acc_in: Acc, n: u32) -> Acc {{
    var acc = acc_in;
    var spare: array<u32, {extra}>;
    for (var i = 0u; i < n; i++) {{
        let a = coopLoadT<coop_mat16x16<f16, A>>(&t[0], 16u);
        let b = coopLoad<coop_mat16x16<f16, B>>(&t[256], 16u);
        acc.c0 = coopMultiplyAdd(a, b, acc.c0);
        acc.c7 = coopMultiplyAdd(a, b, acc.c7);
        spare[i % {extra}u] = i;
    }}
    return acc;
}}
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {{
    for (var i = lid; i < 512u; i += 32u) {{ t[i] = f16(f32(i % 13u) - 6.0); }}
    workgroupBarrier();
    var acc: Acc;
    acc = add(acc, 2u);
    coopStoreT(acc.c0, &out[0], 16u);
    coopStoreT(acc.c7, &out[256], 16u);
}}
"#
    )
}

#[test]
fn accumulators_in_a_struct_are_the_subgroups_not_an_invocations() {
    // looks bad but is fine: the struct spans 8 KiB, which with the helper's other variables
    // is past WGSL's 8 KiB of a function's variables, but its matrices are held across the
    // subgroup's lanes
    let r = check_src(&acc_kernel(1), 512, 32).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    let t = |i: usize| (i % 13) as f32 - 6.0;
    for (i, j) in (0..16).flat_map(|i| (0..16).map(move |j| (i, j))) {
        let want: f32 = 2.0
            * (0..16)
                .map(|k| t(i * 16 + k) * t(256 + j * 16 + k))
                .sum::<f32>();
        assert_eq!(f32::from_bits(out[i * 16 + j]), want, "({i}, {j})");
        assert_eq!(f32::from_bits(out[256 + i * 16 + j]), want, "({i}, {j})");
    }
    // what an invocation holds still counts: 8200 bytes beside the struct
    match check_src(&acc_kernel(2049), 512, 32) {
        Err(e) => assert!(e.to_string().contains("function `add`: 8200 bytes"), "{e}"),
        Ok(r) => panic!("ran: {:?}", r.findings),
    }
}
