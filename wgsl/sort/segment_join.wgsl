// Segmented radix sort of keys alone (src/sort/wide.rs), last stage: the sorted sortable keys
// back to raw keys (sort/lib/keys.wgsl) in the caller's buffer. Elementwise over this run's
// count (shared/grid).

//!include shared/grid
//!include sort/lib/keys

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> low: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let walk = element_walk(count_word, wid.x);
    for (var i = walk.x + lid; i < walk.y; i += walk.z) {
        keys[i] = from_sortable(low[i]);
    }
}
