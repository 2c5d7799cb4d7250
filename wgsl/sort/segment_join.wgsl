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
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    for (var i = wid.x * WG_SIZE + lid; i < n; i += grid * WG_SIZE) {
        keys[i] = from_sortable(low[i]);
    }
}
