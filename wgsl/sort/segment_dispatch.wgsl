// Segmented radix sort (src/sort/segments.rs), second stage, one invocation: the route. With
// the global path's flag clear (sort/segment_classify.wgsl) each local bucket's grid is a
// workgroup per listed segment (the tiny bucket's, an invocation per segment) and the global
// path's key count (`gate`) is 0; with it set the buckets get no workgroups and the global
// path sorts this run's count.

//!include shared/grid
//!include sort/lib/tile_grid

override BUCKETS: u32 = 1u;
// 1: bucket 0 is sort/segment_tiny.wgsl's, an invocation (not a workgroup) a segment
override TINY_BUCKET: u32 = 0u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> state: array<u32>;
// each bucket's dispatch arguments, three words a bucket
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read_write> gate: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let global = state[BUCKETS] != 0u;
    gate[0] = select(0u, run_elements(count_word), global);
    for (var b = 0u; b < BUCKETS; b++) {
        var groups = select(state[b], 0u, global);
        if b == 0u && TINY_BUCKET != 0u {
            groups = (groups + 255u) / 256u;
        }
        let g = tile_grid(groups);
        args[3u * b] = g.x;
        args[3u * b + 1u] = g.y;
        args[3u * b + 2u] = g.z;
    }
}
