// include-only
// Workgroup-wide reductions and scans built from subgroup operations (subgroup level first, then
// one value per subgroup combined through workgroup memory) — CUB's BlockReduce/BlockScan
// "warp-scans" variant. Works at any subgroup size 4..128: per-subgroup slots are sized for the
// smallest subgroup, loop bounds are uniform. The stage file defines `const WG_SIZE: u32`.
// Every function here contains workgroupBarrier: call it from uniform control flow only.
// The same functions, with the same results, exist in wg_ops.emulated.wgsl for adapters
// without subgroups.

//!include shared/ops
//!include shared/inv

const WG_MAX_SUBGROUPS: u32 = WG_SIZE / 4u;
var<workgroup> wg_slots: array<u32, WG_MAX_SUBGROUPS>;
var<workgroup> wg_slots4: array<vec4<u32>, WG_MAX_SUBGROUPS>;
var<workgroup> wg_slots_f: array<vec2<f32>, WG_MAX_SUBGROUPS>;


fn sg_reduce_u32(op: u32, x: u32) -> u32 {
    switch op {
        case 1u: { return subgroupMin(x); }
        case 2u: { return subgroupMax(x); }
        default: { return subgroupAdd(x); }
    }
}

// Reduction of x over the workgroup with `op`; the result is returned to every invocation.
fn wg_reduce_u32(inv: Inv, op: u32, x: u32) -> u32 {
    let s = sg_reduce_u32(op, x);
    // barrier: a previous call's readers of wg_slots must be done before we overwrite it
    workgroupBarrier();
    if inv.lane == 0u {
        wg_slots[inv.sg_id] = s;
    }
    // barrier: every subgroup's partial is in wg_slots
    workgroupBarrier();
    var acc = wg_slots[0];
    for (var i = 1u; i < inv.n_sg; i++) {
        acc = combine_u32(op, acc, wg_slots[i]);
    }
    return acc;
}

// Exclusive prefix sum of x over the workgroup in inv_rank order, and the total.
fn wg_scan_add_u32(inv: Inv, x: u32) -> vec2<u32> {
    let incl = subgroupInclusiveAdd(x);
    let sg_total = subgroupAdd(x);
    // barrier: a previous call's readers of wg_slots must be done before we overwrite it
    workgroupBarrier();
    if inv.lane == 0u {
        wg_slots[inv.sg_id] = sg_total;
    }
    // barrier: every subgroup's total is in wg_slots
    workgroupBarrier();
    var before = 0u;
    var total = 0u;
    for (var i = 0u; i < inv.n_sg; i++) {
        let t = wg_slots[i];
        before += select(0u, t, i < inv.sg_id);
        total += t;
    }
    return vec2<u32>(before + incl - x, total);
}


// Double-float sum over the workgroup; the result is returned to every invocation.
// Within a subgroup a butterfly (shuffle-xor); across subgroups in subgroup-id order.
fn wg_reduce_dd(inv: Inv, x: vec2<f32>) -> vec2<f32> {
    var v = x;
    for (var m = 1u; m < inv.sg_size; m <<= 1u) {
        let o = vec2<f32>(subgroupShuffleXor(v.x, m), subgroupShuffleXor(v.y, m));
        v = dd_add(v, o);
    }
    // barrier: a previous call's readers of wg_slots_f must be done before we overwrite it
    workgroupBarrier();
    if inv.lane == 0u {
        wg_slots_f[inv.sg_id] = v;
    }
    // barrier: every subgroup's partial is in wg_slots_f
    workgroupBarrier();
    var acc = wg_slots_f[0];
    for (var i = 1u; i < inv.n_sg; i++) {
        acc = dd_add(acc, wg_slots_f[i]);
    }
    return acc;
}

// Four independent exclusive prefix sums (one per vector lane) over the workgroup in inv_rank
// order, at the cost of one: returns (exclusive prefixes, totals).
fn wg_scan_add_vec4(inv: Inv, x: vec4<u32>) -> array<vec4<u32>, 2> {
    let excl = subgroupExclusiveAdd(x);
    let sg_total = subgroupAdd(x);
    // barrier: a previous call's readers of wg_slots4 must be done before we overwrite it
    workgroupBarrier();
    if inv.lane == 0u {
        wg_slots4[inv.sg_id] = sg_total;
    }
    // barrier: every subgroup's totals are in wg_slots4
    workgroupBarrier();
    var before = vec4<u32>(0u);
    var total = vec4<u32>(0u);
    for (var i = 0u; i < inv.n_sg; i++) {
        let t = wg_slots4[i];
        before += select(vec4<u32>(0u), t, i < inv.sg_id);
        total += t;
    }
    return array<vec4<u32>, 2>(before + excl, total);
}
