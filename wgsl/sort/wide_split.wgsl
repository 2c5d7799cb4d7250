// Radix sort of 64-bit keys (src/sort/wide.rs), first stage: each key's sortable halves
// (sort/lib/wide.wgsl), the low ones to `low` and the high ones to `high`, for the 32-bit digit
// passes that follow. Elementwise over this run's count (shared/grid).

//!include shared/grid
//!include sort/lib/wide

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> keys: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> low: array<u32>;
@group(0) @binding(3) var<storage, read_write> high: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let walk = element_walk(count_word, wid.x);
    for (var i = walk.x + lid; i < walk.y; i += walk.z) {
        let k = wide_to_sortable(keys[i]);
        low[i] = k.x;
        high[i] = k.y;
    }
}
