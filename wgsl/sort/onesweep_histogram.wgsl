// Radix sort, OneSweep (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", 2022), stage 1: the global digit counts of every pass in one read of the keys.
// A capped grid walks the tiles; each workgroup counts in workgroup memory and adds its counts to
// state[pass * 256 + digit] (cleared by the plan's fill pass).

//!include shared/sort_tile

override PASSES: u32 = 4u;
override BEGIN_BIT: u32 = 0u;
override END_BIT: u32 = 32u;

@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;

var<workgroup> counts: array<atomic<u32>, 4u * RADIX>;

fn pass_digit(k: u32, p: u32) -> u32 {
    let shift = BEGIN_BIT + 8u * p;
    let bits = min(8u, END_BIT - shift);
    return (k >> shift) & ((1u << bits) - 1u);
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var p = 0u; p < 4u; p++) {
        atomicStore(&counts[p * RADIX + inv.lid], 0u);
    }
    // barrier: counters cleared before anyone counts
    workgroupBarrier();
    // load + count, tile by tile (grid-stride; no barriers inside)
    for (var tile = wid.x; tile < params.tiles; tile += nwg.x) {
        for (var j = 0u; j < KPT; j++) {
            let i = tile * TILE + j * WG_SIZE + inv.lid;
            if i < params.n {
                let k = to_sortable(keys_in[i]);
                for (var p = 0u; p < PASSES; p++) {
                    atomicAdd(&counts[p * RADIX + pass_digit(k, p)], 1u);
                }
            }
        }
    }
    // barrier: this workgroup's counts are complete
    workgroupBarrier();
    // store
    for (var p = 0u; p < PASSES; p++) {
        let c = atomicLoad(&counts[p * RADIX + inv.lid]);
        if c != 0u {
            atomicAdd(&state[p * RADIX + inv.lid], c);
        }
    }
}
