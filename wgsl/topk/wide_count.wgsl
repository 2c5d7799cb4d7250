// Top-k by radix select over rows too long for one workgroup, a round's first dispatch
// (topk/lib/wide): the digit ROUND of each candidate key of each row not yet done is counted in
// workgroup memory, and each workgroup adds its nonzero counts to the row's in `hist`. Grid:
// topk/lib/keys' chunks_grid; a workgroup strides over its row's chunks of CHUNK elements.

//!include topk/lib/wide

const WG_SIZE: u32 = 256u;
const_assert WG_SIZE == RADIX;

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read> state: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> hist: array<atomic<u32>>;

var<workgroup> wg_hist: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let part = part_of(wid.x, nwg.x, run_rows(count_word));
    let row = part.x;
    if row >= run_rows(count_word) || part.y >= chunks_of_row() {
        return;
    }
    // (read-only state: the same for the whole workgroup)
    let sel = sel_before(row);
    if sel.done != 0u {
        return;
    }
    atomicStore(&wg_hist[lid], 0u);
    // barrier: the counts are clear
    workgroupBarrier();
    let base = row * COLS;
    for (var c = part.y; c < chunks_of_row(); c += part.z) {
        let end = min(COLS, (c + 1u) * CHUNK);
        for (var i = c * CHUNK + lid; i < end; i += WG_SIZE) {
            let h = to_sortable(input[base + i]);
            let l = lo_of(i);
            if is_candidate(sel, h, l) {
                atomicAdd(&wg_hist[digit_of(ROUND, h, l)], 1u);
            }
        }
    }
    // barrier: the workgroup's candidates are counted
    workgroupBarrier();
    let n = atomicLoad(&wg_hist[lid]);
    if n != 0u {
        atomicAdd(&hist[row * RADIX + lid], n);
    }
}
