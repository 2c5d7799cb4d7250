// Radix sort of 64-bit keys (src/sort/wide.rs), last stage: the sorted keys back into the
// caller's buffer, raw, from their sortable halves (sort/lib/wide.wgsl), which the digit
// passes sorted, each carrying the other. Elementwise over this run's count (shared/grid).

//!include shared/grid
//!include sort/lib/wide

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> low: array<u32>;
@group(0) @binding(2) var<storage, read> high: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys: array<vec2<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let walk = element_walk(count_word, wid.x);
    for (var i = walk.x + lid; i < walk.y; i += walk.z) {
        let k = vec2<u32>(low[i], high[i]);
        keys[i] = vec2<u32>(wide_low_from_sortable(k), wide_high_from_sortable(k.y));
    }
}
