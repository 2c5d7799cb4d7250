//! Interpreter semantics, word for word.

use super::{f32s, run, words};

// A function-scope `var` with a constant initializer holds it from the function's entry (naga
// hoists the initializer into the variable, but also emits it later in the body).

#[test]
fn local_vector_initializer() {
    let w = words("var v = vec2<u32>(3u, 4u); out[0] = v.x; out[1] = v.y;", 2);
    assert_eq!(w, [3, 4]);
}

#[test]
fn local_splat_initializer_then_compound_assignment() {
    let body = "var p = vec4<u32>(0xffffffffu);
        let b = vec4<u32>(1u, 2u, 4u, 8u);
        p &= ~b;
        for (var i = 0u; i < 4u; i++) { out[i] = p[i]; }";
    assert_eq!(
        words(body, 4),
        [0xffff_fffe, 0xffff_fffd, 0xffff_fffb, 0xffff_fff7]
    );
}

#[test]
fn local_array_initializer() {
    let body = "var a = array<u32, 3>(5u, 6u, 7u);
        var b = array<vec2<u32>, 2>(vec2<u32>(1u, 2u), vec2<u32>(3u));
        for (var i = 0u; i < 3u; i++) { out[i] = a[i]; }
        out[3] = b[0].y; out[4] = b[1].x; out[5] = b[1].y;";
    assert_eq!(words(body, 6), [5, 6, 7, 2, 3, 3]);
}

#[test]
fn local_struct_initializer() {
    let src = "struct S { a: u32, v: vec3<u32>, f: f32 }
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(1)
        fn main() {
            var s = S(9u, vec3<u32>(1u, 2u, 3u), 1.5);
            out[0] = s.a; out[1] = s.v.x; out[2] = s.v.z; out[3] = bitcast<u32>(s.f);
        }";
    let r = run(src, 4, &["0=u32:zeros:4"]).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.buffers[&0].1, [9, 1, 3, 1.5f32.to_bits()]);
}

#[test]
fn local_matrix_initializers() {
    // mat3x3 has a padded column in memory (stride 4 words), mat2x2 has none
    let body = "var m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
        var t = mat3x3<f32>(vec3<f32>(1.0, 2.0, 3.0), vec3<f32>(4.0, 5.0, 6.0), vec3<f32>(7.0, 8.0, 9.0));
        out[0] = bitcast<u32>(m[0].y); out[1] = bitcast<u32>(m[1].x);
        out[2] = bitcast<u32>(t[1].z); out[3] = bitcast<u32>(t[2][0]);
        let v = t * vec3<f32>(1.0, 0.0, 0.0);
        out[4] = bitcast<u32>(v.y);";
    assert_eq!(words(body, 5), f32s(&[2.0, 3.0, 6.0, 7.0, 2.0]));
}

#[test]
fn local_initializers_in_a_called_function_and_per_lane_stores() {
    // each call starts from the initializer again, whatever the previous call stored
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
        fn f(k: u32) -> u32 {
            var v = vec2<u32>(10u, 20u);
            v.y += k;
            return v.x + v.y;
        }
        @compute @workgroup_size(8)
        fn main(@builtin(local_invocation_index) lid: u32) {
            out[lid] = f(lid) + f(1u);
        }";
    let r = run(src, 4, &["0=u32:zeros:8"]).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let want: Vec<u32> = (0..8).map(|l| 30 + l + 31).collect();
    assert_eq!(r.buffers[&0].1, want);
}

#[test]
fn private_composite_initializers() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
        var<private> g = vec2<u32>(3u, 4u);
        var<private> m = mat3x3<f32>(vec3<f32>(1.0), vec3<f32>(2.0), vec3<f32>(3.0));
        @compute @workgroup_size(1)
        fn main() { out[0] = g.y; out[1] = bitcast<u32>(m[2].z); }";
    let r = run(src, 4, &["0=u32:zeros:2"]).unwrap();
    assert_eq!(r.buffers[&0].1, [4, 3.0f32.to_bits()]);
}
