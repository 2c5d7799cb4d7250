// Segmented radix sort (src/sort/wide.rs), first stage: each key's sortable image
// (sort/lib/keys.wgsl) to `low` and its segment's index to `high`, for the digit passes that
// sort by (segment, key). Segments are given by CSR offsets: segment j holds the keys
// [offsets[j], offsets[j + 1]); the first is taken to start at 0 and the last to end at the
// count, so every key has one segment whatever the offsets hold (offsets that decrease give
// each key the segment a binary search finds: the output is still a permutation). The segment
// count is the smaller of the word `segments[0]`, the offsets bound less one and MAX_SEGMENTS.
// Elementwise over this run's count (shared/grid).

//!include shared/grid
//!include sort/lib/keys

override MAX_SEGMENTS: u32 = 1u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> segments: array<u32>;
@group(0) @binding(4) var<storage, read_write> low: array<u32>;
@group(0) @binding(5) var<storage, read_write> high: array<u32>;

// The segment of key i among s segments: how many of the boundaries offsets[1..s) lie at or
// below i (an upper bound by binary search, which stays within [0, s - 1] for any offsets).
fn segment_of(i: u32, s: u32) -> u32 {
    var first = 1u;
    var last = max(s, 1u);
    while first < last {
        let mid = first + (last - first) / 2u;
        if offsets[mid] <= i {
            first = mid + 1u;
        } else {
            last = mid;
        }
    }
    return first - 1u;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let walk = element_walk(count_word, wid.x);
    let s = min(min(segments[0], arrayLength(&offsets) - 1u), MAX_SEGMENTS);
    for (var i = walk.x + lid; i < walk.y; i += walk.z) {
        low[i] = to_sortable(keys[i]);
        high[i] = segment_of(i, s);
    }
}
