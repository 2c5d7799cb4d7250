// Segmented radix sort, the local path's tiny bucket (src/sort/segments.rs): one invocation
// sorts one segment of at most TINY keys (sort/segment_classify.wgsl lists them as bucket 0),
// by a stable insertion sort of the keys' sortable images (sort/lib/keys.wgsl) on the bits
// [BEGIN_BIT, END_BIT), in private memory, written back in place with their payload.

//!include sort/lib/keys
//!include sort/lib/segment_bits

// the longest segment (at most TINY_MAX) and the bits sorted on
override TINY: u32 = 16u;
const TINY_MAX: u32 = 32u;

@group(0) @binding(0) var<storage, read_write> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> values: array<u32>;
@group(0) @binding(2) var<storage, read> lists: array<u32>;
@group(0) @binding(3) var<storage, read> state: array<u32>;
@group(0) @binding(4) var<storage, read> bases: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if i >= state[0] {
        return;
    }
    // (the tiny bucket is bucket 0: sort/segment_classify.wgsl)
    let at = 2u * (bases[0] + i);
    let start = lists[at];
    let m = min(lists[at + 1u] - start, min(TINY, TINY_MAX));
    var k: array<u32, TINY_MAX>;
    var v: array<u32, TINY_MAX>;
    for (var j = 0u; j < m; j++) {
        let key = to_sortable(keys[start + j]);
        var val = start + j;
        if PAYLOAD == 1u {
            val = values[start + j];
        }
        // insert after every key that sorts at or before it (stable)
        var at = j;
        while at > 0u && sort_bits(k[at - 1u]) > sort_bits(key) {
            k[at] = k[at - 1u];
            v[at] = v[at - 1u];
            at--;
        }
        k[at] = key;
        v[at] = val;
    }
    for (var j = 0u; j < m; j++) {
        keys[start + j] = from_sortable(k[j]);
        if PAYLOAD != 0u {
            values[start + j] = v[j];
        }
    }
}
