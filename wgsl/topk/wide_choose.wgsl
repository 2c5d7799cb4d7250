// Top-k by radix select over rows too long for one workgroup, a round's second dispatch
// (topk/lib/wide): one workgroup per row not yet done reads the row's digit counts from
// `hist`, clears them, chooses the bucket of the needed-th largest candidate (topk/lib/select)
// and writes the narrowed selection to `state`.

//!include topk/lib/select
//!include topk/lib/wide

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read_write> state: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> hist: array<u32>;

var<workgroup> wg_sel: array<vec4<u32>, 2>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let row = wid.x;
    if row >= run_rows(count_word) {
        return;
    }
    if inv.lid == 0u {
        let s = sel_before(row);
        wg_sel[0] = vec4<u32>(s.prefix, s.mask);
        wg_sel[1] = vec4<u32>(s.needed, s.done, 0u, 0u);
    }
    // (workgroupUniformLoad's barrier: the state is read)
    let w = workgroupUniformLoad(&wg_sel);
    let sel = Sel(w[0].xy, w[0].zw, w[1].x, w[1].y);
    if sel.done != 0u {
        return;
    }
    let at = row * RADIX + my_digit(inv);
    let c = hist[at];
    hist[at] = 0u;
    let next = narrow(sel, ROUND, choose(inv, sel.needed, c));
    if inv.lid == 0u {
        state[2u * row] = vec4<u32>(next.prefix, next.mask);
        state[2u * row + 1u] = vec4<u32>(next.needed, next.done, 0u, 0u);
    }
}
