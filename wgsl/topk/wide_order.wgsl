// Top-k by radix select over rows too long for one workgroup, the last dispatch: one workgroup
// per row reads the K keys wide_gather left in the row's outputs into workgroup memory and
// writes them back in key order (topk/lib/rank), and clears the row's counter in `taken` for
// the next run (its buffer starts zeroed).

//!include topk/lib/rank

const WG_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read_write> taken: array<u32>;
@group(0) @binding(2) var<storage, read_write> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> indices: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let row = wid.x;
    if row >= run_rows(count_word) {
        return;
    }
    for (var s = lid; s < K; s += WG_SIZE) {
        wg_hi[s] = to_sortable(values[row * K + s]);
        wg_lo[s] = lo_of(indices[row * K + s]);
    }
    if lid == 0u {
        taken[row] = 0u;
    }
    // barriers: the K keys are in workgroup memory, and every read of the outputs is done
    // before they are overwritten
    storageBarrier();
    workgroupBarrier();
    write_ranked(lid, row * K);
}
