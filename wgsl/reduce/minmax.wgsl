// Min or max of u32, i32 or f32 elements through order-preserving u32 keys, one partial key per
// workgroup. KEY: 0 = u32 (identity), 1 = i32 (flip the sign bit), 2 = f32
// (total-order key: negative -> all bits flipped, positive -> sign bit set). NaN must win, as in
// numpy: for min every NaN maps to key 0, for max to 0xffffffff; both keys decode to NaN.
// One dispatch: the workgroup that finishes last folds the partials (shared/last_workgroup.wgsl).
// Same grid-stride sweep as sum_u64.wgsl.

//!include shared/wg_ops
//!include shared/last_workgroup
//!include reduce/lib/params

const WG_SIZE: u32 = 256u;
override KEY: u32 = 0u;
override OP: u32 = 1u;   // OP_MIN = 1, OP_MAX = 2

@group(0) @binding(0) var<uniform> params_block: ReduceParams;
// word 0 of the same control copy: the count (reduce/lib/params)
@group(0) @binding(5) var<uniform> count_word: vec4<u32>;
// this run's params (run_params)
var<private> params: ReduceParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
// the partials' slots (shared/last_workgroup.wgsl)
@group(0) @binding(2) var<storage, read_write> fold_slots: array<atomic<u32>>;
// the winning element (its bits)
@group(0) @binding(3) var<storage, read_write> result: array<u32>;
// the same input as words, for the elements past the last whole vec4: the caller's buffer may
// end with the count
@group(0) @binding(4) var<storage, read> input_words: array<u32>;

fn to_key(x: u32) -> u32 {
    if KEY == 1u {
        return x ^ 0x80000000u;
    }
    if KEY == 2u {
        if (x & 0x7fffffffu) > 0x7f800000u {
            return select(0xffffffffu, 0u, OP == OP_MIN);
        }
        return select(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u);
    }
    return x;
}

// The element whose key is k (a NaN's key decodes to a NaN).
fn from_key(k: u32) -> u32 {
    if KEY == 1u {
        return k ^ 0x80000000u;
    }
    if KEY == 2u {
        return select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u);
    }
    return k;
}

fn accumulate(acc: u32, v: vec4<u32>) -> u32 {
    let m = combine_u32(OP, combine_u32(OP, to_key(v.x), to_key(v.y)), combine_u32(OP, to_key(v.z), to_key(v.w)));
    return combine_u32(OP, acc, m);
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
    let identity = select(0u, 0xffffffffu, OP == OP_MIN);
    var acc = identity;
    // load + accumulate: the whole grid sweeps the input together, one vec4 per invocation per
    // step. Measured on the H100 (2^28 u32): 3.12 TB/s with 4096 workgroups, against 1.8 TB/s
    // for four or eight loads per invocation from per-workgroup blocks.
    let full = n / 4u;
    for (var i = wid.x * WG_SIZE + inv.lid; i < full; i += params.grid * WG_SIZE) {
        acc = accumulate(acc, input[i]);
    }
    // the last one to three elements
    if wid.x == 0u && inv.lid == 0u {
        for (var i = 4u * full; i < n; i++) {
            acc = combine_u32(OP, acc, to_key(input_words[i]));
        }
    }
    // reduce
    let r = wg_reduce_u32(inv, OP, acc);
    // publish
    if inv.lid == 0u {
        fold_publish(params.out_base + wid.x, vec2<u32>(r, 0u), epoch);
    }
    // fold: the last workgroup to arrive combines every partial
    if fold_arrive(inv.lid == 0u, params.total, epoch) {
        let count = params.total;
        var best = identity;
        for (var base = inv.lid; base < count; base += FOLD_BATCH * WG_SIZE) {
            let f = fold_gather8(base, WG_SIZE, count, vec2<u32>(identity, 0u));
            best = combine_u32(OP, best, combine_u32(OP, combine_u32(OP, f.v0.x, f.v1.x), combine_u32(OP, f.v2.x, f.v3.x)));
            best = combine_u32(OP, best, combine_u32(OP, combine_u32(OP, f.v4.x, f.v5.x), combine_u32(OP, f.v6.x, f.v7.x)));
        }
        let key = wg_reduce_u32(inv, OP, best);
        if inv.lid == 0u {
            result[0] = from_key(key);
            fold_done();
        }
    }
}
