// Deterministic f32 sum in one dispatch: one double-float partial per workgroup, folded by the
// workgroup that finishes last (shared/last_workgroup.wgsl).
// Each invocation accumulates with TwoSum (Ogita, Rump & Oishi's Sum2: the rounding error of
// every addition is kept in a second f32), so the result is within about 2^-44 of the exact sum
// relative to sum(|x|), far inside the 1e-6 contract, and the same from run to run: the grid,
// the element-to-invocation map and the combine order depend only on n.
// Result: (s, e), s the f32 nearest the double-float sum and e the rest (0 where s is not
// finite: once the running sum is inf or NaN it stays so, and the error term means nothing).

//!include shared/wg_ops
//!include shared/last_workgroup
//!include reduce/lib/params

const WG_SIZE: u32 = 256u;
// every input times SCALE (1, or 2^-64 when the host runs a sum again whose running sums
// overflowed f32 although its inputs are finite; the host divides the result by it)
override SCALE: f32 = 1.0;

@group(0) @binding(0) var<uniform> params_block: ReduceParams;
// word 0 of the same control copy: the count (reduce/lib/params)
@group(0) @binding(5) var<uniform> count_word: vec4<u32>;
// this run's params (run_params)
var<private> params: ReduceParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
// the partials' slots (shared/last_workgroup.wgsl)
@group(0) @binding(2) var<storage, read_write> fold_slots: array<atomic<u32>>;
// (s, e) of the sum: s rounded to f32, s + e the double-float sum
@group(0) @binding(3) var<storage, read_write> result: array<vec2<f32>>;
// the same input as words, for the elements past the last whole vec4: the caller's buffer may
// end with the count
@group(0) @binding(4) var<storage, read> input_words: array<f32>;

// (sum, error) += x, the error of the addition computed exactly by TwoSum
fn add_f32(acc: vec2<f32>, x: f32) -> vec2<f32> {
    let s = opaque(acc.x + x);
    let bb = opaque(s - acc.x);
    let err = (acc.x - opaque(s - bb)) + (x - bb);
    return vec2<f32>(s, acc.y + err);
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    params = run_params(params_block, count_word);
    // a workgroup past the chunk's grid has nothing to do (uniform: the whole workgroup)
    if wid.x >= params.grid {
        return;
    }
    let n = params.n;
    // read before any workgroup can arrive last and advance it
    let epoch = fold_epoch(inv.lid == 0u);
    dd_zero = params.zero;
    // two running (sum, error) pairs, for lanes x, y and for z, w: half the chain of dependent
    // TwoSums per step; merged below in a fixed order, so the result stays deterministic
    var acc = vec2<f32>(0.0, 0.0);
    var acc2 = vec2<f32>(0.0, 0.0);
    // load + accumulate: the whole grid sweeps the input together, one vec4 per invocation per
    // step. Measured on the H100 (2^28 u32): 3.12 TB/s with 4096 workgroups, against 1.8 TB/s
    // for four or eight loads per invocation from per-workgroup blocks.
    let full = n / 4u;
    for (var i = wid.x * WG_SIZE + inv.lid; i < full; i += params.grid * WG_SIZE) {
        let v = input[i] * SCALE;
        acc = add_f32(add_f32(acc, v.x), v.y);
        acc2 = add_f32(add_f32(acc2, v.z), v.w);
    }
    // the last one to three elements
    if wid.x == 0u && inv.lid == 0u {
        for (var i = 4u * full; i < n; i++) {
            acc = add_f32(acc, input_words[i] * SCALE);
        }
    }
    // normalise each pair to (hi, lo) and add them; a non-finite sum drops its error term
    let a = select(vec2<f32>(acc.x, 0.0), dd_add(vec2<f32>(acc.x, 0.0), vec2<f32>(acc.y, 0.0)), is_finite_f32(acc.x));
    let b = select(vec2<f32>(acc2.x, 0.0), dd_add(vec2<f32>(acc2.x, 0.0), vec2<f32>(acc2.y, 0.0)), is_finite_f32(acc2.x));
    let total_in = dd_add(a, b);
    // reduce
    let total = wg_reduce_dd(inv, total_in);
    // publish
    if inv.lid == 0u {
        // lo loses its two lowest bits (62-bit slots): 2^-46 of hi, far inside the contract
        fold_publish(params.out_base + wid.x, vec2<u32>(bitcast<u32>(total.x), bitcast<u32>(total.y) >> 2u), epoch);
    }
    // fold: the last workgroup to arrive adds every partial, each invocation a fixed strided
    // subset in index order, then the workgroup tree: an order that depends only on n
    if fold_arrive(inv.lid == 0u, params.total, epoch) {
        let count = params.total;
        var acc = vec2<f32>(0.0, 0.0);
        for (var base = inv.lid; base < count; base += FOLD_BATCH * WG_SIZE) {
            let f = fold_gather8(base, WG_SIZE, count, vec2<u32>(0u, 0u));
            // in index order: the result must not depend on anything but n
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v0.x), bitcast<f32>(f.v0.y << 2u)));
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v1.x), bitcast<f32>(f.v1.y << 2u)));
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v2.x), bitcast<f32>(f.v2.y << 2u)));
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v3.x), bitcast<f32>(f.v3.y << 2u)));
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v4.x), bitcast<f32>(f.v4.y << 2u)));
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v5.x), bitcast<f32>(f.v5.y << 2u)));
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v6.x), bitcast<f32>(f.v6.y << 2u)));
            acc = dd_add(acc, vec2<f32>(bitcast<f32>(f.v7.x), bitcast<f32>(f.v7.y << 2u)));
        }
        let sum = wg_reduce_dd(inv, acc);
        // s = hi + lo rounded once, e what it leaves (TwoSum of hi and lo)
        let s = opaque(sum.x + sum.y);
        let e = sum.y - opaque(s - sum.x);
        if inv.lid == 0u {
            result[0] = select(vec2<f32>(sum.x, 0.0), vec2<f32>(s, e), is_finite_f32(sum.x) && is_finite_f32(s));
            fold_done();
        }
    }
}
