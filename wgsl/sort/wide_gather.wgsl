// Radix sort of 64-bit keys (src/sort/wide.rs), a gather by the sort's order: dst[i] =
// src[order[i] * STRIDE + OFFSET] (the high halves in the low halves' order between the two
// halves' passes; the raw low halves of the keys, STRIDE 2, and the values in the final order
// at the end), or with ORDERED = 0 a copy dst[i] = src[i] (the order itself, or the gathered
// values, into the caller's values). Elementwise over this run's count (shared/grid); order
// holds indices below the count, as the sort made them.

//!include shared/grid

override STRIDE: u32 = 1u;
override OFFSET: u32 = 0u;
override ORDERED: u32 = 1u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    for (var i = wid.x * WG_SIZE + lid; i < n; i += grid * WG_SIZE) {
        let at = select(i, order[i], ORDERED != 0u);
        dst[i] = src[at * STRIDE + OFFSET];
    }
}
