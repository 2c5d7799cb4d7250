// Radix sort of 64-bit keys (src/sort/wide.rs), last stage: the sorted keys into the caller's
// buffer from the sorted halves. RAW_LOW 0: both halves are sortable (keys alone, whose passes
// carried each half with the other); 1: the low halves are raw, gathered from the input by the
// sort's order (a sort with values), the high ones sortable. Elementwise over this run's count
// (shared/grid).

//!include shared/grid
//!include sort/lib/wide

override RAW_LOW: u32 = 0u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> low: array<u32>;
@group(0) @binding(2) var<storage, read> high: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys: array<vec2<u32>>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    for (var i = wid.x * WG_SIZE + lid; i < n; i += grid * WG_SIZE) {
        let k = vec2<u32>(low[i], high[i]);
        let x = select(wide_low_from_sortable(k), k.x, RAW_LOW != 0u);
        keys[i] = vec2<u32>(x, wide_high_from_sortable(k.y));
    }
}
