// Segmented radix sort (src/sort/segments.rs), first stage: each segment's bounds, checked and
// listed under the smallest local bucket that holds it. The segments are the split's
// (sort/segment_split.wgsl): s = the smaller of the word `segments[0]`, the offsets bound less
// one and MAX_SEGMENTS (at least one); segment j holds [offsets[j], offsets[j + 1]) clamped to
// the count, the first from 0 and the last to the count. A segment longer than the largest
// bucket, or offsets that decrease (within the count: the split's binary search then gives no
// such ranges), set state[BUCKETS], which sends the whole sort down the global path
// (sort/segment_dispatch.wgsl). Empty segments need nothing, nor do single keys unless their
// index rides along (PAYLOAD 2). state's counters are zero when the stage starts. A grid
// stride over the segments, with the elementwise grid of this run's key count (shared/grid).

//!include shared/grid

override MAX_SEGMENTS: u32 = 1u;
// the buckets (1..6) and their longest segments, ascending
override BUCKETS: u32 = 1u;
override BOUND0: u32 = 0u;
override BOUND1: u32 = 0u;
override BOUND2: u32 = 0u;
override BOUND3: u32 = 0u;
override BOUND4: u32 = 0u;
override BOUND5: u32 = 0u;
// 2: the keys' indices ride along (sort/lib/segment_local.wgsl)
override PAYLOAD: u32 = 0u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> segments: array<u32>;
// each bucket's segment count, then the global path's flag
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
// the buckets' segments, (start, end) pairs: bucket b's i-th at pair bases[b] + i, below
// bases[b + 1] (each bucket's room: at most the segments, and the keys over its shortest
// segment; a segment past it sets the flag)
@group(0) @binding(4) var<storage, read_write> lists: array<u32>;
@group(0) @binding(5) var<storage, read> bases: array<u32>;

fn bound(b: u32) -> u32 {
    switch b {
        case 0u: { return BOUND0; }
        case 1u: { return BOUND1; }
        case 2u: { return BOUND2; }
        case 3u: { return BOUND3; }
        case 4u: { return BOUND4; }
        default: { return BOUND5; }
    }
}

fn bucket_of(m: u32) -> u32 {
    var b = 0u;
    while b + 1u < BUCKETS && m > bound(b) {
        b++;
    }
    return b;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    if wid.x >= grid {
        return;
    }
    let s = max(min(min(segments[0], arrayLength(&offsets) - 1u), MAX_SEGMENTS), 1u);
    let largest = bound(BUCKETS - 1u);
    for (var j = wid.x * WG_SIZE + lid; j < s; j += grid * WG_SIZE) {
        var start = 0u;
        if j > 0u {
            start = min(offsets[j], n);
        }
        var end = n;
        if j + 1u < s {
            end = min(offsets[j + 1u], n);
        }
        if end < start || end - start > largest {
            atomicOr(&state[BUCKETS], 1u);
        } else if end - start > select(1u, 0u, PAYLOAD == 2u) {
            let b = bucket_of(end - start);
            let i = atomicAdd(&state[b], 1u);
            if i < bases[b + 1u] - bases[b] {
                let at = 2u * (bases[b] + i);
                lists[at] = start;
                lists[at + 1u] = end;
            } else {
                // (past the bucket's room: segments that overlap, which only decreasing
                // offsets make, and those set the flag too)
                atomicOr(&state[BUCKETS], 1u);
            }
        }
    }
}
