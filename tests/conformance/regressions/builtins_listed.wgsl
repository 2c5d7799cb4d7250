// conformance regression: the builtins real kernels met first: the pack and unpack family,
// modf, frexp, ldexp, transpose, determinant, reflect, refract and faceForward
// expect: the simulator and the GPU agree: bit for bit where the result is exact, within the
// stated ulps where WGSL allows rounding (the unpacked norms divide by 127 or 255, refract
// takes a square root). Normalised packs get operands off the halfway points, where WGSL
// rounds `0.5 + 127 * v` down and lavapipe to even.
// @shape wg=32 groups=2 atomics=12 seed=0xb11
// @out b*5 b*4 f~1/0e0*4 f~1/0e0*2 f*2 b*4 b*2 f*2 f b f f*6 f*3 f~2/1e-6*3 f~64/1e-5*3 f*3
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn f(ib: u32, k: u32) -> f32 {
    return bitcast<f32>(inp[ib + 16u + k]);
}

/// A multiple of 1/16 in [-8, 8].
fn q(x: f32) -> f32 {
    return floor(clamp(x, -8.0, 8.0) * 16.0) * 0.0625;
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 32u + li;
    let ib = 16u + i * 36u;
    let o = i * 46u;
    let v4 = vec4(f(ib, 0u), f(ib, 1u), f(ib, 2u), f(ib, 3u)) * 0.125 + 0.0009765625;
    let v2 = v4.zw;
    let w = inp[ib + 4u];
    let h2 = quantizeToF16(vec2(f(ib, 4u), f(ib, 5u)));
    let iv = vec4<i32>(bitcast<i32>(inp[ib]), bitcast<i32>(inp[ib + 1u]), -129, 200);
    let uv = vec4<u32>(inp[ib + 2u], inp[ib + 3u], 255u, 256u);
    // packs
    out[o + 0u] = pack4x8snorm(v4);
    out[o + 1u] = pack4x8unorm(v4);
    out[o + 2u] = pack2x16snorm(v2);
    out[o + 3u] = pack2x16unorm(v2);
    out[o + 4u] = pack2x16float(h2);
    out[o + 5u] = pack4xI8(iv);
    out[o + 6u] = pack4xU8(uv);
    out[o + 7u] = pack4xI8Clamp(iv);
    out[o + 8u] = pack4xU8Clamp(uv);
    // unpacks
    let s4 = unpack4x8snorm(w);
    let u4 = unpack4x8unorm(w);
    out[o + 9u] = bitcast<u32>(s4.x);
    out[o + 10u] = bitcast<u32>(s4.w);
    out[o + 11u] = bitcast<u32>(u4.y);
    out[o + 12u] = bitcast<u32>(u4.z);
    let s2 = unpack2x16snorm(w);
    let u2 = unpack2x16unorm(w);
    out[o + 13u] = bitcast<u32>(s2.y);
    out[o + 14u] = bitcast<u32>(u2.x);
    // no f16 denormals, infinities or NaNs
    let h = unpack2x16float((w & 0xbfffbfffu) | 0x04000400u);
    out[o + 15u] = bitcast<u32>(h.x);
    out[o + 16u] = bitcast<u32>(h.y);
    let ui = unpack4xI8(w);
    let uu = unpack4xU8(w);
    out[o + 17u] = bitcast<u32>(ui.x);
    out[o + 18u] = bitcast<u32>(ui.w);
    out[o + 19u] = uu.y;
    out[o + 20u] = uu.z;
    out[o + 21u] = bitcast<u32>(dot4I8Packed(w, inp[ib + 5u]));
    out[o + 22u] = dot4U8Packed(w, inp[ib + 5u]);
    // modf, frexp, ldexp
    let x = f(ib, 6u) * 3.0;
    let m = modf(x);
    out[o + 23u] = bitcast<u32>(m.fract);
    out[o + 24u] = bitcast<u32>(m.whole);
    let fr = frexp(x);
    out[o + 25u] = bitcast<u32>(fr.fract);
    out[o + 26u] = bitcast<u32>(fr.exp);
    out[o + 27u] = bitcast<u32>(ldexp(x, clamp(bitcast<i32>(inp[ib + 6u]), -20, 20)));
    // transpose (exact), determinant of small integers (exact)
    let mt = transpose(mat3x2<f32>(v2, v4.xy, v4.yz));
    for (var c = 0u; c < 2u; c++) {
        for (var r = 0u; r < 3u; r++) {
            out[o + 28u + c * 3u + r] = bitcast<u32>(mt[c][r]);
        }
    }
    let a = floor(clamp(vec4(f(ib, 7u), f(ib, 8u), f(ib, 9u), f(ib, 10u)), vec4(-3.0), vec4(3.0)));
    out[o + 34u] = bitcast<u32>(determinant(mat2x2<f32>(a.xy, a.zw)));
    out[o + 35u] = bitcast<u32>(determinant(mat3x3<f32>(a.xyz, a.yzw, a.wxy)));
    out[o + 36u] = bitcast<u32>(determinant(mat4x4<f32>(a, a.yzwx, a.wzyx, vec4(1.0, -1.0, 2.0, 0.0))));
    // geometry on multiples of 1/16
    let e1 = vec3(q(f(ib, 0u)), q(f(ib, 1u)), q(f(ib, 2u)));
    let e2 = vec3(q(f(ib, 3u)), q(f(ib, 4u)), q(f(ib, 5u)));
    let r = reflect(e1, e2);
    let t = refract(normalize(e1 + vec3(0.03125)), normalize(e2 + vec3(0.03125)), 0.75);
    let ff = faceForward(e1, vec3(q(f(ib, 8u)), q(f(ib, 9u)), 1.0), e1.zxy);
    for (var c = 0u; c < 3u; c++) {
        out[o + 37u + c] = bitcast<u32>(r[c]);
        out[o + 40u + c] = bitcast<u32>(t[c]);
        out[o + 43u + c] = bitcast<u32>(ff[c]);
    }
}
