// Exact sum of u32 elements into 64 bits in one dispatch: one partial per workgroup, folded by
// the workgroup that finishes last (shared/last_workgroup.wgsl).
// Integer sums follow numpy: u32 -> u64; i32 -> i64 by summing x ^ 0x80000000 (= x + 2^31 as
// unsigned) and subtracting count * 2^31 at the end (FLIP = 1): the result is the i64's two's
// complement, low word first.
// Structure: a capped grid of workgroups sweeping the input with a grid stride (CUB's "even
// share" without its per-workgroup blocks, which measured slower through Vulkan), then one
// workgroup-wide reduction.

//!include shared/wg_ops
//!include shared/last_workgroup
//!include reduce/lib/params

const WG_SIZE: u32 = 256u;
override FLIP: u32 = 0u;

@group(0) @binding(0) var<uniform> params_block: ReduceParams;
// word 0 of the same control copy: the count (reduce/lib/params)
@group(0) @binding(5) var<uniform> count_word: vec4<u32>;
// this run's params (run_params)
var<private> params: ReduceParams;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
// the partials' slots (shared/last_workgroup.wgsl)
@group(0) @binding(2) var<storage, read_write> fold_slots: array<atomic<u32>>;
// (lo, hi) of the sum
@group(0) @binding(3) var<storage, read_write> result: array<vec2<u32>>;
// the same input as words, for the elements past the last whole vec4: the caller's buffer may
// end with the count
@group(0) @binding(4) var<storage, read> input_words: array<u32>;

// Workgroup sum of 64-bit values: 16-bit halves of lo and all of hi summed separately cannot
// overflow u32 (the total of any input fits 61 bits).
fn wg_sum_u64(inv: Inv, x: vec2<u32>) -> vec2<u32> {
    let a = wg_reduce_u32(inv, OP_ADD, x.x & 0xffffu);
    let b = wg_reduce_u32(inv, OP_ADD, x.x >> 16u);
    let h = wg_reduce_u32(inv, OP_ADD, x.y);
    return u64_add(vec2<u32>(a, h), vec2<u32>(b << 16u, b >> 16u));
}

// (lo, hi) += each lane of v, with carry. Written out lane by lane: a loop with a dynamic
// vector index can land the vector in local memory on some drivers.
fn add_carry(acc: vec2<u32>, x: u32) -> vec2<u32> {
    let lo = acc.x + x;
    return vec2<u32>(lo, acc.y + select(0u, 1u, lo < x));
}

fn accumulate(acc: vec2<u32>, v: vec4<u32>) -> vec2<u32> {
    return add_carry(add_carry(add_carry(add_carry(acc, v.x), v.y), v.z), v.w);
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
    let flip = vec4<u32>(select(0u, 0x80000000u, FLIP != 0u));
    var acc = vec2<u32>(0u, 0u);
    // load + accumulate: the whole grid sweeps the input together, four vec4s per invocation
    // per step, all four loaded before any is added. Against one per step on the H100
    // (2026-11-27, same call): 2^24 32.6 against 35.2 µs, 2^26 97.8 against 100.4, 2^28 equal
    // (3.04 TB/s); two per step 33.1 µs at 2^24. Four or eight loads per invocation from
    // per-workgroup blocks instead of the grid stride measured 1.8 against 3.12 TB/s at 2^28.
    let full = n / 4u;
    let stride = params.grid * WG_SIZE;
    var i = wid.x * WG_SIZE + inv.lid;
    for (; i + 3u * stride < full; i += 4u * stride) {
        let a = input[i];
        let b = input[i + stride];
        let c = input[i + 2u * stride];
        let d = input[i + 3u * stride];
        acc = accumulate(accumulate(acc, a ^ flip), b ^ flip);
        acc = accumulate(accumulate(acc, c ^ flip), d ^ flip);
    }
    for (; i < full; i += stride) {
        acc = accumulate(acc, input[i] ^ flip);
    }
    // the last one to three elements
    if wid.x == 0u && inv.lid == 0u {
        for (var i = 4u * full; i < n; i++) {
            acc = add_carry(acc, input_words[i] ^ flip.x);
        }
    }
    // reduce
    let total = wg_sum_u64(inv, acc);
    // publish
    if inv.lid == 0u {
        fold_publish(params.out_base + wid.x, total, epoch);
    }
    // fold: the last workgroup to arrive adds every partial
    if fold_arrive(inv.lid == 0u, params.total, epoch) {
        let count = params.total;
        var sum = vec2<u32>(0u, 0u);
        for (var base = inv.lid; base < count; base += FOLD_BATCH * WG_SIZE) {
            let f = fold_gather8(base, WG_SIZE, count, vec2<u32>(0u, 0u));
            sum = u64_add(sum, u64_add(u64_add(f.v0, f.v1), u64_add(f.v2, f.v3)));
            sum = u64_add(sum, u64_add(u64_add(f.v4, f.v5), u64_add(f.v6, f.v7)));
        }
        var r = wg_sum_u64(inv, sum);
        if FLIP != 0u {
            // minus count * 2^31 (64-bit, with borrow)
            let b = vec2<u32>(params.count << 31u, params.count >> 1u);
            r = vec2<u32>(r.x - b.x, r.y - b.y - select(0u, 1u, r.x < b.x));
        }
        if inv.lid == 0u {
            result[0] = r;
            fold_done();
        }
    }
}
