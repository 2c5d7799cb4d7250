// Segmented sort of 64-bit keys (src/sort/wide_segments.rs): a gather, dst[i] = src[order[i]],
// of one word a key: the keys' high halves into the low pass's order, the values after each
// pass, the low halves into the final order. `order` is a permutation of this run's first
// `count` positions, so every read lies within them. Elementwise over this run's count
// (shared/grid).

//!include shared/grid

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> order: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let walk = element_walk(count_word, wid.x);
    for (var i = walk.x + lid; i < walk.y; i += walk.z) {
        dst[i] = src[order[i]];
    }
}
