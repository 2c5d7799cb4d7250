// Radix sort of 64-bit keys or of segments with the index payload (src/sort/wide.rs): each
// key's index, indices[i] = i, into the caller's buffer, which the digit passes then carry as
// the keys' second value word. Elementwise over this run's count (shared/grid).

//!include shared/grid

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read_write> indices: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let walk = element_walk(count_word, wid.x);
    for (var i = walk.x + lid; i < walk.y; i += walk.z) {
        indices[i] = i;
    }
}
