//! Builtin functions against CPU computations. Integer results and the results WGSL defines
//! exactly (`modf`, `frexp`, `ldexp`, `transpose`, `faceForward`'s sign flip, `pack*`, the
//! conversions of `unpack2x16float`) are compared bit for bit. The norm unpacks are a division
//! the simulator rounds correctly (WGSL allows 2.5 ulp on a GPU), compared bit for bit with the
//! correctly rounded f32 quotient. `reflect`, `refract` and `determinant` are compared with an
//! f64 computation within a few ulps (the tolerance is stated where it is used).

use super::{f32s, list, run};

/// A small deterministic generator (xorshift64*), for inputs.
struct Gen(u64);

impl Gen {
    fn word(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }

    /// A float in [-r, r).
    fn float(&mut self, r: f32) -> f32 {
        (self.word() as f32 / 4_294_967_296.0 * 2.0 - 1.0) * r
    }
}

/// Runs `body` in one invocation per lane, `ins` input words and `outs` output words per lane.
/// The body reads input word `k` of its lane with `xu(k)`, `xi(k)`, `xf(k)` and writes output
/// word `k` with `put(k, u32)`, `puti(k, i32)`, `putf(k, f32)`. Returns the outputs per lane.
fn per_lane(body: &str, input: &[u32], ins: usize, outs: usize) -> Vec<Vec<u32>> {
    let lanes = input.len() / ins;
    assert!(lanes * ins == input.len() && (1..=256).contains(&lanes));
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @group(0) @binding(1) var<storage, read> inp: array<u32>;
         var<private> lid: u32;
         fn xu(k: u32) -> u32 {{ return inp[lid * {ins}u + k]; }}
         fn xi(k: u32) -> i32 {{ return bitcast<i32>(xu(k)); }}
         fn xf(k: u32) -> f32 {{ return bitcast<f32>(xu(k)); }}
         fn put(k: u32, v: u32) {{ out[lid * {outs}u + k] = v; }}
         fn puti(k: u32, v: i32) {{ put(k, bitcast<u32>(v)); }}
         fn putf(k: u32, v: f32) {{ put(k, bitcast<u32>(v)); }}
         @compute @workgroup_size({lanes})
         fn main(@builtin(local_invocation_index) invocation: u32) {{
             lid = invocation;
             {body}
         }}"
    );
    let out = format!("0=u32:uninit:{}", lanes * outs);
    let r = run(&src, 32, &[&out, &list(1, input)]).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    r.buffers[&0].1.chunks(outs).map(<[u32]>::to_vec).collect()
}

/// Floats for the norm packs: the interesting points, then random ones in [-3, 3).
fn norm_inputs(g: &mut Gen) -> Vec<f32> {
    let mut v = vec![
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-9, -1e-9, 0.25, 0.75,
    ];
    v.extend((0..116).map(|_| g.float(3.0)));
    v
}

fn snorm(v: f32, scale: f32, bits: u32) -> u32 {
    let q = (0.5 + scale * v.clamp(-1.0, 1.0)).floor() as i32;
    q as u32 & ((1 << bits) - 1)
}

fn unorm(v: f32, scale: f32) -> u32 {
    (0.5 + scale * v.clamp(0.0, 1.0)).floor() as u32
}

#[test]
fn pack_norms_and_float() {
    let mut g = Gen(1);
    let floats = norm_inputs(&mut g);
    let out = per_lane(
        "let v = vec4<f32>(xf(0u), xf(1u), xf(2u), xf(3u));
         put(0u, pack4x8snorm(v));
         put(1u, pack4x8unorm(v));
         put(2u, pack2x16snorm(v.xy));
         put(3u, pack2x16unorm(v.zw));
         put(4u, pack2x16float(v.yz));",
        &f32s(&floats),
        4,
        5,
    );
    for (lane, v) in floats.chunks(4).enumerate() {
        let want = [
            (0..4).fold(0, |a, c| a | snorm(v[c], 127.0, 8) << (8 * c)),
            (0..4).fold(0, |a, c| a | unorm(v[c], 255.0) << (8 * c)),
            snorm(v[0], 32767.0, 16) | snorm(v[1], 32767.0, 16) << 16,
            unorm(v[2], 65535.0) | unorm(v[3], 65535.0) << 16,
            half::f16::from_f32(v[1]).to_bits() as u32
                | (half::f16::from_f32(v[2]).to_bits() as u32) << 16,
        ];
        assert_eq!(out[lane], want, "lane {lane}: {v:?}");
    }
    // by hand: (0, -0, 1, -1) → snorm bytes (0, 0, 127, -127), unorm bytes (0, 0, 255, 0);
    // (0.5, -0.5, 2, -2) → snorm bytes (64, -63, 127, -127)
    assert_eq!(out[0][0], 0x817f_0000);
    assert_eq!(out[0][1], 0x00ff_0000);
    assert_eq!(out[1][0], 0x817f_c140);
}

#[test]
fn unpack_norms_and_float() {
    let mut g = Gen(2);
    let mut words = vec![
        0,
        0xffff_ffff,
        0x8080_8080,
        0x7f7f_7f7f,
        0x8000_7fff,
        0x3c00_bc00,
    ];
    words.extend((0..58).map(|_| g.word()));
    let out = per_lane(
        "let u = xu(0u);
         let a = unpack4x8snorm(u);
         let b = unpack4x8unorm(u);
         let c = unpack2x16snorm(u);
         let d = unpack2x16unorm(u);
         let e = unpack2x16float(u);
         for (var k = 0u; k < 4u; k++) { putf(k, a[k]); putf(4u + k, b[k]); }
         putf(8u, c.x); putf(9u, c.y); putf(10u, d.x); putf(11u, d.y);
         putf(12u, e.x); putf(13u, e.y);",
        &words,
        1,
        14,
    );
    for (lane, &u) in words.iter().enumerate() {
        let byte = |c: u32| (u >> (8 * c)) & 0xff;
        let half16 = |c: u32| (u >> (16 * c)) & 0xffff;
        let mut want = Vec::new();
        want.extend((0..4).map(|c| (byte(c) as u8 as i8 as f32 / 127.0).max(-1.0)));
        want.extend((0..4).map(|c| byte(c) as f32 / 255.0));
        want.extend((0..2).map(|c| (half16(c) as u16 as i16 as f32 / 32767.0).max(-1.0)));
        want.extend((0..2).map(|c| half16(c) as f32 / 65535.0));
        want.extend((0..2).map(|c| half::f16::from_bits(half16(c) as u16).to_f32()));
        // (WGSL leaves NaN payloads open: any NaN is as good as another)
        let canon = |w: u32| {
            if f32::from_bits(w).is_nan() {
                0x7fc0_0000
            } else {
                w
            }
        };
        let got: Vec<u32> = out[lane].iter().map(|&w| canon(w)).collect();
        let want: Vec<u32> = f32s(&want).into_iter().map(canon).collect();
        assert_eq!(got, want, "lane {lane}: {u:#010x}");
    }
    // -128 clamps to -1; 0x3c00 is 1.0 in f16
    assert_eq!(out[2][0], (-1.0f32).to_bits());
    assert_eq!(out[5][12], (-1.0f32).to_bits());
    assert_eq!(out[5][13], 1.0f32.to_bits());
}

#[test]
fn integer_packs_and_packed_dots() {
    let mut g = Gen(3);
    let mut words = vec![
        0,
        0,
        0,
        0,
        127,
        128,
        255,
        256,
        (-128i32) as u32,
        (-129i32) as u32,
    ];
    words.extend([(-1i32) as u32, 300, 7, 0x7fff_ffff, 0x8000_0000, 5]);
    words.extend((0..240).map(|_| match g.word() % 3 {
        0 => g.word(),
        1 => g.word() % 512,
        _ => (g.word() % 512).wrapping_sub(256),
    }));
    let out = per_lane(
        "let i = vec4<i32>(xi(0u), xi(1u), xi(2u), xi(3u));
         let u = bitcast<vec4<u32>>(i);
         put(0u, pack4xI8(i));
         put(1u, pack4xU8(u));
         put(2u, pack4xI8Clamp(i));
         put(3u, pack4xU8Clamp(u));
         let a = unpack4xI8(u.x);
         let b = unpack4xU8(u.y);
         for (var k = 0u; k < 4u; k++) { puti(4u + k, a[k]); put(8u + k, b[k]); }
         puti(12u, dot4I8Packed(u.z, u.w));
         put(13u, dot4U8Packed(u.z, u.w));",
        &words,
        4,
        14,
    );
    for (lane, w) in words.chunks(4).enumerate() {
        let bytes = |f: &dyn Fn(u32) -> u32| (0..4).fold(0, |a, c| a | (f(w[c]) & 0xff) << (8 * c));
        let mut want = vec![
            bytes(&|x| x),
            bytes(&|x| x),
            bytes(&|x| (x as i32).clamp(-128, 127) as u32),
            bytes(&|x| x.min(255)),
        ];
        let byte = |x: u32, c: u32| (x >> (8 * c)) & 0xff;
        want.extend((0..4).map(|c| byte(w[0], c) as u8 as i8 as i32 as u32));
        want.extend((0..4).map(|c| byte(w[1], c)));
        let sdot: i32 = (0..4)
            .map(|c| byte(w[2], c) as u8 as i8 as i32 * byte(w[3], c) as u8 as i8 as i32)
            .sum();
        let udot: u32 = (0..4).map(|c| byte(w[2], c) * byte(w[3], c)).sum();
        want.extend([sdot as u32, udot]);
        assert_eq!(out[lane], want, "lane {lane}: {w:?}");
    }
    // by hand: (127, 128, 255, 256) clamps to (127, 127, 127, 127) signed, (127, 128, 255,
    // 255) unsigned
    assert_eq!(out[1][2], 0x7f7f_7f7f);
    assert_eq!(out[1][3], 0xffff_807f);
}

/// `frexp` from its definition: the power of two just above |x|, found by halving in f64.
fn frexp_ref(x: f32) -> (f32, i32) {
    if x == 0.0 {
        return (x, 0);
    }
    let (mut m, mut e) = (x as f64, 0);
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m as f32, e)
}

#[test]
fn modf_frexp_ldexp() {
    let mut g = Gen(4);
    let mut floats = vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        2.75,
        1e-40,
        -3e-39,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
    ];
    floats.extend((0..118).map(|_| g.float(1000.0)));
    let exps: Vec<i32> = (0..floats.len())
        .map(|i| match i {
            0..=9 => [3, -1, 127, -149, 1, 100, 60, -300, -1, 149][i],
            _ => (g.word() % 301) as i32 - 150,
        })
        .collect();
    let input: Vec<u32> = floats
        .iter()
        .zip(&exps)
        .flat_map(|(f, &e)| [f.to_bits(), e as u32])
        .collect();
    let out = per_lane(
        "let x = xf(0u);
         let m = modf(x);
         let f = frexp(x);
         let v = modf(vec2<f32>(x, -x));
         let w = frexp(vec2<f32>(x, x * 0.25));
         putf(0u, m.fract); putf(1u, m.whole);
         putf(2u, f.fract); puti(3u, f.exp);
         putf(4u, v.fract.y); putf(5u, v.whole.y);
         putf(6u, w.fract.y); puti(7u, w.exp.y);
         putf(8u, ldexp(x, xi(1u)));
         let l = ldexp(vec2<f32>(x, 1.0), vec2<i32>(xi(1u), xi(1u)));
         putf(9u, l.y);",
        &input,
        2,
        10,
    );
    for (lane, (&x, &e)) in floats.iter().zip(&exps).enumerate() {
        let (fr, ex) = frexp_ref(x);
        let (fr4, ex4) = frexp_ref(x * 0.25);
        let pow2 = |e: i32| (2.0f64).powi(e);
        let want = [
            (x - x.trunc()).to_bits(),
            x.trunc().to_bits(),
            fr.to_bits(),
            ex as u32,
            (-x - (-x).trunc()).to_bits(),
            (-x).trunc().to_bits(),
            fr4.to_bits(),
            ex4 as u32,
            ((x as f64 * pow2(e)) as f32).to_bits(),
            (pow2(e) as f32).to_bits(),
        ];
        assert_eq!(out[lane], want, "lane {lane}: {x:e} {e}");
    }
    // by hand: modf(-1.5) = (-0.5, -1); frexp(2.75) = (0.6875, 2); ldexp(1e-45, 149) = 1
    assert_eq!(out[3][..2], f32s(&[-0.5, -1.0]));
    assert_eq!(out[4][2..4], [0.6875f32.to_bits(), 2]);
    assert_eq!(out[9][8], 1.0f32.to_bits());
}

#[test]
fn transpose_is_exact() {
    let vals: Vec<f32> = (0..16).map(|i| i as f32 + 0.5).collect();
    let out = per_lane(
        "var a = mat2x3<f32>(xf(0u), xf(1u), xf(2u), xf(3u), xf(4u), xf(5u));
         let t = transpose(a);
         for (var c = 0u; c < 3u; c++) { putf(2u * c, t[c].x); putf(2u * c + 1u, t[c].y); }
         let b = mat4x4<f32>(xf(0u), xf(1u), xf(2u), xf(3u), xf(4u), xf(5u), xf(6u), xf(7u),
                             xf(8u), xf(9u), xf(10u), xf(11u), xf(12u), xf(13u), xf(14u), xf(15u));
         let u = transpose(b);
         for (var c = 0u; c < 4u; c++) {
             for (var r = 0u; r < 4u; r++) { putf(6u + 4u * c + r, u[c][r]); }
         }",
        &f32s(&vals),
        16,
        22,
    );
    // a is 2 columns of 3 rows: a[c][r] = vals[3c + r]; t[c][r] = a[r][c]
    let v = &vals;
    let mut want: Vec<f32> = (0..3)
        .flat_map(|c| (0..2).map(move |r| v[3 * r + c]))
        .collect();
    want.extend((0..4).flat_map(|c| (0..4).map(move |r| v[4 * r + c])));
    assert_eq!(out[0], f32s(&want));
}

/// Whether `got` is within `ulps` units in the last place of `want` (or `abs` of it, for
/// results that cancel to near zero).
fn close(got: f32, want: f64, ulps: f32, abs: f64) -> bool {
    let w = want as f32;
    let ulp = (w.abs() * f32::EPSILON).max(f32::MIN_POSITIVE);
    ((got - w).abs() <= ulps * ulp) || ((got as f64 - want).abs() <= abs)
}

fn det_ref(m: &[Vec<f64>]) -> f64 {
    let k = m.len();
    if k == 1 {
        return m[0][0];
    }
    (0..k)
        .map(|c| {
            let minor: Vec<Vec<f64>> = (0..k)
                .filter(|&j| j != c)
                .map(|j| m[j][1..].to_vec())
                .collect();
            let sign = if c % 2 == 0 { 1.0 } else { -1.0 };
            sign * m[c][0] * det_ref(&minor)
        })
        .sum()
}

#[test]
fn determinant_within_a_few_ulps() {
    let mut g = Gen(5);
    let vals: Vec<f32> = (0..64 * 16).map(|_| g.float(4.0)).collect();
    let out = per_lane(
        "let c = array<vec4<f32>, 4>(
             vec4<f32>(xf(0u), xf(1u), xf(2u), xf(3u)),
             vec4<f32>(xf(4u), xf(5u), xf(6u), xf(7u)),
             vec4<f32>(xf(8u), xf(9u), xf(10u), xf(11u)),
             vec4<f32>(xf(12u), xf(13u), xf(14u), xf(15u)));
         putf(0u, determinant(mat2x2<f32>(c[0].xy, c[1].xy)));
         putf(1u, determinant(mat3x3<f32>(c[0].xyz, c[1].xyz, c[2].xyz)));
         putf(2u, determinant(mat4x4<f32>(c[0], c[1], c[2], c[3])));",
        &f32s(&vals),
        16,
        3,
    );
    for (lane, v) in vals.chunks(16).enumerate() {
        for (k, &got) in out[lane].iter().enumerate() {
            let k = k + 2;
            let m: Vec<Vec<f64>> = (0..k)
                .map(|c| (0..k).map(|r| v[4 * c + r] as f64).collect())
                .collect();
            // computed in f64 and rounded once: within 1 ulp of the f64 value
            let want = det_ref(&m);
            assert!(
                close(f32::from_bits(got), want, 1.0, 0.0),
                "lane {lane} {k}x{k}: {} vs {want}",
                f32::from_bits(got)
            );
        }
    }
}

#[test]
fn reflect_refract_face_forward() {
    let mut g = Gen(6);
    let mut input = Vec::new();
    for i in 0..64 {
        let v: Vec<f32> = (0..6).map(|_| g.float(1.0)).collect();
        // unit normals, and eta both below and above 1 (total internal reflection)
        let l = (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]).sqrt();
        let eta = if i % 2 == 0 { 0.66 } else { 1.5 };
        input.extend(f32s(&[v[0], v[1], v[2], v[3] / l, v[4] / l, v[5] / l, eta]));
    }
    let out = per_lane(
        "let i = vec3<f32>(xf(0u), xf(1u), xf(2u));
         let n = vec3<f32>(xf(3u), xf(4u), xf(5u));
         let r = reflect(i, n);
         let t = refract(i, n, xf(6u));
         let f = faceForward(n, i, n);
         for (var k = 0u; k < 3u; k++) { putf(k, r[k]); putf(3u + k, t[k]); putf(6u + k, f[k]); }",
        &input,
        7,
        9,
    );
    let mut internal = 0;
    for (lane, w) in input.chunks(7).enumerate() {
        let x: Vec<f64> = w.iter().map(|&b| f32::from_bits(b) as f64).collect();
        let (i, n, eta) = (&x[0..3], &x[3..6], x[6]);
        let d: f64 = (0..3).map(|k| i[k] * n[k]).sum();
        let k = 1.0 - eta * eta * (1.0 - d * d);
        internal += (k < 0.0) as u32;
        for c in 0..3 {
            let got = |j: usize| f32::from_bits(out[lane][j]);
            // reflect and refract: a few f32 roundings in a row: 4 ulps, or 1e-6 near zero
            let r = i[c] - 2.0 * d * n[c];
            assert!(close(got(c), r, 4.0, 1e-6), "reflect lane {lane}");
            let t = if k < 0.0 {
                0.0
            } else {
                eta * i[c] - (eta * d + k.sqrt()) * n[c]
            };
            assert!(close(got(3 + c), t, 4.0, 1e-6), "refract lane {lane}");
            // faceForward(n, i, n) is n if dot(i, n) < 0, else -n: exact
            let f = if d < 0.0 { n[c] } else { -n[c] } as f32;
            assert_eq!(out[lane][6 + c], f.to_bits(), "faceForward lane {lane}");
        }
    }
    assert!(internal > 0, "no lane had total internal reflection");
}

#[test]
fn unsupported_types_and_builtins_are_one_clear_error() {
    let err = |src: &str| match run(src, 32, &["0=u32:zeros:4"]) {
        Err(crate::error::Error::Sim(m)) => m,
        other => panic!("expected Error::Sim, got {:?}", other.map(|r| r.findings)),
    };
    let kernel = |body: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
             @compute @workgroup_size(1) fn main() {{ {body} }}"
        )
    };
    let m = err(&kernel("let x = i64(out[0]) + 1li; out[1] = u32(x);"));
    assert!(m.contains("64-bit integers (`i64`)"), "{m}");
    let m = err(&kernel("var x: u64 = 5lu; out[1] = u32(x);"));
    assert!(m.contains("`u64`"), "{m}");
    let m = err(&kernel("let x = f64(out[0]) * 2.0lf; out[1] = u32(x);"));
    assert!(m.contains("does not support `f64` yet"), "{m}");
}

/// Subgroup builtins in a multi-dimensional workgroup, which WGSL allows and naga 30 refuses:
/// the kernel loads, and its subgroups take the invocations in `local_invocation_index` order
/// (lane, subgroup id and a subgroup sum per invocation, at 4 and 32 lanes).
#[test]
fn subgroups_of_a_multi_dimensional_workgroup_follow_the_local_index() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(8, 4, 2)
         fn main(@builtin(local_invocation_index) lid: u32,
                 @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32) {
             out[3u * lid] = lane;
             out[3u * lid + 1u] = sg;
             out[3u * lid + 2u] = subgroupAdd(lid);
         }";
    for s in [4u32, 32] {
        let r = run(src, s, &["0=u32:uninit:192"]).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let out = &r.buffers[&0].1;
        for lid in 0..64u32 {
            let first = lid / s * s;
            let sum: u32 = (first..first + s).sum();
            let got = &out[3 * lid as usize..3 * lid as usize + 3];
            assert_eq!(got, [lid % s, lid / s, sum], "lid {lid} at {s} lanes");
        }
    }
}

/// Immediate data (`var<immediate>`, wgpu's `set_immediates`): read as a uniform block from the
/// first bytes the pass gives, in the entry point and through a helper; refused with a clear
/// error where the pass gives none or too few, where the kernel has none, and past the size a
/// device gives.
#[test]
fn immediate_data_is_read_from_the_bytes_the_pass_gives() {
    use super::request;
    use crate::check::{check, CheckReport, ElemType, InitSpec};
    let src = "struct Params { scale: u32, offset: u32, bias: f32 }
         var<immediate> params: Params;
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;
         fn biased(x: f32) -> f32 { return x + params.bias; }
         @compute @workgroup_size(16)
         fn main(@builtin(local_invocation_index) lid: u32) {
             out[2u * lid] = lid * params.scale + params.offset;
             out[2u * lid + 1u] = bitcast<u32>(biased(f32(lid)));
         }";
    let with = |words: Vec<u32>| {
        let mut req = request(src, 4, None, [1, 1, 1], &["0=u32:uninit:32"]);
        req.immediates = Some((ElemType::U32, InitSpec::Values(words)));
        check(&req)
    };
    let r = with(vec![3, 7, 0.5f32.to_bits(), 99]).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = &r.buffers[&0].1;
    for lid in 0..16u32 {
        let got = (
            out[2 * lid as usize],
            f32::from_bits(out[2 * lid as usize + 1]),
        );
        assert_eq!(got, (lid * 3 + 7, lid as f32 + 0.5), "lid {lid}");
    }
    let message = |r: crate::error::Result<CheckReport>| match r {
        Err(e) => e.to_string(),
        Ok(r) => panic!("expected an error, got findings {:?}", r.findings),
    };
    let m = message(with(vec![3]));
    assert!(m.contains("`params` is 12 bytes; the pass gives 4"), "{m}");
    let m = message(with(vec![0; 65]));
    assert!(
        m.contains("immediate data of 260 bytes: a pass takes at most 256"),
        "{m}"
    );
    let m = message(run(src, 4, &["0=u32:uninit:32"]));
    assert!(
        m.contains("reads immediate data `params` (12 bytes)"),
        "{m}"
    );
    let plain = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(1) fn main() { out[0] = 1u; }";
    let mut req = request(plain, 4, None, [1, 1, 1], &["0=u32:uninit:1"]);
    req.immediates = Some((ElemType::U32, InitSpec::Values(vec![1])));
    let m = message(check(&req));
    assert!(m.contains("declares no immediate data"), "{m}");
    let big = "var<immediate> big: array<u32, 65>;
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(1) fn main() { out[0] = big[64]; }";
    let mut req = request(big, 4, None, [1, 1, 1], &["0=u32:uninit:1"]);
    req.immediates = Some((ElemType::U32, InitSpec::Zeros(64)));
    let m = message(check(&req));
    assert!(m.contains("max_immediate_size"), "{m}");
}
