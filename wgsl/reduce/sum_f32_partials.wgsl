// Double-float sum of sum_f32's partials (stage 2 of 2), by one workgroup. The host adds the
// final (hi, lo) in f64 and rounds once to f32.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;
const BATCH: u32 = 8u;

@group(0) @binding(0) var<storage, read> partials: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> result: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> zero: vec4<u32>;   // all 0: see dd_zero in shared/ops.wgsl

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let n = arrayLength(&partials);
    dd_zero = zero.x;
    // load: BATCH independent loads per invocation before accumulating them, so the loads
    // overlap (a load-then-add loop waited one memory round trip per partial: the H100 spent
    // 14-17 µs here on 4096 partials)
    var acc = vec2<f32>(0.0, 0.0);
    for (var base = inv.lid; base < n; base += WG_SIZE * BATCH) {
        var v: array<vec2<f32>, BATCH>;
        for (var j = 0u; j < BATCH; j++) {
            let i = base + j * WG_SIZE;
            v[j] = select(vec2<f32>(0.0, 0.0), partials[min(i, n - 1u)], i < n);
        }
        for (var j = 0u; j < BATCH; j++) {
            acc = dd_add(acc, v[j]);
        }
    }
    let total = wg_reduce_dd(inv, acc);
    if inv.lid == 0u {
        result[0] = total;
    }
}
