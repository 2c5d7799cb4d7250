// Top-k by radix select, one workgroup per row (src/topk/select.rs; topk/lib/select for the
// keys, rounds and choice), for rows short enough for one workgroup or too many for the wide
// stages' scratch. A workgroup takes rows wid.x, wid.x + num_workgroups.x, ... and for each:
// 1. rounds (at most 4 + LO_DIGITS, fewer once the row is done): clear the digit counts; count
//    the candidates' digit over the row (workgroup atomics); choose the bucket (a scan of the
//    counts from the top digit) and narrow the selection to it;
// 2. gather: every key that reaches the prefix (exactly K of them) into workgroup memory, in
//    any order;
// 3. write them to the row's outputs at their ranks (topk/lib/select's write_ranked).

//!include topk/lib/select
//!include topk/lib/rank

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> indices: array<u32>;

var<workgroup> wg_hist: array<atomic<u32>, RADIX>;
var<workgroup> wg_taken: atomic<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let rows = run_rows(count_word);
    let lid = inv.lid;
    for (var row = wid.x; row < rows; row += nwg.x) {
        let base = row * COLS;
        var sel = fresh_sel();
        for (var j = 0u; j < rounds(); j++) {
            atomicStore(&wg_hist[lid], 0u);
            if lid == 0u {
                atomicStore(&wg_taken, 0u);
            }
            // barrier: the counts are clear (and the last row's ranks written)
            workgroupBarrier();
            for (var i = lid; i < COLS; i += WG_SIZE) {
                let h = to_sortable(input[base + i]);
                let l = lo_of(i);
                if is_candidate(sel, h, l) {
                    atomicAdd(&wg_hist[digit_of(j, h, l)], 1u);
                }
            }
            // barrier: every candidate is counted
            workgroupBarrier();
            let pick = choose(inv, sel.needed, atomicLoad(&wg_hist[my_digit(inv)]));
            sel = narrow(sel, j, pick);
            if sel.done != 0u {
                break;
            }
        }
        for (var i = lid; i < COLS; i += WG_SIZE) {
            let h = to_sortable(input[base + i]);
            let l = lo_of(i);
            if is_selected(sel, h, l) {
                let s = atomicAdd(&wg_taken, 1u);
                if s < K {
                    wg_hi[s] = h;
                    wg_lo[s] = l;
                }
            }
        }
        // barrier: the K keys are gathered
        workgroupBarrier();
        write_ranked(lid, row * K);
        // barrier: the keys are read before the next row gathers its own
        workgroupBarrier();
    }
}
