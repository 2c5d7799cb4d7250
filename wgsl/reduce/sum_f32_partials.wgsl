// Double-float sum of sum_f32's partials (stage 2 of 2), by one workgroup. The host adds the
// final (hi, lo) in f64 and rounds once to f32.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;

@group(0) @binding(0) var<storage, read> partials: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> result: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> zero: vec4<u32>;   // all 0: see dd_zero in shared/ops.wgsl

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let n = arrayLength(&partials);
    dd_zero = zero.x;
    var acc = vec2<f32>(0.0, 0.0);
    for (var i = inv.lid; i < n; i += WG_SIZE) {
        acc = dd_add(acc, partials[i]);
    }
    let total = wg_reduce_dd(inv, acc);
    if inv.lid == 0u {
        result[0] = total;
    }
}
