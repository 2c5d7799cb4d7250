//! Interpreter semantics, word for word: `tests/sim_corpus/semantics/kitchen_sink.wgsl` (control
//! flow, structs, vectors, a matrix product, bit builtins, subgroup ballots and exclusive
//! products, atomics, i32 division and shifts) at subgroup sizes 4 to 64 against the same
//! computation written in Rust.

use wgsimd_sim::check::{check, CheckRequest};

use crate::check_src;
use wgsimd::sim::SimConfig;

fn classify(x: u32) -> u32 {
    match x % 5 {
        0 | 1 => 10,
        2 if x > 10 => 20,
        2 => 40,
        _ => 30,
    }
}

/// The eight words invocation `lid` writes at subgroup size `s`.
fn expected(lid: u32, s: u32) -> [u32; 8] {
    let mut acc = 0;
    let mut i = 0;
    loop {
        i += 1;
        if i % 3 != 0 {
            acc += i;
        }
        if i > lid % 7 {
            break;
        }
    }
    let lane = lid % s;
    let v_y = 2.0 * lid as f32 + 4.0;
    let p = lid + lid * 2 + lid * 3 + 1 + v_y as u32;
    let bits = 7 + lid + lid.count_ones() + ((lid >> 1) & 7) + (lid + 64).trailing_zeros();
    let ex: u32 = (0..lane).map(|l| if l < 3 { 2 } else { 1 }).product();
    let ballot = s.div_ceil(2);
    let first = lid - lane;
    let si = lid as i32 - 32;
    let arith = si / 5 + si % 5 + (si >> 2) + si.abs();
    [
        acc,
        classify(lid),
        p,
        bits,
        ballot + ex * 100,
        first,
        7,
        arith as u32,
    ]
}

#[test]
fn kitchen_sink_matches_cpu() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sim_corpus/semantics/kitchen_sink.wgsl"
    );
    let source = std::fs::read_to_string(path).unwrap();
    for s in [4u32, 8, 16, 32, 64] {
        let req = CheckRequest {
            name: "kitchen_sink.wgsl".into(),
            source: source.clone(),
            entry: "main".into(),
            workgroups: [1, 1, 1],
            binds: vec![
                "0=u32:uninit:512".parse().unwrap(),
                "1=u32:zeros:1".parse().unwrap(),
            ],
            overrides: vec![],
            immediates: None,
            config: SimConfig {
                subgroup_size: s,
                ..Default::default()
            },
        };
        let r = check(&req).unwrap();
        assert!(r.findings.is_empty(), "sg{s}: {:?}", r.findings);
        let out = &r.buffers[&0].1;
        for lid in 0..64u32 {
            let got = &out[lid as usize * 8..lid as usize * 8 + 8];
            assert_eq!(got, expected(lid, s), "sg{s} lid {lid}");
        }
        assert_eq!(r.buffers[&1].1, vec![64]);
    }
}

/// Bools in structs and arrays (naga sizes a bool as one byte, so WGSL offsets and strides put
/// several in one word): every member and element keeps its own value, in private and function
/// memory.
#[test]
fn bools_in_structs_and_arrays_keep_their_values() {
    let src = "
struct S { f0: vec3<bool>, f1: i32, f2: bool, f3: u32 }
var<private> g: S;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn bits(v: vec3<bool>) -> u32 {
    return u32(v.x) | (u32(v.y) << 1u) | (u32(v.z) << 2u);
}
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i: u32) {
    g = S(vec3<bool>(i == 1u, i != 2u, (i & 1u) == 1u), -7 * i32(i), i > 4u, 100u + i);
    var a = array<vec3<bool>, 2>(vec3<bool>(true, i == 3u, false), !g.f0);
    var l: S = g;
    l.f0.y = i == 5u;
    l.f2 = !l.f2;
    out[i * 6u + 0u] = bits(g.f0);
    out[i * 6u + 1u] = bitcast<u32>(g.f1);
    out[i * 6u + 2u] = u32(g.f2) + 10u * g.f3;
    out[i * 6u + 3u] = bits(a[0]) | (bits(a[1]) << 4u);
    out[i * 6u + 4u] = bits(l.f0) | (u32(l.f2) << 4u);
    out[i * 6u + 5u] = l.f3 + bitcast<u32>(l.f1);
}";
    let r = check_src(src, 48, 8).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    let bits = |v: [bool; 3]| v[0] as u32 | (v[1] as u32) << 1 | (v[2] as u32) << 2;
    for i in 0..8u32 {
        let f0 = [i == 1, i != 2, i & 1 == 1];
        let f1 = -7 * i as i32;
        let f2 = i > 4;
        let a1 = [!f0[0], !f0[1], !f0[2]];
        let l0 = [f0[0], i == 5, f0[2]];
        let want = [
            bits(f0),
            f1 as u32,
            f2 as u32 + 10 * (100 + i),
            bits([true, i == 3, false]) | bits(a1) << 4,
            bits(l0) | ((!f2) as u32) << 4,
            (100 + i).wrapping_add(f1 as u32),
        ];
        assert_eq!(
            &out[i as usize * 6..i as usize * 6 + 6],
            &want,
            "invocation {i}"
        );
    }
}

/// A matrix of three rows keeps a padding word after each column in memory; a value naga types
/// without a handle (`transpose`, a matrix product) is stored into and loaded from such a
/// variable column by column.
#[test]
fn three_row_matrices_from_transpose_and_products_round_trip_memory() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<private> p: mat2x3<f32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    let x = f32(i);
    let m = mat3x2<f32>(vec2(x, 1.0), vec2(2.0, 3.0), vec2(4.0, 5.0));
    var t: mat2x3<f32> = transpose(m);
    p = transpose(m);
    let a = mat2x3<f32>(vec3(1.0, 2.0, 3.0), vec3(x, 0.0, 1.0));
    var q: mat2x3<f32> = a * mat2x2<f32>(vec2(1.0, 0.0), vec2(2.0, 1.0));
    for (var c = 0u; c < 2u; c++) {
        for (var r = 0u; r < 3u; r++) {
            out[i * 18u + c * 3u + r] = u32(t[c][r]);
            out[i * 18u + 6u + c * 3u + r] = u32(p[c][r]);
            out[i * 18u + 12u + c * 3u + r] = u32(q[c][r]);
        }
    }
}";
    let r = check_src(src, 72, 4).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    for i in 0..4u32 {
        // transpose of columns (i, 1), (2, 3), (4, 5): columns (i, 2, 4), (1, 3, 5)
        let t = [i, 2, 4, 1, 3, 5];
        // a * [[1, 0], [2, 1]]: columns a0 and 2 a0 + a1
        let q = [1, 2, 3, 2 + i, 4, 7];
        let want: Vec<u32> = t.iter().chain(&t).chain(&q).copied().collect();
        assert_eq!(
            &out[i as usize * 18..i as usize * 18 + 18],
            &want[..],
            "invocation {i}"
        );
    }
}

/// WGSL's float remainder is `x - y * trunc(x / y)`, not C's `fmod`: `-2 % -2` is `+0`, and
/// `-2 % 2` too.
#[test]
fn float_remainder_is_wgsl_not_fmod() {
    let src = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    let x = -2.0 - f32(i);
    out[i * 4u + 0u] = bitcast<u32>(x % x);
    out[i * 4u + 1u] = bitcast<u32>(x % -x);
    out[i * 4u + 2u] = bitcast<u32>(7.5 % (x + 0.5 * f32(i)));
    out[i * 4u + 3u] = bitcast<u32>(vec2(x, 5.0) % vec2(1.5)).x;
}";
    let r = check_src(src, 16, 4).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    let rem = |a: f32, b: f32| a - b * (a / b).trunc();
    for i in 0..4u32 {
        let x = -2.0 - i as f32;
        let want = [
            rem(x, x),
            rem(x, -x),
            rem(7.5, x + 0.5 * i as f32),
            rem(x, 1.5),
        ];
        let want: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
        assert_eq!(
            &out[i as usize * 4..i as usize * 4 + 4],
            &want[..],
            "invocation {i}"
        );
        assert_eq!(out[i as usize * 4], 0, "x % x is +0");
    }
}
