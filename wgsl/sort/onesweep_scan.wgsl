// Radix sort, OneSweep stage 2: each pass's global digit counts become exclusive prefixes (the
// first output position of each digit), in place. One workgroup.

//!include shared/sort_tile

override PASSES: u32 = 4u;

@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    let d = inv_rank(inv);
    for (var p = 0u; p < PASSES; p++) {
        let c = atomicLoad(&state[p * RADIX + d]);
        let sc = wg_scan_add_u32(inv, c);
        atomicStore(&state[p * RADIX + d], sc.x);
    }
}
