// include-only
// Workgroup-wide reductions and scans through workgroup memory only, for adapters without
// `Features::SUBGROUP`. Same functions and results as wg_ops.subgroup.wgsl (integer results are
// identical; double-float sums agree to ~2^-44). The stage file defines `const WG_SIZE: u32`,
// a power of two. Every function contains workgroupBarrier: call from uniform control flow.

//!include shared/ops
//!include shared/inv

var<workgroup> wg_tree: array<u32, WG_SIZE>;
var<workgroup> wg_tree4: array<vec4<u32>, WG_SIZE>;
var<workgroup> wg_tree_f: array<vec2<f32>, WG_SIZE>;


// Tree reduction: pairs (i, i + stride) for halving strides.
fn wg_reduce_u32(inv: Inv, op: u32, x: u32) -> u32 {
    // barrier: a previous call's readers of wg_tree must be done before we overwrite it
    workgroupBarrier();
    wg_tree[inv.lid] = x;
    for (var stride = WG_SIZE / 2u; stride > 0u; stride >>= 1u) {
        // barrier: the previous level is complete
        workgroupBarrier();
        if inv.lid < stride {
            wg_tree[inv.lid] = combine_u32(op, wg_tree[inv.lid], wg_tree[inv.lid + stride]);
        }
    }
    // barrier: the root is written
    workgroupBarrier();
    return wg_tree[0];
}

// Exclusive prefix sum in inv_rank order (Hillis-Steele), and the total.
fn wg_scan_add_u32(inv: Inv, x: u32) -> vec2<u32> {
    // barrier: a previous call's readers of wg_tree must be done before we overwrite it
    workgroupBarrier();
    wg_tree[inv.lid] = x;
    var incl = x;
    for (var d = 1u; d < WG_SIZE; d <<= 1u) {
        // barrier: the previous step's values are visible
        workgroupBarrier();
        let other = select(0u, wg_tree[inv.lid - min(d, inv.lid)], inv.lid >= d);
        // barrier: everybody read before anybody overwrites
        workgroupBarrier();
        incl += other;
        wg_tree[inv.lid] = incl;
    }
    // barrier: the last step is visible
    workgroupBarrier();
    return vec2<u32>(incl - x, wg_tree[WG_SIZE - 1u]);
}


fn wg_reduce_dd(inv: Inv, x: vec2<f32>) -> vec2<f32> {
    // barrier: a previous call's readers of wg_tree_f must be done before we overwrite it
    workgroupBarrier();
    wg_tree_f[inv.lid] = x;
    for (var stride = WG_SIZE / 2u; stride > 0u; stride >>= 1u) {
        // barrier: the previous level is complete
        workgroupBarrier();
        if inv.lid < stride {
            wg_tree_f[inv.lid] = dd_add(wg_tree_f[inv.lid], wg_tree_f[inv.lid + stride]);
        }
    }
    // barrier: the root is written
    workgroupBarrier();
    return wg_tree_f[0];
}

// Four independent exclusive prefix sums (one per vector lane), and their totals.
fn wg_scan_add_vec4(inv: Inv, x: vec4<u32>) -> array<vec4<u32>, 2> {
    // barrier: a previous call's readers of wg_tree4 must be done before we overwrite it
    workgroupBarrier();
    wg_tree4[inv.lid] = x;
    var incl = x;
    for (var d = 1u; d < WG_SIZE; d <<= 1u) {
        // barrier: the previous step's values are visible
        workgroupBarrier();
        let other = select(vec4<u32>(0u), wg_tree4[inv.lid - min(d, inv.lid)], inv.lid >= d);
        // barrier: everybody read before anybody overwrites
        workgroupBarrier();
        incl += other;
        wg_tree4[inv.lid] = incl;
    }
    // barrier: the last step is visible
    workgroupBarrier();
    return array<vec4<u32>, 2>(incl - x, wg_tree4[WG_SIZE - 1u]);
}
