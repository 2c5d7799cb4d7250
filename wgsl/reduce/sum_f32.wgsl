// Deterministic f32 sum, one double-float partial per workgroup (stage 1 of 2).
// Each invocation accumulates (hi, lo) pairs with TwoSum, so the result is within about 2^-44
// of the exact sum relative to sum(|x|), far inside the 1e-6 contract, and the same from run
// to run: the grid, the element-to-invocation map and the combine order depend only on n.

//!include shared/wg_ops

const WG_SIZE: u32 = 256u;

struct Params {
    n: u32,
    out_base: u32,
    zero: u32,       // always 0: see dd_zero in shared/ops.wgsl
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> partials: array<vec2<f32>>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = params.n;
    dd_zero = params.zero;
    // load + accumulate
    var acc = vec2<f32>(0.0, 0.0);
    let full = n / 4u;
    let stride = nwg.x * WG_SIZE;
    for (var i = wid.x * WG_SIZE + inv.lid; i < full; i += stride) {
        let v = input[i];
        // pairwise inside the vec4 keeps the double-float additions to three
        acc = dd_add(acc, dd_add(dd_add(vec2<f32>(v.x, 0.0), vec2<f32>(v.y, 0.0)),
                                 dd_add(vec2<f32>(v.z, 0.0), vec2<f32>(v.w, 0.0))));
    }
    let rest = n % 4u;
    if rest != 0u && wid.x == 0u && inv.lid == 0u {
        let v = input[full];
        for (var c = 0u; c < rest; c++) {
            acc = dd_add(acc, vec2<f32>(v[c], 0.0));
        }
    }
    // reduce
    let total = wg_reduce_dd(inv, acc);
    // store
    if inv.lid == 0u {
        partials[params.out_base + wid.x] = total;
    }
}
